// Mutant port: accepts U+E000 as the low half after a high surrogate
// escape (it tests `next <= 0xE000` where the low halves end at 0xDFFF),
// so `\ud800\ue000` loads where SPEC.md §2.1 says the high escape is a
// lone surrogate: `invalid session JSON at line N`. The vectors of 1.2.0
// follow a high escape with `\u0041`-like escapes only.
import { runMutant, surrogatePairsBy } from "./mutate.mjs";

await runMutant(
  "surrogate_low_half_e000",
  'if (!value.isWellFormed()) return "lone surrogate in a string";',
  surrogatePairsBy("(unit, next) => unit <= 0xdbff && next >= 0xdc00 && next <= 0xe000"),
);
