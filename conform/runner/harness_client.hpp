// The runner's side of the harness protocol (corpus/conformance/harness.md):
// one long-lived `CMD harness` process answers the port's command lines,
// a request and a response (one JSON line each) per run, instead of one
// process per run. Each run's answer comes back as the ProcessResult exec
// mode would have given (exit code, standard output and error bytes), so
// the judge (runner/conform_judge.hpp) cannot tell the two apart.
//
// Example:
//   HarnessClient port({{"node", "/work/tests/oracle/cli.mjs"}, std::chrono::seconds(10), 1 << 20, "/tmp/job"});
//   if (const auto problem = port.start()) fail(*problem);  // no harness mode
//   const ProcessResult r = port.run({"check", "-"}, "{\"role\":\"user\",\"content\":\"hi\"}\n");
//   port.stop();
//
// A port that misbehaves (harness.md §4: a line that is not a response,
// another op or seq, an `error`, an exit, a closed output, no answer within
// the timeout, more than `max_output` bytes in a stream, bytes written
// after an answer before the next request was sent) fails that run
// (ProcessEnd::harness_failure, timed_out or output_limit, with the
// reason) and is killed with all it started; the next run starts a new
// one, up to kRestartAttempts failed starts in a row. One thread only
// (runner/live_process.hpp).
#pragma once

#include "conform/runner/live_process.hpp"
#include "conform/runner/subprocess.hpp"
#include "harness/protocol.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::conform::runner {

// How many failed starts in a row end a client's restarts; a start that
// succeeds resets the count. Then every later run fails at once ("the
// port's harness could not be restarted (3 attempts in a row failed:
// ...)") instead of paying --timeout for a start that will not come: 5
// small vectors at 2 s took 63 s, the whole suite at 10 s would take
// hours. Three, not one: a port that crashed on a run may fail
// one restart by chance (a start at the edge of the timeout on a busy
// machine), and each attempt costs at most one --timeout.
inline constexpr int kRestartAttempts = 3;

struct HarnessSettings {
  std::vector<std::string> command;   // the port: CMD [ARGS...]; `harness` is added
  std::chrono::milliseconds timeout;  // per request, start and stop included
  std::size_t max_output;             // bytes per decoded stream of a run; more fails it
  WorkingFolder folder;               // the folder the port starts in (borrowed descriptor); none: the runner's
  // What the start answer's `commands` must hold: SPEC.md §6's four for a
  // port; `count` and `trim` for an adapter (corpus/conformance/adapter.md §3).
  std::vector<std::string> required_commands = {"check", "estimate", "canon", "trim"};
};

// The answer to one request of ask(): its JSON object, or why there is none
// (the process was killed then, and the next request starts a new one).
struct HarnessAnswer {
  nlohmann::json value;  // an object whose op and seq are the request's
  std::string problem;   // empty when answered
  explicit operator bool() const { return problem.empty(); }
};

using harness::HarnessPort;  // what the port said of itself in its start response

class HarnessClient {
 public:
  explicit HarnessClient(HarnessSettings settings);
  HarnessClient(const HarnessClient&) = delete;
  HarnessClient& operator=(const HarnessClient&) = delete;
  ~HarnessClient();  // stop()

  // Starts `CMD harness` and exchanges `start`. Nothing when the port
  // speaks protocol 1; else why not, one line ("'my-port harness' exited 2
  // without answering start: it has no harness mode; stderr: ...").
  std::optional<std::string> start();
  const HarnessPort& port() const { return port_; }
  // The start answer's `adapter` object (adapter.md §3); null when absent.
  const nlohmann::json& adapter() const { return adapter_; }

  // Sends `request` (an object with its `op`; `seq` is added) and reads one
  // answer of the same op and seq, as run() does (restarts, limits, an
  // `error` answer fails it). For the adapter protocol's requests.
  HarnessAnswer ask(nlohmann::ordered_json request);

  // Runs `argv` (what exec mode passes after CMD) with `input` as its
  // standard input; starts the port first when it is not running, unless
  // kRestartAttempts starts in a row have failed: then that run fails at
  // once (harness_failure), and so does every later one. `cwd`,
  // when not empty, is sent as the request's cwd: the run's working
  // directory, a path the port resolves against the folder it started in
  // (harness.md §3), such as "run-17": runner-chosen ASCII, so any bytes
  // of the folders' real names and a folder the port may not list cost
  // nothing.
  ProcessResult run(const std::vector<std::string>& argv, std::string_view input, const std::string& cwd = "");

  // Sends `stop`, waits (within the timeout) for its answer and its exit,
  // then kills what is left. Nothing when it stopped cleanly; else how not.
  std::optional<std::string> stop();

 private:
  // The process is killed and forgotten: the next run starts a new one.
  ProcessResult failed(ProcessEnd end, std::string reason);
  std::string shown_command() const;
  // Why bytes that answer no request fail `request` ("request 5", "stop").
  std::string unasked(const std::string& request) const;
  HarnessSettings settings_;
  std::unique_ptr<LiveProcess> process_;
  HarnessPort port_;
  nlohmann::json adapter_;
  std::uint64_t seq_ = 0;
  std::string last_answered_;  // "start", "request 4": what the process last answered
  int failed_starts_ = 0;      // in a row; start() counts them
  std::string last_failure_;   // why the last of them failed
};

}  // namespace agent_session::conform::runner
