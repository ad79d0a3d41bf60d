#include "conform/runner/harness_client.hpp"

#include "base/printable.hpp"
#include "harness/base64.hpp"
#include "harness/untrusted_json.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <utility>

namespace agent_session::conform::runner {
namespace {

using agent_session::base::terminal_safe;
using harness::base64_decode;
using harness::base64_decoded_size;
using harness::base64_encode;
using harness::member;
using harness::parse_untrusted_json;
using harness::shown_value;
using harness::UntrustedJson;
using Clock = LiveProcess::Clock;
using nlohmann::json;

// How long a port whose output closed has to exit before it is killed.
constexpr std::chrono::milliseconds kHarnessGrace{2000};

// A response holds two streams of at most `max_output` bytes each, in
// base64, and a few short fields.
std::size_t line_limit(std::size_t max_output) { return 2 * ((max_output + 2) / 3 * 4) + (1 << 16); }

// `text` as a short, printable, quoted excerpt.
std::string excerpt(std::string_view text) {
  return "\"" + terminal_safe(text.substr(0, 120)) + (text.size() > 120 ? "\"..." : "\"");
}

std::string stderr_hint(std::string_view text) { return text.empty() ? "" : "; stderr: " + excerpt(text); }

bool is_byte(const json& value) {
  return value.is_number_integer() && value.get<std::int64_t>() >= 0 && value.get<std::int64_t>() <= 255;
}

bool nonempty_string(const json& object, const char* key) {
  const json& value = member(object, key);
  return value.is_string() && !value.get_ref<const std::string&>().empty();
}

// A value of the port's answer in a message, as JSON, cut by excerpt
// (a container is never dumped whole: shown_value).
std::string shown(const json& value) { return excerpt(shown_value(value, 240)); }

// Why `line` is not a start response of protocol 1 (empty: it is), and
// what the port said of itself.
std::string start_problem(const std::string& line, const std::vector<std::string>& required, HarnessPort& port,
                          json& adapter) {
  const UntrustedJson parsed = parse_untrusted_json(line);
  if (parsed.problem == UntrustedJson::Problem::refused) return "answered start with a line " + parsed.reason;
  const json& answer = parsed.value;
  if (!parsed || !answer.is_object()) return "answered start with " + excerpt(line) + ", not a JSON object";
  const json& op = member(answer, "op");
  if (op == "error") return "answered start with an error: " + shown(member(answer, "message"));
  if (op != "start") return "answered start with " + excerpt(line);
  const json& protocol = member(answer, "protocol");
  if (protocol != 1) return "answered start with protocol " + shown(protocol) + ", not 1";
  const json& about = member(answer, "port");
  if (!about.is_object() || !nonempty_string(about, "name") || !nonempty_string(about, "version") ||
      !nonempty_string(about, "language")) {
    return "answered start without port.name, port.version and port.language (non-empty strings)";
  }
  const json& commands = member(answer, "commands");
  if (!commands.is_array() ||
      !std::all_of(commands.begin(), commands.end(), [](const json& c) { return c.is_string(); })) {
    return "answered start without commands (an array of strings)";
  }
  port = {member(about, "name").get<std::string>(), member(about, "version").get<std::string>(),
          member(about, "language").get<std::string>(), commands.get<std::vector<std::string>>()};
  for (const std::string& needed : required) {
    if (std::find(port.commands.begin(), port.commands.end(), needed) == port.commands.end()) {
      return "answered start without " + needed + " among its commands";
    }
  }
  adapter = member(answer, "adapter").is_object() ? member(answer, "adapter") : json();
  return "";
}

}  // namespace

HarnessClient::HarnessClient(HarnessSettings settings) : settings_(std::move(settings)) {}

HarnessClient::~HarnessClient() {
  try {
    stop();
  } catch (...) {  // poll failed: the process's destructor still kills it
  }
}

std::string HarnessClient::unasked(const std::string& request) const {
  return "the port wrote " + std::to_string(process_->unasked_bytes()) + " bytes after its answer to " +
         last_answered_ + ", before " + request + " was sent (killed)";
}

std::string HarnessClient::shown_command() const {
  std::string text;
  for (const auto& word : settings_.command) text += terminal_safe(word) + " ";
  return "'" + text + "harness'";
}

std::optional<std::string> HarnessClient::start() {
  process_.reset();
  std::vector<std::string> argv = settings_.command;
  argv.push_back("harness");
  const auto deadline = Clock::now() + settings_.timeout;
  process_ = std::make_unique<LiveProcess>(argv, deadline, settings_.folder);
  if (!process_->running()) {
    const std::string problem = terminal_safe(process_->start_error());
    process_.reset();
    ++failed_starts_;
    last_failure_ = problem;
    return problem;
  }
  std::string line, problem;
  switch (process_->exchange("{\"op\":\"start\",\"protocol\":1}\n", line, line_limit(settings_.max_output), deadline)) {
    case LiveProcess::Exchange::answered:
      problem = start_problem(line, settings_.required_commands, port_, adapter_);
      if (!problem.empty()) problem = shown_command() + " " + problem;
      break;
    case LiveProcess::Exchange::closed: {
      const ProcessResult end = process_->close(Clock::now() + settings_.timeout);
      problem = shown_command() + " ended (" + describe_end(end, settings_.timeout) + ") without answering start";
      if (end.end == ProcessEnd::exited && end.exit_code == 2) problem += ": it has no harness mode";
      problem += stderr_hint(end.err);
      break;
    }
    case LiveProcess::Exchange::timed_out:
      problem = shown_command() + " did not answer start within " +
                std::to_string(static_cast<double>(settings_.timeout.count()) / 1000.0) + " s" +
                stderr_hint(process_->stderr_tail());
      break;
    case LiveProcess::Exchange::too_long:
      problem = shown_command() + " answered start with a line too long for a start response";
      break;
    case LiveProcess::Exchange::unasked:  // never on a new process's first exchange
      problem = shown_command() + " wrote before start was sent";
      break;
  }
  if (problem.empty()) {
    failed_starts_ = 0;
    last_answered_ = "start";
    return std::nullopt;
  }
  process_.reset();
  ++failed_starts_;
  last_failure_ = problem;
  return problem;
}

ProcessResult HarnessClient::failed(ProcessEnd end, std::string reason) {
  process_.reset();  // kills it and its tree, bounded
  ProcessResult result;
  result.end = end;
  result.error = std::move(reason);
  result.output_limit = settings_.max_output;
  return result;
}

ProcessResult HarnessClient::run(const std::vector<std::string>& argv, std::string_view input, const std::string& cwd) {
  if (!process_) {
    if (failed_starts_ >= kRestartAttempts) {
      return failed(ProcessEnd::harness_failure, "the port's harness could not be restarted (" +
                                                     std::to_string(failed_starts_) +
                                                     " attempts in a row failed: " + last_failure_ + ")");
    }
    if (const auto problem = start())
      return failed(ProcessEnd::harness_failure, "cannot restart the port: " + *problem);
  }
  const std::uint64_t seq = ++seq_;
  nlohmann::ordered_json request = {{"op", "run"}, {"seq", seq}, {"argv", argv}, {"stdin_b64", base64_encode(input)}};
  if (!cwd.empty()) request["cwd"] = cwd;
  std::string line;
  const auto deadline = Clock::now() + settings_.timeout;
  switch (process_->exchange(request.dump() + "\n", line, line_limit(settings_.max_output), deadline)) {
    case LiveProcess::Exchange::timed_out: return failed(ProcessEnd::timed_out, "");
    case LiveProcess::Exchange::too_long:
      return failed(ProcessEnd::harness_failure, "the port answered with a line of more than " +
                                                     std::to_string(line_limit(settings_.max_output)) +
                                                     " bytes, more than --max-output allows (killed)");
    case LiveProcess::Exchange::closed: {
      const ProcessResult end =
          process_->close(Clock::now() + std::min<std::chrono::milliseconds>(settings_.timeout, kHarnessGrace));
      return failed(ProcessEnd::harness_failure, "the port's harness process ended without answering (" +
                                                     describe_end(end, settings_.timeout) + stderr_hint(end.err) + ")");
    }
    case LiveProcess::Exchange::unasked:
      // Never read as this request's answer: it was written before the
      // request existed (harness.md §4), a forged or stale answer.
      return failed(ProcessEnd::harness_failure, unasked("request " + std::to_string(seq)));
    case LiveProcess::Exchange::answered: last_answered_ = "request " + std::to_string(seq); break;
  }
  const UntrustedJson parsed = parse_untrusted_json(line);
  const json& answer = parsed.value;
  const auto broke = [&](const std::string& why) {
    return failed(ProcessEnd::harness_failure, "the port's harness " + why + " (killed)");
  };
  if (parsed.problem == UntrustedJson::Problem::refused) return broke("answered a line " + parsed.reason);
  if (!parsed || !answer.is_object()) return broke("answered " + excerpt(line) + ", not a JSON object");
  const json& op = member(answer, "op");
  if (op == "error") return broke("answered an error: " + shown(member(answer, "message")));
  if (op != "run") return broke("answered op " + shown(op) + " to a run request");
  const json& got = member(answer, "seq");
  if (!got.is_number_unsigned() || got.get<std::uint64_t>() != seq) {
    return broke("answered seq " + shown(got) + " to run request " + std::to_string(seq));
  }
  const json& exit = member(answer, "exit");
  if (!is_byte(exit)) return broke("answered exit " + shown(exit) + ", not an integer from 0 to 255");
  ProcessResult result;
  result.output_limit = settings_.max_output;
  const struct {
    const char* field;
    const char* stream;
    std::string& into;
  } streams[] = {{"stdout_b64", "standard output", result.out}, {"stderr_b64", "standard error", result.err}};
  for (const auto& stream : streams) {
    const json& text = member(answer, stream.field);
    if (!text.is_string()) return broke(std::string("answered without ") + stream.field + " (a string)");
    if (base64_decoded_size(text.get_ref<const std::string&>()) > settings_.max_output) {
      ProcessResult over = failed(ProcessEnd::output_limit, "");
      over.overflowed = stream.stream;
      return over;
    }
    auto bytes = base64_decode(text.get_ref<const std::string&>());
    if (!bytes) return broke(std::string("answered a ") + stream.field + " that is not base64 (RFC 4648, padded)");
    stream.into = std::move(*bytes);
  }
  result.end = ProcessEnd::exited;
  result.exit_code = exit.get<int>();
  return result;
}

HarnessAnswer HarnessClient::ask(nlohmann::ordered_json request) {
  const auto failure = [&](const std::string& why) {
    failed(ProcessEnd::harness_failure, "");
    return HarnessAnswer{json(), why};
  };
  if (!process_) {
    if (failed_starts_ >= kRestartAttempts) {
      return failure("the harness could not be restarted (" + std::to_string(failed_starts_) +
                     " attempts in a row failed: " + last_failure_ + ")");
    }
    if (const auto problem = start()) return failure("cannot restart: " + *problem);
  }
  const std::uint64_t seq = ++seq_;
  const std::string op = request.value("op", "");
  request["seq"] = seq;
  std::string line;
  switch (process_->exchange(request.dump() + "\n", line, line_limit(settings_.max_output),
                             Clock::now() + settings_.timeout)) {
    case LiveProcess::Exchange::timed_out:
      return failure("no answer to " + op + " within " + std::to_string(settings_.timeout.count()) + " ms");
    case LiveProcess::Exchange::too_long: return failure("answered " + op + " with a line too long");
    case LiveProcess::Exchange::closed: {
      const ProcessResult end =
          process_->close(Clock::now() + std::min<std::chrono::milliseconds>(settings_.timeout, kHarnessGrace));
      return failure("ended without answering " + op + " (" + describe_end(end, settings_.timeout) +
                     stderr_hint(end.err) + ")");
    }
    case LiveProcess::Exchange::unasked: return failure(unasked("request " + std::to_string(seq)));
    case LiveProcess::Exchange::answered: last_answered_ = "request " + std::to_string(seq); break;
  }
  UntrustedJson parsed = parse_untrusted_json(line);
  if (parsed.problem == UntrustedJson::Problem::refused) return failure("answered a line " + parsed.reason);
  if (!parsed || !parsed.value.is_object()) return failure("answered " + excerpt(line) + ", not a JSON object");
  const json& got_op = member(parsed.value, "op");
  if (got_op == "error") return failure("answered an error: " + shown(member(parsed.value, "message")));
  if (got_op != op) return failure("answered op " + shown(got_op) + " to a " + op + " request");
  const json& got = member(parsed.value, "seq");
  if (!got.is_number_unsigned() || got.get<std::uint64_t>() != seq) {
    return failure("answered seq " + shown(got) + " to " + op + " request " + std::to_string(seq));
  }
  return HarnessAnswer{std::move(parsed.value), ""};
}

std::optional<std::string> HarnessClient::stop() {
  if (!process_) return std::nullopt;
  const auto deadline = Clock::now() + settings_.timeout;
  std::string line;
  std::optional<std::string> problem;
  const auto exchange = process_->exchange("{\"op\":\"stop\"}\n", line, line_limit(settings_.max_output), deadline);
  if (exchange == LiveProcess::Exchange::unasked) {
    problem = unasked("stop").substr(std::string_view("the port ").size());
  } else if (exchange != LiveProcess::Exchange::answered) {
    problem = "did not answer stop";
  } else if (const UntrustedJson answer = parse_untrusted_json(line);
             answer.problem == UntrustedJson::Problem::refused) {
    problem = "answered stop with a line " + answer.reason;
  } else if (member(answer.value, "op") != "stop") {
    problem = "answered stop with " + excerpt(line);
  }
  const ProcessResult end = process_->close(deadline);
  if (end.end != ProcessEnd::exited || end.exit_code != 0) {
    problem = (problem ? *problem + ", then " : std::string()) + describe_end(end, settings_.timeout) + " after stop";
  }
  process_.reset();
  if (problem) return shown_command() + " " + *problem;
  return std::nullopt;
}

}  // namespace agent_session::conform::runner
