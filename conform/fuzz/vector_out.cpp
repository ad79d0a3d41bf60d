#include "conform/fuzz/vector_out.hpp"

#include <nlohmann/json.hpp>

#include "conform/runner/temp_folder.hpp"

#include <cerrno>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>

namespace agent_session::conform::fuzz {
namespace {

std::string json_text(const nlohmann::ordered_json& value) {
  return value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

namespace fs = std::filesystem;

// A name tried after `name`: the 1,000th gives up.
constexpr int kMaxTries = 1000;

void write_file(const VectorFolder& folder, const std::string& name, const std::string& bytes, int mode = 0644) {
  try {
    runner::write_new_file_at(folder.fd.get(), name, bytes, mode);
  } catch (const std::system_error& error) {
    throw std::system_error(error.code(), "cannot write " + (folder.path / name).string());
  }
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
  std::string text = "{\n  \"rule\": " + json_text(vector.rule) +
                     ",\n  \"rules\": " + json_text(nlohmann::ordered_json(vector.rules)) +
                     ",\n  \"about\": " + json_text(vector.about) + ",\n  \"checks\": [\n";
  for (std::size_t i = 0; i < vector.checks.size(); ++i) {
    const runner::Check& check = vector.checks[i];
    nlohmann::ordered_json json;
    json["args"] = check.args;
    json["exit"] = check.exit;
    if (check.exit == 0) json["stdout"] = check.stdout_bytes;
    if (check.exit == 1) json["error"] = check.error;
    text += "    " + json_text(json) + (i + 1 < vector.checks.size() ? ",\n" : "\n");
  }
  return text + "  ]\n}\n";
}

VectorFolder new_vector_folder(const fs::path& out, const std::string& name) {
  fs::create_directories(out);
  base::Fd parent(::open(out.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (parent.get() < 0) throw std::system_error(errno, std::generic_category(), "cannot open " + out.string());
  for (int n = 1; n <= kMaxTries; ++n) {
    const std::string tried = n == 1 ? name : name + "_" + std::to_string(n);
    if (::mkdirat(parent.get(), tried.c_str(), 0755) != 0) {
      if (errno == EEXIST) continue;
      throw std::system_error(errno, std::generic_category(), "cannot create " + (out / tried).string());
    }
    base::Fd folder(::openat(parent.get(), tried.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (folder.get() < 0)
      throw std::system_error(errno, std::generic_category(), "cannot open " + (out / tried).string());
    return {out / tried, tried, std::move(folder)};
  }
  throw std::system_error(EEXIST, std::generic_category(),
                          "cannot create a vector folder in " + out.string() + ": " + name + " to " + name + "_" +
                              std::to_string(kMaxTries) + " all exist");
}

void write_vector_files(const VectorFolder& folder, const FoundVector& vector) {
  write_file(folder, "input.jsonl", vector.input);
  write_file(folder, "expect.json", expect_json(vector));
  std::string script = "#!/bin/sh\n# What agent-session-conform fuzz found; run from where it ran.\n";
  for (const std::string& line : vector.reproduce) script += line + "\n";
  write_file(folder, "reproduce.sh", script, 0755);
}

fs::path write_vector(const fs::path& out, FoundVector& vector) {
  VectorFolder folder = new_vector_folder(out, vector.name);
  vector.name = folder.name;
  write_vector_files(folder, vector);
  return folder.path;
}

}  // namespace agent_session::conform::fuzz
