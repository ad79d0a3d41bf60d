// Properties 9-11 of tests/properties/README.md: the session file
// (SPEC.md §1-§3). Valid sessions are generated, then one or two of
// their physical lines are swapped for a corrupt variant; the loader must
// name exactly that line with exactly the right one of the spec's texts.
#include "agent_session/append.hpp"
#include "generators.hpp"

#include "agent_session/session.hpp"

// GoogleTest first: RapidCheck's integration header builds on it.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <string>
#include <system_error>
#include <vector>

namespace agent_session::properties {
namespace {

using History = std::vector<Message>;

// ------------------------------------------------------------- 9. round trip

// A directory of our own for session files, removed when the test exits.
class ScratchDirectory {
 public:
  ScratchDirectory()
      : path_(std::filesystem::temp_directory_path() / ("agent-session-properties-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;

  // A path in the directory that no file occupies yet.
  std::filesystem::path fresh_file() {
    auto path = path_ / ("session-" + std::to_string(counter_++) + ".jsonl");
    std::filesystem::remove(path);
    return path;
  }

 private:
  std::filesystem::path path_;
  unsigned counter_ = 0;
};

std::filesystem::path fresh_session_path() {
  static ScratchDirectory directory;
  return directory.fresh_file();
}

// 9. Appending to a fresh file and loading gives the messages back, equal
// (tool inputs included, key order included); and a message's canonical
// line parses back to that message.
RC_GTEST_PROP(SessionProperties, RoundTrip, ()) {
  const History history = *messages();
  const auto path = fresh_session_path();
  for (const auto& message : history) append_session(path, message);
  const History loaded = load_session(path);
  std::filesystem::remove(path);
  RC_ASSERT(loaded == history);
  for (const auto& message : history) {
    const std::string line = to_canonical_json(message);
    RC_ASSERT(parse_session_message(Json::parse(line)) == std::optional<Message>(message));
    RC_ASSERT(load_session_from_memory(line) == History{message});
  }
}

// ------------------------------------------------------------- corruption

// One physical line of a session as written: the line's bytes without its
// `\n`, and the error loading it must report (nullopt for a valid line).
struct Line {
  std::string bytes;
  std::optional<SessionErrorKind> error;
};

// Counterexamples show a line as an escaped string and its expected error.
void showValue(const Line& line, std::ostream& os) {
  rc::show(line.bytes, os);
  if (line.error) os << (*line.error == SessionErrorKind::invalid_json ? " (invalid JSON)" : " (invalid record)");
}

// A JSON object on one line, printed by nlohmann (not the library's writer),
// so that a record-level corruption is still well-formed JSON.
std::string dump(const Json& json) { return json.dump(); }

Json as_json(const Message& message) { return Json::parse(to_canonical_json(message)); }

// The places of a message's required fields, as JSON pointers, with the
// type each must have (SPEC.md §1.1). `input` must exist but may be anything.
struct Field {
  Json::json_pointer where;
  Json::value_t type;  // value_t::discarded: any type
};

std::vector<Field> required_fields(const Json& message) {
  using P = Json::json_pointer;
  std::vector<Field> fields = {{P("/role"), Json::value_t::string}, {P("/content"), Json::value_t::string}};
  const std::string role = message["role"];
  if (role == "assistant") {
    fields.push_back({P("/toolCalls"), Json::value_t::array});
    for (std::size_t i = 0; i < message["toolCalls"].size(); ++i) {
      const std::string call = "/toolCalls/" + std::to_string(i);
      fields.push_back({P(call), Json::value_t::object});
      fields.push_back({P(call + "/id"), Json::value_t::string});
      fields.push_back({P(call + "/name"), Json::value_t::string});
      fields.push_back({P(call + "/input"), Json::value_t::discarded});
    }
  } else if (role == "tool") {
    fields.push_back({P("/toolCallId"), Json::value_t::string});
    fields.push_back({P("/isError"), Json::value_t::boolean});
  }
  return fields;
}

// Same type as far as the discriminator cares: every number is a number.
bool same_type(const Json& value, Json::value_t type) {
  return value.type() == type || (type == Json::value_t::number_float && value.is_number());
}

// The six kinds of corruption, each a generator of a corrupt line made
// from a valid message.
rc::Gen<Line> truncated(const Message& message) {
  const std::string line = to_canonical_json(message);
  // Any strict, non-empty prefix of an object's text is unfinished JSON
  // (an empty one would be a skipped empty line, not a corrupt one).
  return rc::gen::map(rc::gen::inRange<std::size_t>(1, line.size()), [line](std::size_t length) {
    return Line{line.substr(0, length), SessionErrorKind::invalid_json};
  });
}

rc::Gen<Line> unknown_role(const Message& message) {
  const Json json = as_json(message);
  auto role =
      rc::gen::suchThat(rc::gen::weightedOneOf<std::string>({
                            {3, rc::gen::element<std::string>("nope", "", "system", "User", "tool ", "assistants")},
                            {1, unicode_text()},
                        }),
                        [](const std::string& r) { return r != "user" && r != "assistant" && r != "tool"; });
  return rc::gen::map(role, [json](std::string r) {
    Json changed = json;
    changed["role"] = std::move(r);
    return Line{dump(changed), SessionErrorKind::invalid_record};
  });
}

rc::Gen<Line> missing_field(const Message& message) {
  const Json json = as_json(message);
  std::vector<Field> fields = required_fields(json);
  // A tool call is an array element, not a field: dropping one leaves a
  // valid message.
  std::erase_if(fields, [](const Field& f) { return f.type == Json::value_t::object; });
  return rc::gen::map(rc::gen::elementOf(fields), [json](const Field& field) {
    Json changed = json;
    changed.at(field.where.parent_pointer()).erase(field.where.back());
    return Line{dump(changed), SessionErrorKind::invalid_record};
  });
}

rc::Gen<Line> wrong_field_type(const Message& message) {
  const Json json = as_json(message);
  std::vector<Field> fields = required_fields(json);
  std::erase_if(fields, [](const Field& f) { return f.type == Json::value_t::discarded; });
  fields.push_back({Json::json_pointer(""), Json::value_t::object});  // the line itself
  const std::vector<Json> values = {nullptr,           0.0, 1.5, true, false, "s", Json::array(), Json::object(),
                                    Json::array({"x"})};
  return rc::gen::mapcat(rc::gen::elementOf(fields), [json, values](const Field& field) {
    std::vector<Json> wrong;
    for (const auto& value : values) {
      if (!same_type(value, field.type)) wrong.push_back(value);
    }
    return rc::gen::map(rc::gen::elementOf(wrong), [json, field](const Json& value) {
      Json changed = json;
      changed[field.where] = value;
      return Line{dump(changed), SessionErrorKind::invalid_record};
    });
  });
}

rc::Gen<Line> invalid_utf8(const Message& message) {
  const std::string line = to_canonical_json(message);
  // A lone continuation byte, 0xFF, a cut sequence, an overlong form, an
  // encoded surrogate, a code point past U+10FFFF.
  auto bad =
      rc::gen::element<std::string>("\x80", "\xff", "\xc3", "\xe4\xb8", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80");
  return rc::gen::apply(
      [line](std::size_t at, const std::string& bytes) {
        return Line{line.substr(0, at) + bytes + line.substr(at), SessionErrorKind::invalid_json};
      },
      rc::gen::inRange<std::size_t>(0, line.size() + 1), bad);
}

rc::Gen<Line> whitespace_only() {
  return rc::gen::map(rc::gen::nonEmpty(rc::gen::container<std::string>(rc::gen::element(' ', '\t', '\r'))),
                      [](std::string spaces) {
                        return Line{std::move(spaces), SessionErrorKind::invalid_json};
                      });
}

rc::Gen<Line> corrupt(const Message& message) {
  return rc::gen::oneOf(truncated(message), unknown_role(message), missing_field(message), wrong_field_type(message),
                        invalid_utf8(message), whitespace_only());
}

// A valid session file's lines around `history`: some empty lines (skipped
// but counted, SPEC.md §2), some lines ending in `\r` (JSON whitespace).
struct Layout {
  std::vector<Line> lines;
  std::vector<std::size_t> message_line;  // index in `lines` of each message
};

Layout layout(const History& history) {
  Layout layout;
  for (const auto& message : history) {
    const auto blanks = *rc::gen::weightedElement<int>({{6, 0}, {1, 1}, {1, 2}});
    for (int i = 0; i < blanks; ++i) layout.lines.push_back(Line{"", std::nullopt});
    std::string text = to_canonical_json(message);
    if (*rc::gen::weightedElement<bool>({{4, false}, {1, true}})) text += '\r';
    layout.message_line.push_back(layout.lines.size());
    layout.lines.push_back(Line{std::move(text), std::nullopt});
  }
  return layout;
}

std::string file_bytes(const std::vector<Line>& lines, bool final_newline) {
  std::string bytes;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    bytes += lines[i].bytes;
    if (i + 1 < lines.size() || final_newline) bytes += '\n';
  }
  return bytes;
}

// The error load_session throws on a fresh file holding `bytes`, if any.
std::optional<SessionError> load_error(const std::string& bytes) {
  const auto path = fresh_session_path();
  std::ofstream(path, std::ios::binary) << bytes;
  std::optional<SessionError> error;
  try {
    load_session(path);
  } catch (const SessionError& e) {
    error = e;
  }
  std::filesystem::remove(path);
  return error;
}

// what() starts with exactly the spec's text for `kind` and `line`, then
// ends or goes on with ": " (so that line 1 is never line 12).
bool names_line(const SessionError& error, SessionErrorKind kind, std::size_t line) {
  const std::string text =
      (kind == SessionErrorKind::invalid_json ? "invalid session JSON at line " : "invalid session record at line ") +
      std::to_string(line);
  const std::string what = error.what();
  if (what.rfind(text, 0) != 0) return false;
  return what.size() == text.size() || what.compare(text.size(), 2, ": ") == 0;
}

void assert_reports(const std::string& bytes, const Line& corrupt_line, std::size_t physical_line) {
  RC_LOG() << "file: " << rc::toString(bytes) << "\nexpected: line " << physical_line << "\n";
  const std::optional<SessionError> error = load_error(bytes);
  RC_ASSERT(error.has_value());
  RC_ASSERT(error->kind() == *corrupt_line.error);
  RC_ASSERT(error->line() == physical_line);
  RC_ASSERT(names_line(*error, *corrupt_line.error, physical_line));
}

// 10. Corruption is located: one corrupt line in a valid session, and
// loading names exactly that physical line with the right text.
RC_GTEST_PROP(SessionProperties, CorruptionIsLocated, ()) {
  const History history = *messages(1);
  Layout file = layout(history);
  const auto victim = *rc::gen::inRange<std::size_t>(0, history.size());
  const std::size_t index = file.message_line[victim];
  file.lines[index] = *corrupt(history[victim]);
  RC_TAG(*file.lines[index].error == SessionErrorKind::invalid_json ? "JSON error" : "record error");
  const std::string bytes = file_bytes(file.lines, *rc::gen::arbitrary<bool>());
  assert_reports(bytes, file.lines[index], index + 1);
}

// 11. First error wins: with two corrupt lines, the earlier is reported.
RC_GTEST_PROP(SessionProperties, FirstErrorWins, ()) {
  const History history = *messages(2);
  Layout file = layout(history);
  const auto first = *rc::gen::inRange<std::size_t>(0, history.size() - 1);
  const auto second = *rc::gen::inRange<std::size_t>(first + 1, history.size());
  const std::size_t first_index = file.message_line[first];
  file.lines[first_index] = *corrupt(history[first]);
  file.lines[file.message_line[second]] = *corrupt(history[second]);
  const std::string bytes = file_bytes(file.lines, *rc::gen::arbitrary<bool>());
  assert_reports(bytes, file.lines[first_index], first_index + 1);
}

}  // namespace
}  // namespace agent_session::properties
