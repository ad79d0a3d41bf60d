// The comparison each fuzz input gets, in `agent-session-conform fuzz`
// (fuzz_command.hpp) and in the libFuzzer target fuzz_port
// (fuzz/fuzz_port.cpp): the reference's checks (reference_checks.hpp)
// asked of the port on FILE, each judged as a vector's check is
// (runner/conform_judge.hpp, SPEC.md §6's stream rules included).
//
// Example:
//   write_input(file, bytes);
//   if (auto m = first_mismatch(port, reference_checks(file, seed), file, timeout)) report(m->check, m->reason);
#pragma once

#include "conform/runner/conform_judge.hpp"
#include "conform/runner/port_runner.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace agent_session::conform::fuzz {

// Thrown when the port cannot be started at all: a usage problem, not a
// difference.
struct PortError {
  std::string message;
};

// How a port's answer differs (campaign_tally.hpp).
enum class DifferenceKind;

struct Mismatch {
  runner::Check check;  // what the reference answers
  std::string reason;   // how the port's answer differs (the judge's words)
  DifferenceKind kind;  // the same, as one of a few kinds (campaign_tally.hpp)
};

// Asks the port `checks` in order (`PORT ARGS FILE`, nothing on standard
// input) and returns the first it fails; nothing when it passes them all.
// `asked` is called once per run of the port.
std::optional<Mismatch> first_mismatch(runner::PortRunner& port, const std::vector<runner::Check>& checks,
                                       const std::string& file, std::chrono::milliseconds timeout,
                                       const std::function<void()>& asked = {});

}  // namespace agent_session::conform::fuzz
