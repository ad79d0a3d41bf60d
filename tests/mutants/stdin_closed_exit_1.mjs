// Mutant port: answers a closed standard input (`check - <&-`) with exit 1
// and one line, as a Python port does when `sys.stdin` is None and its
// attribute error ends the program, where SPEC §6 says exit 3: an I/O
// error, not an invalid session (runner_stdin_closed).
import { runMutant } from "./mutate.mjs";

await runMutant(
  "stdin_closed_exit_1",
  'if (closedAtStart(0)) throw closedError("input");',
  'if (closedAtStart(0)) { process.stderr.write("cannot read standard input\\n"); process.exit(1); }',
);
