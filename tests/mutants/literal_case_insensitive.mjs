// Mutant port: compares the literals null, true and false without regard
// to letter case (SPEC.md §2: JSON.parse's grammar is case-sensitive), so
// `nUll`, `True` and `FALSE` load where JSON.parse rejects the line:
// `invalid session JSON at line N`. A parser that lowercases a word before
// matching it (or uses strcasecmp) makes this mistake; no vector of 1.2.0
// spells a literal in another case.
import { parseAfterRewrite, runMutant } from "./mutate.mjs";

await runMutant(
  "literal_case_insensitive",
  "item = JSON.parse(text);",
  parseAfterRewrite(`{ word: (w) => (["null", "true", "false"].includes(w.toLowerCase()) ? w.toLowerCase() : w) }`),
);
