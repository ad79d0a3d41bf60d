// Mutant port: rejects a raw control character in a string only below
// U+001F (`c < 0x1f` where JSON.parse's grammar says `c < 0x20`), so a raw
// U+001F inside a string loads as if escaped, where JSON.parse rejects
// the line (SPEC.md §2: raw control characters in strings are not JSON):
// `invalid session JSON at line N`. The vectors' raw controls are tabs.
import { parseAfterRewrite, runMutant } from "./mutate.mjs";

await runMutant(
  "control_char_1f",
  "item = JSON.parse(text);",
  parseAfterRewrite(`{ string: (s) => s.replaceAll("\\x1f", "\\\\u001f") }`),
);
