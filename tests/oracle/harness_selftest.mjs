// Checks harness mode (corpus/conformance/harness.md) against exec mode:
// starts one `PORT harness`, sends it run requests (each of the five
// commands, "-" with invalid UTF-8 and NUL bytes, a missing path, a
// directory, usage errors, a relative path with cwd, a 70 KB line, and
// protocol garbage in between), and compares every response with running
// `PORT ARGV...` once per request, byte for byte: exit code, standard output,
// standard error, and for append the file it wrote.
//
//   node tests/oracle/harness_selftest.mjs                 # the oracle
//   node tests/oracle/harness_selftest.mjs -- node tests/mutants/utf8_bytes.mjs
//
// Exit 0 when harness and exec mode agree everywhere, 1 on any difference.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

const separator = process.argv.indexOf("--");
// Words of the port's command that name files here are made absolute, so
// that the runs with a cwd start the same port.
const PORT = (
  separator >= 0 ? process.argv.slice(separator + 1) : [process.execPath, new URL("./cli.mjs", import.meta.url).pathname]
).map((word) => (!isAbsolute(word) && word.includes("/") && existsSync(word) ? resolve(word) : word));
const vectors = new URL("../../corpus/conformance/", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "harness-selftest-"));
let failures = 0;
let count = 0;

function fail(what, detail) {
  failures++;
  console.log(`FAIL ${what}: ${detail}`);
}

// ---------------------------------------------------------------- the harness process

const child = spawn(PORT[0], [...PORT.slice(1), "harness"], { stdio: ["pipe", "pipe", "inherit"] });
const waiting = [];
let buffered = Buffer.alloc(0);
child.stdout.on("data", (chunk) => {
  buffered = Buffer.concat([buffered, chunk]);
  let newline;
  while ((newline = buffered.indexOf(0x0a)) !== -1) {
    const line = buffered.subarray(0, newline).toString("utf8");
    buffered = buffered.subarray(newline + 1);
    const next = waiting.shift();
    if (next) next.resolve(line);
    else fail("harness", `a response nobody asked for: ${line}`);
  }
});
const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
child.on("exit", () => {
  for (const next of waiting.splice(0)) next.reject(new Error("the harness exited"));
});

// Sends one line and waits for one response line, parsed; 10 s at most.
function ask(line) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within 10 s to ${line}`)), 10_000);
    waiting.push({
      resolve: (text) => {
        clearTimeout(timer);
        try {
          resolve(JSON.parse(text));
        } catch {
          reject(new Error(`a response that is not JSON: ${JSON.stringify(text)}`));
        }
      },
      reject: (error) => {
        clearTimeout(timer);
        reject(error);
      },
    });
    child.stdin.write(line + "\n");
  });
}

// ---------------------------------------------------------------- one comparison

const show = (bytes) => JSON.stringify(bytes.toString("latin1"));
let seq = 0;

// Runs argv with stdin in both modes and compares. `file`: a path that the
// command writes (append), removed before each mode and compared after.
async function same(name, argv, stdin = Buffer.alloc(0), { cwd, file } = {}) {
  count++;
  seq++;
  if (file) rmSync(file, { force: true });
  const request = { op: "run", seq, argv, stdin_b64: stdin.toString("base64") };
  if (cwd !== undefined) request.cwd = cwd;
  let answer;
  try {
    answer = await ask(JSON.stringify(request));
  } catch (error) {
    fail(name, error.message);
    return;
  }
  const written = file && existsSync(file) ? readFileSync(file) : undefined;
  if (file) rmSync(file, { force: true });
  const exec = spawnSync(PORT[0], [...PORT.slice(1), ...argv], { input: stdin, cwd });
  const writtenByExec = file && existsSync(file) ? readFileSync(file) : undefined;

  const keys = Object.keys(answer).sort().join(",");
  if (answer.op !== "run" || keys !== "exit,op,seq,stderr_b64,stdout_b64") {
    fail(name, `not a run response: ${JSON.stringify(answer)}`);
    return;
  }
  if (answer.seq !== seq) fail(name, `seq ${answer.seq}, sent ${seq}`);
  const out = Buffer.from(answer.stdout_b64, "base64");
  const err = Buffer.from(answer.stderr_b64, "base64");
  if (exec.status === null) fail(name, `exec mode ended by signal ${exec.signal}`);
  if (answer.exit !== exec.status) fail(name, `exit ${answer.exit} in harness mode, ${exec.status} in exec mode`);
  if (!out.equals(exec.stdout)) fail(name, `stdout ${show(out)} in harness mode, ${show(exec.stdout)} in exec mode`);
  if (!err.equals(exec.stderr)) fail(name, `stderr ${show(err)} in harness mode, ${show(exec.stderr)} in exec mode`);
  if (file && !(written === undefined ? writtenByExec === undefined : writtenByExec?.equals(written))) {
    fail(name, `${file} holds ${written && show(written)} after harness mode, ${writtenByExec && show(writtenByExec)} after exec mode`);
  }
}

// A request that is no run: the harness answers an error and goes on.
async function protocolError(name, line) {
  count++;
  try {
    const answer = await ask(line);
    if (answer.op !== "error" || typeof answer.message !== "string") fail(name, `expected an error, got ${JSON.stringify(answer)}`);
  } catch (error) {
    fail(name, error.message);
  }
}

// ---------------------------------------------------------------- the runs

const B = (text) => Buffer.from(text, "utf8");
const vector = (name) => join(vectors, name, "input.jsonl");
const bytesOf = (name) => readFileSync(vector(name));

try {
  count++;
  const start = await ask(JSON.stringify({ op: "start", protocol: 1 }));
  const commands = start.commands ?? [];
  if (start.op !== "start" || start.protocol !== 1 || typeof start.port?.name !== "string" ||
      !["check", "estimate", "canon", "trim"].every((c) => commands.includes(c))) {
    fail("start", `not a start response: ${JSON.stringify(start)}`);
  }

  // Each command on a file, and the same bytes on "-".
  for (const name of ["y_trim_multiple_rounds", "y_canon_number_integral_forms", "y_estimate_emoji", "n_bad_line_12"]) {
    for (const args of [["check"], ["estimate"], ["canon"], ["trim", "--max-chars", "150"], ["trim", "--max-chars", "0"]]) {
      await same(`${name} ${args.join(" ")} FILE`, [...args, vector(name)]);
      await same(`${name} ${args.join(" ")} -`, [...args, "-"], bytesOf(name));
    }
  }
  // Bytes that only survive as bytes: invalid UTF-8, NUL, a BOM, CR, 70 KB.
  await same("invalid UTF-8 on stdin", ["canon", "-"], Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]));
  await same("NUL outside a string", ["check", "-"], Buffer.from('{"role":"user","content":"x"}\x00\n', "latin1"));
  await same("raw NUL inside a string", ["canon", "-"], Buffer.from('{"role":"user","content":"a\x00b"}\n', "latin1"));
  await same("escaped NUL inside a string", ["canon", "-"], B('{"role":"user","content":"a\\u0000b"}\n'));
  await same("a byte-order mark", ["check", "-"], bytesOf("n_bom_line1"));
  await same("CRLF", ["canon", "-"], bytesOf("y_crlf_line_endings"));
  await same("a 70 KB line", ["estimate", "-"], bytesOf("y_long_line_70k"));
  await same("empty standard input", ["trim", "--max-chars", "5", "-"]);
  // The same argv after a failure: nothing of the last run stays.
  await same("valid after invalid", ["canon", "-"], B('{"role":"user","content":"again"}\n'));

  // Paths: missing, empty, a directory, relative with cwd.
  await same("a missing path", ["check", join(dir, "absent", "session.jsonl")]);
  await same("a missing path, trim", ["trim", "--max-chars", "100", join(dir, "absent.jsonl")]);
  await same("the empty path", ["estimate", ""]);
  await same("a directory", ["canon", dir]);
  await same("a relative path with cwd", ["check", "y_user_valid/input.jsonl"], undefined, { cwd: vectors });
  await same("a relative missing path with cwd", ["check", "nope.jsonl"], undefined, { cwd: dir });

  // Usage errors are run responses (exit 2), never protocol errors.
  for (const argv of [[], ["frobnicate", "-"], ["trim", "-"], ["trim", "--max-chars", "", "-"], ["trim", "--max-chars", "-1", "-"],
                      ["trim", "--max-chars", "\u0665", "-"], ["check"], ["check", "-", "-"], ["harness", "-"]]) {
    await same(`usage ${JSON.stringify(argv)}`, argv, B('{"role":"user","content":"x"}\n'));
  }

  // append: writes FILE (compared too), validates everything first.
  if (commands.includes("append")) {
    const session = join(dir, "appended.jsonl");
    await same("append", ["append", session], bytesOf("y_trim_multiple_rounds"), { file: session });
    await same("append an invalid batch", ["append", session], B('{"role":"user","content":"ok"}\n{"role":"tool"}\n'), { file: session });
    await same("append to -", ["append", "-"], B('{"role":"user","content":"x"}\n'));
    await same("append into a missing folder", ["append", join(dir, "absent", "s.jsonl")], B('{"role":"user","content":"x"}\n'));
    mkdirSync(join(dir, "sub"));
    await same("append, relative with cwd", ["append", "sub/s.jsonl"], B('{"role":"user","content":"x"}\n'), { cwd: dir, file: join(dir, "sub", "s.jsonl") });
  } else {
    console.log("note: the port offers no append; its runs were not compared");
  }

  // Garbage between runs: an error each, and the harness goes on.
  await protocolError("not JSON", "garbage");
  await protocolError("not an object", "[1,2]");
  await protocolError("an unknown op", '{"op":"ping"}');
  await protocolError("run without stdin_b64", '{"op":"run","seq":99,"argv":["check","-"]}');
  await protocolError("stdin_b64 not base64", '{"op":"run","seq":99,"argv":["check","-"],"stdin_b64":"%%%"}');
  await same("a run after the garbage", ["check", vector("y_three_valid_lines")]);

  count++;
  const stop = await ask(JSON.stringify({ op: "stop" }));
  if (stop.op !== "stop" || Object.keys(stop).length !== 1) fail("stop", `not a stop response: ${JSON.stringify(stop)}`);
  const end = await exited;
  if (end.code !== 0) fail("stop", `the harness exited with ${end.code ?? end.signal}, expected 0`);
} catch (error) {
  fail("harness", error.message);
  child.kill("SIGKILL");
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.log(`${count - failures}/${count} passed`);
process.exitCode = failures === 0 ? 0 : 1;
