// Mutant port: reads a FILE that does not exist as an empty session
// ("0 messages", exit 0), as the loading function does for the agent loop
// (SPEC §2), where the command line must exit 3 (SPEC §6): a typo would
// look like an empty session.
import { runMutant } from "./mutate.mjs";

await runMutant(
  "missing_file_empty",
  "return readFileSync(file);",
  'try { return readFileSync(file); } catch (error) { if (error.code === "ENOENT") return Buffer.alloc(0); throw error; }',
);
