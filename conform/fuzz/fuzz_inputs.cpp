#include "conform/fuzz/fuzz_inputs.hpp"

#include "conform/fuzz/byte_damage.hpp"
#include "conform/runner/vector_files.hpp"

#include <exception>
#include <new>

namespace agent_session::conform::fuzz {

std::uint64_t input_seed(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + index + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

namespace {

// Now and then a line of token edges (token_edges.cpp) among the messages.
std::string messages(SessionWriter& writer, std::size_t count) {
  std::string bytes;
  for (std::size_t m = 0; m < count; ++m) {
    bytes += (writer.chance(0.1) ? writer.edge_line() : writer.message()) + writer.line_end() + writer.empty_lines();
  }
  if (writer.chance(0.3) && !bytes.empty()) bytes.pop_back();  // no newline at the end of the file
  return bytes;
}

// Good lines, one bad line (or a line of token edges, bad or not), then
// lines good or bad: the first bad one wins.
std::string invalid_session(SessionWriter& writer) {
  std::string bytes = messages(writer, writer.below(4));
  if (!bytes.empty() && bytes.back() != '\n') bytes += '\n';
  const std::size_t bad = writer.below(3);
  bytes += (bad == 0 ? writer.bad_json() : bad == 1 ? writer.bad_record() : writer.edge_line()) + writer.line_end();
  for (std::size_t n = writer.below(3); n > 0; --n) {
    bytes += (writer.chance(0.5) ? writer.message() : writer.bad_record()) + writer.line_end();
  }
  return bytes;
}

}  // namespace

FuzzInput fuzz_input(std::uint64_t seed, std::uint64_t index, const std::vector<std::string>& vectors) {
  SessionWriter writer(input_seed(seed, index));
  FuzzInput input;
  const std::size_t kind = writer.below(10);
  if (kind < 3) {
    input.bytes = writer.history();
  } else if (kind < 5) {
    input.bytes = messages(writer, 1 + writer.below(6));
  } else if (kind < 6) {
    input.bytes = invalid_session(writer);
  } else if (kind < 8 || vectors.empty()) {
    input.bytes = damage(writer.chance(0.5) ? writer.history() : messages(writer, 1 + writer.below(4)), writer);
  } else {
    input.bytes = mutate_vector(vectors, writer);
  }
  input.counts = writer.counts();
  return input;
}

std::vector<std::string> read_vector_inputs(const std::filesystem::path& folder, std::error_code& error) {
  std::vector<std::string> inputs;
  for (const runner::VectorDir& dir : runner::vector_dirs(folder, error)) {
    if (!dir.problem.empty() || !dir.missing_file.empty()) continue;
    try {
      inputs.push_back(runner::read_vector_file(dir.path, "input.jsonl"));
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception&) {
      // A vector without a readable input has nothing to mutate.
    }
  }
  return inputs;
}

}  // namespace agent_session::conform::fuzz
