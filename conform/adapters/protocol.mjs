// The adapter's side of the adapter protocol (corpus/conformance/adapter.md):
// harness.md's framing and start/stop handshake, with two requests of its
// own, `count` and `trim`. Each adapter gives serve() what it says of itself
// and two functions over our messages (SPEC.md §1's three shapes); this file
// reads the lines, checks the requests and writes the answers, so that an
// adapter holds only its library's mapping.
import { createInterface } from "node:readline";

const SEQ_MAX = 2 ** 53 - 1;

function isString(value) {
  return typeof value === "string";
}

// Why `value` is not one of SPEC.md §1's normalized shapes, or "" when it is.
// Stricter than SPEC.md §1.1 on purpose: a request carries the normalized
// form (adapter.md §3), so an unknown field is a sender's error, not one to
// drop.
export function messageProblem(value) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "not an object";
  const keys = Object.keys(value).join(",");
  if (value.role === "user") {
    return keys === "role,content" && isString(value.content) ? "" : "a user is {role, content}";
  }
  if (value.role === "assistant") {
    if (keys !== "role,content,toolCalls" || !isString(value.content) || !Array.isArray(value.toolCalls)) {
      return "an assistant is {role, content, toolCalls}";
    }
    for (const call of value.toolCalls) {
      const ok = call !== null && typeof call === "object" && !Array.isArray(call) &&
        Object.keys(call).join(",") === "id,name,input" && isString(call.id) && isString(call.name);
      if (!ok) return "a tool call is {id, name, input}";
    }
    return "";
  }
  if (value.role === "tool") {
    return keys === "role,content,toolCallId,isError" && isString(value.content) && isString(value.toolCallId) &&
      typeof value.isError === "boolean"
      ? ""
      : "a tool result is {role, content, toolCallId, isError}";
  }
  return "role is not user, assistant or tool";
}

function requestProblem(request) {
  if (request === null || typeof request !== "object" || Array.isArray(request)) return "not a JSON object";
  const { op } = request;
  if (op === "start") return request.protocol === 1 ? "" : "start without protocol 1";
  if (op === "stop") return "";
  if (op !== "count" && op !== "trim") return `unknown op ${JSON.stringify(op)}`;
  if (!Number.isSafeInteger(request.seq) || request.seq < 0 || request.seq > SEQ_MAX) return `${op} without seq`;
  if (!Array.isArray(request.messages)) return `${op} without messages`;
  for (const [index, message] of request.messages.entries()) {
    const problem = messageProblem(message);
    if (problem) return `message ${index} is not one of SPEC.md §1's shapes: ${problem}`;
  }
  if (op === "trim" && !(Number.isSafeInteger(request.budget) && request.budget >= 0)) {
    return "trim without budget (a non-negative integer)";
  }
  return "";
}

// harness.md §2's limits, read off the line's bytes without recursion
// (JSON.parse and the mappings would recurse over a value nested 10^6
// deep): at most 64 levels, at most 10,000 values, keys included.
const MAX_DEPTH = 64;
const MAX_VALUES = 10_000;
export function sizeProblem(line) {
  const bytes = Buffer.from(line, "utf8");
  let depth = 0;
  let values = 0;
  let inString = false;
  let previous = 0x5b; // as if after "[": the first token is a value
  for (let at = 0; at < bytes.length; at++) {
    const byte = bytes[at];
    if (inString) {
      if (byte === 0x5c) at++; // a backslash: the next byte is escaped
      else if (byte === 0x22) inString = false;
      continue;
    }
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
    const startsToken = previous === 0x5b || previous === 0x7b || previous === 0x2c || previous === 0x3a;
    if (byte === 0x22) inString = true;
    if (byte === 0x5b || byte === 0x7b) {
      if (++depth > MAX_DEPTH) return `request nested deeper than ${MAX_DEPTH} levels at byte ${at}`;
    } else if (byte === 0x5d || byte === 0x7d) depth--;
    if ((byte === 0x22 || byte === 0x5b || byte === 0x7b || startsToken) && byte !== 0x5d && byte !== 0x7d &&
        ++values > MAX_VALUES) {
      return `request holds more than ${MAX_VALUES} JSON values at byte ${at}`;
    }
    previous = byte;
  }
  return "";
}

// What the library raised, on one line (harness.md §2: one message a line
// is JSON's doing, but a report quotes it).
function refusal(error) {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, " ") || "refused";
}

// Answers one request (the parsed line) as adapter.md §3 says.
async function answer(request, about, adapter) {
  const problem = requestProblem(request);
  if (problem) {
    const seq = request && Number.isSafeInteger(request.seq) && request.seq >= 0 ? { seq: request.seq } : {};
    return { op: "error", message: problem, ...seq };
  }
  const { op, seq } = request;
  if (op === "start") {
    return { op: "start", protocol: 1, port: about.port, commands: ["count", "trim"], adapter: about.adapter };
  }
  if (op === "stop") return { op: "stop" };
  try {
    if (op === "count") return { op, seq, count: await adapter.count(request.messages) };
    const { kept, messages } = await adapter.trim(request.messages, request.budget);
    return { op, seq, kept, messages };
  } catch (error) {
    // SPEC.md §5.2: a budget that cannot hold the newest unit is an error;
    // a library that raises is answering, not failing the protocol.
    return { op, seq, refused: refusal(error) };
  }
}

// Runs the adapter: `node adapter.mjs [OPTIONS...] harness` (harness.md §1:
// the kit appends `harness`). Anything else is exit 2, as a port without
// harness mode answers.
export async function serve(argv, about, adapter) {
  if (argv[argv.length - 1] !== "harness") {
    process.stderr.write(`usage: ${about.usage} harness (corpus/conformance/adapter.md)\n`);
    process.exit(2);
  }
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    let request;
    const tooLarge = sizeProblem(line);
    try {
      if (tooLarge) throw new Error(tooLarge);
      request = JSON.parse(line);
    } catch (error) {
      const message = tooLarge || `not JSON: ${refusal(error)}`;
      process.stdout.write(JSON.stringify({ op: "error", message }) + "\n");
      continue;
    }
    const response = await answer(request, about, adapter);
    process.stdout.write(JSON.stringify(response) + "\n");
    if (response.op === "stop") break;
  }
  lines.close();
  process.stdin.destroy();
}

// Splits a library's output into runs of one input index each, so an
// adapter whose library holds one of our messages as several items maps a
// run back to one message (a message cut in two shows as two runs, or as a
// run that maps back to something else: adapter.md §3's "altered").
export function runsByIndex(items, indexOf) {
  const runs = [];
  for (const item of items) {
    const index = indexOf(item);
    const last = runs[runs.length - 1];
    if (last && index !== null && last.index === index) last.items.push(item);
    else runs.push({ index, items: [item] });
  }
  return runs;
}
