// Mutant port (passes every vector of 1.1.0): decides whether a key of
// `input` is an array index (SPEC.md §3: the canonical decimal form of
// 0...4294967294, printed first, ascending) by accumulating its digits in
// a 32-bit unsigned integer that wraps instead of overflowing, then
// comparing with 4294967294. "4294967295" is still refused (it is 2^32-1),
// but "4294967296" wraps to 0 and becomes index 0, so it moves ahead of
// the string keys; in JavaScript it stays in insertion order. The
// vectors' longest key of digits is "4294967295".
import { runMutant } from "./mutate.mjs";

await runMutant(
  "key_index_uint32_wrap",
  `function canonical(message) {
  return JSON.stringify(message);
}`,
  `function canonical(message) {
  // JSON.stringify's output, but for the key order below.
  const wrapped = (key) => (/^(?:0|[1-9][0-9]*)$/.test(key) ? Number(BigInt(key) % 4294967296n) : -1);
  const isIndex = (key) => wrapped(key) >= 0 && wrapped(key) <= 4294967294;
  const ordered = (keys) => [
    ...keys.filter(isIndex).sort((a, b) => wrapped(a) - wrapped(b)),
    ...keys.filter((key) => !isIndex(key)),
  ];
  const print = (value) => {
    if (Array.isArray(value)) return "[" + value.map(print).join(",") + "]";
    if (value !== null && typeof value === "object") {
      return "{" + ordered(Object.keys(value)).map((key) => JSON.stringify(key) + ":" + print(value[key])).join(",") + "}";
    }
    return JSON.stringify(value);
  };
  return print(message);
}`,
);
