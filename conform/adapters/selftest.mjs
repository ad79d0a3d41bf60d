// Checks the adapters of conform/adapters/ against the adapter protocol
// (corpus/conformance/adapter.md) without the C++ kit: starts each one,
// sends start, count and trim requests on hand-made sessions and requests
// it must refuse, checks each answer's shape, seq and identity mapping
// (kept indices against the messages mapped back), and has validate.py
// check every line sent and received against the adapter schemas.
//
//   node conform/adapters/selftest.mjs --install   # npm ci in each adapter's folder
//   node conform/adapters/selftest.mjs [--python PYTHON]
//
// Exit 0 when everything holds, 1 on any problem (each printed as FAIL).
// What the libraries do to SPEC.md §5's invariants is printed for the
// record, not judged here: that is the kit's `properties` command.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { ADAPTERS, SESSION, checkAdapter } from "./selftest_cases.mjs";

const here = new URL(".", import.meta.url).pathname;
const args = process.argv.slice(2);

if (args[0] === "--install") {
  let failed = 0;
  for (const folder of [...new Set(ADAPTERS.map((a) => a.folder))]) {
    // From npm's cache when it holds the pinned versions; otherwise the
    // registry, failing within a minute or two rather than at ctest's timeout.
    const npmCi = ["ci", "--no-audit", "--no-fund", "--prefer-offline", "--fetch-retries=1", "--fetch-timeout=30000"];
    const run = spawnSync("npm", npmCi, { cwd: join(here, folder), stdio: ["ignore", "inherit", "inherit"] });
    if (run.status !== 0) {
      failed++;
      console.log(`FAIL npm ci in conform/adapters/${folder} (exit ${run.status ?? run.signal ?? run.error?.message}): ` +
                  "the adapters' packages come from the npm registry; without it (offline) this test cannot run");
    }
  }
  process.exit(failed ? 1 : 0);
}

const python = args[0] === "--python" ? args[1] : "python3";
const validate = new URL("../../corpus/conformance-schema/validate.py", import.meta.url).pathname;
let failures = 0;
function fail(what, detail) {
  failures++;
  console.log(`FAIL ${what}: ${detail}`);
}

// One adapter process: lines out, lines in, one answer per request
// (adapter.md §2's strict turns), 30 s at most each.
function startAdapter(command) {
  const child = spawn(command[0], [...command.slice(1), "harness"], { stdio: ["pipe", "pipe", "inherit"] });
  const waiting = [];
  const received = [];
  let buffered = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    buffered += chunk;
    let newline;
    while ((newline = buffered.indexOf("\n")) !== -1) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      received.push(line);
      const next = waiting.shift();
      if (next) next.resolve(line);
      else fail(command.join(" "), `a line nobody asked for: ${line}`);
    }
  });
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  child.on("exit", () => waiting.splice(0).forEach((next) => next.reject(new Error("the adapter exited"))));
  const sent = [];
  return {
    sent,
    received,
    exited,
    // `invalid`: a request the adapter must refuse, kept out of the
    // schema check of what was sent.
    ask(request, invalid = false) {
      const line = typeof request === "string" ? request : JSON.stringify(request);
      if (!invalid) sent.push(line);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer within 30 s to ${line.slice(0, 80)}`)), 30_000);
        waiting.push({
          resolve: (text) => { clearTimeout(timer); resolve(JSON.parse(text)); },
          reject: (error) => { clearTimeout(timer); reject(error); },
        });
        child.stdin.write(line + "\n");
      });
    },
    kill: () => child.kill("SIGKILL"),
  };
}

// validate.py --lines: the schemas' verdict on what travelled.
function validateLines(kind, lines, what) {
  const dir = mkdtempSync(join(tmpdir(), "adapters-selftest-"));
  const file = join(dir, `${kind}.jsonl`);
  writeFileSync(file, lines.map((line) => line + "\n").join(""));
  const run = spawnSync(python, ["-W", "ignore", validate, "--lines", kind, file], { encoding: "utf8" });
  if (run.status !== 0) fail(`${what}: ${kind} schema`, (run.stderr || run.error?.message || "").trim());
  rmSync(dir, { recursive: true, force: true });
}

// The schema check is not vacuous: an answer without its count fails it.
const checked = spawnSync(python, ["-W", "ignore", validate, "--lines", "adapter-response", "/dev/stdin"],
                          { input: '{"op":"count","seq":1}\n', encoding: "utf8" });
if (checked.status !== 1) fail("validate.py --lines", `accepted a count answer without count (exit ${checked.status})`);

const installed = ADAPTERS.filter((adapter) => {
  const ok = existsSync(join(here, adapter.folder, "node_modules"));
  if (!ok) fail(adapter.name, `conform/adapters/${adapter.folder}/node_modules is missing: run node conform/adapters/selftest.mjs --install (npm ci) first`);
  return ok;
});

for (const adapter of installed) {
  const command = [process.execPath, join(here, adapter.folder, "adapter.mjs"), ...adapter.options];
  // Without `harness` an adapter is no port either: exit 2 (harness.md §1).
  const bare = spawnSync(command[0], command.slice(1), { input: "", encoding: "utf8" });
  if (bare.status !== 2) fail(adapter.name, `without harness it exited ${bare.status}, not 2`);
  const process_ = startAdapter(command);
  try {
    await checkAdapter(adapter, process_.ask, fail);
    const stop = await process_.ask({ op: "stop" });
    if (!isDeepStrictEqual(stop, { op: "stop" })) fail(adapter.name, `stop answered ${JSON.stringify(stop)}`);
    const end = await Promise.race([process_.exited, new Promise((r) => setTimeout(() => r({ code: "none within 10 s" }), 10_000))]);
    if (end.code !== 0) fail(adapter.name, `after stop it exited ${end.code ?? end.signal}, not 0`);
  } catch (error) {
    fail(adapter.name, error.message);
  } finally {
    process_.kill();
  }
  validateLines("adapter-request", process_.sent, adapter.name);
  validateLines("adapter-response", process_.received, adapter.name);
  console.log(`${adapter.name}: ${process_.sent.length} requests, ${process_.received.length} answers`);
}

console.log(`session of the record: ${SESSION.map((m) => m.role + (m.toolCalls?.length ? `(${m.toolCalls.length} calls)` : "")).join(", ")}`);
console.log(failures ? `${failures} problems` : "ok: every adapter answered as adapter.md says");
process.exit(failures ? 1 : 0);
