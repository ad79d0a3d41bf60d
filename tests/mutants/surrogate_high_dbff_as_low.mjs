// Mutant port: takes U+DBFF, the last high surrogate, for a low half (it
// tests `next >= 0xDBFF` where the low halves start at 0xDC00), so
// `\ud800\udbff` loads where SPEC.md §2.1 says both escapes are lone
// surrogates: `invalid session JSON at line N`. Two other high escapes
// (`i_escaped_two_high_surrogates`, `\ud83d\ud83d`) are still refused.
import { runMutant, surrogatePairsBy } from "./mutate.mjs";

await runMutant(
  "surrogate_high_dbff_as_low",
  'if (!value.isWellFormed()) return "lone surrogate in a string";',
  surrogatePairsBy("(unit, next) => unit <= 0xdbff && next >= 0xdbff && next <= 0xdfff"),
);
