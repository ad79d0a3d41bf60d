// The Vercel AI SDK (`ai`) behind the adapter protocol
// (corpus/conformance/adapter.md). Nothing in `ai` trims a history to a
// budget; its pruneMessages removes tool calls and results older than the
// last N messages (toolCalls: "before-last-N-messages") and then the
// messages left empty. That is the adapter's trim, budget = N, in
// messages (conform/adapters/README.md, "Vercel AI SDK").
//
//   node conform/adapters/ai-sdk/adapter.mjs harness
import { readFileSync } from "node:fs";
import { pruneMessages } from "ai";
import { serve } from "../protocol.mjs";

// The installed version (package-lock.json pins it), read from its package.json:
// the package's exports do not all offer it.
const VERSION = JSON.parse(readFileSync(new URL("./node_modules/ai/package.json", import.meta.url), "utf8")).version;
if (process.argv.length !== 3) {
  process.stderr.write("usage: adapter.mjs harness\n");
  process.exit(2);
}

// Our messages as ModelMessages, one each. The index rides in
// providerOptions, which pruneMessages copies with the message. A tool
// result's toolName is its declaring call's (SPEC.md §5.1: the nearest
// earlier assistant that declared its id), "" for an orphan.
function toModelMessages(messages) {
  const names = new Map();
  return messages.map((message, index) => {
    const providerOptions = { agentSession: { index } };
    if (message.role === "user") return { role: "user", content: message.content, providerOptions };
    if (message.role === "assistant") {
      for (const call of message.toolCalls) names.set(call.id, call.name);
      // The text is a part even when empty, so that an assistant is never
      // the "empty message" pruneMessages removes: its calls are what it prunes.
      const content = [{ type: "text", text: message.content },
        ...message.toolCalls.map((call) => ({ type: "tool-call", toolCallId: call.id, toolName: call.name, input: call.input }))];
      return { role: "assistant", content, providerOptions };
    }
    const output = { type: message.isError ? "error-text" : "text", value: message.content };
    return { role: "tool", providerOptions,
             content: [{ type: "tool-result", toolCallId: message.toolCallId, toolName: names.get(message.toolCallId) ?? "", output }] };
  });
}

function fromModelMessage(message) {
  if (message.role === "user") return { role: "user", content: message.content };
  const parts = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
  if (message.role === "assistant") {
    return { role: "assistant", content: parts.filter((p) => p.type === "text").map((p) => p.text).join(""),
             toolCalls: parts.filter((p) => p.type === "tool-call").map((p) => ({ id: p.toolCallId, name: p.toolName, input: p.input })) };
  }
  // A tool message left with a result it did not hold cannot happen (our
  // mapping puts one result in each); one with several would be several of ours.
  const [result] = parts;
  return { role: "tool", content: result.output.value, toolCallId: result.toolCallId, isError: result.output.type === "error-text" };
}

function indexOf(message) {
  const index = message.providerOptions?.agentSession?.index;
  return Number.isSafeInteger(index) && index >= 0 ? index : null;
}

await serve(process.argv.slice(2), {
  usage: "adapter.mjs",
  port: { name: "ai pruneMessages (toolCalls before-last-N-messages)", version: VERSION, language: "JavaScript" },
  adapter: { library: "ai", version: VERSION, function: "pruneMessages",
             options: { toolCalls: "before-last-N-messages", emptyMessages: "remove" }, unit: "messages" },
}, {
  count: (messages) => messages.length,
  trim(messages, budget) {
    const pruned = pruneMessages({ messages: toModelMessages(messages), toolCalls: `before-last-${budget}-messages`,
                                   emptyMessages: "remove" });
    return { kept: pruned.map(indexOf), messages: pruned.map(fromModelMessage) };
  },
});
