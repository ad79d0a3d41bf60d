// Checks the conformance matrix's DOM as headless Chromium dumped it
// (in_chromium.sh) against the JSON reports it was made from: the table,
// one column per report in order, one row per vector any report holds,
// each cell the class its report's verdict gives (reports.md, "The
// conformance matrix"), and each column's totals.
// Usage: node check_dom.mjs DOM REPORT.json...
import { readFileSync } from "node:fs";

const [domFile, ...reportFiles] = process.argv.slice(2);
const dom = readFileSync(domFile, "utf8");
const reports = reportFiles.map((file) => JSON.parse(readFileSync(file, "utf8")));
const failures = [];
const expect = (ok, what) => ok || failures.push(what);

const table = dom.match(/<table id="matrix">([\s\S]*?)<\/table>/);
if (!table) {
  console.error("check_dom: no <table id=\"matrix\"> in the DOM");
  process.exit(1);
}
const labels = [...table[1].matchAll(/<th scope="col" class="port"[^>]*>([^<]*)/g)].map((m) => m[1]);
expect(
  JSON.stringify(labels) === JSON.stringify(reports.map((r) => r.label)),
  `port columns ${JSON.stringify(labels)}, expected ${JSON.stringify(reports.map((r) => r.label))}`,
);

// The cell class a report's result gives.
const cellOf = (result) =>
  result.verdict === "skip" ? (result.message.includes("but passes") ? "skip" : "xfail") : result.verdict;
const expected = new Map();
reports.forEach((report, column) => {
  for (const result of report.results) {
    if (!expected.has(result.name)) expected.set(result.name, reports.map(() => "absent"));
    expected.get(result.name)[column] = cellOf(result);
  }
});

const rows = [...table[1].matchAll(/<tr><th scope="row" class="vector"[^>]*>([\s\S]*?)<\/th>([\s\S]*?)<\/tr>/g)];
expect(rows.length === expected.size, `${rows.length} vector rows, expected ${expected.size}`);
const counts = reports.map(() => ({}));
for (const [, head, cells] of rows) {
  const name = head.replace(/<[^>]*>/g, "");
  const classes = [...cells.matchAll(/<td class="cell (\w+)"/g)].map((m) => m[1]);
  const want = expected.get(name);
  expect(want !== undefined, `row ${name}: in no report`);
  expect(JSON.stringify(classes) === JSON.stringify(want), `row ${name}: cells ${classes}, expected ${want}`);
  classes.forEach((kind, column) => (counts[column][kind] = (counts[column][kind] ?? 0) + 1));
}
const passedRow = table[1].match(/<tr><th scope="row">passed<\/th>(.*?)<\/tr>/);
const passed = passedRow ? [...passedRow[1].matchAll(/<td>([^<]*)<\/td>/g)].map((m) => m[1]) : [];
reports.forEach((report, column) => {
  const { passed: p = 0, failed: f = 0 } = report.summary;
  expect((counts[column].pass ?? 0) === p, `${report.label}: ${counts[column].pass} pass cells, report says ${p}`);
  expect((counts[column].fail ?? 0) === f, `${report.label}: ${counts[column].fail} fail cells, report says ${f}`);
  expect(passed[column] === `${p}/${report.summary.vectors}`, `${report.label}: total ${passed[column]}`);
});
const mutant = reports[reports.length - 1];
expect(mutant.summary.failed > 0, `${mutant.label} fails no vector: the matrix shows no failure`);

if (failures.length > 0) {
  for (const failure of failures) console.error(`check_dom: ${failure}`);
  process.exit(1);
}
console.log(
  `check_dom: ${labels.length} columns, ${rows.length} rows, ` +
    reports.map((r, c) => `${r.label} ${counts[c].pass ?? 0} pass ${counts[c].fail ?? 0} fail`).join(", "),
);
