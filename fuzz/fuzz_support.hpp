// What every fuzz target shares: a check that stops the run with a readable
// message (libFuzzer then saves the input), line splitting and escaping for
// the messages. The references the differential targets compare against
// are the library's own reference path (src/reference/,
// src/reference/reference.hpp), not copies kept here.
#pragma once

#include "agent_session/context.hpp"
#include "agent_session/session.hpp"
#include "base/printable.hpp"
#include "base/utf8.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace agent_session::fuzz {

// Aborts (libFuzzer and the replay driver both report the input) when an
// invariant does not hold. Not assert(): it must also hold in Release.
[[noreturn]] inline void fail(const char* file, int line, const char* condition, const std::string& detail) {
  std::fprintf(stderr, "%s:%d: invariant failed: %s\n  %s\n", file, line, condition, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

#define FUZZ_CHECK(condition, detail)                                                        \
  do {                                                                                       \
    if (!(condition)) ::agent_session::fuzz::fail(__FILE__, __LINE__, #condition, (detail)); \
  } while (false)

// True when `text` is valid UTF-8, by the library's one validator
// (base/printable.hpp, SPEC.md §2.1).
inline bool valid_utf8(std::string_view text) { return base::valid_utf8_prefix(text) == text.size(); }

// Lines as SPEC.md §2 splits them: on `\n`, the last one kept even when
// empty only if bytes follow the last `\n`. Line i is lines[i - 1].
inline std::vector<std::string_view> split_lines(std::string_view bytes) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < bytes.size()) {
    std::size_t end = bytes.find('\n', start);
    if (end == std::string_view::npos) end = bytes.size();
    lines.push_back(bytes.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// What load_session_from_memory makes of `bytes`: the messages, or the
// SessionError it throws.
inline std::variant<std::vector<Message>, SessionError> load_from_memory(std::string_view bytes) {
  try {
    return load_session_from_memory(bytes);
  } catch (const SessionError& error) {
    return error;
  }
}

// `bytes` with everything but printable ASCII as \xNN, for failure messages.
inline std::string escaped(std::string_view bytes, std::size_t limit = 300) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size() && i < limit; ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", c);
      out += hex;
    }
  }
  if (bytes.size() > limit) out += "...";
  return out;
}

// Everything a ContextError says, for comparing a fast answer with the
// reference's: kind, what(), the message, the unit and the budget.
inline std::string describe_context_error(const ContextError& error) {
  std::string out = "ContextError(kind " + std::to_string(static_cast<int>(error.kind()));
  if (error.message_index()) out += ", message " + std::to_string(*error.message_index());
  if (const std::optional<ContextUnit> unit = error.unit()) {
    out += ", unit [" + std::to_string(unit->begin) + ", " + std::to_string(unit->end) + ") of " +
           std::to_string(unit->chars) + " chars";
  }
  if (error.budget()) out += ", budget " + std::to_string(*error.budget());
  return out + "): " + error.what();
}

inline bool same_error(const ContextError& a, const ContextError& b) {
  return a.kind() == b.kind() && std::string_view(a.what()) == b.what() && a.message_index() == b.message_index() &&
         a.unit() == b.unit() && a.budget() == b.budget();
}

}  // namespace agent_session::fuzz
