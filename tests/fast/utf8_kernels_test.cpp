// Every kernel of the fast path's json_string_units and utf16_length
// (src/fast/utf8_kernels.hpp: scalar SWAR, AVX2, AVX-512) against the
// reference's (base/utf8.hpp, SPEC.md §2.1 strictness, §4 UTF-16 code
// units): lengths around every block boundary, every class of invalid
// UTF-8 at every position, escapes at every position, random texts.
//
// A kernel this CPU cannot run is not skipped silently: its tests still
// run (the `_with` functions then fall back to the scalar kernel, which
// must agree too) and print a loud NOT TESTED line.
#include "fast/utf8_kernels.hpp"

#include "base/utf8.hpp"
#include "support/json_string_units.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace agent_session::fast {
namespace {

// ---- Texts ---------------------------------------------------------------------

std::string bytes(std::initializer_list<unsigned> values) {
  std::string out;
  for (const unsigned v : values) out.push_back(static_cast<char>(v));
  return out;
}

// Valid text of exactly `length` bytes: 3-byte CJK characters, padded with
// ASCII, so the vector kernels take their non-ASCII path around it.
std::string cjk_filler(std::size_t length) {
  std::string out;
  while (out.size() + 3 <= length) out += "\xE4\xB8\xAD";  // 中
  out.append(length - out.size(), 'a');
  return out;
}

// `pattern` at byte `offset` between fillers, `length` bytes in all (at
// least the pattern's).
std::string embedded(std::string_view pattern, std::size_t offset, std::size_t length, bool cjk) {
  length = std::max(length, pattern.size());
  offset = std::min(offset, length - pattern.size());
  const auto filler = [&](std::size_t n) { return cjk ? cjk_filler(n) : std::string(n, 'a'); };
  return filler(offset) + std::string(pattern) + filler(length - offset - pattern.size());
}

// Printable: "61 e4 b8 ..." (failure messages).
std::string hex(std::string_view text) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const char ch : text.substr(0, 300)) {
    const auto c = static_cast<unsigned char>(ch);
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
    out += ' ';
  }
  return out;
}

// ---- One test suite per kernel -------------------------------------------------

}  // namespace

// GoogleTest prints kernels by name.
void PrintTo(Utf8Kernel kernel, std::ostream* out) { *out << kernel_name(kernel); }

namespace {

class Utf8KernelTest : public testing::TestWithParam<Utf8Kernel> {
 protected:
  void SetUp() override {
    if (!kernel_supported(GetParam())) {
      std::cout << "\n*** NOT TESTED: this CPU cannot run the " << kernel_name(GetParam())
                << " kernel; checking its scalar fallback instead ***\n\n";
    }
  }

  // The kernel's answers equal the reference's; the plain entry points'
  // too (they run the fastest kernel).
  void expect_reference(std::string_view text) {
    const auto expected = test_support::json_string_units(text);
    ASSERT_EQ(json_string_units_with(GetParam(), text), expected)
        << kernel_name(GetParam()) << ", " << text.size() << " bytes: " << hex(text);
    ASSERT_EQ(test_support::json_string_units(text), expected)
        << "fastest kernel, " << text.size() << " bytes: " << hex(text);
    ASSERT_EQ(json_string_units_or_zero(text), expected.value_or(0)) << "fastest kernel, " << hex(text);
    if (expected) {
      const auto units = base::utf16_length(text);
      ASSERT_EQ(utf16_length_with(GetParam(), text), units)
          << "utf16_length, " << kernel_name(GetParam()) << ", " << text.size() << " bytes: " << hex(text);
      ASSERT_EQ(utf16_length(text), units) << "utf16_length, " << text.size() << " bytes: " << hex(text);
    }
  }

  void expect_invalid(std::string_view text) {
    ASSERT_EQ(test_support::json_string_units(text), std::nullopt) << "the test's own text is valid: " << hex(text);
    expect_reference(text);
  }
};

// Character mixes cut at every length 0..200 and from every start 0..3, so
// every block boundary (32, 64, 128, 192) falls inside sequences of every
// length, and the string ends inside them (a truncated sequence).
TEST_P(Utf8KernelTest, EveryLengthAroundBlockBoundaries) {
  const std::string mixes[] = {
      std::string(256, 'x'),
      cjk_filler(256),
      [] {
        std::string s;
        while (s.size() < 256) s += "\xC3\xA9";
        return s;
      }(),  // é
      [] {
        std::string s;
        while (s.size() < 256) s += "\xF0\x9F\x98\x80";
        return s;
      }(),  // 😀
      [] {
        std::string s;
        while (s.size() < 256) s += "a\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80\"\n";
        return s;
      }(),
      [] {
        std::string s;
        while (s.size() < 256) s += "\xF4\x8F\xBF\xBF\xEF\xBF\xBF\xE2\x80\xA8\x7F\x1b";
        return s;
      }(),
  };
  for (const std::string& mix : mixes) {
    for (std::size_t start = 0; start < 4; ++start) {
      for (std::size_t length = 0; length <= 200; ++length)
        expect_reference(std::string_view(mix).substr(start, length));
    }
  }
}

// Every class of invalid UTF-8, at every position of three blocks, between
// ASCII and between CJK text, and as the very end of the string.
TEST_P(Utf8KernelTest, EveryInvalidClassAtEveryPosition) {
  std::vector<std::string> invalid = {
      bytes({0xC0, 0x80}),
      bytes({0xC1, 0xBF}),  // overlong 2-byte
      bytes({0xE0, 0x80, 0x80}),
      bytes({0xE0, 0x9F, 0xBF}),  // overlong 3-byte
      bytes({0xF0, 0x80, 0x80, 0x80}),
      bytes({0xF0, 0x8F, 0xBF, 0xBF}),  // overlong 4-byte
      bytes({0xED, 0xA0, 0x80}),
      bytes({0xED, 0xBF, 0xBF}),  // surrogates
      bytes({0xF4, 0x90, 0x80, 0x80}),
      bytes({0xF7, 0xBF, 0xBF, 0xBF}),  // past U+10FFFF
      bytes({0x80}),
      bytes({0xBF}),
      bytes({0xC3, 0xA9, 0xA9}),  // stray continuation
      bytes({0xC3}),
      bytes({0xE4, 0xB8}),
      bytes({0xF0, 0x9F, 0x98}),  // truncated
      bytes({0xC3, 0x41}),
      bytes({0xE4, 0x41, 0x80}),
      bytes({0xF0, 0x9F, 0x41, 0x80}),
      bytes({0xE4, 0xB8, 0xC3, 0xA9}),  // a lead cuts a sequence
  };
  for (unsigned byte = 0xF5; byte <= 0xFF; ++byte) {
    invalid.push_back(bytes({byte}));
    invalid.push_back(bytes({byte, 0x80, 0x80, 0x80}));
  }
  for (const std::string& pattern : invalid) {
    for (const bool cjk : {false, true}) {
      for (std::size_t offset = 0; offset <= 192; ++offset) expect_invalid(embedded(pattern, offset, 196, cjk));
      // Truncated or bad at the very end, for ends around block edges.
      for (std::size_t length = pattern.size(); length <= 140; ++length) {
        expect_invalid(embedded(pattern, length, length, cjk));
      }
    }
  }
}

// The bounds of every valid range, at every position: none may be
// rejected.
TEST_P(Utf8KernelTest, EveryRangeBoundAtEveryPosition) {
  const std::string valid[] = {
      bytes({0x7F}),
      bytes({0xC2, 0x80}),
      bytes({0xDF, 0xBF}),
      bytes({0xE0, 0xA0, 0x80}),
      bytes({0xEC, 0xBF, 0xBF}),
      bytes({0xED, 0x80, 0x80}),
      bytes({0xED, 0x9F, 0xBF}),
      bytes({0xEE, 0x80, 0x80}),
      bytes({0xEF, 0xBF, 0xBF}),
      bytes({0xF0, 0x90, 0x80, 0x80}),
      bytes({0xF3, 0xBF, 0xBF, 0xBF}),
      bytes({0xF4, 0x80, 0x80, 0x80}),
      bytes({0xF4, 0x8F, 0xBF, 0xBF}),
  };
  for (const std::string& pattern : valid) {
    for (const bool cjk : {false, true}) {
      for (std::size_t offset = 0; offset <= 192; ++offset) {
        const std::string text = embedded(pattern, offset, 196, cjk);
        ASSERT_NE(test_support::json_string_units(text), std::nullopt) << hex(text);
        expect_reference(text);
      }
    }
  }
}

// Every ASCII byte JSON.stringify escapes (and DEL, which it does not),
// at every position of three blocks, alone and in runs.
TEST_P(Utf8KernelTest, EscapesAtEveryPosition) {
  std::vector<std::string> escapes = {"\"", "\\", "\x7F", "\\\"\n\x1b"};
  for (unsigned c = 0; c < 0x20; ++c) escapes.push_back(std::string(1, static_cast<char>(c)));
  for (const std::string& escape : escapes) {
    for (const bool cjk : {false, true}) {
      for (std::size_t offset = 0; offset <= 192; ++offset) expect_reference(embedded(escape, offset, 196, cjk));
    }
  }
  for (std::size_t length = 0; length <= 200; ++length) {
    expect_reference(std::string(length, '\n'));
    expect_reference(std::string(length, '\0'));
  }
}

// Every pair of bytes at every block edge: all 65,536 two-byte patterns.
TEST_P(Utf8KernelTest, EveryTwoBytePatternAtBlockEdges) {
  for (unsigned first = 0; first < 256; ++first) {
    for (unsigned second = 0; second < 256; ++second) {
      const std::string pattern = bytes({first, second});
      for (const std::size_t offset : {0, 31, 63, 127})
        expect_reference(embedded(pattern, offset, 129, first % 2 == 1));
      expect_reference(pattern);
    }
  }
}

// Three- and four-byte patterns of lead bytes and the bytes at the bounds
// of every continuation range, straddling block edges.
TEST_P(Utf8KernelTest, ThreeAndFourBytePatternsAtBlockEdges) {
  const unsigned interesting[] = {0x00, 0x0A, 0x1F, 0x20, '"',  '\\', 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0,
                                  0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xEF, 0xF0, 0xF4, 0xF5};
  for (unsigned lead = 0x80; lead < 256; ++lead) {
    for (const unsigned b : interesting) {
      for (const unsigned c : interesting) {
        for (const std::size_t offset : {30, 62, 63}) expect_reference(embedded(bytes({lead, b, c}), offset, 66, true));
        for (const unsigned d : {0x41u, 0x80u, 0xBFu, 0xC0u}) {
          for (const std::size_t offset : {61, 62, 63}) {
            expect_reference(embedded(bytes({lead, b, c, d}), offset, 70, false));
          }
        }
      }
    }
  }
}

// Random texts up to 300 bytes (and some of a few thousand) mixing ASCII
// runs, escapes, 2-, 3- and 4-byte characters and, in one of four, a
// random byte somewhere. Fixed seed: the same texts every run.
TEST_P(Utf8KernelTest, RandomTexts) {
  std::mt19937_64 random(20261130);
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(random() % n); };
  const std::vector<std::string> pieces = {"a",
                                           "Z",
                                           " ",
                                           "\"",
                                           "\\",
                                           "\n",
                                           "\t",
                                           "\x01",
                                           "\x1b",
                                           "\x7f",
                                           "\xC3\xA9",
                                           "\xE4\xB8\xAD",
                                           "\xE2\x80\xA8",
                                           "\xF0\x9F\x98\x80",
                                           "\xEF\xBF\xBF",
                                           "\xF4\x8F\xBF\xBF"};
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    const std::size_t target = round % 100 == 0 ? pick(5000) : pick(300);
    while (text.size() < target) {
      // Runs of plain ASCII exercise the all-ASCII block path.
      text += pick(3) == 0 ? std::string(pick(70), 'x') : pieces[pick(pieces.size())];
    }
    if (pick(4) == 0 && !text.empty()) text[pick(text.size())] = static_cast<char>(pick(256));
    expect_reference(text);
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, Utf8KernelTest, testing::ValuesIn(kUtf8Kernels),
                         [](const testing::TestParamInfo<Utf8Kernel>& info) {
                           return std::string(kernel_name(info.param));
                         });

// ---- Dispatch ------------------------------------------------------------------

TEST(Utf8Kernels, FastestIsTheBestSupportedOne) {
  std::string supported;
  Utf8Kernel best = Utf8Kernel::scalar;
  for (const Utf8Kernel kernel : kUtf8Kernels) {
    if (!kernel_supported(kernel)) continue;
    supported += " " + std::string(kernel_name(kernel));
    best = kernel;
  }
  std::cout << "UTF-8 kernels this CPU runs:" << supported << "; json_string_units uses "
            << kernel_name(fastest_kernel()) << "\n";
  EXPECT_TRUE(kernel_supported(Utf8Kernel::scalar));
  EXPECT_EQ(fastest_kernel(), best);
}

}  // namespace
}  // namespace agent_session::fast
