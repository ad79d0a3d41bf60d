// Mutant port: gives a session that `append` cannot read (FILE a folder,
// EISDIR) an exit code of its own, 4, as a port does that numbers its
// failures one by one (the Python port's P9 does so where it reads FILE
// for check, tests/mutants/README.md), where SPEC §6 says every I/O error
// is exit 3 (runner_append_directory).
import { runMutant } from "./mutate.mjs";

await runMutant(
  "append_directory_exit_4",
  "if (error instanceof SessionError) throw error;\n        return ioError(error);",
  'if (error instanceof SessionError) throw error;\n        return result(4, "", oneLine(`${args.file}: ${error.message}`) + "\\n");',
);
