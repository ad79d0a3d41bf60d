#include "internal/utf8.hpp"

#include <array>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace agent_session::internal {

// Bytes of the UTF-8 sequence that starts at text[i], or 0 when it is not
// a valid sequence (RFC 3629 table 3-7: the second byte's range depends on
// the first, which rules out overlong forms and surrogates).
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) noexcept {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (text.size() - i < length) return 0;
  if (byte(1) < low || byte(1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k) {
    if (byte(k) < 0x80 || byte(k) > 0xBF) return 0;
  }
  return length;
}


namespace {

// UTF-16 units JSON.stringify adds by escaping ASCII byte c, beyond the one
// the byte itself counts: `\"` `\\` `\b` `\f` `\n` `\r` `\t` add 1, the
// other controls (`\u00xx`) add 5.
constexpr std::array<std::uint8_t, 128> kEscapeExtraUnits = [] {
  std::array<std::uint8_t, 128> extra{};
  for (int c = 0; c < 0x20; ++c) extra[static_cast<std::size_t>(c)] = 5;
  for (const char c : {'"', '\\', '\b', '\f', '\n', '\r', '\t'}) extra[static_cast<unsigned char>(c)] = 1;
  return extra;
}();

// The plain way, one character at a time: the reference the vector path
// must agree with, and the path on machines without AVX2.
// True when none of the 8 bytes of `word` is non-ASCII, a control, `"` or
// `\` (the bit tricks of "Bit Twiddling Hacks": a byte below n sets its top
// bit in (x - n) & ~x; they may report a byte the lowest true hit borrows
// from, never miss one, and a false report only takes the slow path).
constexpr bool plain_ascii_word(std::uint64_t word) noexcept {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  const auto below = [](std::uint64_t x, std::uint64_t n) { return (x - kOnes * n) & ~x & kHigh; };
  return ((word & kHigh) | below(word, 0x20) | below(word ^ (kOnes * '"'), 1) | below(word ^ (kOnes * '\\'), 1)) == 0;
}

std::optional<std::uint64_t> json_string_units_scalar(std::string_view text) noexcept {
  std::uint64_t units = 2;  // the quotes
  std::size_t i = 0;
  while (i < text.size()) {
    if (std::uint64_t word = 0; i + 8 <= text.size() && (std::memcpy(&word, text.data() + i, 8), plain_ascii_word(word))) {
      units += 8;
      i += 8;
      continue;
    }
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      units += 1 + kEscapeExtraUnits[c];
      ++i;
      continue;
    }
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) return std::nullopt;
    units += length == 4 ? 2 : 1;
    i += length;
  }
  return units;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define AGENT_SESSION_HAS_AVX2_PATH 1
#define AGENT_SESSION_AVX2 __attribute__((target("avx2,popcnt,bmi")))

// UTF-8 validation 32 bytes at a time: the lookup algorithm of Keiser and
// Lemire, "Validating UTF-8 In Less Than One Instruction Per Byte" (2021),
// as simdjson and simdutf use it. Each byte is classified by three table
// lookups (the high nibble of the previous byte, its low nibble, the high
// nibble of this byte); the AND of the three is non-zero exactly for the
// invalid two-byte patterns, and a continuation byte is then checked
// against what the bytes two and three back require.
namespace utf8_lookup {
constexpr std::uint8_t kTooShort = 1 << 0;     // lead byte not followed by a continuation
constexpr std::uint8_t kTooLong = 1 << 1;      // ASCII followed by a continuation
constexpr std::uint8_t kOverlong3 = 1 << 2;    // E0 80..9F
constexpr std::uint8_t kTooLarge = 1 << 3;     // F4 90..BF, F5..FF
constexpr std::uint8_t kSurrogate = 1 << 4;    // ED A0..BF
constexpr std::uint8_t kOverlong2 = 1 << 5;    // C0, C1
constexpr std::uint8_t kTooLarge1000 = 1 << 6; // F5..FF 80..8F
constexpr std::uint8_t kOverlong4 = 1 << 6;    // F0 80..8F
constexpr std::uint8_t kTwoContinuations = 1 << 7;
constexpr std::uint8_t kCarry = kTooShort | kTooLong | kTwoContinuations;

AGENT_SESSION_AVX2 inline __m256i table(const std::array<std::uint8_t, 16>& t) {
  const __m128i half = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t.data()));
  return _mm256_broadcastsi128_si256(half);
}

constexpr std::array<std::uint8_t, 16> kFirstHigh = {
    kTooLong, kTooLong, kTooLong, kTooLong, kTooLong, kTooLong, kTooLong, kTooLong,  // 0_______
    kTwoContinuations, kTwoContinuations, kTwoContinuations, kTwoContinuations,      // 10______
    kTooShort | kOverlong2,                                                          // 1100____
    kTooShort,                                                                       // 1101____
    kTooShort | kOverlong3 | kSurrogate,                                             // 1110____
    kTooShort | kTooLarge | kTooLarge1000 | kOverlong4,                              // 1111____
};
constexpr std::array<std::uint8_t, 16> kFirstLow = {
    kCarry | kOverlong3 | kOverlong2 | kOverlong4,  // ____0000
    kCarry | kOverlong2,                            // ____0001
    kCarry,
    kCarry,
    kCarry | kTooLarge,                             // ____0100
    kCarry | kTooLarge | kTooLarge1000,             // ____0101
    kCarry | kTooLarge | kTooLarge1000,
    kCarry | kTooLarge | kTooLarge1000,
    kCarry | kTooLarge | kTooLarge1000,
    kCarry | kTooLarge | kTooLarge1000,
    kCarry | kTooLarge | kTooLarge1000,
    kCarry | kTooLarge | kTooLarge1000,
    kCarry | kTooLarge | kTooLarge1000,
    kCarry | kTooLarge | kTooLarge1000 | kSurrogate,  // ____1101
    kCarry | kTooLarge | kTooLarge1000,
    kCarry | kTooLarge | kTooLarge1000,
};
constexpr std::array<std::uint8_t, 16> kSecondHigh = {
    kTooShort, kTooShort, kTooShort, kTooShort, kTooShort, kTooShort, kTooShort, kTooShort,  // 0_______
    kTooLong | kOverlong2 | kTwoContinuations | kOverlong3 | kTooLarge1000 | kOverlong4,    // 1000____
    kTooLong | kOverlong2 | kTwoContinuations | kOverlong3 | kTooLarge,                     // 1001____
    kTooLong | kOverlong2 | kTwoContinuations | kSurrogate | kTooLarge,                     // 1010____
    kTooLong | kOverlong2 | kTwoContinuations | kSurrogate | kTooLarge,                     // 1011____
    kTooShort, kTooShort, kTooShort, kTooShort,                                             // 11______
};

// `input` shifted right by N bytes across the two 16-byte lanes, the gap
// filled from the end of `previous`.
template <int N>
AGENT_SESSION_AVX2 inline __m256i previous_bytes(__m256i input, __m256i previous) {
  return _mm256_alignr_epi8(input, _mm256_permute2x128_si256(previous, input, 0x21), 16 - N);
}

AGENT_SESSION_AVX2 inline __m256i high_nibbles(__m256i bytes) {
  return _mm256_and_si256(_mm256_srli_epi16(bytes, 4), _mm256_set1_epi8(0x0F));
}

// Non-zero bytes where `input` (after `previous`) is not valid UTF-8.
AGENT_SESSION_AVX2 inline __m256i errors(__m256i input, __m256i previous) {
  const __m256i prev1 = previous_bytes<1>(input, previous);
  const __m256i special_cases = _mm256_and_si256(
      _mm256_and_si256(_mm256_shuffle_epi8(table(kFirstHigh), high_nibbles(prev1)),
                       _mm256_shuffle_epi8(table(kFirstLow), _mm256_and_si256(prev1, _mm256_set1_epi8(0x0F)))),
      _mm256_shuffle_epi8(table(kSecondHigh), high_nibbles(input)));
  // A byte must be a continuation when the byte two back is a 3- or 4-byte
  // lead or the byte three back a 4-byte lead: bit 7 says so.
  const __m256i third = _mm256_subs_epu8(previous_bytes<2>(input, previous), _mm256_set1_epi8(static_cast<char>(0xE0 - 0x80)));
  const __m256i fourth = _mm256_subs_epu8(previous_bytes<3>(input, previous), _mm256_set1_epi8(static_cast<char>(0xF0 - 0x80)));
  const __m256i must_continue = _mm256_and_si256(_mm256_or_si256(third, fourth), _mm256_set1_epi8(static_cast<char>(0x80)));
  return _mm256_xor_si256(must_continue, special_cases);
}

// Non-zero when the block ends inside a sequence (a lead byte in the last
// three positions that needs more bytes than remain).
AGENT_SESSION_AVX2 inline __m256i incomplete_end(__m256i input) {
  alignas(32) static constexpr std::uint8_t kMax[32] = {
      255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
      255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 0xF0 - 1, 0xE0 - 1, 0xC0 - 1};
  return _mm256_subs_epu8(input, _mm256_load_si256(reinterpret_cast<const __m256i*>(kMax)));
}
}  // namespace utf8_lookup

// Units of the 32-byte block `input`, of which the first bytes covered by
// `valid` (a bit per byte) belong to the string; validity goes to `error`.
// One bit per byte: its top bit.
AGENT_SESSION_AVX2 inline std::uint32_t mask(__m256i bytes) {
  return static_cast<std::uint32_t>(_mm256_movemask_epi8(bytes));
}

AGENT_SESSION_AVX2 inline std::uint64_t block_units(__m256i input, __m256i& previous, __m256i& previous_incomplete,
                                                   __m256i& error, std::uint32_t valid, const unsigned char* bytes) {
  std::uint64_t units = 0;
  if (mask(input) == 0) {
    // All ASCII: every byte is one unit; only a pending lead can be wrong.
    error = _mm256_or_si256(error, previous_incomplete);
    units = static_cast<std::uint64_t>(_mm_popcnt_u32(valid));
  } else {
    error = _mm256_or_si256(error, utf8_lookup::errors(input, previous));
    previous_incomplete = utf8_lookup::incomplete_end(input);
    // A continuation byte (10______) adds no unit; a 4-byte lead adds a
    // second one (the surrogate pair).
    const std::uint32_t continuation = mask(_mm256_cmpgt_epi8(_mm256_set1_epi8(-64), input));
    const std::uint32_t four_byte_lead =
        mask(_mm256_cmpeq_epi8(_mm256_max_epu8(input, _mm256_set1_epi8(static_cast<char>(0xF0))), input));
    units = static_cast<std::uint64_t>(_mm_popcnt_u32(valid & ~continuation)) +
            static_cast<std::uint64_t>(_mm_popcnt_u32(valid & four_byte_lead));
  }
  previous = input;
  const __m256i control = _mm256_cmpeq_epi8(_mm256_max_epu8(input, _mm256_set1_epi8(0x1F)), _mm256_set1_epi8(0x1F));
  const __m256i quote_or_backslash =
      _mm256_or_si256(_mm256_cmpeq_epi8(input, _mm256_set1_epi8('"')), _mm256_cmpeq_epi8(input, _mm256_set1_epi8('\\')));
  for (std::uint32_t escapes = valid & mask(_mm256_or_si256(control, quote_or_backslash)); escapes != 0;
       escapes &= escapes - 1) {
    units += kEscapeExtraUnits[bytes[_tzcnt_u32(escapes)]];
  }
  return units;
}

AGENT_SESSION_AVX2 std::optional<std::uint64_t> json_string_units_avx2(std::string_view text) noexcept {
  const auto* data = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t size = text.size();
  __m256i previous = _mm256_setzero_si256();
  __m256i previous_incomplete = _mm256_setzero_si256();
  __m256i error = _mm256_setzero_si256();
  std::uint64_t units = 2;  // the quotes
  std::size_t i = 0;
  for (; i + 32 <= size; i += 32) {
    const __m256i input = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(data + i));
    units += block_units(input, previous, previous_incomplete, error, 0xFFFFFFFFu, data + i);
  }
  if (i < size) {
    // The tail, padded with zero bytes: ASCII, so they end any sequence
    // (a truncated one is then an error) and `valid` leaves them uncounted.
    alignas(32) unsigned char tail[32] = {};
    std::memcpy(tail, data + i, size - i);
    const __m256i input = _mm256_load_si256(reinterpret_cast<const __m256i*>(tail));
    units += block_units(input, previous, previous_incomplete, error, (1u << (size - i)) - 1, tail);
  }
  error = _mm256_or_si256(error, previous_incomplete);
  if (!_mm256_testz_si256(error, error)) return std::nullopt;
  return units;
}

const bool kHasAvx2 = [] {
  __builtin_cpu_init();  // may run before libgcc's own initializer
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("bmi");
}();
#endif

}  // namespace

std::optional<std::uint64_t> json_string_units(std::string_view text) noexcept {
#ifdef AGENT_SESSION_HAS_AVX2_PATH
  // Short strings (ids, keys, names) are cheaper a word at a time.
  if (kHasAvx2 && text.size() >= 32) return json_string_units_avx2(text);
#endif
  return json_string_units_scalar(text);
}

std::optional<std::uint64_t> json_string_units_plain(std::string_view text) noexcept {
  return json_string_units_scalar(text);
}


std::uint64_t utf16_length(std::string_view text) noexcept {
  // Every byte but a continuation byte starts a character; a 4-byte lead
  // starts one outside the BMP, which JavaScript stores as a surrogate pair.
  std::uint64_t units = 0;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    units += static_cast<unsigned>((c & 0xC0) != 0x80) + static_cast<unsigned>(c >= 0xF0);
  }
  return units;
}

std::size_t valid_utf8_prefix(std::string_view text) noexcept {
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) break;
    i += length;
  }
  return i;
}


}  // namespace agent_session::internal
