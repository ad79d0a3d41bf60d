// A long-lived program on pipes, for the harness protocol
// (corpus/conformance/harness.md): one process answers many requests, a
// line each, under the same supervisor as run_process (runner/subprocess.hpp),
// so that nothing it starts outlives it, and with every wait bounded.
//
// Example:
//   LiveProcess port({"node", "cli.mjs", "harness"}, Clock::now() + 10s);
//   std::string line;
//   if (port.exchange("{\"op\":\"start\",\"protocol\":1}\n", line, 1 << 20, Clock::now() + 10s) ==
//       LiveProcess::Exchange::answered) use(line);
//   port.close(Clock::now() + 2s);  // end of input, a bounded wait, then the tree is killed
//
// One thread only: the supervisor dies with the thread that started it.
#pragma once

#include "conform/runner/subprocess.hpp"
#include "conform/runner/supervision.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::conform::runner {

class LiveProcess {
 public:
  using Clock = supervision::Clock;
  // Starts `argv`. When it does not run, running() is false and
  // start_error() says why ("cannot run 'x': ...", or a start that did not
  // finish by `deadline`). Throws std::system_error when pipes or processes
  // cannot be created.
  // `folder`: its working directory, entered by its descriptor.
  LiveProcess(const std::vector<std::string>& argv, Clock::time_point deadline, const WorkingFolder& folder = {});
  LiveProcess(const LiveProcess&) = delete;
  LiveProcess& operator=(const LiveProcess&) = delete;
  // Kills it and its tree (bounded).
  ~LiveProcess();

  bool running() const { return running_; }
  const std::string& start_error() const { return start_error_; }

  enum class Exchange {
    answered,   // `line` holds the next line of its standard output, without "\n"
    timed_out,  // no whole line by the deadline
    closed,     // its standard output ended first (it exited, most likely)
    too_long,   // more than `limit` bytes without a "\n"
    // Bytes that answer no request (harness.md §4): there before this
    // request was sent, after an earlier answer (written with it, or
    // after it). Nothing was sent; unasked_bytes() says how many.
    unasked,
  };
  // Writes `request` to its standard input while reading its standard
  // output up to the next "\n" (and its standard error, kept for
  // stderr_tail), all at once with poll(2): neither side can deadlock the
  // other. Bytes after the "\n" are kept, and make the next exchange
  // `unasked`, as do bytes readable when it begins (but for the first
  // exchange, whose request the port may answer before we have written
  // it all).
  Exchange exchange(std::string_view request, std::string& line, std::size_t limit, Clock::time_point deadline);

  // The last bytes (at most 1000) it wrote on standard error since the
  // last exchange began.
  std::string stderr_tail() const;

  // How many bytes the last `unasked` exchange found (at least; at most
  // `limit` of them were read).
  std::size_t unasked_bytes() const { return unasked_; }

  // Closes its standard input and waits until `until` for it to exit on
  // its own, serving its outputs; then it and all it started are killed.
  // How it ended: exited or signaled, timed_out when it was still running
  // at `until`, supervisor_killed, parent_killed as run_process says.
  ProcessResult close(Clock::time_point until);

 private:
  supervision::Started started_;
  bool running_ = false;
  std::string start_error_;
  std::string pending_;    // standard output read past the last line
  std::string err_;        // standard error since the last exchange began
  bool answered_ = false;  // an exchange has been answered
  std::size_t unasked_ = 0;
};

}  // namespace agent_session::conform::runner
