// Mutant port: answers an `append` whose FILE cannot be made because its
// folder does not exist (ENOENT) with exit 2, a usage error, as a port
// does that takes a FILE it cannot open for a bad argument, where SPEC §6
// says an I/O error is exit 3 (runner_append_missing_folder).
import { runMutant } from "./mutate.mjs";

await runMutant(
  "append_missing_folder_exit_2",
  "appendFileSync(args.file, prefix + jsonl(messages), { mode: 0o600 });\n      } catch (error) {\n        return ioError(error);",
  'appendFileSync(args.file, prefix + jsonl(messages), { mode: 0o600 });\n      } catch (error) {\n        if (error.code === "ENOENT") return result(2, "", oneLine(`${args.file}: no such folder`) + "\\n");\n        return ioError(error);',
);
