// SessionWriter's records: messages of every role with extra fields and
// duplicate keys, lines that are not JSON or not a message, and tool-call
// histories for trimming.
#include "conform/fuzz/session_records.hpp"

#include <algorithm>

namespace agent_session::conform::fuzz {

void SessionWriter::add_extras(std::vector<Field>& fields, int level) {
  static const std::vector<std::string> kExtras = {R"("extra")",     R"("meta")",      R"("0")",      R"("ts")",
                                                   R"("toolCalls")", R"("__proto__")", R"("isError")"};
  // Not the message's fields, in JavaScript: a port that matches names
  // without letter case (Go's encoding/json) takes them for them.
  static const std::vector<std::string> kWrongCase = {R"("Role")",       R"("CONTENT")", R"("ToolCalls")",
                                                      R"("toolcallid")", R"("IsError")", R"("ROLE")"};
  for (std::size_t n = chance(0.3) ? 1 + below(3) : 0; n > 0; --n) {
    const bool wrong_case = chance(0.15);
    if (wrong_case) note(Shape::wrong_case_key);
    const std::string& name = wrong_case ? pick(kWrongCase) : pick(kExtras);
    const bool own = std::any_of(fields.begin(), fields.end(), [&](const Field& f) { return f.key == name; });
    if (own) continue;
    fields.push_back({name, chance(0.05) ? deep(level, kMaxDepth) : value(level)});
  }
}

std::vector<Field> SessionWriter::scramble(std::vector<Field> fields, int level) {
  std::shuffle(fields.begin(), fields.end(), rng_);
  if (!fields.empty() && chance(0.1)) {
    const std::size_t at = below(fields.size());
    fields.insert(fields.begin() + static_cast<std::ptrdiff_t>(at), Field{fields[at].key, value(level)});
    note(Shape::duplicate_key);
  }
  return fields;
}

std::string SessionWriter::role(const char* name) {
  if (chance(0.9)) return std::string("\"") + name + "\"";
  return "\"" + escaped(static_cast<char32_t>(name[0])) + (name + 1) + "\"";  // "\u0075ser"
}

std::string SessionWriter::tool_call(const std::string& id) {
  std::vector<Field> fields = {{R"("id")", id}, {R"("name")", string_literal(2)}};
  fields.push_back({R"("input")", chance(0.03) ? deep(4, kMaxDepth) : value(4)});
  add_extras(fields, 4);
  return object(scramble(fields, 4));
}

std::string SessionWriter::user(std::size_t pieces) {
  note(Shape::user);
  std::vector<Field> fields = {{R"("role")", role("user")}, {R"("content")", string_literal(pieces)}};
  add_extras(fields, 2);
  return object(scramble(fields, 2));
}

std::string SessionWriter::assistant(std::size_t pieces, const std::vector<std::string>& call_ids) {
  note(Shape::assistant);
  if (call_ids.size() > 1) note(Shape::parallel_calls);
  std::vector<std::string> calls;
  for (const auto& id : call_ids) calls.push_back(tool_call(id));
  std::vector<Field> fields = {
      {R"("role")", role("assistant")}, {R"("content")", string_literal(pieces)}, {R"("toolCalls")", array(calls)}};
  add_extras(fields, 2);
  return object(scramble(fields, 2));
}

std::string SessionWriter::tool(std::size_t pieces, const std::string& call_id) {
  note(Shape::tool);
  std::vector<Field> fields = {{R"("role")", role("tool")},
                               {R"("content")", string_literal(pieces)},
                               {R"("toolCallId")", call_id},
                               {R"("isError")", chance(0.5) ? "true" : "false"}};
  add_extras(fields, 2);
  return object(scramble(fields, 2));
}

std::string SessionWriter::message() {
  switch (below(3)) {
    case 0: return user(8);
    case 1: {
      std::vector<std::string> ids;
      for (std::size_t n = below(4); n > 0; --n) ids.push_back(string_literal(2));
      return assistant(6, ids);
    }
    default: return tool(8, string_literal(2));
  }
}

std::string SessionWriter::line_end() {
  if (chance(0.9)) return "\n";
  static const std::vector<std::string> kEnds = {"\r\n", " \n", "\t\r\n"};
  const std::string& end = pick(kEnds);
  if (end.find('\r') != std::string::npos) note(Shape::cr);
  return end;
}

std::string SessionWriter::empty_lines() { return chance(0.05) ? std::string(1 + below(2), '\n') : ""; }

std::string SessionWriter::bad_record() {
  static const std::vector<std::string> kLines = {
      R"([])",
      R"(null)",
      R"(42)",
      R"("user")",
      R"(true)",
      R"([{"role":"user","content":"x"}])",
      R"({"role":"system","content":"x"})",
      R"({"role":"User","content":"x"})",
      R"({"role":"","content":"x"})",
      R"({"content":"x"})",
      R"({"role":null,"content":"x"})",
      R"({"role":["user"],"content":"x"})",
      R"({"role":"user"})",
      R"({"role":"user","content":null})",
      R"({"role":"user","content":1})",
      R"({"role":"user","content":["x"]})",
      R"({"role":"assistant","content":"x"})",
      R"({"role":"assistant","content":"x","toolCalls":null})",
      R"({"role":"assistant","content":"x","toolCalls":{}})",
      R"({"role":"assistant","content":"x","toolCalls":[null]})",
      R"({"role":"assistant","content":"x","toolCalls":[{"id":"a","name":"n"}]})",
      R"({"role":"assistant","content":"x","toolCalls":[{"id":1,"name":"n","input":1}]})",
      R"({"role":"assistant","content":"x","toolCalls":[{"id":"a","input":1}]})",
      R"({"role":"assistant","content":"x","toolCalls":[[]]})",
      R"({"role":"tool","content":"x","isError":false})",
      R"({"role":"tool","content":"x","toolCallId":"a"})",
      R"({"role":"tool","content":"x","toolCallId":"a","isError":"true"})",
      R"({"role":"tool","content":"x","toolCallId":"a","isError":0})",
      R"({"role":"tool","content":"x","toolCallId":null,"isError":false})",
      R"({"role":"user","content":"x","role":"nope"})",
      R"({"role":"tool","content":"x","toolCallId":"a","isError":false,"role":"assistant"})"};
  return pick(kLines);
}

std::string SessionWriter::bad_json() {
  const std::string good = user(4);
  switch (below(9)) {
    case 0:  // cut short (a proper prefix of an object is never JSON)
      return good.substr(0, 1 + below(good.size() - 1));
    case 1: {  // trailing garbage, a raw NUL among it
      static const std::vector<std::string> kTails = {"x", ",", "}", "{}", std::string(1, '\0'), "\f", "\xC2\xA0"};
      return good + pick(kTails);
    }
    case 2: {
      static const std::vector<std::string> kLeads = {"\xEF\xBB\xBF", "\f", "\xC2\xA0", "\v"};
      return pick(kLeads) + good;
    }
    case 3: {
      static const std::vector<std::string> kLines = {" ", "\r", "\t", " \r", "x", "{", "}", "'x'"};
      return pick(kLines);
    }
    case 4: {  // invalid UTF-8 inside a string, a key or a dropped field
      static const std::vector<std::string> kBytes = {
          "\xFF", "\xC0\xAF", "\xE0\x80\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\x80", "\xE4\xB8", "\xE9"};
      const std::string bytes = pick(kBytes);
      static const std::vector<std::string> kWhere = {R"({"role":"user","content":"a@b"})",
                                                      R"({"role":"user","content":"x","@":1})",
                                                      R"({"role":"user","content":"x","extra":["@"]})"};
      std::string line = pick(kWhere);
      note(Shape::invalid_utf8);
      return line.replace(line.find('@'), 1, bytes);
    }
    case 5: {  // escaped lone surrogates
      static const std::vector<std::string> kEscapes = {
          R"(\ud800)", R"(\udc00)", R"(\uDBFF)", R"(\ud800\u0041)", R"(\udc00\ud800)", R"(\ud800\ud800)", R"(\ud800x)"};
      static const std::vector<std::string> kWhere = {R"({"role":"user","content":"@"})",
                                                      R"({"role":"user","content":"x","@":1})",
                                                      R"({"role":"user","content":"x","extra":{"k":"@"}})"};
      std::string line = pick(kWhere);
      note(Shape::lone_escape);
      return line.replace(line.find('@'), 1, pick(kEscapes));
    }
    case 6: {  // numbers that overflow a double
      static const std::vector<std::string> kHuge = {"1e400",
                                                     "-1e400",
                                                     "1.7976931348623159e308",
                                                     "1e309",
                                                     "-1.8e308",
                                                     "1" + std::string(400, '0'),
                                                     "0.1e310",
                                                     std::string(309, '9'),
                                                     "17976931348623159" + std::string(292, '0'),
                                                     "18" + std::string(307, '0')};
      note(Shape::digits_309);
      return R"({"role":"user","content":"x","n":[1,)" + pick(kHuge) + "]}";
    }
    case 7:  // one level too deep
      return R"({"role":"user","content":"x","extra":)" + deep(2, kMaxDepth + 1) + "}";
    default: {
      static const std::vector<std::string> kLines = {
          R"({"role":"user","content":"x",})",        R"({'role':'user','content':'x'})",
          "{\"role\":\"user\",\"content\":\"a\tb\"}", R"({"role":"user","content":"\x"})",
          R"({"role":"user","content":"\u12"})",      R"({"role":"user","content":"x","n":01})",
          R"({"role":"user","content":"x","n":NaN})", R"({"role":"user","content":"x","n":Infinity})",
          R"({"role":"user","content":"x","n":+1})",  R"({"role":"user","content":"x","n":.5})",
          R"({"role":"user","content":"x","n":5.})",  R"({"role":"user","content":"x","n":0x10})",
          R"({"role":"user","content":"x"} {})",      R"({"role":"user" "content":"x"})"};
      return pick(kLines);
    }
  }
}

std::string SessionWriter::history() {
  static const std::vector<std::string> kIds = {R"("a")",      R"("b")",      R"("c")",
                                                R"("call_1")", R"("call_2")", R"("\u0061")"};
  if (chance(0.01)) return pick(std::vector<std::string>{"", "\n", "\n\n"});  // an empty session
  struct Open {
    std::string id;
    std::size_t round;  // which assistant declared it
  };
  std::vector<Open> open;
  std::vector<std::string> used;
  std::size_t rounds = 0;
  std::string text;
  for (std::size_t n = 1 + below(chance(0.2) ? 40 : 12); n > 0; --n) {
    const std::size_t kind = below(10);
    if (kind < 2) {
      text += user(3);
    } else if (kind < 5) {
      std::vector<std::string> ids;
      for (std::size_t c = below(4); c > 0; --c) ids.push_back(pick(kIds));
      for (const auto& id : ids) {
        if (std::find(used.begin(), used.end(), id) != used.end()) note(Shape::repeated_id);
        used.push_back(id);
        open.push_back({id, rounds});
      }
      ++rounds;
      text += assistant(2, ids);
    } else if (kind < 9 && !open.empty()) {
      // Mostly in order; else the newest round first (nested rounds) or any.
      const std::size_t at = chance(0.6) ? 0 : chance(0.5) ? open.size() - 1 : below(open.size());
      const bool older_open =
          std::any_of(open.begin(), open.end(), [&](const Open& o) { return o.round < open[at].round; });
      const bool newer_open =
          std::any_of(open.begin(), open.end(), [&](const Open& o) { return o.round > open[at].round; });
      if (older_open) note(Shape::nested_rounds);
      if (newer_open) note(Shape::interleaved_rounds);
      text += tool(3, open[at].id);
      open.erase(open.begin() + static_cast<std::ptrdiff_t>(at));
    } else {
      note(Shape::orphan_result);
      text += tool(3, chance(0.5) ? pick(kIds) : R"("orphan")");
    }
    text += line_end() + empty_lines();
  }
  if (!open.empty()) note(Shape::pending_call);
  return text;
}

}  // namespace agent_session::conform::fuzz
