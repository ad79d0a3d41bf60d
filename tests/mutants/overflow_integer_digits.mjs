// Mutant port (passes every vector of 1.1.0): checks a plain integer (no
// fraction, no exponent) for overflow only when it has more than 309
// digits, on the reasoning that the largest double has 309 integer digits.
// But a 309-digit integer above 1.7976931348623158e308 (999...9, 309
// nines) rounds to Infinity too, and SPEC.md §2.1 makes every number that
// rounds past the largest double `invalid session JSON at line N`; the
// mutant accepts it and prints it as null (JSON.stringify(Infinity)). The
// vectors' overflowing integer has 310 digits.
import { runMutant } from "./mutate.mjs";

await runMutant(
  "overflow_integer_digits",
  "if (!Number.isFinite(Number(token))) return `number out of range: ${token}`;",
  "if ((/[.eE]/.test(token) || token.replace(\"-\", \"\").length > 309) && !Number.isFinite(Number(token))) return `number out of range: ${token}`;",
);
