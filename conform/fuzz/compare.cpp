#include "conform/fuzz/compare.hpp"

#include "conform/fuzz/campaign_tally.hpp"

namespace agent_session::conform::fuzz {

std::optional<Mismatch> first_mismatch(runner::PortRunner& port, const std::vector<runner::Check>& checks,
                                       const std::string& file, std::chrono::milliseconds timeout,
                                       const std::function<void()>& asked) {
  for (const runner::Check& check : checks) {
    std::vector<std::string> args = check.args;
    args.push_back(file);
    const runner::ProcessResult result = port.run(args, "");
    if (asked) asked();
    // A port that cannot be run, or removed the folders it runs in, answers
    // nothing a vector could pin: the fuzz run stops and says why.
    if (result.end == runner::ProcessEnd::not_started || result.end == runner::ProcessEnd::no_working_folder) {
      throw PortError{result.error};
    }
    if (auto why = runner::judge(check, result, timeout)) return Mismatch{check, *why, difference_kind(check, result)};
  }
  return std::nullopt;
}

}  // namespace agent_session::conform::fuzz
