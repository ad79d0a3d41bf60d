// A correct trimmer for `agent-session-conform properties`
// (conform/tests/properties_test.cpp): SPEC.md §5.1's closed units, packed
// newest first within the budget (§5.2), refusing when the newest unit
// does not fit; sizes are characters of each message's JSON plus 1.
//   node conform/tests/properties/whole_units.mjs harness
import { serve } from "../../adapters/protocol.mjs";

const size = (messages) => messages.reduce((total, m) => total + JSON.stringify(m).length + 1, 0);

// The indices p where a cut is allowed (§5.1): every tool result at or
// after p has its declaring assistant, if any, at or after p.
function cuts(messages) {
  const declaring = messages.map((m, i) => {
    if (m.role !== "tool") return Infinity;
    for (let j = i - 1; j >= 0; j--) {
      if (messages[j].role === "assistant" && messages[j].toolCalls.some((c) => c.id === m.toolCallId)) return j;
    }
    return Infinity;  // an orphan
  });
  const allowed = [];
  let lowest = Infinity;
  for (let p = messages.length - 1; p >= 0; p--) {
    lowest = Math.min(lowest, declaring[p]);
    if (lowest >= p) allowed.push(p);
  }
  return allowed;  // newest first
}

await serve(process.argv.slice(2), {
  usage: "whole_units.mjs",
  port: { name: "whole units (correct)", version: "1", language: "JavaScript" },
  adapter: { library: "none", version: "1", function: "wholeUnits", options: {}, unit: "characters" },
}, {
  count: size,
  trim(messages, budget) {
    let from = messages.length;
    for (const p of cuts(messages)) {
      if (size(messages.slice(p)) > budget) break;
      from = p;
    }
    if (messages.length > 0 && from === messages.length) throw new Error("the newest unit does not fit");
    return { kept: messages.map((_, i) => i).slice(from), messages: messages.slice(from) };
  },
});
