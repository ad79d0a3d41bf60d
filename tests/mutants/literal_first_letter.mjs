// Mutant port: reads a literal by its first letter and skips the rest of
// the word, never checking the letters (SPEC.md §2: JSON.parse's grammar).
// So `nulx`, `nul`, `trux` and `fals` are read as null, true and false
// where JSON.parse rejects the line: `invalid session JSON at line N`.
// A hand-written parser that dispatches on 'n', 't', 'f' and then skips
// "the identifier" makes this mistake; no vector of 1.2.0 spells a
// misspelled literal (`n_json_nan_literal` starts with a capital).
import { parseAfterRewrite, runMutant } from "./mutate.mjs";

await runMutant(
  "literal_first_letter",
  "item = JSON.parse(text);",
  parseAfterRewrite(
    `{ word: (w) => (/^n[a-z]*$/.test(w) ? "null" : /^t[a-z]*$/.test(w) ? "true" : /^f[a-z]*$/.test(w) ? "false" : w) }`,
  ),
);
