// Builds a mutant port: the JavaScript oracle (tests/oracle/cli.mjs) with
// exactly one deliberate porting mistake, then runs it as the CLI would.
// Each mutant names the oracle text it replaces; if the oracle no longer
// holds that text the mutant refuses to run (exit 70 on every check), so a
// stale mutant can never pass for a caught one.
import { readFileSync } from "node:fs";

export async function runMutant(name, original, replacement) {
  const oracle = new URL("../oracle/cli.mjs", import.meta.url);
  const source = readFileSync(oracle, "utf8");
  const at = source.indexOf(original);
  if (at < 0 || source.indexOf(original, at + 1) >= 0) {
    process.stderr.write(`mutant ${name}: the oracle must hold ${JSON.stringify(original)} exactly once\n`);
    process.exitCode = 70;
    return;
  }
  // A data: URL has no folder: the oracle's own modules are named whole.
  const mutated = (source.slice(0, at) + replacement + source.slice(at + original.length)).replaceAll(
    'from "./',
    `from "${new URL("./", oracle)}`,
  );
  // The mutated oracle runs its own main(process.argv.slice(2)) on import.
  await import(`data:text/javascript;base64,${Buffer.from(mutated).toString("base64")}`);
}
