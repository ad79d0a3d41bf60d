// Mutant port: reads a number as an optional '-' and then zero or more
// digits, so a lone `-` is a number (negative zero) where JSON.parse
// rejects the line (SPEC.md §2: JSON.parse's grammar; a number needs a
// digit after its sign): `invalid session JSON at line N`. No vector of
// 1.2.0 holds a sign without digits.
import { parseAfterRewrite, runMutant } from "./mutate.mjs";

await runMutant("number_lone_minus", "item = JSON.parse(text);", parseAfterRewrite(`{ number: (n) => (n === "-" ? "-0" : n) }`));
