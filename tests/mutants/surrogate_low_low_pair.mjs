// Mutant port: takes any surrogate escape followed by a low surrogate
// escape as a pair, the first one's range unchecked, so `\udc00\udc00`
// (two lone low surrogates) loads as one character where SPEC.md §2.1
// says an escaped lone surrogate is `invalid session JSON at line N`. A
// decoder that tests `0xD800 <= u <= 0xDFFF` for "a pair starts here"
// makes this mistake; the vectors of 1.2.0 reverse a pair
// (`\udc00\ud800`) but never follow a low half with another.
import { runMutant, surrogatePairsBy } from "./mutate.mjs";

await runMutant(
  "surrogate_low_low_pair",
  'if (!value.isWellFormed()) return "lone surrogate in a string";',
  surrogatePairsBy("(unit, next) => next >= 0xdc00 && next <= 0xdfff"),
);
