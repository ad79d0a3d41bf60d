// Mutant port: refuses an option it does not know but ignores every word
// after FILE, so `check FILE extra` succeeds where SPEC §6 says an extra
// argument is a usage error, exit 2 (runner_extra_argument).
import { runMutant } from "./mutate.mjs";

await runMutant(
  "extra_argument_accepted",
  "if (rest.length !== 1) throw new UsageError(`usage: ${command} FILE`);",
  'if (rest.length < 1 || rest[0].startsWith("--")) throw new UsageError(`usage: ${command} FILE`);',
);
