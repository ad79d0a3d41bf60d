// @langchain/core's trimMessages behind the adapter protocol
// (corpus/conformance/adapter.md): strategy "last", budget = maxTokens,
// tokens = characters (conform/adapters/README.md, "LangChain").
//
//   node conform/adapters/langchain/adapter.mjs harness                     # strategy "last"
//   node conform/adapters/langchain/adapter.mjs --start-on human harness    # and startOn "human"
import { readFileSync } from "node:fs";
import { AIMessage, HumanMessage, ToolMessage, trimMessages } from "@langchain/core/messages";
import { serve } from "../protocol.mjs";

// The installed version (package-lock.json pins it), read from its package.json:
// the package's exports do not all offer it.
const VERSION = JSON.parse(readFileSync(new URL("./node_modules/@langchain/core/package.json", import.meta.url), "utf8")).version;
const startOnHuman = process.argv.slice(2, -1).join(" ") === "--start-on human";
if (!startOnHuman && process.argv.length !== 3) {
  process.stderr.write("usage: adapter.mjs [--start-on human] harness\n");
  process.exit(2);
}

// Our message at `index` as LangChain's: the index rides in the message's
// own `id`, which trimMessages passes through, so identity never depends on
// comparing contents (two equal messages stay two).
function toLangChain(message, index) {
  const id = String(index);
  if (message.role === "user") return new HumanMessage({ content: message.content, id });
  if (message.role === "assistant") {
    const tool_calls = message.toolCalls.map((call) => ({ id: call.id, name: call.name, args: call.input, type: "tool_call" }));
    return new AIMessage({ content: message.content, tool_calls, id });
  }
  return new ToolMessage({ content: message.content, tool_call_id: message.toolCallId, id,
                           status: message.isError ? "error" : "success" });
}

// And back: what the library holds, in SPEC.md §1's normalized shapes.
function fromLangChain(message) {
  const content = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
  switch (message.getType()) {
    case "human":
      return { role: "user", content };
    case "ai":
      return { role: "assistant", content,
               toolCalls: (message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.name, input: call.args })) };
    case "tool":
      return { role: "tool", content, toolCallId: message.tool_call_id, isError: message.status === "error" };
    default:
      return { role: message.getType(), content };
  }
}

// The tokenCounter: each message's characters, as SPEC.md §4 counts a
// line (UTF-16 code units of its JSON text, plus 1 for the newline), of
// the message mapped back to our shape.
function characters(messages) {
  let total = 0;
  for (const message of messages) total += JSON.stringify(fromLangChain(message)).length + 1;
  return total;
}

function indexOf(message) {
  const index = /^(0|[1-9][0-9]*)$/.test(message.id ?? "") ? Number(message.id) : NaN;
  return Number.isSafeInteger(index) ? index : null;
}

await serve(process.argv.slice(2), {
  usage: "adapter.mjs [--start-on human]",
  port: { name: `@langchain/core trimMessages (strategy last${startOnHuman ? ", startOn human" : ""})`,
          version: VERSION, language: "JavaScript" },
  adapter: { library: "@langchain/core", version: VERSION, function: "trimMessages",
             options: startOnHuman ? { strategy: "last", startOn: "human" } : { strategy: "last" },
             unit: "characters" },
}, {
  count: (messages) => characters(messages.map(toLangChain)),
  async trim(messages, budget) {
    const options = { maxTokens: budget, strategy: "last", tokenCounter: characters };
    if (startOnHuman) options.startOn = "human";
    const kept = await trimMessages(messages.map(toLangChain), options);
    return { kept: kept.map(indexOf), messages: kept.map(fromLangChain) };
  },
});
