// Side by side: the C++ suite and the original JavaScript, on the same
// history files, in the same run. Run through bench/compare-js.
//
//   node --expose-gc bench/compare.mjs BENCH_BINARY HISTORY_DIR [--quick] [--cap-seconds=N] [--reference]
//
// 1. the C++ binary writes the deterministic histories (JSONL) to
//    HISTORY_DIR, then runs its workloads on them (medians of repetitions);
// 2. this script runs the original algorithm as written on the same files:
//    estimate = Σ JSON.stringify(m).length + 1; trimContext's backward unit
//    scan and its packing loop, which re-estimates unit ∪ kept at every
//    step (quadratic); loadSession = readFile + split + JSON.parse +
//    parseSessionMessage;
// 3. prints every ratio and checks the targets of bench/RESULTS.md.
// --reference: BENCH_BINARY is a reference build (AGENT_SESSION_FAST=OFF);
// its figures are informative, and only the linearity targets (the trim's
// time per message at the large size within 2x of the small one) must hold.
// The JavaScript answers must equal the C++ ones (estimates, kept counts,
// loaded counts), or the comparison is void and the script exits 1.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const [binary, dir, ...flags] = process.argv.slice(2);
if (!binary || !dir) {
  console.error("usage: compare.mjs BENCH_BINARY HISTORY_DIR [--quick] [--cap-seconds=N] [--reference]");
  process.exit(2);
}
const quick = flags.includes("--quick");
const referenceBuild = flags.includes("--reference");
const capSeconds = Number((flags.find((f) => f.startsWith("--cap-seconds=")) ?? "=20").split("=")[1]);

// Workload sizes (messages). Quick mode keeps every run small.
const sizes = quick
  ? { estimate: 10000, trimSmall: 1000, trimLarge: 10000, trimUnlimitedJs: 1000, load: 10000 }
  : { estimate: 100000, trimSmall: 10000, trimLarge: 1000000, trimUnlimitedJs: 40000, load: 1000000 };
const profiles = ["ascii", "cjk", "emoji", "escapes", "numbers"];
const fixedBudget = 200000;
const repetitions = 3;

// ---- The original JavaScript (session.ts, context.ts), as written. ----

function record(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined;
}

function calls(value) {
  return (
    Array.isArray(value) &&
    value.every((call) => {
      const item = record(call);
      return item !== undefined && typeof item.id === "string" && typeof item.name === "string" && "input" in item;
    })
  );
}

function parseSessionMessage(value) {
  const item = record(value);
  if (item === undefined || typeof item.role !== "string" || typeof item.content !== "string") return undefined;
  if (item.role === "user") return { role: "user", content: item.content };
  if (item.role === "assistant" && calls(item.toolCalls)) {
    return {
      role: "assistant",
      content: item.content,
      toolCalls: item.toolCalls.map((call) => ({ id: call.id, name: call.name, input: call.input })),
    };
  }
  if (item.role === "tool" && typeof item.toolCallId === "string" && typeof item.isError === "boolean") {
    return { role: "tool", content: item.content, toolCallId: item.toolCallId, isError: item.isError };
  }
  return undefined;
}

function loadSession(path) {
  const text = readFileSync(path, "utf8");
  return text
    .split("\n")
    .filter(Boolean)
    .map((line, index) => {
      let value;
      try {
        value = JSON.parse(line);
      } catch {
        throw new Error(`invalid session JSON at line ${index + 1}`);
      }
      const message = parseSessionMessage(value);
      if (message === undefined) throw new Error(`invalid session record at line ${index + 1}`);
      return message;
    });
}

function estimateContextChars(messages) {
  let total = 0;
  for (let index = 0; index < messages.length; index++) {
    let serialized;
    try {
      serialized = JSON.stringify(messages[index]);
    } catch (error) {
      throw new Error(`message ${index} cannot be serialized: ${error.message}`);
    }
    if (serialized === undefined) throw new Error(`message ${index} cannot be serialized`);
    total += serialized.length + 1;
  }
  return total;
}

class OverTime extends Error {}

// `deadline` (ms, performance.now() clock) is ours: the packing loop is
// quadratic, so a run that passes it stops and reports a lower bound.
function trimContext(messages, maxChars, deadline = Infinity) {
  const units = [];
  for (let index = messages.length - 1; index >= 0; ) {
    const message = messages[index];
    if (message.role === "tool") {
      let assistantIndex = -1;
      for (let i = index - 1; i >= 0; i--) {
        const candidate = messages[i];
        if (candidate.role === "assistant" && candidate.toolCalls.some((call) => call.id === message.toolCallId)) {
          assistantIndex = i;
          break;
        }
      }
      if (assistantIndex >= 0) {
        units.unshift(messages.slice(assistantIndex, index + 1));
        index = assistantIndex - 1;
        continue;
      }
    }
    units.unshift([message]);
    index--;
  }
  const kept = [];
  for (let u = units.length - 1; u >= 0; u--) {
    const unit = units[u];
    if (estimateContextChars([...unit, ...kept]) > maxChars) {
      if (kept.length === 0) throw new Error("context budget cannot contain the smallest consistent message unit");
      break;
    }
    kept.unshift(...unit);
    if (performance.now() > deadline) throw new OverTime(`${kept.length} of ${messages.length} messages packed`);
  }
  if (kept.length === 0) throw new Error("context budget cannot be empty");
  return kept;
}

// ---- Measuring. ----

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

// Median wall time in seconds of `reps` runs (after one warm-up run when
// `warmUp`), with a full collection before each so garbage from one run is
// not charged to the next.
// Also the median CPU time of the process (every thread: V8's collector
// helpers included), the fairer measure when the machine is shared.
function measure(run, reps, warmUp = true) {
  if (warmUp) run();
  const times = [];
  const cpuTimes = [];
  let result;
  for (let r = 0; r < reps; r++) {
    globalThis.gc?.();
    const cpuStart = process.cpuUsage();
    const start = process.hrtime.bigint();
    result = run();
    times.push(Number(process.hrtime.bigint() - start) / 1e9);
    const cpu = process.cpuUsage(cpuStart);
    cpuTimes.push((cpu.user + cpu.system) / 1e6);
  }
  return { seconds: median(times), cpuSeconds: median(cpuTimes), result };
}

const historyPath = (profile, count) => join(dir, `${profile}-${count}.jsonl`);

function runCpp() {
  const names = [
    `(estimate|serialize)/[a-z]+/${sizes.estimate}$`,
    `trim/[a-z]+/(${sizes.trimSmall}|${sizes.trimLarge}|${sizes.trimUnlimitedJs}|${sizes.estimate})/`,
    `load(_from_memory)?/[a-z]+/${sizes.load}$`,
  ];
  const out = join(dir, "cpp.json");
  const args = [
    `--history_dir=${dir}`,
    `--benchmark_filter=^(${names.join("|")})`,
    `--benchmark_repetitions=${repetitions}`,
    "--benchmark_report_aggregates_only=true",
    `--benchmark_out=${out}`,
    "--benchmark_out_format=json",
  ];
  if (quick) args.push("--benchmark_min_time=0.05");
  console.log(`\n== C++: ${binary} ${args.join(" ")}\n`);
  const run = spawnSync(binary, args, { stdio: "inherit" });
  if (run.status !== 0) throw new Error(`the C++ suite failed (exit ${run.status})`);
  // Aggregates of a constant counter (allocs/iter = 0) print a NaN
  // coefficient of variation, which is not JSON.
  const report = JSON.parse(readFileSync(out, "utf8").replace(/-?\b(nan|NaN|inf|Infinity)\b/g, "null"));
  const medians = new Map();
  for (const b of report.benchmarks) {
    if (b.aggregate_name === "median") medians.set(b.run_name, b);
  }
  return { medians, context: report.context };
}

// real_time and cpu_time are reported in the benchmark's time unit.
function cppSeconds(b) {
  const scale = { ns: 1e-9, us: 1e-6, ms: 1e-3, s: 1 }[b.time_unit];
  return b.real_time * scale;
}
function cppCpuSeconds(b) {
  const scale = { ns: 1e-9, us: 1e-6, ms: 1e-3, s: 1 }[b.time_unit];
  return b.cpu_time * scale;
}

const failures = [];
const rows = [];
// A target a reference build need not meet is reported, not required.
function check(description, ok, detail, { linearity = false } = {}) {
  const required = !referenceBuild || linearity;
  rows.push({ target: description, result: detail, met: ok ? "yes" : required ? "NO" : "no (informative)" });
  if (!ok && required) failures.push(description);
}
function sameAnswer(what, js, cpp) {
  if (js !== cpp) throw new Error(`${what}: JavaScript says ${js}, C++ says ${cpp}: the comparison is void`);
}
const fmt = (seconds) =>
  seconds >= 1 ? `${seconds.toFixed(2)} s` : seconds >= 1e-3 ? `${(seconds * 1e3).toFixed(2)} ms` : `${(seconds * 1e6).toFixed(1)} µs`;
const ratio = (x) => `${x >= 100 ? x.toFixed(0) : x.toFixed(1)}x`;

// ---- The run. ----

console.log(`== writing histories to ${dir}`);
const fileSizes = [...new Set([sizes.estimate, sizes.load])].join(",");
const written = spawnSync(binary, [`--write_histories=${dir}`, `--history_sizes=${fileSizes}`], {
  stdio: ["ignore", "ignore", "inherit"],
});
if (written.status !== 0) throw new Error("cannot write the histories");

const cpp = runCpp();
const builtFast = cpp.context.agent_session_fast;
if (builtFast !== (referenceBuild ? "0" : "1")) {
  throw new Error(`the C++ suite reports agent_session_fast=${builtFast}, but this run ${referenceBuild ? "is" : "is not"} --reference`);
}
const cppRun = (name) => {
  const b = cpp.medians.get(name);
  if (!b) throw new Error(`no C++ median for ${name}`);
  return b;
};

console.log(`\n== JavaScript (Node ${process.version}), medians of ${repetitions}\n`);
const table = [];
for (const profile of profiles) {
  // Estimate.
  const history = loadSession(historyPath(profile, sizes.estimate));
  const est = measure(() => estimateContextChars(history), repetitions);
  const cppEst = cppRun(`estimate/${profile}/${sizes.estimate}`);
  sameAnswer(`estimate/${profile}`, est.result, cppEst.chars);
  const estRatio = est.seconds / cppSeconds(cppEst);
  table.push({
    workload: `estimate/${profile}/${sizes.estimate}`,
    js: fmt(est.seconds),
    cpp: fmt(cppSeconds(cppEst)),
    ratio: ratio(estRatio),
    "cpu ratio": ratio(est.cpuSeconds / cppCpuSeconds(cppEst)),
  });
  check(`estimate/${profile}/${sizes.estimate}: >= 10x Node`, estRatio >= 10, ratio(estRatio));
  check(
    `estimate/${profile}/${sizes.estimate}: >= 2 GB/s`,
    cppEst.bytes_per_second >= 2e9,
    `${(cppEst.bytes_per_second / 1e9).toFixed(2)} GB/s`,
  );
  check(`estimate/${profile}/${sizes.estimate}: no allocation`, cppEst["allocs/iter"] === 0, `${cppEst["allocs/iter"]} allocs/iter`);

  // Trim with the fixed budget, on the estimate's history.
  const fixedName = `trim/${profile}/${sizes.estimate}/budget:${fixedBudget}`;
  const fixed = measure(() => trimContext(history, fixedBudget).length, repetitions);
  sameAnswer(fixedName, fixed.result, cppRun(fixedName).kept);
  const fixedRatio = fixed.seconds / cppSeconds(cppRun(fixedName));
  table.push({
    workload: fixedName,
    js: fmt(fixed.seconds),
    cpp: fmt(cppSeconds(cppRun(fixedName))),
    ratio: ratio(fixedRatio),
    "cpu ratio": ratio(fixed.cpuSeconds / cppCpuSeconds(cppRun(fixedName))),
  });

  // Trim unlimited: quadratic in JavaScript, so one run, capped.
  const unlimitedName = `trim/${profile}/${sizes.trimUnlimitedJs}/budget:unlimited`;
  const prefix = history.slice(0, sizes.trimUnlimitedJs);
  const cppUnlimited = cppSeconds(cppRun(unlimitedName));
  let jsUnlimited;
  let finished = true;
  const start = performance.now();
  try {
    sameAnswer(unlimitedName, trimContext(prefix, Infinity, start + capSeconds * 1000).length, cppRun(unlimitedName).kept);
  } catch (error) {
    if (!(error instanceof OverTime)) throw error;
    finished = false;
    console.log(`  ${unlimitedName}: stopped after ${capSeconds} s (${error.message})`);
  }
  jsUnlimited = (performance.now() - start) / 1000;
  const unlimitedRatio = jsUnlimited / cppUnlimited;
  const shown = `${finished ? "" : ">"}${ratio(unlimitedRatio)}`;
  table.push({ workload: unlimitedName, js: `${finished ? "" : "> "}${fmt(jsUnlimited)}`, cpp: fmt(cppUnlimited), ratio: shown });
  check(`${unlimitedName}: >= 100x Node`, unlimitedRatio >= 100, shown);

  // Linearity of the C++ trim: time per message at the large size within
  // 2x of the small one, for both budgets.
  for (const budget of [String(fixedBudget), "unlimited"]) {
    const small = cppRun(`trim/${profile}/${sizes.trimSmall}/budget:${budget}`).time_per_message;
    const large = cppRun(`trim/${profile}/${sizes.trimLarge}/budget:${budget}`).time_per_message;
    check(
      `trim/${profile} budget:${budget}: per message at ${sizes.trimLarge} within 2x of ${sizes.trimSmall}`,
      large <= 2 * small,
      `${(large * 1e9).toFixed(1)} ns vs ${(small * 1e9).toFixed(1)} ns (${(large / small).toFixed(2)}x)`,
      { linearity: true },
    );
  }
}

// Load: the largest files, one profile at a time (each is held whole).
for (const profile of profiles) {
  const path = historyPath(profile, sizes.load);
  globalThis.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const loaded = measure(() => loadSession(path).length, quick ? repetitions : 3, false);
  const cppLoad = cppRun(`load/${profile}/${sizes.load}`);
  sameAnswer(`load/${profile}`, loaded.result, cppLoad.messages);
  const loadRatio = loaded.seconds / cppSeconds(cppLoad);
  const fileMB = cppLoad.file_MB;
  table.push({
    workload: `load/${profile}/${sizes.load} (${fileMB.toFixed(0)} MB)`,
    js: fmt(loaded.seconds),
    cpp: fmt(cppSeconds(cppLoad)),
    ratio: ratio(loadRatio),
    "cpu ratio": ratio(loaded.cpuSeconds / cppCpuSeconds(cppLoad)),
  });
  check(`load/${profile}/${sizes.load}: >= 3x Node`, loadRatio >= 3, ratio(loadRatio));
  check(`load/${profile}/${sizes.load}: peak heap <= 2.5x file`, cppLoad["peak_heap/file"] <= 2.5, `${cppLoad["peak_heap/file"].toFixed(2)}x`);
  console.log(`  load/${profile}: Node RSS grew ${((process.memoryUsage().rss - rssBefore) / 1e6).toFixed(0)} MB for a ${fileMB.toFixed(0)} MB file`);
}

console.log(`\n== Side by side (wall-time medians; ratio = JavaScript / C++; cpu ratio: the same with CPU time)\n`);
console.table(table);
console.log(`\n== Targets${referenceBuild ? " (reference build: only linearity required)" : ""}\n`);
console.table(rows);
console.log(
  `\nC++: ${cpp.context.host_name}, ${cpp.context.num_cpus} CPUs @ ${cpp.context.mhz_per_cpu} MHz, ` +
    `load average when the C++ suite started: ${cpp.context.load_avg?.map((x) => x.toFixed(2)).join(" ")}`,
);
if (failures.length) {
  console.log(`\n${failures.length} target(s) not met.`);
  process.exit(3);
}
console.log(referenceBuild ? "\nEvery required (linearity) target met." : "\nEvery target met.");
