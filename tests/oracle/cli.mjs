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

import { appendFileSync, fstatSync, readFileSync, statSync } from "node:fs";
import { serveHarness } from "./harness.mjs";

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
    messages.push(parseLine(lineBytes, lineNo));
  }
  return messages;
}

// One non-empty line, physical number lineNo: its message, or the error
// that stops the load (SPEC §2).
function parseLine(lineBytes, lineNo) {
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
  return message;
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

// The torn-tail guard of append (SPEC §6, as §8 words it): FILE's last
// line, when FILE does not end in "\n", is judged as loading would judge
// it. A message gets its "\n" before the batch (returned as the prefix);
// anything else is the load error for that line, and nothing is written.
// A FILE that does not exist has no last line.
function tailPrefix(file) {
  let old;
  try {
    old = readFileSync(file);
  } catch (error) {
    if (error.code === "ENOENT") return "";
    throw error;
  }
  if (old.length === 0 || old[old.length - 1] === 0x0a) return "";
  let lineNo = 1;
  for (const byte of old) if (byte === 0x0a) lineNo++;
  parseLine(old.subarray(old.lastIndexOf(0x0a) + 1), lineNo); // throws for a torn line
  return "\n";
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
      // append (SPEC §6): every message validated above, then FILE's last
      // line, then one plain append of their canonical lines (§3, §7); the
      // file is created 0600, with zero messages too.
      let prefix;
      try {
        prefix = tailPrefix(args.file);
      } catch (error) {
        if (error instanceof SessionError) throw error;
        return ioError(error);
      }
      try {
        appendFileSync(args.file, prefix + jsonl(messages), { mode: 0o600 });
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

// ---------------------------------------------------------------- exec mode

// SPEC §6: a standard output or error that cannot be written (a closed
// pipe, a full disk) is exit 3, never a crash; Node reports it as an
// 'error' event, which unhandled would end the process with a stack trace
// and exit 1. Standard error may be the closed one, so nothing more is
// written to it after its own failure.
function exitOnWriteError(stream, name) {
  stream.on("error", (error) => {
    if (stream === process.stdout) process.stderr.write(oneLine(`cannot write standard ${name}: ${error.message}`) + "\n");
    process.exit(3);
  });
}

// SPEC §6: a closed standard input or output is exit 3. Node.js hides
// one: before any script runs it opens /dev/null read-write on a closed
// descriptor 0, 1 or 2, so reads see an empty input and writes vanish.
// /dev/null open read-write on 0 or 1 is taken for that (a shell's
// `< /dev/null` opens it read-only, `> /dev/null` write-only; only
// `<> /dev/null` is mistaken for a closed stream). /proc/self/fdinfo shows
// the access mode (Linux).
function closedAtStart(fd) {
  try {
    const devNull = statSync("/dev/null");
    const stream = fstatSync(fd);
    if (!stream.isCharacterDevice() || stream.rdev !== devNull.rdev) return false;
    const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "latin1"));
    return flags !== null && (parseInt(flags[1], 8) & 3) === 2;
  } catch {
    return false;
  }
}

function closedError(name) {
  return Object.assign(new Error(`EBADF: bad file descriptor: standard ${name} is closed`), { code: "EBADF" });
}

function readStandardInput() {
  if (closedAtStart(0)) throw closedError("input");
  return readFileSync(0);
}

function main(argv) {
  if (argv.length === 1 && argv[0] === "harness") return serveHarness({ runCommand, oneLine, isRecord });
  exitOnWriteError(process.stdout, "output");
  exitOnWriteError(process.stderr, "error");
  const run = runCommand(argv, readStandardInput);
  if (run.stdout.length > 0 && closedAtStart(1)) {
    process.stderr.write(oneLine(`cannot write standard output: ${closedError("output").message}`) + "\n");
    return 3;
  }
  if (run.stdout.length > 0) process.stdout.write(run.stdout);
  if (run.stderr.length > 0) process.stderr.write(run.stderr);
  return run.exit;
}

process.exitCode = main(process.argv.slice(2));
