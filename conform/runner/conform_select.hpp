// What `agent-session conform` runs and which suite it is: the versions
// (corpus/conformance/VERSION, CHANGELOG.md there), --only patterns and
// the --skip-file of a port that adopts the suite gradually. Formats:
// corpus/conformance/README.md "Running the suite".
#pragma once

#include "conform/runner/vector_files.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::conform::runner {

// The runner's version: the CMake project's VERSION.
std::string_view runner_version() noexcept;

// Whether `text` is MAJOR.MINOR.PATCH: three decimal numbers without
// leading zeros (semver.org §2), nothing else.
bool is_semantic_version(std::string_view text) noexcept;

// The vectors' version, from `vectors/VERSION`: MAJOR.MINOR.PATCH and an
// optional final newline. `problem` says why there is none ("VERSION:
// cannot open VERSION: No such file or directory", "VERSION holds
// \"1.0\", not MAJOR.MINOR.PATCH"), escaped for a terminal.
struct VectorsVersion {
  std::string version;  // empty when `problem` is set
  std::string problem;
};
VectorsVersion read_vectors_version(const std::filesystem::path& vectors);

// The built-in checks belong to the suite from the version that added
// them on (CHANGELOG.md there): builtin_missing_file from 1.1.0, the
// runner's own stream and usage checks from 1.4.0, its checks of a FILE
// that is a folder or lies in a folder that does not exist from 1.6.0
// (SPEC.md §6.1; runner/stream_checks.hpp says which is which). An older
// copy of the vectors, or a folder without a version, runs as it always
// did. Whether `version` is 1.`wanted_minor`.0 or later.
inline constexpr unsigned long long kMissingFileSinceMinor = 1;
inline constexpr unsigned long long kRunnerChecksSinceMinor = 4;
inline constexpr unsigned long long kFileErrorChecksSinceMinor = 6;
bool version_at_least(const VectorsVersion& version, unsigned long long wanted_minor);

// A vector chosen to run, or listed in the skip file (then not run).
struct SelectedVector {
  VectorDir dir;
  bool skipped = false;
};

// The vectors of `all` whose name matches one of `only` (fnmatch globs,
// no flags; every vector when `only` is empty), each marked skipped when
// `skip_file` (if not empty) lists it. Throws std::invalid_argument with
// one escaped line when a pattern matches no vector, or the skip file
// cannot be read or names a vector that does not exist (a typo must not
// skip nothing in silence): "skip file 'skip.txt' line 3: no vector named
// \"y_tpyo\"".
std::vector<SelectedVector> select_vectors(const std::vector<VectorDir>& all, const std::vector<std::string>& only,
                                           const std::string& skip_file);

}  // namespace agent_session::conform::runner
