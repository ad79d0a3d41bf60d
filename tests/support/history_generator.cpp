#include "support/history_generator.hpp"

#include "agent_session/session.hpp"

#include <cstdint>
#include <fstream>
#include <string>
#include <system_error>

namespace agent_session::bench {
namespace {

// splitmix64: tiny, fast, and the same sequence everywhere (integer
// arithmetic only), which is all a deterministic generator needs.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform in [low, high].
  std::size_t between(std::size_t low, std::size_t high) { return low + next() % (high - low + 1); }
  bool one_in(std::size_t n) { return next() % n == 0; }

 private:
  std::uint64_t state_;
};

}  // namespace

namespace {

constexpr std::string_view kWords[] = {
    "the",    "session", "file",    "records", "every",   "message", "tool",  "result", "assistant",
    "budget", "context", "model",   "reads",   "writes",  "line",    "unit",  "trim",   "keeps",
    "newest", "history", "request", "call",    "returns", "error",   "path",  "config", "build",
    "test",   "passes",  "fails",   "because", "when",    "with",    "from",  "into",   "before",
    "after",  "which",   "should",  "could",   "output",  "input",   "value", "number", "string",
};

void append_word(std::string& out, Random& random) { out.append(kWords[random.next() % std::size(kWords)]); }

// English sentences of plain ASCII: letters, spaces, commas and periods.
void ascii_prose(std::string& out, Random& random, std::size_t bytes) {
  while (out.size() < bytes) {
    const std::size_t words = random.between(4, 14);
    for (std::size_t w = 0; w < words; ++w) {
      append_word(out, random);
      out.append(w + 1 == words ? ". " : random.one_in(6) ? ", " : " ");
    }
  }
}

// Chinese text: common ideographs with full-width punctuation, now and
// then an ASCII identifier, as in a Chinese-speaking user's session.
void cjk_text(std::string& out, Random& random, std::size_t bytes) {
  while (out.size() < bytes) {
    const std::size_t characters = random.between(6, 24);
    for (std::size_t c = 0; c < characters; ++c)
      append_utf8(out, static_cast<char32_t>(0x4E00 + random.next() % 0x51A6));
    if (random.one_in(5)) {
      out.push_back(' ');
      append_word(out, random);
      out.push_back(' ');
    }
    append_utf8(out, random.one_in(3) ? U'\uFF0C' : U'\u3002');  // ， or 。
  }
}

// Chat with many emoji (outside the BMP: 4 bytes, 2 UTF-16 units) and some
// BMP symbols such as a check mark.
void emoji_text(std::string& out, Random& random, std::size_t bytes) {
  while (out.size() < bytes) {
    if (random.one_in(3)) {
      append_word(out, random);
    } else if (random.one_in(8)) {
      append_utf8(out, static_cast<char32_t>(0x2700 + random.next() % 0xC0));
    } else {
      append_utf8(out, static_cast<char32_t>(0x1F300 + random.next() % 0x300));
    }
    if (random.one_in(3)) out.push_back(' ');
  }
}

// Source code and terminal output: quotes, backslashes, newlines, tabs and
// ANSI color sequences (ESC is a control byte, printed as \u001b).
void code_text(std::string& out, Random& random, std::size_t bytes) {
  constexpr std::string_view kLines[] = {
      "if (path == \"C:\\\\Users\\\\dev\\\\config.json\") {\n",
      "\treturn std::string(\"\\\"quoted\\\"\") + '\\n';\n",
      "}\n",
      "\x1b[31merror\x1b[0m: expected ';' after \"return\"\n",
      "  printf(\"%s\\t%d\\n\", name, count);\r\n",
      "\t\tconst re = /\\d+\\.\\d+/g;\n",
      "\x1b[1m\x1b[32mok\x1b[0m \ttest \"trim keeps units\"\n",
      "json = \"{\\\"role\\\":\\\"user\\\"}\"\f\n",
  };
  while (out.size() < bytes) {
    out.append(kLines[random.next() % std::size(kLines)]);
    if (random.one_in(4)) {
      out.append("// ");
      append_word(out, random);
      out.push_back('\n');
    }
  }
}

void text(std::string& out, Profile profile, Random& random, std::size_t bytes) {
  switch (profile) {
    case Profile::ascii_prose:
    case Profile::numbers: return ascii_prose(out, random, bytes);
    case Profile::cjk: return cjk_text(out, random, bytes);
    case Profile::emoji: return emoji_text(out, random, bytes);
    case Profile::escapes: return code_text(out, random, bytes);
  }
}

std::string text(Profile profile, Random& random, std::size_t low, std::size_t high) {
  std::string out;
  text(out, profile, random, random.between(low, high));
  return out;
}

// A double as loaded sessions hold every number: integers, decimals,
// negatives, tiny and huge exponents. Built with exact IEEE operations so
// every machine gets the same bits.
double number(Random& random) {
  const auto n = static_cast<double>(random.next() % 1'000'000);
  switch (random.next() % 6) {
    case 0: return n;
    case 1: return -n / 1000.0;
    case 2: return n / 7.0;
    case 3: return n * 1e-12;
    case 4: return n * 6.02214076e23;
    default: return static_cast<double>(random.next() % 100);
  }
}

Json numeric_input(Random& random) {
  Json series = Json::array();
  for (std::size_t i = random.between(8, 32); i > 0; --i) series.push_back(number(random));
  Json matrix = Json::array();
  for (int row = 0; row < 4; ++row) {
    Json cells = Json::array();
    for (int column = 0; column < 4; ++column) cells.push_back(number(random));
    matrix.push_back(std::move(cells));
  }
  Json input = Json::object();
  input["series"] = std::move(series);
  input["matrix"] = std::move(matrix);
  input["scale"] = number(random);
  input["window"] = static_cast<double>(random.between(1, 512));
  return input;
}

Json text_input(Profile profile, Random& random, std::size_t call) {
  Json input = Json::object();
  input["path"] = "src/module_" + std::to_string(call % 997) + ".cpp";
  input["query"] = text(profile, random, 30, 90);
  input["limit"] = static_cast<double>(random.between(1, 200));
  input["recursive"] = random.one_in(2);
  return input;
}

constexpr std::string_view kToolNames[] = {"read_file", "run_command", "search", "write_file", "http_get"};

// Appends one round, stopping as soon as the history holds `count`.
void append_round(std::vector<Message>& history, std::size_t count, Profile profile, Random& random,
                  std::size_t round) {
  const auto add = [&](Message&& message) {
    if (history.size() < count) history.push_back(std::move(message));
  };
  add(UserMessage{text(profile, random, 60, 220)});
  AssistantMessage request{text(profile, random, 30, 120), {}};
  const std::size_t calls = random.between(1, 3);
  for (std::size_t k = 0; k < calls; ++k) {
    request.tool_calls.push_back(
        ToolCall{"call_" + std::to_string(round) + "_" + std::to_string(k),
                 std::string(kToolNames[random.next() % std::size(kToolNames)]),
                 profile == Profile::numbers ? numeric_input(random) : text_input(profile, random, round + k)});
  }
  std::vector<std::string> ids;
  for (const auto& call : request.tool_calls) ids.push_back(call.id);
  add(std::move(request));
  for (auto& id : ids) add(ToolResultMessage{text(profile, random, 100, 400), std::move(id), random.one_in(11)});
  add(AssistantMessage{text(profile, random, 80, 300), {}});
}

}  // namespace

std::string profile_text(Profile profile, std::size_t bytes, std::uint64_t seed) {
  Random random(seed);
  std::string out;
  text(out, profile, random, bytes);
  return out;
}

std::string_view profile_name(Profile profile) {
  switch (profile) {
    case Profile::ascii_prose: return "ascii";
    case Profile::cjk: return "cjk";
    case Profile::emoji: return "emoji";
    case Profile::escapes: return "escapes";
    case Profile::numbers: return "numbers";
  }
  return "unknown";
}

std::optional<Profile> profile_from_name(std::string_view name) {
  for (const Profile profile : kProfiles) {
    if (profile_name(profile) == name) return profile;
  }
  return std::nullopt;
}

std::vector<Message> generate_history(Profile profile, std::size_t count) {
  Random random(0x5E5510A ^ (static_cast<std::uint64_t>(profile) << 32));
  std::vector<Message> history;
  history.reserve(count);
  for (std::size_t round = 0; history.size() < count; ++round) append_round(history, count, profile, random, round);
  return history;
}

std::filesystem::path history_file(const std::filesystem::path& dir, Profile profile, std::size_t count) {
  const auto path = dir / (std::string(profile_name(profile)) + "-" + std::to_string(count) + ".jsonl");
  if (std::filesystem::exists(path)) return path;
  std::filesystem::create_directories(dir);
  const std::string jsonl = to_canonical_jsonl(generate_history(profile, count));
  // Written under a temporary name and renamed, so an interrupted run never
  // leaves a truncated history that a later run would trust.
  const auto partial = std::filesystem::path(path).concat(".partial");
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out.write(jsonl.data(), static_cast<std::streamsize>(jsonl.size()));
    if (!out) throw std::system_error(errno, std::generic_category(), "cannot write " + partial.string());
  }
  std::filesystem::rename(partial, path);
  return path;
}

}  // namespace agent_session::bench
