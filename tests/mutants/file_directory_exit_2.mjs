// Mutant port: takes a FILE that is a folder for a bad argument, exit 2,
// as a port does that checks its FILE is a regular file along with its
// arguments (Python's argparse.FileType, a shell's `[ -f "$f" ]`), where
// SPEC §6 says a FILE that cannot be read (EISDIR) is exit 3, an I/O
// error, for check, estimate, canon and trim alike (runner_file_directory).
import { runMutant } from "./mutate.mjs";

await runMutant(
  "file_directory_exit_2",
  "readInput(args.file, readStdin);\n  } catch (error) {\n    return ioError(error);",
  'readInput(args.file, readStdin);\n  } catch (error) {\n    if (error.code === "EISDIR" && args.file !== "-") return result(2, "", oneLine(`${args.file}: not a file`) + "\\n");\n    return ioError(error);',
);
