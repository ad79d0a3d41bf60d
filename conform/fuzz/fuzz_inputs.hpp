// The inputs of a fuzz run: input number `index` of a run with `seed` is
// always the same bytes, whichever job makes it and in whatever order.
//
// Example:
//   const auto vectors = read_vector_inputs("corpus/conformance");
//   const FuzzInput input = fuzz_input(42, 7, vectors);  // input.bytes, input.counts
#pragma once

#include "conform/fuzz/session_writer.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace agent_session::conform::fuzz {

struct FuzzInput {
  std::string bytes;
  ShapeCounts counts{};  // the shapes the generator wrote into it
};

// A seed of its own for each input (splitmix64 of seed and index).
std::uint64_t input_seed(std::uint64_t seed, std::uint64_t index);

// One session file: a tool-call history, a run of messages of every shape,
// an invalid session (good lines, then a bad one, then more), one of those
// damaged (byte_damage.hpp), or a vector's input mutated (when `vectors`
// is not empty).
FuzzInput fuzz_input(std::uint64_t seed, std::uint64_t index, const std::vector<std::string>& vectors);

// The input.jsonl bytes of every vector in `folder` that has one, in the
// folder's order; none, and `error` set, when the folder cannot be read
// (no_such_file_or_directory or not_a_directory: the caller's mistake).
std::vector<std::string> read_vector_inputs(const std::filesystem::path& folder, std::error_code& error);

}  // namespace agent_session::conform::fuzz
