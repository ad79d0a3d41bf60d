// A planted trimmer for `agent-session-conform properties`
// (conform/tests/properties_test.cpp): it keeps the newest `budget`
// messages regardless of SPEC.md §5.1's units, so it cuts an assistant
// from its tool results; the judge must say "orphan".
//   node conform/tests/properties/keep_last.mjs harness
import { serve } from "../../adapters/protocol.mjs";

await serve(process.argv.slice(2), {
  usage: "keep_last.mjs",
  port: { name: "keep the last N messages (planted)", version: "1", language: "JavaScript" },
  adapter: { library: "none", version: "1", function: "keepLast", options: {}, unit: "messages" },
}, {
  count: (messages) => messages.length,
  trim(messages, budget) {
    const from = Math.max(0, messages.length - budget);
    return { kept: messages.map((_, i) => i).slice(from), messages: messages.slice(from) };
  },
});
