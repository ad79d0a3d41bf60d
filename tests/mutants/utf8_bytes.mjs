// Mutant port: measures the canonical text in UTF-8 bytes instead of
// UTF-16 code units (SPEC.md §4), the classic mistake of a port whose
// strings are byte strings (C, Go, Rust, Python bytes).
import { runMutant } from "./mutate.mjs";

await runMutant("utf8_bytes", "canonical(message).length", "Buffer.byteLength(canonical(message))");
