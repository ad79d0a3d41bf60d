// Mutant port (passes every vector of 1.1.0): matches a message's field
// names without regard to letter case, the last matching key winning, as
// Go's encoding/json does when it decodes into a struct. So
// {"Role":"user","CONTENT":"hi"} is a user message, where SPEC.md §1.1
// says it is not a message (it has no `role` and no `content`: the shared
// preconditions fail, `invalid session record at line 1`). Field names are
// exact, as every key of §1 is; no vector spells one in another case.
import { runMutant } from "./mutate.mjs";

await runMutant(
  "keys_case_insensitive",
  "function parseSessionMessage(item) {",
  `function parseSessionMessage(item) {
  if (isRecord(item)) {
    const fields = ["role", "content", "toolCalls", "toolCallId", "isError"];
    const folded = Object.create(null);
    for (const key of Object.keys(item)) {
      const field = fields.find((name) => name.toLowerCase() === key.toLowerCase());
      if (field !== undefined) folded[field] = item[key];
    }
    item = folded;
  }`,
);
