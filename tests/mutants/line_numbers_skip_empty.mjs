// Mutant port: numbers only the non-empty lines, as the chapter's literal
// `text.split("\n").filter(Boolean)` does, instead of the physical line
// numbers of SPEC.md §2.
import { runMutant } from "./mutate.mjs";

await runMutant(
  "line_numbers_skip_empty",
  "if (lineBytes.length === 0) continue;",
  "if (lineBytes.length === 0) { lineNo--; continue; }",
);
