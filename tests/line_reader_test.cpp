// entry::LineReader, the line splitter under every load (SPEC.md §2):
// physical line numbers, empty lines, a last line without `\n`, lines that
// cross the pieces the input arrives in, the bytes kept readable past each
// line, and the line-length limit (kMaxLineBytes, 32 MiB: inputs that
// long are generated as they are read, never held).
#include "entry/line_reader.hpp"
#include "entry/load.hpp"

#include "agent_session/session.hpp"
#include "reference/load.hpp"
#include "support/thrown.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

namespace agent_session::entry {
namespace {

struct Seen {
  std::string text;
  std::size_t number;
  bool terminated;
  bool operator==(const Seen&) const = default;
};

std::ostream& operator<<(std::ostream& out, const Seen& line) {
  return out << line.number << ":\"" << line.text << "\"" << (line.terminated ? "" : " (no newline)");
}

// Reads `input` through `read_some` pieces of at most `piece(size)` bytes.
LineReader::ReadSome pieces_of(const std::string& input, std::function<std::size_t(std::size_t)> piece) {
  auto at = std::make_shared<std::size_t>(0);
  return [&input, at, piece](char* buffer, std::size_t size) {
    const std::size_t n = std::min({size, input.size() - *at, std::max<std::size_t>(piece(size), 1)});
    std::memcpy(buffer, input.data() + *at, n);
    *at += n;
    return n;
  };
}

std::vector<Seen> lines_of(LineReader::ReadSome read_some, std::size_t read_ahead = 0) {
  LineReader reader(std::move(read_some), read_ahead);
  std::vector<Seen> lines;
  while (const auto line = reader.next()) {
    // The bytes promised readable past the line are read: the first
    // read_ahead and the last promised one (a sanitizer build catches a
    // promise the buffer does not keep; reading every promised byte, up
    // to a megabyte a line, costs minutes under one and proves no more).
    unsigned sum = 0;
    const char* after = line->text.data() + line->text.size();
    for (std::size_t i = 0; i < std::min(line->readable_after, read_ahead); ++i)
      sum += static_cast<unsigned char>(after[i]);
    if (line->readable_after > 0) sum += static_cast<unsigned char>(after[line->readable_after - 1]);
    static_cast<void>(sum);
    EXPECT_GE(line->readable_after, read_ahead) << "line " << line->number;
    lines.push_back({std::string(line->text), line->number, line->terminated});
  }
  return lines;
}

std::vector<Seen> lines_of(const std::string& input) {
  return lines_of(pieces_of(input, [](std::size_t size) { return size; }));
}

TEST(LineReader, NumbersLinesPhysicallyCountingEmptyOnes) {
  EXPECT_EQ(
      lines_of("a\n\nb\n\n\nc\n"),
      (std::vector<Seen>{{"a", 1, true}, {"", 2, true}, {"b", 3, true}, {"", 4, true}, {"", 5, true}, {"c", 6, true}}));
}

TEST(LineReader, NothingFollowsTheLastNewlineButTheEnd) {
  EXPECT_EQ(lines_of(""), std::vector<Seen>{});
  EXPECT_EQ(lines_of("\n"), (std::vector<Seen>{{"", 1, true}}));
  EXPECT_EQ(lines_of("a\n"), (std::vector<Seen>{{"a", 1, true}}));
  EXPECT_EQ(lines_of("a\nb"), (std::vector<Seen>{{"a", 1, true}, {"b", 2, false}}));
  EXPECT_EQ(lines_of("a\r\n \n"), (std::vector<Seen>{{"a\r", 1, true}, {" ", 2, true}})) << "only \\n ends a line";
}

// The same lines whatever pieces the input arrives in: one byte at a
// time, and random sizes (fixed seed), with and without read-ahead.
TEST(LineReader, LinesAcrossPiecesAreWhole) {
  std::string input;
  std::mt19937_64 random(20261201);
  for (int i = 0; i < 300; ++i) input += std::string(random() % 40, static_cast<char>('a' + i % 26)) + "\n";
  input.append(std::size_t{3} << 20, 'z');  // longer than the first buffer
  input += "\ntail";
  const std::vector<Seen> whole = lines_of(input);
  ASSERT_EQ(whole.size(), 302u);
  EXPECT_EQ(whole.back(), (Seen{"tail", 302, false}));
  for (const std::size_t read_ahead : {0u, 1u, 64u}) {
    SCOPED_TRACE(read_ahead);
    EXPECT_EQ(lines_of(pieces_of(input, [](std::size_t) { return 1; }), read_ahead), whole) << "1 byte at a time";
    EXPECT_EQ(
        lines_of(pieces_of(input, [&](std::size_t size) { return 1 + random() % std::min<std::size_t>(size, 5000); }),
                 read_ahead),
        whole)
        << "random sizes";
  }
}

// The reader gives the lines SPEC.md §2's split gives (the reference's
// reference::LinesInMemory: split on `\n`, numbered physically), on
// random inputs of line breaks, carriage returns and text, whatever the
// pieces they arrive in.
TEST(LineReader, GivesTheLinesOfTheReferencesSplit) {
  std::mt19937_64 random(20261204);
  for (int round = 0; round < 500; ++round) {
    std::string input;
    const std::size_t size = random() % 60;
    for (std::size_t i = 0; i < size; ++i) input += "\n\n\ra b"[random() % 6];
    std::vector<Seen> split;
    reference::LinesInMemory lines(input);
    while (const auto line = lines.next()) split.push_back({std::string(line->text), line->number, line->terminated});
    SCOPED_TRACE(input);
    EXPECT_EQ(lines_of(input), split);
    EXPECT_EQ(lines_of(pieces_of(input, [&](std::size_t) { return 1 + random() % 7; }), 64), split);
  }
}

// Every line's offset is where it starts in the input, whatever pieces
// the input arrives in (the buffer keeps moving the unfinished line).
TEST(LineReader, EachLineSaysTheByteWhereItStarts) {
  std::string input;
  std::vector<std::uint64_t> starts;
  for (int i = 0; i < 300; ++i) {
    starts.push_back(input.size());
    input += std::string(static_cast<std::size_t>(i % 7 == 0 ? 0 : (i * 37) % 5000), 'x') + "\n";
  }
  for (const std::size_t piece : {std::size_t{1}, std::size_t{13}, std::size_t{4096}, std::size_t{1} << 20}) {
    LineReader reader(pieces_of(input, [piece](std::size_t) { return piece; }), 0);
    std::size_t i = 0;
    while (const auto line = reader.next()) {
      ASSERT_LT(i, starts.size());
      EXPECT_EQ(line->offset, starts[i]) << "line " << line->number << ", pieces of " << piece;
      ++i;
    }
    EXPECT_EQ(i, starts.size());
  }
}

// The one numbering, for repair and the append's torn-tail guard too.
TEST(LinePosition, FindsALineByNumberByOffsetAndTheLastOne) {
  const std::string bytes = "{a}\n\n{b}\n{c}\n\n";
  const LinePosition third = line_numbered(bytes, 3);
  EXPECT_EQ(third.offset, 5u);
  EXPECT_EQ(third.text, "{b}");
  EXPECT_EQ(third.non_empty_before, 1u) << "the empty line 2 holds no message";
  EXPECT_TRUE(third.terminated);
  EXPECT_FALSE(third.last);
  const LinePosition fourth = line_at_offset(bytes, 9);
  EXPECT_EQ(fourth.number, 4u);
  EXPECT_EQ(fourth.text, "{c}");
  EXPECT_TRUE(fourth.last) << "only empty lines follow it";
  EXPECT_EQ(line_at_offset(bytes, 8).number, 3u) << "byte 8 is line 3's newline";
  EXPECT_EQ(line_at_offset(bytes, 7).number, 3u) << "inside line 3";
  const LinePosition torn = last_line("{a}\n{b");
  EXPECT_EQ(torn.number, 2u);
  EXPECT_EQ(torn.offset, 4u);
  EXPECT_EQ(torn.text, "{b");
  EXPECT_FALSE(torn.terminated);
  EXPECT_TRUE(torn.last);
  EXPECT_EQ(last_line("").number, 0u);
}

TEST(LineReader, AReadErrorPropagates) {
  int calls = 0;
  LineReader reader(
      [&](char* buffer, std::size_t) -> std::size_t {
        if (++calls > 1) throw std::runtime_error("disk on fire");
        std::memcpy(buffer, "a\nb", 3);
        return 3;
      },
      0);
  EXPECT_EQ(reader.next()->text, "a");
  EXPECT_THROW(reader.next(), std::runtime_error);
}

// `head`, then `count` bytes `x` (endless when count is max), then `tail`,
// produced as they are read.
class Generated {
 public:
  Generated(std::string head, std::size_t count, std::string tail)
      : head_(std::move(head)), count_(count), tail_(std::move(tail)) {}

  std::size_t read(char* buffer, std::size_t size) {
    std::size_t n = 0;
    while (n < size) {
      if (at_ < head_.size()) {
        buffer[n++] = head_[at_++];
      } else if (at_ - head_.size() < count_) {
        const std::size_t run = std::min(size - n, count_ - (at_ - head_.size()));
        std::memset(buffer + n, 'x', run);
        n += run;
        at_ += run;
      } else if (at_ - head_.size() - count_ < tail_.size()) {
        buffer[n++] = tail_[at_++ - head_.size() - count_];
      } else {
        break;
      }
    }
    return n;
  }
  std::size_t produced() const { return at_; }

 private:
  std::string head_;
  std::size_t count_;
  std::string tail_;
  std::size_t at_ = 0;
};

TEST(LineReader, ALineOfExactlyTheLimitIsRead) {
  Generated input("a\n", kMaxLineBytes, "\nb");
  LineReader reader([&](char* buffer, std::size_t size) { return input.read(buffer, size); }, 64);
  EXPECT_EQ(reader.next()->text, "a");
  const auto line = reader.next();
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->text.size(), kMaxLineBytes);
  EXPECT_EQ(line->number, 2u);
  EXPECT_EQ(reader.next()->text, "b");
  EXPECT_FALSE(reader.next().has_value());
}

// The reference's split in memory draws the same line: the longest line
// there is room for is read, one byte more is LineTooLong at its number.
TEST(LineReader, TheReferencesSplitHasTheSameLimit) {
  for (const std::size_t length : {kMaxLineBytes, kMaxLineBytes + 1}) {
    std::string input = "a\n\n";
    input.append(length, 'x');
    input += "\nb";
    reference::LinesInMemory lines(input);
    EXPECT_EQ(lines.next()->text, "a");
    EXPECT_EQ(lines.next()->text, "");
    if (length == kMaxLineBytes) {
      EXPECT_EQ(lines.next()->text.size(), kMaxLineBytes);
      EXPECT_EQ(lines.next()->text, "b");
    } else {
      EXPECT_EQ(test_support::thrown<LineTooLong>([&] { lines.next(); }).line(), 3u);
    }
  }
}

TEST(LineReader, OneByteMoreIsLineTooLongAtItsLine) {
  for (const std::string tail : {"\n", ""}) {
    Generated input("a\n\n", kMaxLineBytes + 1, tail);
    LineReader reader([&](char* buffer, std::size_t size) { return input.read(buffer, size); }, 0);
    reader.next();
    reader.next();
    const LineTooLong error = test_support::thrown<LineTooLong>([&] { reader.next(); });
    EXPECT_EQ(error.line(), 3u);
  }
}

// The public load stops an endless line at the limit, in bounded memory:
// it reads little more than the limit, not the (endless) input.
class GeneratedStream : public std::streambuf {
 public:
  explicit GeneratedStream(Generated& input) : input_(input) {}

 protected:
  int_type underflow() override {
    const std::size_t n = input_.read(buffer_, sizeof buffer_);
    if (n == 0) return traits_type::eof();
    setg(buffer_, buffer_, buffer_ + n);
    return traits_type::to_int_type(buffer_[0]);
  }

 private:
  Generated& input_;
  char buffer_[1 << 16];
};

TEST(LineReader, AnEndlessLineStopsTheLoadAtTheLimit) {
  Generated input("{\"role\":\"user\",\"content\":\"a\"}\n\n", std::numeric_limits<std::size_t>::max(), "");
  GeneratedStream buffer(input);
  std::istream in(&buffer);
  const LineTooLong error = test_support::thrown<LineTooLong>([&] { entry::load_numbered_session(in); });
  EXPECT_EQ(error.line(), 3u);
  EXPECT_LE(input.produced(), kMaxLineBytes + (std::size_t{4} << 20)) << "bytes read of an endless input";
}

}  // namespace
}  // namespace agent_session::entry
