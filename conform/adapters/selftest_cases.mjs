// The selftest's hand-made sessions and what each adapter must answer to
// them (conform/adapters/selftest.mjs runs them; corpus/conformance/adapter.md
// is the protocol). Exact answers are pinned where the adapter's mapping
// decides them (counts, and the runs of OpenAI Agents' items and of
// pruneMessages' parts); where the library decides (LangChain's packing),
// the answers are checked for shape and identity and printed for the record.
import { readFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";

// SPEC.md §5.1's walkthrough case: an assistant calling a and b, both
// results, then a closing assistant.
export const SESSION = [
  { role: "user", content: "hi" },
  { role: "assistant", content: "", toolCalls: [{ id: "a", name: "read", input: { path: "x" } }, { id: "b", name: "list", input: null }] },
  { role: "tool", content: "ra", toolCallId: "a", isError: false },
  { role: "tool", content: "rb", toolCallId: "b", isError: true },
  { role: "assistant", content: "done", toolCalls: [] },
];
// Two equal messages: identity must come from the index, not the contents.
const TWINS = [{ role: "user", content: "same" }, { role: "user", content: "same" }];

const characters = (messages) => messages.reduce((sum, m) => sum + JSON.stringify(m).length + 1, 0);
const assistantWith = (...ids) => ({ ...SESSION[1], toolCalls: SESSION[1].toolCalls.filter((c) => ids.includes(c.id)) });

// trims: budget -> the exact kept indices and messages (null: SESSION's).
export const ADAPTERS = [
  { name: "langchain (strategy last)", folder: "langchain", options: [], library: "@langchain/core", unit: "characters",
    total: characters(SESSION), one: characters([TWINS[1]]),
    trims: { 0: { kept: [] }, [characters(SESSION)]: { kept: [0, 1, 2, 3, 4] } } },
  { name: "langchain (strategy last, startOn human)", folder: "langchain", options: ["--start-on", "human"],
    library: "@langchain/core", unit: "characters", total: characters(SESSION), one: characters([TWINS[1]]), startsOnUser: true,
    trims: { 0: { kept: [] }, [characters(SESSION) - 1]: { kept: [] }, [characters(SESSION)]: { kept: [0, 1, 2, 3, 4] } } },
  // Items: user, function_call a, function_call b (the empty text makes no
  // item), two function_call_outputs, the closing text: 6.
  { name: "openai-agents", folder: "openai-agents", options: [], library: "@openai/agents-core", unit: "items",
    total: 6, one: 1,
    trims: { 0: { kept: [] }, 3: { kept: [2, 3, 4] }, 4: { kept: [1, 2, 3, 4], messages: [assistantWith("b"), ...SESSION.slice(2)] },
             6: { kept: [0, 1, 2, 3, 4] } } },
  // pruneMessages keeps every message with parts left; "before-last-0"
  // prunes all tool parts, as "all" does.
  { name: "ai-sdk", folder: "ai-sdk", options: [], library: "ai", unit: "messages", total: 5, one: 1,
    trims: { 0: { kept: [0, 1, 4], messages: [SESSION[0], assistantWith(), SESSION[4]] },
             2: { kept: [0, 1, 3, 4], messages: [SESSION[0], assistantWith("b"), SESSION[3], SESSION[4]] },
             3: { kept: [0, 1, 2, 3, 4] }, 5: { kept: [0, 1, 2, 3, 4] } } },
];

function pinnedVersion(adapter) {
  const lock = JSON.parse(readFileSync(new URL(`./${adapter.folder}/package-lock.json`, import.meta.url), "utf8"));
  return lock.packages[`node_modules/${adapter.library}`]?.version;
}

// SPEC.md §5.1: a kept tool result whose declaring assistant was dropped.
function orphans(kept) {
  const found = [];
  for (const index of kept) {
    const result = SESSION[index];
    if (result?.role !== "tool") continue;
    let declaring = index - 1;
    while (declaring >= 0 && !(SESSION[declaring].role === "assistant" && SESSION[declaring].toolCalls.some((c) => c.id === result.toolCallId))) declaring--;
    if (declaring >= 0 && !kept.includes(declaring)) found.push(index);
  }
  return found;
}

export async function checkAdapter(adapter, ask, fail) {
  const what = (detail) => `${adapter.name}: ${detail}`;
  let seq = 0;
  const start = await ask({ op: "start", protocol: 1 });
  if (start.op !== "start" || !isDeepStrictEqual([...(start.commands ?? [])].sort(), ["count", "trim"])) {
    fail(adapter.name, `start answered ${JSON.stringify(start)}`);
  }
  if (start.adapter?.library !== adapter.library || start.adapter?.unit !== adapter.unit ||
      start.adapter?.version !== pinnedVersion(adapter)) {
    fail(adapter.name, `start names ${JSON.stringify(start.adapter)}, not ${adapter.library} ${pinnedVersion(adapter)} in ${adapter.unit}`);
  }

  async function count(messages) {
    const answer = await ask({ op: "count", seq: ++seq, messages });
    if (answer.op !== "count" || answer.seq !== seq || !Number.isSafeInteger(answer.count)) {
      fail(what("count"), `answered ${JSON.stringify(answer)}`);
      return NaN;
    }
    return answer.count;
  }
  // Shape and identity: one index per message, each in range, and each
  // message mapped back; `exact` pins both.
  async function trim(messages, budget, exact) {
    const answer = await ask({ op: "trim", seq: ++seq, budget, messages });
    if (answer.op !== "trim" || answer.seq !== seq) return fail(what(`trim at ${budget}`), `answered ${JSON.stringify(answer)}`);
    if ("refused" in answer) return exact ? fail(what(`trim at ${budget}`), `refused: ${answer.refused}`) : answer;
    const { kept, messages: back } = answer;
    if (!Array.isArray(kept) || !Array.isArray(back) || kept.length !== back.length ||
        !kept.every((i) => i === null || (Number.isSafeInteger(i) && i >= 0 && i < messages.length))) {
      return fail(what(`trim at ${budget}`), `kept ${JSON.stringify(kept)} does not index the ${back?.length} messages`);
    }
    const expected = exact && { kept: exact.kept, messages: exact.messages ?? exact.kept.map((i) => messages[i]) };
    if (expected && !isDeepStrictEqual({ kept, messages: back }, expected)) {
      fail(what(`trim at ${budget}`), `answered ${JSON.stringify({ kept, messages: back })}, not ${JSON.stringify(expected)}`);
    }
    return answer;
  }

  const total = await count(SESSION);
  if (total !== adapter.total) fail(what("count"), `of the session is ${total}, not ${adapter.total}`);
  const parts = await Promise.resolve(0).then(async () => { let sum = 0; for (const m of SESSION) sum += await count([m]); return sum; });
  if (parts !== total) fail(what("count"), `of the messages one by one sums to ${parts}, of the session ${total}: not additive`);
  if ((await count([])) !== 0) fail(what("count"), "of no messages is not 0");

  for (const [budget, exact] of Object.entries(adapter.trims)) await trim(SESSION, Number(budget), exact);
  // Every budget up to the whole session: shape and identity, and (where
  // the library keeps messages whole) each one as it was sent.
  const record = [];
  for (let budget = 0; budget <= total; budget++) {
    const answer = await trim(SESSION, budget);
    if (!answer?.kept) continue;
    if (adapter.library === "@langchain/core") {
      answer.kept.forEach((index, i) => {
        if (!isDeepStrictEqual(answer.messages[i], SESSION[index])) fail(what(`trim at ${budget}`), `message ${index} came back altered`);
      });
      if (adapter.startsOnUser && answer.kept.length && SESSION[answer.kept[0]].role !== "user") {
        fail(what(`trim at ${budget}`), `startOn human kept ${JSON.stringify(answer.kept)}, which starts on no user message`);
      }
    }
    const orphaned = orphans(answer.kept);
    if (orphaned.length) record.push(`at ${budget} kept ${JSON.stringify(answer.kept)} (orphaned tool result${orphaned.length > 1 ? "s" : ""} ${orphaned.join(", ")})`);
  }
  console.log(`${adapter.name} ${start.adapter?.version}: ` +
              (record.length ? `ORPHANS on the session of the record, ${record.length} budgets, first ${record[0]}` : "no orphaned tool result at any budget"));

  // Identity from the index: of two equal messages, the newer one is kept.
  const twins = await trim(TWINS, adapter.one);
  if (twins?.kept && twins.kept[twins.kept.length - 1] !== 1) fail(what("trim of equal twins"), `kept ${JSON.stringify(twins.kept)}, not ending at 1`);

  // Requests to refuse (adapter.md §3 "stop and error"), then one to answer.
  const refusals = [
    ["not JSON", "xx", undefined],
    ["harness.md's run", { op: "run", seq: 90, argv: ["check", "-"], stdin_b64: "" }, 90],
    ["a message with a field SPEC.md §1 does not define", { op: "count", seq: 91, messages: [{ role: "user", content: "hi", id: 0 }] }, 91],
    ["a negative budget", { op: "trim", seq: 92, budget: -1, messages: SESSION }, 92],
    // harness.md §2's limits: refused before anything recurses over it.
    ["an input nested 100,000 levels deep", '{"op":"count","seq":93,"messages":[{"role":"assistant","content":"",' +
      `"toolCalls":[{"id":"a","name":"f","input":${"[".repeat(1e5)}${"]".repeat(1e5)}}]}]}`, undefined],
  ];
  for (const [why, request, expectedSeq] of refusals) {
    const answer = await ask(request, true);
    if (answer.op !== "error" || answer.seq !== expectedSeq || typeof answer.message !== "string") {
      fail(what(`refusing ${why}`), `answered ${JSON.stringify(answer)}`);
    }
  }
  if ((await count(SESSION)) !== total) fail(what("after refusals"), "count changed");
}
