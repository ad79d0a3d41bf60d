// @openai/agents-core's MemorySession behind the adapter protocol
// (corpus/conformance/adapter.md): the session's items are added with
// addItems, and getItems(limit) is the trim, budget = limit, in items
// (conform/adapters/README.md, "OpenAI Agents").
//
//   node conform/adapters/openai-agents/adapter.mjs harness
import { readFileSync } from "node:fs";
import { MemorySession } from "@openai/agents-core";
import { runsByIndex, serve } from "../protocol.mjs";

// The installed version (package-lock.json pins it), read from its package.json:
// the package's exports do not all offer it.
const VERSION = JSON.parse(readFileSync(new URL("./node_modules/@openai/agents-core/package.json", import.meta.url), "utf8")).version;
if (process.argv.length !== 3) {
  process.stderr.write("usage: adapter.mjs harness\n");
  process.exit(2);
}

// Our message at `index` as the session's items: a user message; an
// assistant's text (when it has some, or no calls: every message is at
// least one item) and one function_call per tool call; a tool result's
// function_call_output. The index, and what the items have no field for
// (an empty text beside calls, isError), ride in providerData, which the
// session copies with the item.
function toItems(message, index) {
  const mark = (extra = {}) => ({ agentSession: { index, ...extra } });
  if (message.role === "user") {
    return [{ type: "message", role: "user", content: message.content, providerData: mark() }];
  }
  if (message.role === "tool") {
    return [{ type: "function_call_output", callId: message.toolCallId, status: "completed",
              output: { type: "text", text: message.content }, providerData: mark({ isError: message.isError }) }];
  }
  const items = [];
  if (message.content !== "" || message.toolCalls.length === 0) {
    items.push({ type: "message", role: "assistant", status: "completed",
                 content: [{ type: "output_text", text: message.content }], providerData: mark() });
  }
  for (const call of message.toolCalls) {
    items.push({ type: "function_call", callId: call.id, name: call.name, status: "completed",
                 arguments: JSON.stringify(call.input), providerData: mark() });
  }
  return items;
}

// A run of items of one index back to one message. An assistant whose text
// or calls were cut off comes back without them: altered, as it is.
function fromItems(items) {
  const [first] = items;
  if (first.type === "function_call_output") {
    const text = typeof first.output === "string" ? first.output : first.output?.text ?? "";
    return { role: "tool", content: text, toolCallId: first.callId,
             isError: first.providerData?.agentSession?.isError === true };
  }
  if (first.type === "message" && first.role === "user") {
    return { role: "user", content: typeof first.content === "string" ? first.content : JSON.stringify(first.content) };
  }
  let content = "";
  const toolCalls = [];
  for (const item of items) {
    if (item.type === "message") content += item.content.map((part) => part.text ?? "").join("");
    if (item.type === "function_call") toolCalls.push({ id: item.callId, name: item.name, input: JSON.parse(item.arguments) });
  }
  return { role: "assistant", content, toolCalls };
}

function indexOf(item) {
  const index = item.providerData?.agentSession?.index;
  return Number.isSafeInteger(index) && index >= 0 ? index : null;
}

// The session logs through its own logger (the debug package, on standard
// error and only when DEBUG asks), never on standard output: adapter.md §2.
const items = (messages) => messages.flatMap(toItems);

await serve(process.argv.slice(2), {
  usage: "adapter.mjs",
  port: { name: "@openai/agents-core MemorySession.getItems", version: VERSION, language: "JavaScript" },
  adapter: { library: "@openai/agents-core", version: VERSION, function: "MemorySession.getItems",
             options: {}, unit: "items" },
}, {
  count: (messages) => items(messages).length,
  async trim(messages, budget) {
    const session = new MemorySession();
    await session.addItems(items(messages));
    const runs = runsByIndex(await session.getItems(budget), indexOf);
    return { kept: runs.map((run) => run.index), messages: runs.map((run) => fromItems(run.items)) };
  },
});
