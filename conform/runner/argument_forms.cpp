#include "conform/runner/argument_forms.hpp"

#include <algorithm>

namespace agent_session::conform::runner {
namespace {

// `args` as a FAIL line shows a check's words (runner/conform_vector.hpp):
// separated by spaces, each long word and the list cut short. The report
// escapes what a terminal must not see.
std::string shown(const std::vector<std::string>& args) {
  std::string text;
  for (std::size_t i = 0; i < args.size() && text.size() < 120; ++i) {
    text += (i == 0 ? "" : " ") + args[i].substr(0, 60) + (args[i].size() > 60 ? "..." : "");
  }
  if (text.size() >= 120 && args.size() > 1) text += " ...";
  return "'" + text + "' (" + std::to_string(args.size()) + (args.size() == 1 ? " word)" : " words)");
}

bool is_form(const std::vector<std::string>& args, bool file_check) {
  if (file_check) return args == std::vector<std::string>{"append"};
  if (args.size() == 3) return args[0] == "trim" && args[1] == "--max-chars";
  if (args.size() != 1) return false;
  static const char* const kOneWord[] = {"check", "estimate", "canon", "trim", "frobnicate"};
  return std::any_of(std::begin(kOneWord), std::end(kOneWord), [&](const char* word) { return args[0] == word; });
}

}  // namespace

std::optional<std::string> argument_form_problem(const std::vector<std::string>& args, bool file_check) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].find('\0') != std::string::npos) {
      return "args word " + std::to_string(i + 1) + " holds a NUL byte, which no process argument can (SPEC.md §6.1)";
    }
    if (args[i].size() > kMaxArgumentBytes) {
      return "args word " + std::to_string(i + 1) + " is " + std::to_string(args[i].size()) +
             " bytes long, more than the " + std::to_string(kMaxArgumentBytes) +
             " a process argument may be (SPEC.md §6.1)";
    }
  }
  if (is_form(args, file_check)) return std::nullopt;
  return "args " + shown(args) + " are not one of SPEC.md §6.1's argument forms (check, estimate, canon, " +
         "trim --max-chars N, trim, frobnicate; append in a file check, and only there): never passed to a port";
}

}  // namespace agent_session::conform::runner
