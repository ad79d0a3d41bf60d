// Mutant port (passes every vector of 1.1.0): allows a cut before message p
// by looking only at the first tool result at or after p (as if the results
// that follow belonged to the same round), where SPEC.md §5.1 requires every
// tool result at or after p to have its declaring assistant at or after p.
// It forms wrong units for nested rounds: assistant x, assistant y, result
// y, result x. The cut before assistant y looks allowed (result y is
// answered after it), so result x is sent without assistant x. The
// vectors' interleaved rounds answer x first, which this check sees.
import { runMutant } from "./mutate.mjs";

await runMutant(
  "trim_first_result_only",
  'if (messages[q].role === "tool" && declaring[q] !== -1 && declaring[q] < p) return false;',
  'if (messages[q].role === "tool") return declaring[q] === -1 || declaring[q] >= p;',
);
