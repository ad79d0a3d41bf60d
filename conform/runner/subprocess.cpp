#include "conform/runner/subprocess.hpp"

#include "conform/runner/supervision.hpp"

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <sstream>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

namespace agent_session::conform::runner {
namespace {

using namespace supervision;

// Reads what is available into `sink`, never past `limit` + 1 bytes;
// closes `fd` at end of file. True when the stream outgrew `limit`.
bool drain(Fd& fd, std::string& sink, std::size_t limit) {
  char chunk[1 << 16];
  std::size_t room = limit - sink.size();  // and one byte more, to see an overflow
  room = room < sizeof chunk ? room + 1 : sizeof chunk;
  const ssize_t n = ::read(fd.get(), chunk, room);
  if (n > 0) {
    sink.append(chunk, static_cast<std::size_t>(n));
  } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    fd.reset();
  }
  if (sink.size() <= limit) return false;
  sink.resize(limit);
  return true;
}

// Writes what the pipe takes; closes `fd` when all is written or the
// program closed its end (EPIPE: it does not want the rest).
void feed(Fd& fd, std::string_view input, std::size_t& written) {
  if (written < input.size()) {
    const ssize_t n = ::write(fd.get(), input.data() + written, input.size() - written);
    if (n > 0) written += static_cast<std::size_t>(n);
    if (n < 0 && errno != EINTR && errno != EAGAIN) written = input.size();
  }
  if (written >= input.size()) fd.reset();
}

struct Streams {
  Fd to_child, from_out, from_err;
};

// How pump ended: how the program's run did, or the supervisor's death.
enum class PumpEnd { reported, timed_out, output_limit, supervisor_died };

// Serves the pipes until the supervisor has reported the program's end
// and both outputs are closed, the deadline passes or an output outgrows
// `limit`. `report` receives the supervisor's word.
PumpEnd pump(Streams& s, int report_fd, std::string_view input, ProcessResult& result, Clock::time_point deadline,
             SupervisorReport& report, bool& reported) {
  std::size_t written = 0;
  if (input.empty()) s.to_child.reset();
  while (s.from_out.get() >= 0 || s.from_err.get() >= 0 || !reported) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return PumpEnd::timed_out;
    std::array<pollfd, 4> fds{{{s.to_child.get(), POLLOUT, 0},
                               {s.from_out.get(), POLLIN, 0},
                               {s.from_err.get(), POLLIN, 0},
                               {reported ? -1 : report_fd, POLLIN, 0}}};
    const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(std::min<long long>(left.count() + 1, 1000)));
    if (ready < 0 && errno != EINTR) throw_errno("poll");
    if (ready <= 0) continue;
    if (fds[0].revents != 0) feed(s.to_child, input, written);
    if (fds[1].revents != 0 && drain(s.from_out, result.out, result.output_limit)) {
      result.overflowed = "standard output";
      return PumpEnd::output_limit;
    }
    if (fds[2].revents != 0 && drain(s.from_err, result.err, result.output_limit)) {
      result.overflowed = "standard error";
      return PumpEnd::output_limit;
    }
    if (fds[3].revents != 0) {
      // The word is written whole (it is smaller than PIPE_BUF) just
      // before the supervisor exits: end of file first means it died.
      if (!read_whole(report_fd, report)) return PumpEnd::supervisor_died;
      reported = true;
    }
  }
  return PumpEnd::reported;
}

// A run past its deadline: the supervisor is told to stop and its word,
// unless it came already (`word`), is awaited until `grace_end`; it says
// whether the program had stopped its parent, which explains the timeout.
void timed_out(Supervisor& supervisor, Clock::time_point grace_end, ProcessResult& result,
               const SupervisorReport* word = nullptr) {
  supervisor.stop();
  SupervisorReport awaited{};
  if (word == nullptr && wait_readable(supervisor.report(), grace_end) && read_whole(supervisor.report(), awaited)) {
    word = &awaited;
  }
  supervisor.finish(grace_end);
  result.end = ProcessEnd::timed_out;
  if (word != nullptr && word->parent_end == kParentStopped) {
    result.end = ProcessEnd::parent_stopped;
    result.signal = word->parent_status;
  }
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, std::string_view input,
                          std::chrono::milliseconds timeout, std::size_t output_limit, const WorkingFolder& folder) {
  return run_process(argv, input, timeout, output_limit, folder, StandardStreams{});
}

ProcessResult run_process(const std::vector<std::string>& argv, std::string_view input,
                          std::chrono::milliseconds timeout, std::size_t output_limit, const WorkingFolder& folder,
                          const StandardStreams& streams) {
  ProcessResult result;
  result.output_limit = output_limit;
  if (argv.empty()) {
    result.error = "no command";
    return result;
  }
  const SigpipeBlock sigpipe_block;
  const auto deadline = Clock::now() + timeout;
  Started started = start_supervised(argv, sigpipe_block.previous(), deadline, folder, streams);
  Supervisor& supervisor = started.supervisor;
  // A start that outlasts the deadline (helpers someone stopped) times out.
  if (started.outcome == Started::stuck) {
    timed_out(supervisor, Clock::now() + kGrace, result);
    return result;
  }
  if (started.outcome == Started::failed) {
    result.error = std::move(started.error);
    result.start_errno = started.error_number;
    if (started.no_folder) result.end = ProcessEnd::no_working_folder;
    return result;
  }
  // A stream that is not a pipe has no end here: pump polls none for it.
  if (started.in.get() >= 0) set_nonblocking(started.in.get());
  Streams pipes{std::move(started.in), std::move(started.out), std::move(started.err)};
  SupervisorReport word{};
  bool reported = false;
  const PumpEnd end = pump(pipes, supervisor.report(), input, result, deadline, word, reported);
  const auto grace_end = Clock::now() + kGrace;  // one grace for the word and the exit
  if (end == PumpEnd::timed_out) {
    timed_out(supervisor, grace_end, result, reported ? &word : nullptr);
    return result;
  }
  if (end == PumpEnd::output_limit) supervisor.stop();
  const int supervisor_status = supervisor.finish(grace_end);
  if (end == PumpEnd::reported) {
    set_end(word, result);
  } else if (end == PumpEnd::output_limit) {
    result.end = ProcessEnd::output_limit;
  } else {
    result.end = ProcessEnd::supervisor_killed;
    set_death(supervisor_status, result);
  }
  return result;
}

std::string describe_end(const ProcessResult& result, std::chrono::milliseconds timeout) {
  std::ostringstream text;
  switch (result.end) {
    case ProcessEnd::exited: text << "exit " << result.exit_code; break;
    case ProcessEnd::signaled:
      text << "killed by signal " << result.signal << " (" << ::strsignal(result.signal) << ")";
      break;
    case ProcessEnd::timed_out:
      text << "timed out after " << static_cast<double>(timeout.count()) / 1000.0 << " s (killed)";
      break;
    case ProcessEnd::output_limit:
      text << "wrote more than " << result.output_limit << " bytes to " << result.overflowed << " (killed)";
      break;
    case ProcessEnd::not_started:
    case ProcessEnd::no_working_folder:
    case ProcessEnd::harness_failure: text << result.error; break;
    case ProcessEnd::parent_killed:
    case ProcessEnd::supervisor_killed:
      text << (result.end == ProcessEnd::parent_killed ? "its parent process, the runner's helper,"
                                                       : "the runner's supervisor process");
      if (result.signal != 0) {
        text << " was killed by signal " << result.signal << " (" << ::strsignal(result.signal) << ")";
      } else {
        text << " ended with exit " << result.exit_code;
      }
      if (result.end == ProcessEnd::supervisor_killed) text << "; what the port started may still run";
      break;
    case ProcessEnd::parent_stopped:
      text << "its parent process, the runner's helper, was stopped by signal " << result.signal << " ("
           << ::strsignal(result.signal) << ") and killed at the " << static_cast<double>(timeout.count()) / 1000.0
           << " s timeout";
      break;
  }
  return text.str();
}

}  // namespace agent_session::conform::runner
