// Mutant port: trims message by message instead of by closed unit
// (SPEC.md §5), so a tool result can be kept without the assistant that
// requested it.
import { runMutant } from "./mutate.mjs";

await runMutant("trim_by_message", "const all = units(messages);", "const all = messages.map((message) => [message]);");
