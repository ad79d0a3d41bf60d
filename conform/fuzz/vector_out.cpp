#include "fuzz/vector_out.hpp"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <fstream>
#include <system_error>

namespace agent_session::fuzz {
namespace {

std::string json_text(const nlohmann::ordered_json& value) {
  return value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << bytes;
  file.close();
  if (!file) throw std::system_error(errno ? errno : EIO, std::generic_category(), "cannot write " + path.string());
}

}  // namespace

std::string shell_line(const std::vector<std::string>& words) {
  std::string line;
  for (const std::string& word : words) {
    if (!line.empty()) line += ' ';
    const bool plain = !word.empty() && word.find_first_not_of(
                                            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789-_./=:@%+,") == std::string::npos;
    if (plain) {
      line += word;
      continue;
    }
    line += '\'';
    for (const char c : word) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

std::string expect_json(const FoundVector& vector) {
  std::string text = "{\n  \"rule\": " + json_text(vector.rule) + ",\n  \"about\": " + json_text(vector.about) +
                     ",\n  \"checks\": [\n";
  for (std::size_t i = 0; i < vector.checks.size(); ++i) {
    const cli::Check& check = vector.checks[i];
    nlohmann::ordered_json json;
    json["args"] = check.args;
    json["exit"] = check.exit;
    if (check.exit == 0) json["stdout"] = check.stdout_bytes;
    if (check.exit == 1) json["error"] = check.error;
    text += "    " + json_text(json) + (i + 1 < vector.checks.size() ? ",\n" : "\n");
  }
  return text + "  ]\n}\n";
}

std::filesystem::path write_vector(const std::filesystem::path& out, const FoundVector& vector) {
  const std::filesystem::path dir = out / vector.name;
  std::filesystem::create_directories(dir);
  write_file(dir / "input.jsonl", vector.input);
  write_file(dir / "expect.json", expect_json(vector));
  std::string script = "#!/bin/sh\n# What agent-session-conform fuzz found; run from where it ran.\n";
  for (const std::string& line : vector.reproduce) script += line + "\n";
  write_file(dir / "reproduce.sh", script);
  std::filesystem::permissions(dir / "reproduce.sh",
                               std::filesystem::perms::owner_exec | std::filesystem::perms::group_exec,
                               std::filesystem::perm_options::add);
  return dir;
}

}  // namespace agent_session::fuzz
