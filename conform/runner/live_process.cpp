#include "conform/runner/live_process.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>

#include <poll.h>
#include <unistd.h>

namespace agent_session::conform::runner {
namespace {

using namespace supervision;

constexpr std::size_t kStderrKept = 1 << 16;

// Appends what `fd` has to `sink`; closes `fd` at end of file or on an error.
void read_some(Fd& fd, std::string& sink) {
  char chunk[1 << 16];
  const ssize_t n = ::read(fd.get(), chunk, sizeof chunk);
  if (n > 0) {
    sink.append(chunk, static_cast<std::size_t>(n));
  } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    fd.reset();
  }
}

int poll_timeout(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::clamp<long long>(left.count() + 1, 0, 1000));
}

}  // namespace

LiveProcess::LiveProcess(const std::vector<std::string>& argv, Clock::time_point deadline,
                         const WorkingFolder& folder) {
  const SigpipeBlock sigpipe_block;
  started_ = start_supervised(argv, sigpipe_block.previous(), deadline, folder);
  if (started_.outcome == Started::failed) {
    start_error_ = started_.error;
  } else if (started_.outcome == Started::stuck) {
    start_error_ = "'" + argv[0] + "' did not start in time";
  } else {
    set_nonblocking(started_.in.get());
    set_nonblocking(started_.out.get());
    set_nonblocking(started_.err.get());
    running_ = true;
  }
}

LiveProcess::~LiveProcess() {
  started_.supervisor.stop();  // the destructor of `supervisor` waits for it, bounded
}

LiveProcess::Exchange LiveProcess::exchange(std::string_view request, std::string& line, std::size_t limit,
                                            Clock::time_point deadline) {
  const SigpipeBlock sigpipe_block;  // a port that is gone makes our write EPIPE, never a signal
  err_.clear();
  if (answered_) {
    // What can be read now was written before this request was sent: an
    // answer for a request not yet sent (harness.md §4), never taken for
    // this one's. What was written with the last answer is in pending_.
    for (int reads = 0; reads < 64 && started_.out.get() >= 0 && pending_.size() <= limit; ++reads) {
      pollfd fd{started_.out.get(), POLLIN, 0};
      if (::poll(&fd, 1, 0) <= 0) break;
      read_some(started_.out, pending_);
    }
    if (!pending_.empty()) {
      unasked_ = pending_.size();
      return Exchange::unasked;
    }
  }
  std::size_t written = 0;
  for (;;) {
    if (const auto newline = pending_.find('\n'); newline != std::string::npos && newline <= limit) {
      line.assign(pending_, 0, newline);
      pending_.erase(0, newline + 1);
      // An answer before the whole request was taken answers no request
      // of ours: its input ends here, so the next exchange finds it closed.
      if (written < request.size()) started_.in.reset();
      answered_ = true;
      return Exchange::answered;
    }
    if (pending_.size() > limit) return Exchange::too_long;
    if (started_.out.get() < 0) return Exchange::closed;
    if (Clock::now() >= deadline) return Exchange::timed_out;
    const bool writing = written < request.size() && started_.in.get() >= 0;
    std::array<pollfd, 3> fds{{{writing ? started_.in.get() : -1, POLLOUT, 0},
                               {started_.out.get(), POLLIN, 0},
                               {started_.err.get(), POLLIN, 0}}};
    const int ready = ::poll(fds.data(), fds.size(), poll_timeout(deadline));
    if (ready < 0 && errno != EINTR) throw_errno("poll");
    if (ready <= 0) continue;
    if (fds[0].revents != 0) {
      const ssize_t n = ::write(started_.in.get(), request.data() + written, request.size() - written);
      if (n > 0) written += static_cast<std::size_t>(n);
      if (n < 0 && errno != EINTR && errno != EAGAIN) started_.in.reset();  // it closed its input: it is going
    }
    if (fds[1].revents != 0) read_some(started_.out, pending_);
    if (fds[2].revents != 0) {
      read_some(started_.err, err_);
      if (err_.size() > kStderrKept) err_.erase(0, err_.size() - kStderrKept);
    }
  }
}

std::string LiveProcess::stderr_tail() const { return err_.size() > 1000 ? err_.substr(err_.size() - 1000) : err_; }

ProcessResult LiveProcess::close(Clock::time_point until) {
  ProcessResult result;
  result.end = ProcessEnd::timed_out;
  if (!running_) {
    result.end = ProcessEnd::not_started;
    result.error = start_error_;
    return result;
  }
  running_ = false;
  started_.in.reset();
  Supervisor& supervisor = started_.supervisor;
  SupervisorReport word{};
  bool reported = false, supervisor_died = false;
  while (!reported && !supervisor_died && Clock::now() < until) {
    std::array<pollfd, 3> fds{
        {{started_.out.get(), POLLIN, 0}, {started_.err.get(), POLLIN, 0}, {supervisor.report(), POLLIN, 0}}};
    const int ready = ::poll(fds.data(), fds.size(), poll_timeout(until));
    if (ready < 0 && errno != EINTR) throw_errno("poll");
    if (ready <= 0) continue;
    std::string discarded;
    if (fds[0].revents != 0) read_some(started_.out, discarded);
    if (fds[1].revents != 0) read_some(started_.err, err_);
    if (err_.size() > kStderrKept) err_.erase(0, err_.size() - kStderrKept);
    if (fds[2].revents != 0) (read_whole(supervisor.report(), word) ? reported : supervisor_died) = true;
  }
  if (!reported) supervisor.stop();  // still running at `until`: it and its tree are killed
  const int supervisor_status = supervisor.finish(Clock::now() + kGrace);
  if (reported) {
    set_end(word, result);
  } else if (supervisor_died) {
    result.end = ProcessEnd::supervisor_killed;
    set_death(supervisor_status, result);
  }
  result.err = stderr_tail();
  return result;
}

}  // namespace agent_session::conform::runner
