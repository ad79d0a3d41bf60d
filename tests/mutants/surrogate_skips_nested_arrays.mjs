// Mutant port: its lone-surrogate check (SPEC.md §2.1) skips strings held
// in an array inside an array, as a checker that walks objects and their
// arrays but not arrays of arrays does. So {"":[["\ud800"]]} in a tool
// input or a dropped field loads, where §2.1 says an escaped lone
// surrogate is `invalid session JSON at line N` in every value the line
// spells out. The vectors of 1.2.0 put lone surrogates in contents, keys
// and a dropped field's string, never in nested arrays.
import { runMutant } from "./mutate.mjs";

await runMutant(
  "surrogate_skips_nested_arrays",
  'if (!value.isWellFormed()) return "lone surrogate in a string";',
  `const open = [];
      for (let k = 0; k < i; k++) {
        if (text[k] === '"') {
          for (k++; text[k] !== '"'; k += text[k] === "\\\\" ? 2 : 1);
        } else if (text[k] === "[" || text[k] === "{") {
          open.push(text[k]);
        } else if (text[k] === "]" || text[k] === "}") {
          open.pop();
        }
      }
      const inNestedArray = open.length >= 2 && open.at(-1) === "[" && open.at(-2) === "[";
      if (!inNestedArray && !value.isWellFormed()) return "lone surrogate in a string";`,
);
