// Hand-made checks of cli.mjs, one or more per rule of SPEC.md.
// Every input is run twice: as a FILE and as "-" on standard input.
//   node tests/oracle/selftest.mjs
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const CLI = new URL("./cli.mjs", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "oracle-"));
let failures = 0;
let count = 0;

function run(args, file, input) {
  const r = spawnSync(process.execPath, [CLI, ...args, file], { input });
  return { exit: r.status, stdout: r.stdout.toString("utf8"), stderr: r.stderr.toString("utf8") };
}

// expect: {exit, stdout?, error?}; error must be followed by end of line or ": ".
function check(name, bytes, args, expect) {
  const path = join(dir, "input.jsonl");
  writeFileSync(path, bytes);
  for (const file of [path, "-"]) {
    count++;
    const got = run(args, file, file === "-" ? bytes : "");
    let ok = got.exit === expect.exit;
    if (ok && expect.exit === 0) ok = got.stdout === expect.stdout;
    if (ok && expect.error !== undefined) {
      const i = got.stderr.indexOf(expect.error);
      const after = i < 0 ? "" : got.stderr.slice(i + expect.error.length);
      ok = i >= 0 && (after.startsWith("\n") || after.startsWith(": "));
      ok &&= got.stderr.split("\n").length === 2; // exactly one line
    }
    if (!ok) {
      failures++;
      console.log(`FAIL ${name} [${args.join(" ")} ${file === "-" ? "-" : "FILE"}]`);
      console.log("  expected", JSON.stringify(expect));
      console.log("  got     ", JSON.stringify(got));
    }
  }
}

const B = (s) => Buffer.from(s, "utf8");
const cat = (...parts) => Buffer.concat(parts.map((p) => (typeof p === "string" ? B(p) : Buffer.from(p))));
const ok = (stdout) => ({ exit: 0, stdout });
const err = (error) => ({ exit: 1, error });
const jsonAt = (n) => err(`invalid session JSON at line ${n}`);
const recordAt = (n) => err(`invalid session record at line ${n}`);
const SMALLEST = err("context budget cannot contain the smallest consistent message unit");
const EMPTY = err("context budget cannot be empty");
const user = (c) => JSON.stringify({ role: "user", content: c });
const U = '{"role":"user","content":"x"}';

// ---- lines, bytes, encoding (SPEC.md §2, §2.1)
check("empty file", B(""), ["check"], ok("0 messages\n"));
check("empty file estimate", B(""), ["estimate"], ok("0\n"));
check("empty file canon", B(""), ["canon"], ok(""));
check("empty file trim", B(""), ["trim", "--max-chars", "100"], EMPTY);
check("no trailing newline", B(U), ["check"], ok("1 messages\n"));
check("empty lines skipped, physical numbers", B(`\n${U}\n\n\n{bad\n`), ["check"], jsonAt(5));
check("BOM at start is not whitespace", cat([0xef, 0xbb, 0xbf], U + "\n"), ["check"], jsonAt(1));
check("BOM inside a string is kept raw", B(user("\ufeffx") + "\n"), ["canon"], ok(user("\ufeffx") + "\n"));
check("space-only line", B(`${U}\n \n`), ["check"], jsonAt(2));
check("CR-only line", B(`${U}\n\r\n`), ["check"], jsonAt(2));
check("tab-only line", B(`${U}\n\t\n`), ["check"], jsonAt(2));
check("CRLF is fine", B(`${U}\r\n${U}\r\n`), ["canon"], ok(`${U}\n${U}\n`));
check("CR at end of file", B(`${U}\r`), ["check"], ok("1 messages\n"));
check("invalid UTF-8 0xFF", cat(U + "\n", '{"role":"user","content":"', [0xff], '"}\n'), ["check"], jsonAt(2));
check("overlong UTF-8", cat('{"role":"user","content":"', [0xc0, 0xaf], '"}\n'), ["check"], jsonAt(1));
check("encoded surrogate", cat('{"role":"user","content":"', [0xed, 0xa0, 0x80], '"}\n'), ["check"], jsonAt(1));
check("truncated sequence", cat('{"role":"user","content":"', [0xe2, 0x82], '"}\n'), ["check"], jsonAt(1));
check("invalid UTF-8 outside a string", cat('{"role":"user","content":"x"}', [0x80], "\n"), ["check"], jsonAt(1));
check("raw 4-byte UTF-8 is fine", B(user("😀") + "\n"), ["estimate"], ok(`${user("😀").length + 1}\n`));
check("emoji counts 2 UTF-16 units", B(user("😀") + "\n"), ["estimate"], ok("31\n"));
check("truncated JSON", B('{"role":"user","content":"x"\n'), ["check"], jsonAt(1));
check("two values on a line", B(`${U} ${U}\n`), ["check"], jsonAt(1));
check("raw control char in string", B('{"role":"user","content":"a\tb"}\n'), ["check"], jsonAt(1));
check("first bad line stops (record before JSON)", B(`${U}\n{"role":"nope","content":"x"}\n{bad\n`), ["check"], recordAt(2));
check("first bad line stops (JSON before record)", B(`${U}\n{bad\n{"role":"nope","content":"x"}\n`), ["check"], jsonAt(2));

// ---- lone surrogates (SPEC.md §2.1)
check("lone high surrogate", B('{"role":"user","content":"\\ud800"}\n'), ["check"], jsonAt(1));
check("lone low surrogate", B('{"role":"user","content":"\\udc00"}\n'), ["check"], jsonAt(1));
check("high then non-low", B('{"role":"user","content":"\\ud800\\u0041"}\n'), ["check"], jsonAt(1));
check("reversed pair", B('{"role":"user","content":"\\ude00\\ud83d"}\n'), ["check"], jsonAt(1));
check("escaped pair is fine, printed raw", B('{"role":"user","content":"\\ud83d\\ude00"}\n'), ["canon"], ok(user("😀") + "\n"));
check("lone surrogate in a key", B('{"role":"user","content":"x","\\ud800":1}\n'), ["check"], jsonAt(1));
check("lone surrogate in a dropped field", B('{"role":"user","content":"x","extra":["\\udfff"]}\n'), ["check"], jsonAt(1));
check("lone surrogate in an overwritten duplicate", B('{"role":"user","content":"\\ud800","content":"x"}\n'), ["check"], jsonAt(1));
check("lone surrogate in a non-object line", B('"\\ud800"\n'), ["check"], jsonAt(1));

// ---- numbers (SPEC.md §2.1, §3)
const A = (input) => `{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":${input}}]}`;
const canonA = (input) => `{"role":"assistant","content":"","toolCalls":[{"id":"a","name":"n","input":${input}}]}\n`;
check("1e400 overflows", B(A("1e400") + "\n"), ["check"], jsonAt(1));
check("-1e400 overflows", B(A("-1e400") + "\n"), ["check"], jsonAt(1));
check("rounds past max double", B(A("1.7976931348623159e308") + "\n"), ["check"], jsonAt(1));
check("max double is fine", B(A("1.7976931348623157e308") + "\n"), ["canon"], ok(canonA("1.7976931348623157e+308")));
check("overflow in a dropped field", B('{"role":"user","content":"x","n":1e999}\n'), ["check"], jsonAt(1));
check("overflow in a non-object line", B("[1e400]\n"), ["check"], jsonAt(1));
check("1e-400 underflows to 0", B(A("[1e-400,5e-324,-1e-400]") + "\n"), ["canon"], ok(canonA("[0,5e-324,0]")));
check("number forms", B(A("[1.0,1E+2,-0,1e21,1e-7,0.000001,1e20,123456789012345678901,9007199254740993]") + "\n"), ["canon"],
  ok(canonA("[1,100,0,1e+21,1e-7,0.000001,100000000000000000000,123456789012345680000,9007199254740992]")));

// ---- nesting (SPEC.md §2.1): the message object is level 1
const nested = (levels) => "[".repeat(levels) + "]".repeat(levels); // levels of arrays
// object(1) > toolCalls(2) > call(3) > input: 509 levels -> 512 in all
check("nesting 512 is fine", B(A(nested(509)) + "\n"), ["canon"], ok(canonA(nested(509))));
check("nesting 513 is not", B(A(nested(510)) + "\n"), ["check"], jsonAt(1));
check("top-level array 512 is a record error", B(nested(512) + "\n"), ["check"], recordAt(1));
check("top-level array 513 is a JSON error", B(nested(513) + "\n"), ["check"], jsonAt(1));
// message(1) > d: 511 more objects -> 512 in all
check("objects 512 fine", B('{"role":"user","content":"x","d":' + '{"a":'.repeat(511) + "1" + "}".repeat(511) + "}\n"), ["check"], ok("1 messages\n"));
check("objects 513 is not", B('{"role":"user","content":"x","d":' + '{"a":'.repeat(512) + "1" + "}".repeat(512) + "}\n"), ["check"], jsonAt(1));
check("brackets inside strings do not nest", B(user("[".repeat(600)) + "\n"), ["check"], ok("1 messages\n"));
check("absurd depth", B(nested(100000) + "\n"), ["check"], jsonAt(1));
check("deep nesting in an overwritten duplicate", B('{"role":"user","content":"x","d":' + nested(600) + ',"d":1}\n'), ["check"], jsonAt(1));

// ---- keys, duplicates, escapes (SPEC.md §2, §3)
check("duplicate keys: last wins at first position", B(A('{"b":1,"a":2,"b":3}') + "\n"), ["canon"], ok(canonA('{"b":3,"a":2}')));
check("duplicate role", B('{"role":"tool","content":"a","role":"user"}\n'), ["canon"], ok(user("a") + "\n"));
check("index keys first", B(A('{"a":1,"10":2,"2":3,"01":4,"-1":5,"1.5":6,"4294967295":7,"4294967294":8,"0":9}') + "\n"), ["canon"],
  ok(canonA('{"0":9,"2":3,"10":2,"4294967294":8,"a":1,"01":4,"-1":5,"1.5":6,"4294967295":7}')));
check("string escapes", B('{"role":"user","content":"\\/\\u002f\\u2028\\u2029\\u0001\\u001f\\u007f\\b\\f\\n\\r\\t\\"\\\\\\u00e9"}\n'), ["canon"],
  ok('{"role":"user","content":"//\u2028\u2029\\u0001\\u001f\u007f\\b\\f\\n\\r\\t\\"\\\\é"}\n'));
check("unicode escapes are not kept", B('{"role":"user","content":"\\u0041"}\n'), ["canon"], ok(user("A") + "\n"));

// ---- discrimination (SPEC.md §1, chapter table)
for (const [name, line] of [
  ["array", "[]"], ["null", "null"], ["string", '"x"'], ["number", "1"], ["true", "true"],
  ["role missing", '{"content":"x"}'], ["role number", '{"role":1,"content":"x"}'],
  ["content missing", '{"role":"user"}'], ["content null", '{"role":"user","content":null}'],
  ["content array", '{"role":"user","content":["x"]}'], ["unknown role", '{"role":"nope","content":"x"}'],
  ["role case", '{"role":"User","content":"x"}'],
  ["assistant without toolCalls", '{"role":"assistant","content":"x"}'],
  ["toolCalls null", '{"role":"assistant","content":"x","toolCalls":null}'],
  ["toolCalls object", '{"role":"assistant","content":"x","toolCalls":{}}'],
  ["call null", '{"role":"assistant","content":"x","toolCalls":[null]}'],
  ["call array", '{"role":"assistant","content":"x","toolCalls":[[]]}'],
  ["call id missing", '{"role":"assistant","content":"x","toolCalls":[{"name":"n","input":1}]}'],
  ["call id number", '{"role":"assistant","content":"x","toolCalls":[{"id":1,"name":"n","input":1}]}'],
  ["call name missing", '{"role":"assistant","content":"x","toolCalls":[{"id":"a","input":1}]}'],
  ["call input missing", '{"role":"assistant","content":"x","toolCalls":[{"id":"a","name":"n"}]}'],
  ["second call bad", '{"role":"assistant","content":"x","toolCalls":[{"id":"a","name":"n","input":1},{"id":"b","name":"n"}]}'],
  ["input only under __proto__", '{"role":"assistant","content":"x","toolCalls":[{"id":"a","name":"n","__proto__":{"input":1}}]}'],
  ["tool without toolCallId", '{"role":"tool","content":"x","isError":false}'],
  ["tool toolCallId number", '{"role":"tool","content":"x","toolCallId":1,"isError":false}'],
  ["tool without isError", '{"role":"tool","content":"x","toolCallId":"a"}'],
  ["tool isError string", '{"role":"tool","content":"x","toolCallId":"a","isError":"false"}'],
  ["tool isError 0", '{"role":"tool","content":"x","toolCallId":"a","isError":0}'],
  ["tool isError null", '{"role":"tool","content":"x","toolCallId":"a","isError":null}'],
]) check(`record: ${name}`, B(`${U}\n\n${line}\n`), ["check"], recordAt(3));

check("input null is present", B(A("null") + "\n"), ["canon"], ok(canonA("null")));
check("empty toolCalls", B('{"role":"assistant","content":"x","toolCalls":[]}\n'), ["canon"], ok('{"role":"assistant","content":"x","toolCalls":[]}\n'));
check("fields dropped, order normalized", B(
  '{"extra":1,"toolCalls":[{"input":{"k":[1]},"x":2,"name":"n","id":"a"}],"content":"c","role":"assistant"}\n' +
  '{"isError":true,"toolCallId":"a","content":"r","role":"tool","meta":{}}\n' +
  '{"content":"u","role":"user","toolCalls":"ignored","__proto__":1}\n'), ["canon"], ok(
  '{"role":"assistant","content":"c","toolCalls":[{"id":"a","name":"n","input":{"k":[1]}}]}\n' +
  '{"role":"tool","content":"r","toolCallId":"a","isError":true}\n' +
  '{"role":"user","content":"u"}\n'));
check("__proto__ input key is kept", B(A('{"__proto__":{"a":1},"b":2}') + "\n"), ["canon"], ok(canonA('{"__proto__":{"a":1},"b":2}')));

// ---- trimming (SPEC.md §4, §5)
const asst = (ids, c = "") => JSON.stringify({ role: "assistant", content: c, toolCalls: ids.map((id) => ({ id, name: "n", input: null })) });
const tool = (id, c = "") => JSON.stringify({ role: "tool", content: c, toolCallId: id, isError: false });
const session = (...lines) => lines.map((l) => l + "\n").join("");
const est = (...lines) => lines.reduce((s, l) => s + l.length + 1, 0);
const trim = (n) => ["trim", "--max-chars", String(n)];

{ // chapter example: assistant(a,b), tool a, tool b is one unit
  const s = [user("q"), asst(["a", "b"]), tool("a"), tool("b")];
  const unit = s.slice(1);
  check("multi-tool unit kept whole", B(session(...s)), trim(est(...unit)), ok(session(...unit)));
  check("multi-tool unit one short", B(session(...s)), trim(est(...unit) - 1), SMALLEST);
  check("everything fits exactly", B(session(...s)), trim(est(...s)), ok(session(...s)));
  check("everything minus one", B(session(...s)), trim(est(...s) - 1), ok(session(...unit)));
  check("budget 0", B(session(...s)), trim(0), SMALLEST);
}
{ // interleaved rounds: assistant x, assistant y, result x, result y -> one closed unit
  const s = [user("q"), asst(["x"]), asst(["y"]), tool("x"), tool("y")];
  const closed = s.slice(1);
  check("interleaved: closed unit", B(session(...s)), trim(est(...closed)), ok(session(...closed)));
  // the chapter's literal scan would keep [asst y, tool x, tool y] here
  check("interleaved: no half unit", B(session(...s)), trim(est(...closed) - 1), SMALLEST);
}
{ // nested interleaving: A(x) A(y) T(y) T(x) -> one unit; u between rounds is cut
  const s = [asst(["x"]), user("m"), asst(["y"]), tool("y"), tool("x"), user("z")];
  check("chain closes over inner user", B(session(...s)), trim(est(...s.slice(0, 5)) + est(s[5]) - 1), ok(session(s[5])));
  check("whole", B(session(...s)), trim(est(...s)), ok(session(...s)));
}
{ // orphan tool result and unanswered assistant are units of their own
  const s = [user("q"), tool("zz"), asst(["w"]), user("r")];
  check("orphan/unanswered: last unit", B(session(...s)), trim(est(s[3])), ok(session(s[3])));
  check("orphan/unanswered: unanswered assistant alone", B(session(...s)), trim(est(...s.slice(2))), ok(session(...s.slice(2))));
  check("orphan/unanswered: orphan alone", B(session(...s)), trim(est(...s.slice(1))), ok(session(...s.slice(1))));
  check("orphan only", B(session(tool("zz"))), trim(est(tool("zz"))), ok(session(tool("zz"))));
}
{ // reused ids: nearest earlier declaring assistant
  const s = [asst(["x"], "1"), tool("x", "1"), asst(["x"], "2"), tool("x", "2")];
  check("reused id: nearest earlier", B(session(...s)), trim(est(...s.slice(2))), ok(session(...s.slice(2))));
  // a tool whose id the nearer assistant does not declare reaches past it
  const t = [asst(["x"]), asst(["y"]), tool("y"), tool("x")];
  check("result reaches past a nearer assistant", B(session(...t)), trim(est(...t) - 1), SMALLEST);
}
{ // stop at the first unit that does not fit; never skip to older ones
  const big = user("B".repeat(100));
  const s = [user("a"), big, user("c")];
  check("stop at first misfit", B(session(...s)), trim(est(s[0], s[2])), ok(session(s[2])));
}
{ // estimate counts UTF-16 units, budget too
  const s = [user("😀😀"), user("é")];
  check("utf16 estimate", B(session(...s)), ["estimate"], ok(`${est(...s)}\n`));
  check("utf16 budget", B(session(...s)), trim(est(...s)), ok(session(...s)));
  check("utf16 budget minus one", B(session(...s)), trim(est(...s) - 1), ok(session(s[1])));
}

// ---- CLI protocol
check("huge --max-chars saturates", B(session(U, U)), trim("99999999999999999999999999999"), ok(session(U, U)));
check("2^64-1", B(session(U)), trim("18446744073709551615"), ok(session(U)));
check("leading zeros", B(session(U)), trim("0030"), ok(session(U)));
check("missing file is empty: trim", B(""), trim(5), EMPTY);
for (const bad of ["-1", "1.5", "", "+1", " 1", "1e3", "0x10", "abc", "--max-chars"]) {
  check(`--max-chars ${JSON.stringify(bad)}`, B(U), ["trim", "--max-chars", bad], { exit: 2 });
}
check("trim without --max-chars", B(U), ["trim"], { exit: 2 });
check("unknown command", B(U), ["frobnicate"], { exit: 2 });
check("extra argument", B(U), ["check", "extra"], { exit: 2 });

function direct(name, args, expect) {
  count++;
  const r = spawnSync(process.execPath, [CLI, ...args]);
  const got = { exit: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
  if (got.exit !== expect.exit || (expect.stdout !== undefined && got.stdout !== expect.stdout) ||
      got.stderr.split("\n").length !== (expect.exit === 0 ? 1 : 2)) {
    failures++;
    console.log(`FAIL ${name}`, JSON.stringify(expect), JSON.stringify(got));
  }
}
direct("no arguments", [], { exit: 2 });
direct("missing FILE", ["check"], { exit: 2 });
direct("missing FILE for trim", ["trim", "--max-chars", "5"], { exit: 2 });
// SPEC §6 (vectors 1.1.0, builtin_missing_file): a FILE that does not exist
// is exit 3, never an empty session.
direct("ENOENT is an I/O error", ["check", join(dir, "nope.jsonl")], { exit: 3, stdout: "" });
direct("ENOENT canon", ["canon", join(dir, "nope.jsonl")], { exit: 3, stdout: "" });
direct("directory is an I/O error", ["check", dir], { exit: 3 });
direct("ENOTDIR is an I/O error", ["check", join(CLI, "x")], { exit: 3 });

// SPEC §6: a standard output that cannot be written (a pipe whose reader
// has gone) is exit 3 with one line on standard error, never a crash.
{
  count++;
  const big = join(dir, "big.jsonl");
  writeFileSync(big, `{"role":"user","content":"${"x".repeat(1 << 20)}"}\n`);
  const script = `"$0" "$1" canon "$2" 2>"$3" | true; echo "\${PIPESTATUS[0]}"`;
  const r = spawnSync("bash", ["-c", script, process.execPath, CLI, big, join(dir, "err")]);
  const exit = r.stdout.toString().trim();
  const stderr = spawnSync("cat", [join(dir, "err")]).stdout.toString();
  if (exit !== "3" || stderr.split("\n").length !== 2) {
    failures++;
    console.log("FAIL a closed standard output is exit 3", JSON.stringify({ exit, stderr: stderr.slice(0, 200) }));
  }
}

rmSync(dir, { recursive: true });
console.log(`${count - failures}/${count} passed`);
process.exitCode = failures === 0 ? 0 : 1;
