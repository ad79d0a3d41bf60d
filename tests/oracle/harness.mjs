// The oracle's harness mode (corpus/conformance/harness.md), apart from
// cli.mjs so that each file stays short; cli.mjs hands it the functions it
// shares (runCommand, the one path exec mode takes too).
import { readSync, writeSync } from "node:fs";

let runCommand, oneLine, isRecord;

// corpus/conformance/harness.md, protocol 1: `cli.mjs harness` reads one
// JSON request a line on standard input and writes one JSON response a line
// on standard output, running each command through runCommand exactly as
// exec mode does. Synchronous (readSync/writeSync), so requests are taken
// strictly one at a time and main still returns an exit code.

const HARNESS_PROTOCOL = 1;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

// Waits a little: a descriptor that is non-blocking (EAGAIN) is polled.
function pause() {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
}

// The lines of file descriptor `fd`, as Buffers without their "\n"; a last
// line without "\n" counts too.
function* lines(fd) {
  const chunk = Buffer.alloc(1 << 16);
  let pending = Buffer.alloc(0);
  for (;;) {
    let n;
    try {
      n = readSync(fd, chunk, 0, chunk.length, null);
    } catch (error) {
      if (error.code === "EAGAIN") {
        pause();
        continue;
      }
      if (error.code === "EOF") n = 0;
      else throw error;
    }
    if (n === 0) break;
    pending = Buffer.concat([pending, chunk.subarray(0, n)]);
    let newline;
    while ((newline = pending.indexOf(0x0a)) !== -1) {
      yield pending.subarray(0, newline);
      pending = pending.subarray(newline + 1);
    }
  }
  if (pending.length > 0) yield pending;
}

function writeAll(fd, bytes) {
  let at = 0;
  while (at < bytes.length) {
    try {
      at += writeSync(fd, bytes, at, bytes.length - at);
    } catch (error) {
      if (error.code !== "EAGAIN") throw error;
      pause();
    }
  }
}

// Why `request` is not a run request of protocol 1, or undefined.
function runRequestProblem(request) {
  if (!Number.isSafeInteger(request.seq) || request.seq < 0) return "seq must be an integer from 0 to 2^53-1";
  if (!Array.isArray(request.argv) || !request.argv.every((arg) => typeof arg === "string")) return "argv must be an array of strings";
  if (!request.argv.every((arg) => arg.isWellFormed())) return "an argument holds a lone surrogate, which no UTF-8 argument can";
  if (typeof request.stdin_b64 !== "string" || !BASE64.test(request.stdin_b64)) return "stdin_b64 must be base64 (RFC 4648, padded)";
  if (request.cwd !== undefined && (typeof request.cwd !== "string" || request.cwd === "" || request.cwd.includes("\0"))) {
    return "cwd must be a path (a non-empty string without NUL)";
  }
  return undefined;
}

// fn() run with `cwd` (when given) as the working directory, as exec mode
// started there would run; a relative cwd ("run-17", what the runner
// sends) resolves against the directory the harness started in, where
// every run leaves it: that directory is back afterwards. A cwd that
// cannot be entered is the run's I/O error, exit 3.
function inDirectory(cwd, fn) {
  if (cwd === undefined) return fn();
  const home = process.cwd();
  try {
    process.chdir(cwd);
  } catch (error) {
    return { exit: 3, stdout: Buffer.alloc(0), stderr: Buffer.from(oneLine(`cwd ${cwd}: ${error.message}`) + "\n", "utf8") };
  }
  try {
    return fn();
  } finally {
    process.chdir(home);
  }
}

// The answer to one request line, and whether to stop after sending it
// (undefined: go on; a number: exit with it).
function answerHarness(line) {
  let request;
  try {
    request = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(line));
  } catch (error) {
    return [{ op: "error", message: oneLine(`not a JSON request: ${error.message}`) }];
  }
  if (!isRecord(request)) return [{ op: "error", message: "a request is a JSON object" }];
  if (request.op === "start") {
    if (request.protocol !== HARNESS_PROTOCOL) {
      return [{ op: "error", message: `protocol ${JSON.stringify(request.protocol)} is not spoken here; protocol ${HARNESS_PROTOCOL} is` }, 1];
    }
    return [
      {
        op: "start",
        protocol: HARNESS_PROTOCOL,
        port: { name: "agent-session-oracle", version: "1.2.0", language: "JavaScript" },
        commands: ["check", "estimate", "canon", "trim", "append"],
      },
    ];
  }
  if (request.op === "run") {
    const problem = runRequestProblem(request);
    if (problem !== undefined) {
      const seq = Number.isSafeInteger(request.seq) && request.seq >= 0 ? { seq: request.seq } : {};
      return [{ op: "error", message: `run request: ${problem}`, ...seq }];
    }
    const stdin = Buffer.from(request.stdin_b64, "base64");
    const run = inDirectory(request.cwd, () => runCommand(request.argv, () => stdin));
    return [
      {
        op: "run",
        seq: request.seq,
        exit: run.exit,
        stdout_b64: run.stdout.toString("base64"),
        stderr_b64: run.stderr.toString("base64"),
      },
    ];
  }
  if (request.op === "stop") return [{ op: "stop" }, 0];
  return [{ op: "error", message: oneLine(`unknown op ${JSON.stringify(request.op)}`) }];
}

export function serveHarness(oracle) {
  ({ runCommand, oneLine, isRecord } = oracle);
  try {
    for (const line of lines(0)) {
      const [answer, exit] = answerHarness(line);
      writeAll(1, Buffer.from(JSON.stringify(answer) + "\n", "utf8"));
      if (exit !== undefined) return exit;
    }
    return 0; // end of input: the runner is gone, as good as stop
  } catch (error) {
    // Standard input or output failed (the runner closed its end): nothing
    // can be answered any more.
    process.stderr.write(oneLine(`harness: ${error.message}`) + "\n");
    return 3;
  }
}

