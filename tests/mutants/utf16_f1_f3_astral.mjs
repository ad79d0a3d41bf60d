// Mutant port (passes every vector of 1.1.0): counts a character outside
// the BMP as 2 UTF-16 code units only when its UTF-8 form starts with F0 or
// F4, the two lead bytes the UTF-8 table gives rows of their own (F0 90-BF,
// F4 80-8F); those starting with F1-F3 (U+40000-U+FFFFF: the tag characters
// U+E0020-U+E007F of subdivision flags such as England's, plane 15 private
// use) count as 1, as a byte-driven counter that forgets the F1-F3 row
// does. SPEC.md §4: every character outside the BMP is 2. The vectors'
// astral characters start with F0 (emoji) or F4 (U+10FFFF) only.
import { runMutant } from "./mutate.mjs";

await runMutant(
  "utf16_f1_f3_astral",
  "canonical(message).length",
  "[...canonical(message)].reduce((n, c) => n + (c.codePointAt(0) >= 0x10000 && (c.codePointAt(0) < 0x40000 || c.codePointAt(0) >= 0x100000) ? 2 : 1), 0)",
);
