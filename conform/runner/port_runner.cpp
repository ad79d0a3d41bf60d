#include "runner/port_runner.hpp"

#include "base/utf8.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace agent_session::cli {
namespace {

bool all_utf8(const std::vector<std::string>& words) {
  return std::all_of(words.begin(), words.end(), [](const std::string& word) {
    return internal::valid_utf8_prefix(word) == word.size() && word.find('\0') == std::string::npos;
  });
}

}  // namespace

PortRunner::PortRunner(const ConformOptions& options, std::chrono::milliseconds timeout)
    : options_(options), timeout_(timeout) {}

ProcessResult PortRunner::run(const std::vector<std::string>& args, std::string_view input) {
  if (!options_.harness || !all_utf8(args)) {
    std::vector<std::string> argv = options_.command;
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv, input, timeout_, options_.max_output);
  }
  if (!harness_) {
    std::error_code ignored;
    const std::string cwd = std::filesystem::current_path(ignored).string();
    harness_.emplace(HarnessSettings{options_.command, timeout_, options_.max_output, cwd});
    if (const auto problem = harness_->start()) {
      harness_.reset();
      ProcessResult result;
      result.error = "--harness: " + *problem + " (without --harness the runner uses exec mode)";
      return result;
    }
  }
  return harness_->run(args, input);
}

}  // namespace agent_session::cli
