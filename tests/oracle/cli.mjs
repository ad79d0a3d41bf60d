#!/usr/bin/env node
// Independent JavaScript oracle for the session layer (see README.md beside
// this file). It deliberately uses JavaScript's own JSON.parse, JSON.stringify
// and String.prototype.length, plus the four strictness rules of
// SPEC.md §2.1. Written to be obviously correct, not fast.
//
//   node cli.mjs check FILE
//   node cli.mjs estimate FILE
//   node cli.mjs canon FILE
//   node cli.mjs trim --max-chars N FILE
//   node cli.mjs append FILE          (the messages on standard input)
//   node cli.mjs harness              (corpus/conformance/harness.md)
//
// FILE may be "-" (standard input), but for append. Exit codes: 0 ok, 1
// invalid session or budget error, 2 usage error, 3 other I/O error (70: a
// bug in this oracle).

import { appendFileSync, readFileSync, readSync, writeSync } from "node:fs";

const MAX_DEPTH = 512;
const U64_MAX = 2n ** 64n - 1n;

class SessionError extends Error {} // exit 1
class UsageError extends Error {} // exit 2

// ---------------------------------------------------------------- loading

// One line on stderr: keep JavaScript's detail but drop anything that could
// break the line (control characters, U+2028/U+2029).
function oneLine(text) {
  return String(text).replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, " ");
}

function jsonError(lineNo, detail) {
  return new SessionError(`invalid session JSON at line ${lineNo}: ${oneLine(detail)}`);
}

// SPEC §2.1, applied to the raw text of a line that JSON.parse accepted.
// Scanning the text (rather than walking the parsed value) also sees values
// that a later duplicate key overwrote, as a parser that checks while it reads
// would. Returns an error detail, or undefined when the line is fine.
function strictnessProblem(text) {
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === "[" || c === "{") {
      depth++;
      if (depth > MAX_DEPTH) return `nesting deeper than ${MAX_DEPTH}`;
      i++;
    } else if (c === "]" || c === "}") {
      depth--;
      i++;
    } else if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      const value = JSON.parse(text.slice(i, j + 1)); // a string or an object key
      if (!value.isWellFormed()) return "lone surrogate in a string";
      i = j + 1;
    } else if (c === "-" || (c >= "0" && c <= "9")) {
      const number = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
      number.lastIndex = i;
      const token = number.exec(text)[0];
      if (!Number.isFinite(Number(token))) return `number out of range: ${token}`;
      i += token.length;
    } else {
      i++; // whitespace, ',', ':', true, false, null
    }
  }
  return undefined;
}

// A record (SPEC §1.1): a non-null object that is not an array.
function isRecord(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// A list of tool calls (SPEC §1.1), with "own key" for input.
function isToolCalls(value) {
  return (
    Array.isArray(value) &&
    value.every(
      (call) =>
        isRecord(call) &&
        typeof call.id === "string" &&
        typeof call.name === "string" &&
        Object.hasOwn(call, "input"),
    )
  );
}

// parseSessionMessage: a normalized message (SPEC §1.1), or undefined.
function parseSessionMessage(item) {
  if (!isRecord(item) || typeof item.role !== "string" || typeof item.content !== "string") {
    return undefined;
  }
  if (item.role === "user") {
    return { role: "user", content: item.content };
  }
  if (item.role === "assistant" && isToolCalls(item.toolCalls)) {
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

function loadSession(bytes) {
  const messages = [];
  let start = 0;
  let lineNo = 0;
  while (start <= bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    if (end === -1) end = bytes.length;
    lineNo++;
    const lineBytes = bytes.subarray(start, end);
    start = end + 1;
    if (lineBytes.length === 0) continue; // only an exactly empty line is skipped

    let text;
    try {
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(lineBytes);
    } catch {
      throw jsonError(lineNo, "not valid UTF-8");
    }
    let item;
    try {
      item = JSON.parse(text);
    } catch (error) {
      throw jsonError(lineNo, error.message); // RangeError on absurd depth included
    }
    const problem = strictnessProblem(text);
    if (problem !== undefined) throw jsonError(lineNo, problem);

    const message = parseSessionMessage(item);
    if (message === undefined) throw new SessionError(`invalid session record at line ${lineNo}`);
    messages.push(message);
  }
  return messages;
}

// ---------------------------------------------------------------- context

function canonical(message) {
  return JSON.stringify(message);
}

function estimate(messages) {
  let sum = 0;
  for (const message of messages) sum += canonical(message).length + 1;
  return sum;
}

// Index of the nearest earlier assistant declaring messages[index]'s call id,
// or -1 (an orphan).
function declaringAssistant(messages, index) {
  const id = messages[index].toolCallId;
  for (let i = index - 1; i >= 0; i--) {
    const candidate = messages[i];
    if (candidate.role === "assistant" && candidate.toolCalls.some((call) => call.id === id)) return i;
  }
  return -1;
}

// SPEC §5.1: a cut before p is allowed only if every tool result at or
// after p has its declaring assistant (if any) at or after p.
function units(messages) {
  const declaring = messages.map((m, i) => (m.role === "tool" ? declaringAssistant(messages, i) : -1));
  const cutAllowed = (p) => {
    for (let q = p; q < messages.length; q++) {
      if (messages[q].role === "tool" && declaring[q] !== -1 && declaring[q] < p) return false;
    }
    return true;
  };
  const result = [];
  let unitStart = 0;
  for (let p = 1; p <= messages.length; p++) {
    if (p === messages.length || cutAllowed(p)) {
      result.push(messages.slice(unitStart, p));
      unitStart = p;
    }
  }
  return result;
}

function trimContext(messages, maxChars /* BigInt */) {
  const all = units(messages);
  let kept = [];
  for (let u = all.length - 1; u >= 0; u--) {
    const candidate = all[u].concat(kept);
    if (BigInt(estimate(candidate)) > maxChars) {
      if (kept.length === 0) {
        throw new SessionError("context budget cannot contain the smallest consistent message unit");
      }
      break;
    }
    kept = candidate;
  }
  if (kept.length === 0) throw new SessionError("context budget cannot be empty");
  return kept;
}

// ---------------------------------------------------------------- CLI

function parseArgs(argv) {
  const [command, ...rest] = argv;
  if (command === "check" || command === "estimate" || command === "canon") {
    if (rest.length !== 1) throw new UsageError(`usage: ${command} FILE`);
    return { command, file: rest[0] };
  }
  if (command === "trim") {
    if (rest.length !== 3 || rest[0] !== "--max-chars") throw new UsageError("usage: trim --max-chars N FILE");
    if (!/^[0-9]+$/.test(rest[1])) throw new UsageError(`--max-chars needs a non-negative decimal integer, got ${JSON.stringify(rest[1])}`);
    let maxChars = BigInt(rest[1]);
    if (maxChars > U64_MAX) maxChars = U64_MAX; // saturates: acts as unlimited
    return { command, file: rest[2], maxChars };
  }
  if (command === "append") {
    if (rest.length !== 1) throw new UsageError("usage: append FILE");
    if (rest[0] === "-") throw new UsageError("append needs a session file, not '-': the messages come on standard input");
    return { command, file: rest[0] };
  }
  throw new UsageError("usage: cli.mjs check|estimate|canon|append FILE | trim --max-chars N FILE");
}

// A FILE that does not exist is an I/O error, exit 3, never an empty
// session (SPEC §6): Node's message says "no such file or directory".
function readInput(file, readStdin) {
  if (file === "-") return readStdin();
  return readFileSync(file);
}

function jsonl(messages) {
  return messages.map((m) => canonical(m) + "\n").join("");
}

// One command line, as exec mode runs it, without touching the process:
// readStdin() gives standard input's bytes (asked only for "-" and for
// append). Returns {exit, stdout, stderr} with the streams as Buffers. Exec mode (main) and
// harness mode (serveHarness) both run commands through it, and it keeps
// nothing between calls.
function runCommand(argv, readStdin) {
  const result = (exit, stdout, stderr) => ({ exit, stdout: Buffer.from(stdout, "utf8"), stderr: Buffer.from(stderr, "utf8") });
  let args;
  try {
    args = parseArgs(argv);
  } catch (error) {
    return result(2, "", oneLine(error.message) + "\n");
  }
  const ioError = (error) => result(3, "", oneLine(`${args.file}: ${error.message}`) + "\n");
  let bytes;
  try {
    bytes = args.command === "append" ? readStdin() : readInput(args.file, readStdin);
  } catch (error) {
    return ioError(error);
  }
  try {
    const messages = loadSession(bytes);
    let out;
    if (args.command === "check") out = `${messages.length} messages\n`;
    else if (args.command === "estimate") out = `${estimate(messages)}\n`;
    else if (args.command === "canon") out = jsonl(messages);
    else if (args.command === "trim") out = jsonl(trimContext(messages, args.maxChars));
    else {
      // append (SPEC §6): every message validated above, then one plain
      // append of their canonical lines (§3, §7); the file is created 0600.
      try {
        appendFileSync(args.file, jsonl(messages), { mode: 0o600 });
      } catch (error) {
        return ioError(error);
      }
      out = "";
    }
    return result(0, out, "");
  } catch (error) {
    if (!(error instanceof SessionError)) {
      return result(70, "", oneLine(`internal error: ${error.stack}`) + "\n"); // a bug in the oracle, never a verdict
    }
    return result(1, "", error.message + "\n");
  }
}

// ---------------------------------------------------------------- harness mode

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
  if (request.cwd !== undefined && (typeof request.cwd !== "string" || !request.cwd.startsWith("/"))) return "cwd must be an absolute path";
  return undefined;
}

// fn() run with `cwd` (when given) as the working directory, as exec mode
// started there would run; the harness's own directory is back afterwards.
// A cwd that cannot be entered is the run's I/O error, exit 3.
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
        port: { name: "agent-session-oracle", version: "1.1.0", language: "JavaScript" },
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

function serveHarness() {
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

// ---------------------------------------------------------------- exec mode

function main(argv) {
  if (argv.length === 1 && argv[0] === "harness") return serveHarness();
  const run = runCommand(argv, () => readFileSync(0));
  if (run.stdout.length > 0) process.stdout.write(run.stdout);
  if (run.stderr.length > 0) process.stderr.write(run.stderr);
  return run.exit;
}

process.exitCode = main(process.argv.slice(2));
