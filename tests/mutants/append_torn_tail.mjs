// Mutant port: append without the torn-tail guard's check (SPEC §6, as
// §8 words it): a FILE without a final newline always gets one before the
// batch, so the messages land after a torn line instead of the append
// being refused, and the file stays unloadable. Every vector of 1.1.0
// passes; n_append_torn_last_line and n_append_last_line_not_a_message
// catch it.
import { runMutant } from "./mutate.mjs";

await runMutant(
  "append_torn_tail",
  "parseLine(old.subarray(old.lastIndexOf(0x0a) + 1), lineNo); // throws for a torn line",
  "// the torn-tail check skipped",
);
