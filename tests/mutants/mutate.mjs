// Builds a mutant port: the JavaScript oracle (tests/oracle/cli.mjs) with
// exactly one deliberate porting mistake, then runs it as the CLI would.
// Each mutant names the oracle text it replaces; if the oracle no longer
// holds that text the mutant refuses to run (exit 70 on every check), so a
// stale mutant can never pass for a caught one.
import { readFileSync } from "node:fs";

export async function runMutant(name, original, replacement) {
  const oracle = new URL("../oracle/cli.mjs", import.meta.url);
  const source = readFileSync(oracle, "utf8");
  const at = source.indexOf(original);
  if (at < 0 || source.indexOf(original, at + 1) >= 0) {
    process.stderr.write(`mutant ${name}: the oracle must hold ${JSON.stringify(original)} exactly once\n`);
    process.exitCode = 70;
    return;
  }
  // A data: URL has no folder: the oracle's own modules are named whole.
  const mutated = (source.slice(0, at) + replacement + source.slice(at + original.length)).replaceAll(
    'from "./',
    `from "${new URL("./", oracle)}`,
  );
  // The mutated oracle runs its own main(process.argv.slice(2)) on import.
  await import(`data:text/javascript;base64,${Buffer.from(mutated).toString("base64")}`);
}

// A hand-written lexer's view of one line, for the token mutants: `text`
// rebuilt token by token, outside strings a run of letters (a literal) or
// of number characters handed to `word` or `number`, a whole string token
// (quotes included) to `string`. A mutant splices this function's source
// (rewriteTokens.toString()) into the oracle ahead of JSON.parse, so the
// one mistake it models is the one its callback makes.
export function rewriteTokens(text, { word = (w) => w, number = (n) => n, string = (s) => s }) {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    let j = i + 1;
    if (c === '"') {
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      j = Math.min(j + 1, text.length); // past the closing quote
      out += string(text.slice(i, j));
    } else if (/[A-Za-z]/.test(c)) {
      while (j < text.length && /[A-Za-z]/.test(text[j])) j++;
      out += word(text.slice(i, j));
    } else if (/[-0-9]/.test(c)) {
      while (j < text.length && /[-+0-9.eE]/.test(text[j])) j++;
      out += number(text.slice(i, j));
    } else {
      out += c;
    }
    i = j;
  }
  return out;
}

// The replacement for the oracle's `item = JSON.parse(text);` that runs
// `callbacks` (source text of an object literal for rewriteTokens) first.
export function parseAfterRewrite(callbacks) {
  return `${rewriteTokens.toString()}
    text = rewriteTokens(text, ${callbacks});
    item = JSON.parse(text);`;
}

// The replacement for the oracle's lone-surrogate test: `pairs(unit, next)`
// (source text of an arrow function) says whether two UTF-16 units of a
// parsed string are taken as one character, as a hand-written decoder of
// `\u` escapes would decide; any other surrogate is lone.
export function surrogatePairsBy(pairs) {
  return `const pairs = ${pairs};
      for (let k = 0; k < value.length; k++) {
        const unit = value.charCodeAt(k);
        if (unit < 0xd800 || unit > 0xdfff) continue;
        if (k + 1 < value.length && pairs(unit, value.charCodeAt(k + 1))) k++;
        else return "lone surrogate in a string";
      }`;
}
