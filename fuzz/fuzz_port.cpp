// Differential fuzzing of a port against the reference, as a libFuzzer
// target: the comparison of `agent-session-conform fuzz` (conform/fuzz/
// compare.hpp), so that a campaign scales on libFuzzer's -fork/-jobs and
// on ClusterFuzzLite instead of a loop of ours. Each input is a session
// file; the reference (the library, in this process, instrumented: the
// coverage feedback is the reference's) picks the checks, `check`,
// `estimate`, `canon` and `trim` at budgets on both sides of the unit
// boundaries (reference_checks.hpp); the port answers them through the
// harness protocol (corpus/conformance/harness.md); the vectors' judge
// compares, SPEC.md §6's stream rules included. A difference writes a
// vector folder (vector_out.hpp) and aborts, so libFuzzer keeps the input.
//
// Environment:
//   AGENT_SESSION_PORT          the port's command line, split on spaces
//                               (`node tests/oracle/cli.mjs`); it must
//                               have harness mode: wrap an exec-only port
//                               as `agent-session-conform exec-adapter --
//                               PORT`. Unset: the agent-session beside
//                               this binary.
//   AGENT_SESSION_PORT_TIMEOUT  seconds a run may take (default 10)
//   AGENT_SESSION_FUZZ_OUT      where a difference's vector goes
//                               (default fuzz-port-findings)
//   AGENT_SESSION_VECTORS       vectors whose inputs the generator mutates
//                               (default: the source tree's, if there)
#include "conform/fuzz/compare.hpp"
#include "conform/fuzz/fuzz_inputs.hpp"
#include "conform/fuzz/input_file.hpp"
#include "conform/fuzz/reference_checks.hpp"
#include "conform/fuzz/vector_out.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace agent_session::fuzz {
// The port fuzzer's comparison (conform/fuzz), shared with `agent-session-conform fuzz`.
using namespace agent_session::conform::fuzz;
namespace {

namespace fs = std::filesystem;

struct PortUnderTest {
  conform::runner::ConformOptions options;
  std::chrono::milliseconds timeout{10000};
  std::unique_ptr<conform::runner::PortRunner> runner;
  std::unique_ptr<TempDir> dir;
  std::vector<std::string> vectors;  // inputs for the generator
  std::string out = "fuzz-port-findings";
};

PortUnderTest* port_under_test = nullptr;

[[noreturn]] void give_up(const std::string& why) {
  std::fprintf(stderr, "fuzz_port: %s\n", why.c_str());
  std::exit(2);  // a setup problem, not a finding
}

std::vector<std::string> port_command(const char* self) {
  std::vector<std::string> words;
  if (const char* port = std::getenv("AGENT_SESSION_PORT"); port && *port) {
    std::istringstream in(port);
    for (std::string word; in >> word;) words.push_back(word);
    return words;
  }
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  const fs::path beside = (error ? fs::path(self).parent_path() : exe.parent_path()) / "agent-session";
  if (!fs::exists(beside)) give_up("AGENT_SESSION_PORT is not set and there is no " + beside.string());
  return {beside.string()};
}

// FNV-1a: the budgets an input gets depend on its bytes alone.
std::uint64_t seed_of(const std::uint8_t* data, std::size_t size) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (std::size_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * 0x100000001b3ull;
  return hash;
}

void report(const PortUnderTest& port, const std::string& input, const fs::path& file, std::uint64_t seed,
            const Mismatch& found) {
  FoundVector vector;
  vector.name = "fuzz_port_" + std::to_string(seed);
  vector.input = input;
  vector.checks = reference_checks(file.string(), seed);
  vector.rule = spec_rule(found.check, file.string());
  vector.about = "found by fuzz_port: " + shell_line(port.options.command) + " failed " + shell_line(found.check.args) +
                 ": " + found.reason;
  std::vector<std::string> run = port.options.command;
  run.insert(run.end(), found.check.args.begin(), found.check.args.end());
  std::fprintf(stderr, "fuzz_port: the port differs from the reference: %s\n", vector.about.c_str());
  try {
    const VectorFolder made = new_vector_folder(port.out, vector.name);  // the name it got (vector_out.hpp)
    vector.name = made.name;
    run.push_back((made.path / "input.jsonl").string());
    vector.reproduce = {shell_line(run)};
    write_vector_files(made, vector);
    std::fprintf(stderr, "fuzz_port: wrote %s\nfuzz_port: reproduce: %s\n", made.path.c_str(),
                 vector.reproduce[0].c_str());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "fuzz_port: could not write the vector: %s\n", error.what());
  }
}

}  // namespace
}  // namespace agent_session::fuzz

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  using namespace agent_session::fuzz;
  static PortUnderTest port;
  port.options.command = port_command(*argc > 0 ? (*argv)[0] : "");
  port.options.harness = true;
  if (const char* seconds = std::getenv("AGENT_SESSION_PORT_TIMEOUT"); seconds && *seconds) {
    const double value = std::strtod(seconds, nullptr);
    if (!(value > 0)) give_up("AGENT_SESSION_PORT_TIMEOUT must be a number of seconds above 0");
    port.timeout = std::chrono::milliseconds(static_cast<long long>(value * 1000));
  }
  if (const char* out = std::getenv("AGENT_SESSION_FUZZ_OUT"); out && *out) port.out = out;
  const char* vectors = std::getenv("AGENT_SESSION_VECTORS");
  std::error_code unreadable;
  port.vectors = read_vector_inputs(
      vectors && *vectors ? fs::path(vectors) : fs::path(AGENT_SESSION_SOURCE_DIR) / "corpus/conformance", unreadable);
  if (unreadable) give_up("cannot read the vectors folder (AGENT_SESSION_VECTORS): " + unreadable.message());
  try {
    port.dir = std::make_unique<TempDir>();
  } catch (const std::exception& error) {
    give_up(error.what());
  }
  port.runner = std::make_unique<agent_session::conform::runner::PortRunner>(port.options, port.timeout);
  port_under_test = &port;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace agent_session::fuzz;
  PortUnderTest& port = *port_under_test;
  const std::string input(reinterpret_cast<const char*>(data), size);
  const fs::path file = port.dir->path() / "input.jsonl";
  const std::uint64_t seed = seed_of(data, size);
  try {
    write_input(port.dir->fd(), file, input);
    if (const auto found = first_mismatch(*port.runner, reference_checks(file.string(), seed), file, port.timeout)) {
      report(port, input, file, seed, *found);
      std::abort();
    }
  } catch (const PortError& error) {
    give_up("cannot run the port: " + error.message);
  }
  return 0;
}

#ifdef AGENT_SESSION_LIBFUZZER
extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

// One mutation in four is an input of the port fuzzer's own generator
// (conform/fuzz/fuzz_inputs.hpp: the shapes SPEC.md's rules are about),
// the others libFuzzer's.
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  using namespace agent_session::fuzz;
  if (seed % 4 == 0) {
    const std::string bytes = fuzz_input(seed, 0, port_under_test->vectors).bytes;
    if (bytes.size() <= max_size) {
      std::memcpy(data, bytes.data(), bytes.size());
      return bytes.size();
    }
  }
  return LLVMFuzzerMutate(data, size, max_size);
}
#endif
