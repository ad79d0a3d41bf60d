// The vectors as one document (conform/exporter/vectors_document.hpp):
// every vector of the corpus comes back from it, input.jsonl byte for byte
// and expect.json member for member; bytes that are not UTF-8 travel as
// base64; the runner's own checks are the runner's tables as data.
#include "conform/exporter/vectors_document.hpp"

#include "conform/runner/conform_judge.hpp"
#include "conform/runner/stream_checks.hpp"
#include "harness/base64.hpp"
#include "support/fake_vectors.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using agent_session::conform::exporter::ExportFailure;
using agent_session::conform::exporter::vectors_document;
using agent_session::harness::base64_decode;
using Json = nlohmann::json;

class VectorsDocumentTest : public agent_session::test_support::TempDirTest {};

// A bytes field of the document: KEY as text or KEY_b64 as base64, never both.
std::string bytes_of(const Json& item, const std::string& key) {
  EXPECT_FALSE(item.contains(key) && item.contains(key + "_b64")) << key;
  if (item.contains(key)) return item.at(key).get<std::string>();
  const auto bytes = base64_decode(item.at(key + "_b64").get<std::string>());
  EXPECT_TRUE(bytes.has_value()) << key;
  return bytes.value_or("");
}

// expect.json with its base64 fields decoded, so that `stdin_b64` and
// `stdin` holding the same bytes compare equal.
Json decoded(Json expect) {
  for (auto& check : expect["checks"]) {
    for (const std::string key : {"stdin", "file_after"}) {
      if (!check.contains(key + "_b64")) continue;
      check[key] = check[key + "_b64"].is_null() ? Json(nullptr) : Json(bytes_of(check, key));
      check.erase(key + "_b64");
    }
  }
  return expect;
}

void expect_same_checks(const agent_session::conform::runner::Vector& a,
                        const agent_session::conform::runner::Vector& b) {
  ASSERT_EQ(a.checks.size(), b.checks.size()) << a.name;
  for (std::size_t i = 0; i < a.checks.size(); ++i) {
    const auto &x = a.checks[i], &y = b.checks[i];
    EXPECT_EQ(x.args, y.args) << a.name << " check " << i;
    EXPECT_EQ(x.exit, y.exit) << a.name << " check " << i;
    EXPECT_EQ(x.stdout_bytes, y.stdout_bytes) << a.name << " check " << i;
    EXPECT_EQ(x.error, y.error) << a.name << " check " << i;
    EXPECT_EQ(x.stdin_bytes, y.stdin_bytes) << a.name << " check " << i;
    EXPECT_EQ(x.file_before, y.file_before) << a.name << " check " << i;
    EXPECT_EQ(x.file_after, y.file_after) << a.name << " check " << i;
  }
}

TEST_F(VectorsDocumentTest, ReproducesEveryVectorOfTheCorpus) {
  const fs::path corpus = fs::path(AGENT_SESSION_SOURCE_DIR) / "corpus/conformance";
  const auto document = vectors_document(corpus);
  ASSERT_TRUE(document.unusable.empty()) << document.unusable.front();
  const Json json = Json::parse(document.text);
  std::string version = read(corpus / "VERSION");
  if (!version.empty() && version.back() == '\n') version.pop_back();
  EXPECT_EQ(json.at("vectors_version"), version);
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(corpus))
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  ASSERT_EQ(json.at("vectors").size(), names.size());
  ASSERT_GT(names.size(), 200u);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const Json& vector = json["vectors"][i];
    ASSERT_EQ(vector.at("name"), names[i]);
    const fs::path original = corpus / names[i];
    // input.jsonl, byte for byte, written back into a folder of its own.
    const fs::path rebuilt = path(names[i]);
    fs::create_directories(rebuilt);
    write(rebuilt / "input.jsonl", bytes_of(vector, "input"));
    EXPECT_EQ(read(rebuilt / "input.jsonl"), read(original / "input.jsonl")) << names[i];
    // expect.json: every member, as it states it.
    const Json expect{{"rule", vector.at("rule")},
                      {"rules", vector.at("rules")},
                      {"about", vector.at("about")},
                      {"checks", vector.at("checks")}};
    EXPECT_EQ(decoded(expect), decoded(Json::parse(read(original / "expect.json")))) << names[i];
    // And the runner reads the rebuilt folder as it reads the vector.
    write(rebuilt / "expect.json", expect.dump());
    const auto again = agent_session::conform::runner::load_vector({rebuilt, "", {}, ""});
    const auto first = agent_session::conform::runner::load_vector({original, "", {}, ""});
    ASSERT_EQ(again.problem, "") << names[i];
    EXPECT_EQ(again.input, first.input) << names[i];
    EXPECT_EQ(again.rule, first.rule) << names[i];
    EXPECT_EQ(again.about, first.about) << names[i];
    expect_same_checks(again, first);
  }
}

TEST_F(VectorsDocumentTest, BytesThatAreNotUtf8TravelAsBase64) {
  fs::create_directories(path("v/i_latin1"));
  fs::create_directories(path("v/y_text"));
  write(path("v/VERSION"), "1.0.0\n");
  const std::string latin1 = "{\"role\":\"user\",\"content\":\"caf\xE9\"}\n\xFF\n";
  write(path("v/i_latin1/input.jsonl"), latin1);
  write(
      path("v/i_latin1/expect.json"),
      R"({"rule":"SPEC §2.1: r","about":"a","checks":[{"args":["check"],"exit":1,"error":"invalid session JSON at line 1"},)"
      R"({"args":["append"],"stdin_b64":"/wo=","exit":1,"error":"e","file_after_b64":"/w=="}]})");
  write(path("v/y_text/input.jsonl"), "h\xC3\xA9\n");
  write(path("v/y_text/expect.json"), R"({"checks":[{"args":["canon"],"exit":0,"stdout":""}]})");
  const auto document = vectors_document(path("v"));
  ASSERT_TRUE(document.unusable.empty());
  const Json json = Json::parse(document.text);
  const Json& bytes = json["vectors"][0];
  EXPECT_FALSE(bytes.contains("input"));
  EXPECT_EQ(bytes_of(bytes, "input"), latin1);
  EXPECT_EQ(bytes["checks"][1].at("stdin_b64"), "/wo=");
  EXPECT_EQ(bytes_of(bytes["checks"][1], "stdin"), "\xFF\n");
  EXPECT_EQ(bytes_of(bytes["checks"][1], "file_after"), "\xFF");
  const Json& text = json["vectors"][1];
  EXPECT_EQ(text.at("input"), "h\xC3\xA9\n");
  EXPECT_FALSE(text.contains("input_b64"));
  EXPECT_FALSE(text.contains("rule"));                 // as expect.json states it: not at all
  EXPECT_EQ(json.at("runner_checks"), Json::array());  // 1.0.0 has none of the runner's own
}

TEST_F(VectorsDocumentTest, TheRunnersOwnChecksAreItsTablesAsData) {
  fs::create_directories(path("v/y_one"));
  write(path("v/y_one/input.jsonl"), "");
  write(path("v/y_one/expect.json"), agent_session::test_support::kOneMessage);
  write(path("v/VERSION"), "1.1.0");
  Json json = Json::parse(vectors_document(path("v")).text);
  ASSERT_EQ(json["runner_checks"].size(), 1u);  // 1.1.0: the built-in vector alone
  const Json& missing = json["runner_checks"][0];
  EXPECT_EQ(missing["name"], "builtin_missing_file");
  EXPECT_EQ(missing["since"], "1.1.0");
  ASSERT_EQ(missing["checks"].size(), 4u);
  EXPECT_EQ(missing["checks"][3]["args"], Json({"trim", "--max-chars", "100"}));
  EXPECT_EQ(missing["checks"][0]["file"], "missing");
  EXPECT_EQ(missing["checks"][0]["exit"], 3);
  EXPECT_EQ(missing["checks"][0]["stderr_mentions"], Json({"no such file"}));
  EXPECT_EQ(missing["checks"][0]["stderr_names_file"], true);

  write(path("v/VERSION"), "1.4.0");
  json = Json::parse(vectors_document(path("v")).text);
  const auto& all = agent_session::conform::runner::runner_check_names();
  const std::vector<std::string> names(all.begin(), all.begin() + 6);  // 1.4.0's six
  ASSERT_EQ(json["runner_checks"].size(), 1 + names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    const Json& own = json["runner_checks"][i + 1];
    EXPECT_EQ(own["name"], names[i]);
    EXPECT_EQ(own["since"], "1.4.0");
    EXPECT_EQ(own["input"], std::string(agent_session::conform::runner::kRunnerSession));
    ASSERT_EQ(own["checks"].size(), 1u);
    EXPECT_EQ(own["checks"][0]["stderr_one_line"], true);
    EXPECT_EQ(own["checks"][0]["stderr_names_file"], false);
  }
  const auto check = [&](const std::string& name) {
    for (const Json& own : json["runner_checks"])
      if (own["name"] == name) return own["checks"][0];
    return Json();
  };
  EXPECT_EQ(check("runner_stdin_closed")["file"], "-");
  EXPECT_EQ(check("runner_stdin_closed")["stdin_stream"], "closed");
  EXPECT_EQ(check("runner_stdin_closed")["exit"], 3);
  EXPECT_EQ(check("runner_stdin_directory")["stdin_stream"], "/");
  EXPECT_EQ(check("runner_stdout_full")["file"], "input");
  EXPECT_EQ(check("runner_stdout_full")["stdout_stream"], "/dev/full");
  EXPECT_EQ(check("runner_stdout_full")["stdin_stream"], "pipe");
  EXPECT_EQ(check("runner_stdout_closed")["stdout_stream"], "closed");
  EXPECT_EQ(check("runner_extra_argument")["after_file"], Json({"extra"}));
  EXPECT_EQ(check("runner_extra_argument")["exit"], 2);
  EXPECT_EQ(check("runner_unknown_option")["args"], Json({"check", "--bogus"}));
}

// From 1.6.0, three more: FILE a folder ("folder") or in a folder that
// does not exist ("missing"), which a document of shape 1 could not say.
TEST_F(VectorsDocumentTest, TheFileErrorChecksFromVectors160) {
  fs::create_directories(path("v/y_one"));
  write(path("v/y_one/input.jsonl"), "");
  write(path("v/y_one/expect.json"), agent_session::test_support::kOneMessage);
  write(path("v/VERSION"), "1.6.0");
  const Json json = Json::parse(vectors_document(path("v")).text);
  EXPECT_EQ(json["document_version"], 2);
  const auto& names = agent_session::conform::runner::runner_check_names();
  ASSERT_EQ(json["runner_checks"].size(), 1 + names.size());
  const Json& folder = json["runner_checks"][7];
  EXPECT_EQ(folder["name"], "runner_file_directory");
  EXPECT_EQ(folder["since"], "1.6.0");
  EXPECT_EQ(folder["about"],
            "check, estimate, canon and trim --max-chars 100 on FILE, FILE a folder, must each exit 3, never a "
            "signal, with standard output empty and exactly one line on standard error");
  ASSERT_EQ(folder["checks"].size(), 4u);
  for (const Json& check : folder["checks"]) {
    EXPECT_EQ(check["file"], "folder");
    EXPECT_EQ(check["exit"], 3);
    EXPECT_EQ(check["stdin_stream"], "pipe");
  }
  EXPECT_EQ(folder["checks"][3]["args"], Json({"trim", "--max-chars", "100"}));
  const Json& append = json["runner_checks"][8];
  EXPECT_EQ(append["name"], "runner_append_directory");
  EXPECT_EQ(append["checks"][0]["args"], Json({"append"}));
  EXPECT_EQ(append["checks"][0]["file"], "folder");
  const Json& missing = json["runner_checks"][9];
  EXPECT_EQ(missing["name"], "runner_append_missing_folder");
  EXPECT_EQ(missing["about"],
            "append FILE, FILE in a folder that does not exist, with standard input empty, must exit 3, never a "
            "signal, with standard output empty and exactly one line on standard error");
  EXPECT_EQ(missing["checks"][0]["file"], "missing");
  EXPECT_EQ(missing["checks"][0]["stderr_names_file"], false);
}

TEST_F(VectorsDocumentTest, AnUnusableVectorIsNamedAndNothingIsWritten) {
  fs::create_directories(path("v/y_good"));
  fs::create_directories(path("v/y_linked"));
  write(path("v/VERSION"), "1.4.0\n");
  write(path("v/y_good/input.jsonl"), "");
  write(path("v/y_good/expect.json"), agent_session::test_support::kOneMessage);
  write(path("secret"), "not the vector's");
  fs::create_symlink(path("secret"), path("v/y_linked/input.jsonl"));
  write(path("v/y_linked/expect.json"), agent_session::test_support::kOneMessage);
  const auto document = vectors_document(path("v"));
  EXPECT_EQ(document.text, "");
  ASSERT_EQ(document.unusable.size(), 1u);
  EXPECT_NE(document.unusable[0].find("y_linked: unusable vector: input.jsonl is a symbolic link"), std::string::npos)
      << document.unusable[0];
}

TEST_F(VectorsDocumentTest, AVectorWhoseNameIsNotUtf8IsUnusable) {
  fs::create_directories(path("v/y_caf\xE9"));
  write(path("v/VERSION"), "1.4.0\n");
  write(path("v/y_caf\xE9/input.jsonl"), "");
  write(path("v/y_caf\xE9/expect.json"), agent_session::test_support::kOneMessage);
  const auto document = vectors_document(path("v"));
  EXPECT_EQ(document.text, "");
  ASSERT_EQ(document.unusable.size(), 1u);
  EXPECT_EQ(document.unusable[0], "y_caf\\xe9: unusable vector: its name is not UTF-8");
}

TEST_F(VectorsDocumentTest, NoFolderNoVectorsOrNoVersionIsTheCallersMistake) {
  const auto code_of = [](const fs::path& vectors) {
    try {
      vectors_document(vectors);
    } catch (const ExportFailure& failure) {
      EXPECT_EQ(failure.message.find('\n'), std::string::npos);
      return failure.code;
    }
    return 0;
  };
  EXPECT_EQ(code_of(path("nowhere")), 2);
  fs::create_directories(path("empty"));
  EXPECT_EQ(code_of(path("empty")), 2);
  fs::create_directories(path("v/y_one"));
  write(path("v/y_one/input.jsonl"), "");
  write(path("v/y_one/expect.json"), agent_session::test_support::kOneMessage);
  EXPECT_EQ(code_of(path("v")), 2);  // no VERSION
  write(path("v/VERSION"), "1.4");
  EXPECT_EQ(code_of(path("v")), 2);
  write(path("v/VERSION"), "1.4.0");
  EXPECT_EQ(code_of(path("v")), 0);
}

}  // namespace
