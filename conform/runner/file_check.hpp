// The FILE of a file check (`append FILE`, SPEC.md §6;
// corpus/conformance/README.md "Checks that write FILE"): made fresh for each run in a folder of its own in
// the temporary directory, so a vector's folder is never written and no
// run sees another's file; read back and judged after the run, in exec
// mode and in harness mode alike (the port opens FILE itself in both);
// removed with its folder at the end.
//
// Example:
//   CheckFile file(check, vector.input);
//   const ProcessResult r = port.run({"append", file.path()}, *check.stdin_bytes);
//   if (auto why = file.judge_after()) ...;  // "FILE differs at byte 30 (line 2): ..."
#pragma once

#include "conform/runner/conform_judge.hpp"
#include "conform/runner/temp_folder.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace agent_session::conform::runner {

class CheckFile {
 public:
  // Makes the folder and, for FileBefore::copy, FILE holding `input`.
  // Throws std::system_error when the temporary directory cannot be
  // written: the runner's resources, not the vector's problem.
  CheckFile(const Check& check, const std::string& input);
  ~CheckFile();
  CheckFile(const CheckFile&) = delete;
  CheckFile& operator=(const CheckFile&) = delete;

  // FILE's path for the command line, or "-".
  std::string path() const;

  // Why FILE after the run is not what check.file_after says, as one
  // printable line, or nothing when it is (always nothing with `-`).
  std::optional<std::string> judge_after() const;

 private:
  const Check& check_;
  std::optional<TempFolder> folder_;  // none with `-`
};

}  // namespace agent_session::conform::runner
