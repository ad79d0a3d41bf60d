// Mutant port (passes every vector of 1.1.0): counts a character outside
// the BMP as 2 UTF-16 code units only when its UTF-8 form starts with the
// byte F0 (U+10000-U+3FFFF: emoji, historic scripts, CJK extensions);
// those starting with F1-F4 (U+40000-U+10FFFF: the tag characters of
// subdivision flags such as England's, planes 15-16 private use) count as
// 1, as a byte-driven counter that tests `lead == 0xF0` instead of
// `lead >= 0xF0` does. SPEC.md §4: every character outside the BMP is 2.
// The vectors' astral characters all start with F0.
import { runMutant } from "./mutate.mjs";

await runMutant(
  "utf16_f0_only_astral",
  "canonical(message).length",
  "[...canonical(message)].reduce((n, c) => n + (c.codePointAt(0) >= 0x10000 && c.codePointAt(0) < 0x40000 ? 2 : 1), 0)",
);
