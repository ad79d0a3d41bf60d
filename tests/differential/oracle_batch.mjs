// Runs many command lines through the JavaScript oracle (../oracle/cli.mjs)
// in one Node.js process, for differential_test.cpp: starting Node costs
// ~60 ms, so 25,000 separate runs would take half an hour.
//
//   node oracle_batch.mjs JOBS RESULTS
//
// JOBS holds one job per line, a JSON array of arguments exactly as the
// command line would pass them (["trim", "--max-chars", "100", "/tmp/h.jsonl"]).
// Each job calls the oracle's own main() with its standard output and error
// captured; RESULTS gets, per job in order, the line "EXIT OUTLEN ERRLEN"
// then OUTLEN bytes of standard output and ERRLEN bytes of standard error.
// The oracle's text is used unchanged but for its last line, which runs
// main on process.argv; this driver must find that line or it refuses.
import { readFileSync, writeFileSync } from "node:fs";

const [jobsPath, resultsPath] = process.argv.slice(2);
const oracle = readFileSync(new URL("../oracle/cli.mjs", import.meta.url), "utf8");
const entry = "process.exitCode = main(process.argv.slice(2));";
if (oracle.split(entry).length !== 2) {
  process.stderr.write(`oracle_batch: cli.mjs must end with ${entry}\n`);
  process.exit(70);
}
// To check the checker: AGENT_SESSION_DIFF_MUTATE='["original text","replacement"]'
// plants one mistake in the oracle (as tests/mutants/ do), and the
// differential test must then fail.
let source = oracle.replace(entry, "export { main };");
if (process.env.AGENT_SESSION_DIFF_MUTATE) {
  const [original, replacement] = JSON.parse(process.env.AGENT_SESSION_DIFF_MUTATE);
  if (source.split(original).length !== 2) {
    process.stderr.write(`oracle_batch: the oracle must hold ${JSON.stringify(original)} exactly once\n`);
    process.exit(70);
  }
  source = source.replace(original, replacement);
}
// A data: URL has no folder: the oracle's own modules are named whole.
source = source.replaceAll('from "./', `from "${new URL("../oracle/", import.meta.url)}`);
const { main } = await import(`data:text/javascript;base64,${Buffer.from(source).toString("base64")}`);

// process.stdout.write(string) encodes UTF-8; capture the same bytes.
function capture(stream, chunks) {
  const original = stream.write;
  stream.write = (chunk) => {
    chunks.push(Buffer.from(chunk));
    return true;
  };
  return () => {
    stream.write = original;
  };
}

const results = [];
for (const line of readFileSync(jobsPath, "utf8").split("\n")) {
  if (line === "") continue;
  const out = [];
  const err = [];
  const restoreOut = capture(process.stdout, out);
  const restoreErr = capture(process.stderr, err);
  let exit;
  try {
    exit = main(JSON.parse(line));
  } finally {
    restoreOut();
    restoreErr();
  }
  const outBytes = Buffer.concat(out);
  const errBytes = Buffer.concat(err);
  results.push(Buffer.from(`${exit} ${outBytes.length} ${errBytes.length}\n`), outBytes, errBytes);
}
writeFileSync(resultsPath, Buffer.concat(results));
