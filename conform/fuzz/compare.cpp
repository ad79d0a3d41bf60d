#include "fuzz/compare.hpp"

namespace agent_session::fuzz {

std::optional<Mismatch> first_mismatch(cli::PortRunner& port, const std::vector<cli::Check>& checks,
                                       const std::string& file, std::chrono::milliseconds timeout,
                                       const std::function<void()>& asked) {
  for (const cli::Check& check : checks) {
    std::vector<std::string> args = check.args;
    args.push_back(file);
    const cli::ProcessResult result = port.run(args, "");
    if (asked) asked();
    if (result.end == cli::ProcessEnd::not_started) throw PortError{result.error};
    if (auto why = cli::judge(check, result, timeout)) return Mismatch{check, *why};
  }
  return std::nullopt;
}

}  // namespace agent_session::fuzz
