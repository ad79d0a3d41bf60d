#include "harness/server.hpp"

#include "base/descriptor.hpp"
#include "base/printable.hpp"
#include "harness/argument_forms.hpp"
#include "harness/base64.hpp"
#include "harness/untrusted_json.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <istream>
#include <optional>
#include <ostream>
#include <stdexcept>

#include <fcntl.h>
#include <unistd.h>

namespace agent_session::harness {
namespace {

using nlohmann::json;
using Answer = nlohmann::ordered_json;
using base::Fd;
using base::terminal_safe;

constexpr std::uint64_t kMaxSeq = (std::uint64_t{1} << 53) - 1;

Answer error(const std::string& message, std::optional<std::uint64_t> seq = std::nullopt) {
  Answer answer = {{"op", "error"}, {"message", message}};
  if (seq) answer["seq"] = *seq;
  return answer;
}

// `run` in `cwd` (when not empty; a relative one resolves against the
// directory we started in, where every run leaves us), and back in that
// directory. Its descriptor is O_PATH: a directory we may enter but not
// list (mode 0711) is left and found again, and its name, whatever its
// bytes, is never spelled.
HarnessRun in_directory(const std::string& cwd, const std::vector<std::string>& argv, std::string_view input,
                        const HarnessRunFunction& run) {
  if (cwd.empty()) return run(argv, input);
  const Fd home(::open(".", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (home.get() < 0 || ::chdir(cwd.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    return {3, "", "harness: cwd " + cwd + ": " + reason + "\n", ""};
  }
  HarnessRun result;
  try {
    result = run(argv, input);
  } catch (...) {
    if (::fchdir(home.get()) != 0) {  // nothing better to do than go on
    }
    throw;
  }
  if (::fchdir(home.get()) != 0) throw std::runtime_error("harness: cannot return to the starting directory");
  return result;
}

// A run of one of SPEC.md §6.1's forms whose command is not one of the
// port's own (what `start` listed: `frobnicate FILE`, or `append FILE` on a
// port without it) is answered as exec mode answers an unknown command,
// exit 2, and never dispatched (harness.md §3 "run").
std::optional<HarnessRun> not_a_port_command(const std::vector<std::string>& argv, const HarnessPort& port) {
  if (!argv.empty() && std::find(port.commands.begin(), port.commands.end(), argv.front()) != port.commands.end()) {
    return std::nullopt;
  }
  std::string commands;
  for (const auto& command : port.commands) commands += (commands.empty() ? "" : ", ") + command;
  const std::string word = argv.empty() ? "no command" : "unknown command '" + terminal_safe(argv.front()) + "'";
  return HarnessRun{2, "", port.name + ": " + word + " (a harness run takes " + commands + ")\n", ""};
}

// A request line's most bytes: a run request holds at most a vector
// file's bytes (kMaxVectorFile) in base64, and a few short fields.
constexpr std::size_t kMaxRequestBytes = (kMaxVectorFile + 2) / 3 * 4 + (std::size_t{1} << 20);

enum class RequestLine { line, too_long, end };

// The next line of `in` into `line`, without its '\n': at most
// kMaxRequestBytes are kept, the rest of a longer line read and dropped
// (memory stays bounded whatever a client sends). `end` at end of input
// with nothing read.
RequestLine read_request_line(std::istream& in, std::string& line) {
  line.clear();
  std::streambuf& buffer = *in.rdbuf();
  bool any = false, too_long = false;
  for (;;) {
    const auto c = buffer.sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      break;
    }
    any = true;
    if (c == '\n') break;
    if (line.size() < kMaxRequestBytes) {
      line.push_back(static_cast<char>(c));
    } else {
      too_long = true;
    }
  }
  if (!any) return RequestLine::end;
  return too_long ? RequestLine::too_long : RequestLine::line;
}

Answer answer_run(const json& request, const HarnessPort& port, const HarnessRunFunction& run) {
  const json& seq = member(request, "seq");
  if (!seq.is_number_unsigned() || seq.get<std::uint64_t>() > kMaxSeq) {
    return error("run request: seq must be an integer from 0 to 2^53-1");
  }
  const std::uint64_t number = seq.get<std::uint64_t>();
  const json& argv = member(request, "argv");
  if (!argv.is_array()) return error("run request: argv must be an array of strings", number);
  for (const auto& word : argv) {
    if (!word.is_string()) return error("run request: argv must be an array of strings", number);
    // A process argument ends at a NUL: the run would be judged on a
    // shorter word than the request's (SPEC.md §6.1).
    if (word.get_ref<const std::string&>().find('\0') != std::string::npos) {
      return error("run request: an argv word holds a NUL byte, which no process argument can", number);
    }
  }
  const json& stdin_b64 = member(request, "stdin_b64");
  const auto input = stdin_b64.is_string() ? base64_decode(stdin_b64.get_ref<const std::string&>()) : std::nullopt;
  if (!input) return error("run request: stdin_b64 must be base64 (RFC 4648, padded)", number);
  std::string cwd;
  if (request.contains("cwd")) {
    const json& given = member(request, "cwd");
    if (!given.is_string() || given.get<std::string>().empty() ||
        given.get<std::string>().find('\0') != std::string::npos) {
      return error("run request: cwd must be a path (a non-empty string without NUL)", number);
    }
    cwd = given.get<std::string>();
  }
  auto words = argv.get<std::vector<std::string>>();
  // The whole argv, not its first word: the runner sends only SPEC.md
  // §6.1's forms, so anything else is a request we cannot take (an error
  // answer naming the word), never a run: `check - conform -- sh -c ...`
  // must not reach a port as seven words.
  if (const auto problem = run_argv_problem(words)) return error("run request: " + *problem, number);
  HarnessRun result;
  try {
    const auto refused = not_a_port_command(words, port);
    result = refused ? *refused : in_directory(cwd, words, *input, run);
  } catch (const std::exception& problem) {
    // Exec mode's crash; here an internal error that fails the check.
    result = {70, "", std::string("harness: internal error: ") + problem.what() + "\n", ""};
  }
  if (!result.failure.empty()) return error(result.failure, number);
  return {{"op", "run"},
          {"seq", number},
          {"exit", result.exit},
          {"stdout_b64", base64_encode(result.out)},
          {"stderr_b64", base64_encode(result.err)}};
}

}  // namespace

int serve_harness(std::istream& in, std::ostream& out, const HarnessPort& port, const HarnessRunFunction& run) {
  for (std::string line;;) {
    const RequestLine read = read_request_line(in, line);
    if (read == RequestLine::end) break;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const UntrustedJson parsed = read == RequestLine::too_long ? UntrustedJson{} : parse_untrusted_json(line);
    const json& request = parsed.value;
    Answer answer;
    int code = -1;  // >= 0: exit with it after answering
    if (read == RequestLine::too_long) {
      answer = error("request longer than " + std::to_string(kMaxRequestBytes) + " bytes (not read further)");
    } else if (parsed.problem == UntrustedJson::Problem::refused) {
      answer = error("request " + parsed.reason);
    } else if (!parsed) {
      answer = error("not a JSON request");
    } else if (!request.is_object()) {
      answer = error("a request is a JSON object");
    } else if (const json& op = member(request, "op"); op == "start") {
      if (const json& protocol = member(request, "protocol"); protocol != 1) {
        answer = error("protocol " + shown_value(protocol) + " is not spoken here; protocol 1 is");
        code = 1;
      } else {
        answer = {{"op", "start"},
                  {"protocol", 1},
                  {"port", {{"name", port.name}, {"version", port.version}, {"language", port.language}}},
                  {"commands", port.commands}};
      }
    } else if (op == "run") {
      answer = answer_run(request, port, run);
    } else if (op == "stop") {
      answer = {{"op", "stop"}};
      code = 0;
    } else {
      answer = error("unknown op " + shown_value(op));
    }
    out << answer.dump(-1, ' ', false, json::error_handler_t::replace) << '\n';
    out.flush();
    if (!out) return 3;
    if (code >= 0) return code;
  }
  return 0;  // end of input: the runner is gone, as good as stop
}

}  // namespace agent_session::harness
