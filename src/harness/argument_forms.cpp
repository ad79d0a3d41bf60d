#include "harness/argument_forms.hpp"

#include "base/printable.hpp"

#include <algorithm>
#include <array>
#include <string_view>

namespace agent_session::harness {
namespace {

// `words` as a FAIL line shows a check's words: separated by spaces, each
// long word and the list cut short. The runner's report escapes what a
// terminal must not see; the server's answer does it itself.
std::string shown(const std::vector<std::string>& words) {
  std::string text;
  for (std::size_t i = 0; i < words.size() && text.size() < 120; ++i) {
    text += (i == 0 ? "" : " ") + words[i].substr(0, 60) + (words[i].size() > 60 ? "..." : "");
  }
  if (text.size() >= 120 && words.size() > 1) text += " ...";
  return "'" + text + "' (" + base::counted(words.size(), "word") + ")";
}

// The table, FILE included: a null word is any word (N, FILE).
using Form = std::vector<const char*>;
const std::array<Form, 7>& forms() {
  static const std::array<Form, 7> table = {Form{"check", nullptr}, Form{"estimate", nullptr},
                                            Form{"canon", nullptr}, Form{"trim", "--max-chars", nullptr, nullptr},
                                            Form{"trim", nullptr},  Form{"frobnicate", nullptr},
                                            Form{"append", nullptr}};
  return table;
}

constexpr std::string_view kForms =
    "check FILE, estimate FILE, canon FILE, trim --max-chars N FILE, trim FILE, frobnicate FILE; append FILE";

// How many of `words`' first words `form` allows.
std::size_t matched(const Form& form, const std::vector<std::string>& words) {
  std::size_t n = 0;
  while (n < form.size() && n < words.size() && (form[n] == nullptr || words[n] == form[n])) ++n;
  return n;
}

std::optional<std::string> word_problem(const std::vector<std::string>& words, const std::string& name) {
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i].find('\0') != std::string::npos) {
      return name + " word " + std::to_string(i + 1) +
             " holds a NUL byte, which no process argument can (SPEC.md §6.1)";
    }
    if (words[i].size() > kMaxArgumentBytes) {
      return name + " word " + std::to_string(i + 1) + " is " + std::to_string(words[i].size()) +
             " bytes long, more than the " + std::to_string(kMaxArgumentBytes) +
             " a process argument may be (SPEC.md §6.1)";
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> argument_form_problem(const std::vector<std::string>& args, bool file_check) {
  if (auto problem = word_problem(args, "args")) return problem;
  // A form without its FILE is the check's args: the vectors give no FILE.
  std::vector<std::string> argv = args;
  argv.emplace_back();
  const bool is_form = std::any_of(forms().begin(), forms().end(), [&](const Form& form) {
    return form.size() == argv.size() && matched(form, argv) == form.size() &&
           (std::string_view(form.front()) == "append") == file_check;
  });
  if (is_form) return std::nullopt;
  return "args " + shown(args) + " are not one of SPEC.md §6.1's argument forms (check, estimate, canon, " +
         "trim --max-chars N, trim, frobnicate; append in a file check, and only there): never passed to a port";
}

std::optional<std::string> run_argv_problem(const std::vector<std::string>& argv) {
  if (auto problem = word_problem(argv, "argv")) return problem;
  std::size_t best = 0;
  for (const Form& form : forms()) {
    const std::size_t n = matched(form, argv);
    if (n == form.size() && n == argv.size()) return std::nullopt;
    best = std::max(best, n);
  }
  // The refused word first: a client may show only the start of the line.
  std::string lead;
  if (argv.empty()) {
    lead = "no command";
  } else if (best == argv.size()) {
    lead = "no FILE after " + shown(argv).substr(0, shown(argv).rfind(" ("));
  } else {
    lead = "argv word " + std::to_string(best + 1) + " '" + argv[best].substr(0, 60) + "'";
  }
  return base::terminal_line(lead + ": not one of SPEC.md §6.1's argument forms (" + std::string(kForms) +
                             "), never run: argv " + shown(argv));
}

}  // namespace agent_session::harness
