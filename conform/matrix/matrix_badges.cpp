#include "conform/matrix/matrix_badges.hpp"

#include "base/printable.hpp"
#include "conform/runner/report_file.hpp"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <set>

#include <sys/stat.h>

namespace agent_session::conform::matrix {

std::string badge_json(const std::string& label, const Totals& totals) {
  const char* color = totals.failed > 0                                    ? "red"
                      : totals.skipped > 0 || totals.expected_failures > 0 ? "yellow"
                                                                           : "brightgreen";
  nlohmann::ordered_json badge;
  badge["schemaVersion"] = 1;
  badge["label"] = label;
  badge["message"] = std::to_string(totals.passed) + "/" + std::to_string(totals.vectors);
  badge["color"] = color;
  return badge.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::vector<std::string> badge_file_names(const std::vector<PortReport>& ports) {
  std::vector<std::string> names;
  std::set<std::string> taken;
  for (const auto& port : ports) {
    std::string stem;
    for (const char c : port.label) {
      const bool kept = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                        c == '_' || c == '.';
      if (stem.size() < 64) stem += kept ? c : '-';
    }
    if (stem.empty() || stem.front() == '.') stem.insert(0, "port");
    std::string name = stem;
    for (unsigned n = 2; taken.count(name) > 0; ++n) name = stem + "-" + std::to_string(n);
    taken.insert(name);
    names.push_back(name + ".json");
  }
  return names;
}

std::optional<std::string> write_badges(const std::string& dir, const Matrix& matrix) {
  // A folder that exists is used as it is (a link to one too: the user
  // named it); only a missing one is made, one level.
  if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
    return "cannot make the badges folder '" + base::terminal_safe(dir) + "': " + std::strerror(errno);
  }
  const auto names = badge_file_names(matrix.ports);
  for (std::size_t p = 0; p < matrix.ports.size(); ++p) {
    const std::string path = dir + "/" + names[p];
    if (const auto why = runner::write_report_file(path, badge_json(matrix.ports[p].label, matrix.totals[p]))) {
      return "cannot write the badge '" + base::terminal_safe(path) + "': " + *why;
    }
  }
  return std::nullopt;
}

}  // namespace agent_session::conform::matrix
