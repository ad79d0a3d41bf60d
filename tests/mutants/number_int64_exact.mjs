// Mutant port (passes every vector of 1.1.0): prints an integral number
// below 2^63 in magnitude as the exact integer its double holds (an int64
// conversion), instead of ECMAScript's shortest round-trip digits (SPEC.md
// §3). 2^60 prints as 1152921504606846976 where JavaScript prints
// 1152921504606847000. The vectors only hold integers up to 2^53, where
// both agree, and integers past 2^63. A Go or C++ port that prints
// "whole numbers as integers" to dodge its float formatter makes this
// mistake.
import { runMutant } from "./mutate.mjs";

await runMutant(
  "number_int64_exact",
  `function canonical(message) {
  return JSON.stringify(message);
}`,
  `function canonical(message) {
  // JSON.stringify's output, but for the number rule below.
  const print = (value) => {
    if (Array.isArray(value)) return "[" + value.map(print).join(",") + "]";
    if (value !== null && typeof value === "object") {
      return "{" + Object.keys(value).map((key) => JSON.stringify(key) + ":" + print(value[key])).join(",") + "}";
    }
    if (typeof value === "number" && Number.isInteger(value) && Math.abs(value) < 2 ** 63) return BigInt(value).toString();
    return JSON.stringify(value);
  };
  return print(message);
}`,
);
