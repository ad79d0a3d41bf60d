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

// ---- Scalar: 8 bytes at a time ------------------------------------------

// The kernels return json_string_units_or_zero's answers: 0 for invalid
// UTF-8 (a literal has at least its two quotes).
constexpr std::uint64_t kInvalid = 0;

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

// The portable kernel. Plain ASCII words (the bulk of most text) cost one
// test per 8 bytes; anything else goes one character at a time.
std::uint64_t json_string_units_scalar(std::string_view text) noexcept {
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
    if (length == 0) return kInvalid;
    units += length == 4 ? 2 : 1;
    i += length;
  }
  return units;
}

// Every byte but a continuation byte (10______) starts a character; a
// 4-byte lead (11110___) starts one outside the BMP, which JavaScript
// stores as a surrogate pair. (Compilers vectorize this loop for the
// baseline instruction set.)
std::uint64_t utf16_length_scalar(std::string_view text) noexcept {
  std::uint64_t units = 0;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    units += static_cast<unsigned>((c & 0xC0) != 0x80) + static_cast<unsigned>(c >= 0xF0);
  }
  return units;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define AGENT_SESSION_HAS_X86_KERNELS 1
// Function-level targets: the library is built for the baseline x86-64
// and picks a kernel at run time, so it still runs on older CPUs.
#define AGENT_SESSION_AVX2 __attribute__((target("avx2,popcnt,bmi")))
#define AGENT_SESSION_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,avx2,popcnt,bmi,bmi2")))

// UTF-8 validation a block at a time: the lookup algorithm of Keiser and
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

// A byte must be a continuation when the byte two back is a 3- or 4-byte
// lead or the byte three back a 4-byte lead: unsigned saturating
// subtraction leaves bit 7 set exactly then.
constexpr std::uint8_t kThirdByteBias = 0xE0 - 0x80;
constexpr std::uint8_t kFourthByteBias = 0xF0 - 0x80;
}  // namespace utf8_lookup

// ---- AVX2: 32 bytes at a time -------------------------------------------

namespace avx2 {
namespace lookup = utf8_lookup;

AGENT_SESSION_AVX2 inline __m256i table(const std::array<std::uint8_t, 16>& t) {
  const __m128i half = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t.data()));
  return _mm256_broadcastsi128_si256(half);
}

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
      _mm256_and_si256(_mm256_shuffle_epi8(table(lookup::kFirstHigh), high_nibbles(prev1)),
                       _mm256_shuffle_epi8(table(lookup::kFirstLow), _mm256_and_si256(prev1, _mm256_set1_epi8(0x0F)))),
      _mm256_shuffle_epi8(table(lookup::kSecondHigh), high_nibbles(input)));
  const __m256i third = _mm256_subs_epu8(previous_bytes<2>(input, previous), _mm256_set1_epi8(lookup::kThirdByteBias));
  const __m256i fourth = _mm256_subs_epu8(previous_bytes<3>(input, previous), _mm256_set1_epi8(lookup::kFourthByteBias));
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

// One bit per byte: its top bit.
AGENT_SESSION_AVX2 inline std::uint32_t mask(__m256i bytes) {
  return static_cast<std::uint32_t>(_mm256_movemask_epi8(bytes));
}

// Continuation bytes (10______) and 4-byte leads (11110___), a bit each.
AGENT_SESSION_AVX2 inline std::uint32_t continuations(__m256i input) {
  return mask(_mm256_cmpgt_epi8(_mm256_set1_epi8(-64), input));
}
AGENT_SESSION_AVX2 inline std::uint32_t four_byte_leads(__m256i input) {
  return mask(_mm256_cmpeq_epi8(_mm256_max_epu8(input, _mm256_set1_epi8(static_cast<char>(0xF0))), input));
}

// Units of the 32-byte block `input`, of which the first bytes covered by
// `valid` (a bit per byte) belong to the string; validity goes to `error`.
AGENT_SESSION_AVX2 inline std::uint64_t block_units(__m256i input, __m256i& previous, __m256i& previous_incomplete,
                                                   __m256i& error, std::uint32_t valid, const unsigned char* bytes) {
  std::uint64_t units = 0;
  const std::uint32_t non_ascii = mask(input);
  if (non_ascii == 0) {
    // All ASCII: every byte is one unit; only a pending lead can be wrong.
    error = _mm256_or_si256(error, previous_incomplete);
    units = static_cast<std::uint64_t>(_mm_popcnt_u32(valid));
  } else {
    error = _mm256_or_si256(error, errors(input, previous));
    previous_incomplete = incomplete_end(input);
    // A continuation byte adds no unit; a 4-byte lead adds a second one.
    units = static_cast<std::uint64_t>(_mm_popcnt_u32(valid & ~continuations(input))) +
            static_cast<std::uint64_t>(_mm_popcnt_u32(valid & four_byte_leads(input)));
  }
  previous = input;
  // Escapes are ASCII: a block of only non-ASCII text (CJK, emoji) has none.
  if ((valid & ~non_ascii) == 0) return units;
  // Controls and `"` (0x22) in one compare: x ^ 2 maps 0x00..0x1F onto
  // itself and 0x22 to 0x20, everything else above 0x20.
  const __m256i control_or_quote = _mm256_xor_si256(input, _mm256_set1_epi8(2));
  const __m256i escape = _mm256_or_si256(
      _mm256_cmpeq_epi8(_mm256_max_epu8(control_or_quote, _mm256_set1_epi8(0x20)), _mm256_set1_epi8(0x20)),
      _mm256_cmpeq_epi8(input, _mm256_set1_epi8('\\')));
  for (std::uint32_t escapes = valid & mask(escape); escapes != 0; escapes &= escapes - 1) {
    units += kEscapeExtraUnits[bytes[_tzcnt_u32(escapes)]];
  }
  return units;
}

AGENT_SESSION_AVX2 std::uint64_t json_string_units(std::string_view text) noexcept {
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
  if (!_mm256_testz_si256(error, error)) return kInvalid;
  return units;
}

AGENT_SESSION_AVX2 std::uint64_t utf16_length(std::string_view text) noexcept {
  const auto* data = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t size = text.size();
  std::uint64_t units = size;
  std::size_t i = 0;
  for (; i + 32 <= size; i += 32) {
    const __m256i input = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(data + i));
    units += static_cast<std::uint64_t>(_mm_popcnt_u32(four_byte_leads(input)));
    units -= static_cast<std::uint64_t>(_mm_popcnt_u32(continuations(input)));
  }
  return units - (size - i) + utf16_length_scalar(text.substr(i));
}
}  // namespace avx2

// ---- AVX-512: 64 bytes at a time ----------------------------------------

// The AVX2 kernel's algorithm on 64-byte blocks, with what AVX-512 adds:
// masked loads (the tail and short strings need no copy: masked-off bytes
// read as zero and never fault), VPERMB's 64-entry lookups (no nibble
// masking; one lookup gives every byte its UTF-16 units), compares into
// 64-bit masks for escapes and short strings. Tuned on Zen 4, where moving
// masks to general registers is slow: long strings keep validity and units
// in vector registers and reduce them once at the end.
namespace avx512 {
namespace lookup = utf8_lookup;

// (The maskz_ forms of the intrinsics below, with every lane on, dodge
// g++ 12's -Wmaybe-uninitialized false positive in the plain forms.)
constexpr __mmask8 kAllQwords = 0xFF;

// Every byte `kByte`, broadcast from memory by an instruction the compiler
// cannot replace: left to itself, g++ 12 builds each such constant from a
// general register (two micro-ops, then a transfer) at every use inside
// the loop, or at every call when hoisted, which costs more than a load.
template <char kByte>
AGENT_SESSION_AVX512 inline __m512i splat() {
  alignas(4) static constexpr char kBytes[4] = {kByte, kByte, kByte, kByte};
  __m512i v;
  __asm__("vpbroadcastd %1, %0" : "=v"(v) : "m"(kBytes));
  return v;
}

// `input` shifted right by N bytes across its four 16-byte lanes, the gap
// filled from the end of `previous`: VALIGNQ builds the lanes one back
// (previous's last, input's first three), VPALIGNR takes N bytes of them.
template <int N>
AGENT_SESSION_AVX512 inline __m512i previous_bytes(__m512i input, __m512i previous) {
  return _mm512_alignr_epi8(input, _mm512_maskz_alignr_epi64(kAllQwords, input, previous, 6), 16 - N);
}

// Continuation bytes (10______, below 0xC0 as signed bytes) and 4-byte
// leads (11110___, at least 0xF0), a bit each.
AGENT_SESSION_AVX512 inline std::uint64_t continuations(__m512i input) {
  return _mm512_cmplt_epi8_mask(input, splat<-64>());
}
AGENT_SESSION_AVX512 inline std::uint64_t four_byte_leads(__m512i input) {
  return _mm512_cmpge_epu8_mask(input, splat<static_cast<char>(0xF0)>());
}

// UTF-16 units of valid UTF-8 `input` beyond one per byte (mod 2^64).
AGENT_SESSION_AVX512 inline std::uint64_t extra_units(__m512i input) {
  return static_cast<std::uint64_t>(_mm_popcnt_u64(four_byte_leads(input))) -
         static_cast<std::uint64_t>(_mm_popcnt_u64(continuations(input)));
}

// Extra UTF-16 units of the escapes among the bytes of `input` in `valid`
// (beyond one per byte): one for `\"` `\\` `\b` `\t` `\n` `\f` `\r`, five
// for the other controls (`\u00xx`). Most blocks have none, which two
// compares tell without moving a mask out of the mask registers.
AGENT_SESSION_AVX512 inline std::uint64_t escape_units(__m512i input, __mmask64 valid) {
  // Controls and `"` (0x22) in one compare: x ^ 2 maps 0x00..0x1F onto
  // itself and 0x22 to 0x20, everything else above 0x20.
  const __mmask64 control_or_quote =
      _mm512_mask_cmple_epu8_mask(valid, _mm512_xor_si512(input, splat<2>()), splat<0x20>());
  const __mmask64 backslash = _mm512_cmpeq_epi8_mask(input, splat<'\\'>());
  if (_kortestz_mask64_u8(control_or_quote, backslash)) return 0;  // the common case, tested in mask registers
  const std::uint64_t control = _mm512_mask_cmplt_epu8_mask(valid, input, _mm512_set1_epi8(0x20));
  // \b \t \n \f \r are 8..13 but for 11 (\v, a \u000b).
  const std::uint64_t short_control =
      _mm512_mask_cmplt_epu8_mask(control, _mm512_sub_epi8(input, _mm512_set1_epi8(8)), _mm512_set1_epi8(6)) &
      ~_mm512_cmpeq_epi8_mask(input, _mm512_set1_epi8(11));
  return static_cast<std::uint64_t>(_mm_popcnt_u64((control_or_quote & ~control) | backslash)) +
         static_cast<std::uint64_t>(_mm_popcnt_u64(short_control)) +
         5 * static_cast<std::uint64_t>(_mm_popcnt_u64(control & ~short_control));
}

// The three lookups of the validation as 64-entry VPERMB tables, which
// index with the low 6 bits of each byte and ignore the top two: a byte's
// high nibble is then looked up from the word shifted right by 2 (the bits
// of the next byte that slide in land in the ignored two), its low nibble
// from the byte itself, without the AVX2 kernel's masking.
template <bool kHighNibble>
constexpr std::array<std::uint8_t, 64> widened(const std::array<std::uint8_t, 16>& table) {
  std::array<std::uint8_t, 64> wide{};
  for (std::size_t j = 0; j < wide.size(); ++j) wide[j] = table[kHighNibble ? j >> 2 : j & 15];
  return wide;
}
constexpr auto kFirstHigh64 = widened<true>(lookup::kFirstHigh);
constexpr auto kFirstLow64 = widened<false>(lookup::kFirstLow);
constexpr auto kSecondHigh64 = widened<true>(lookup::kSecondHigh);

AGENT_SESSION_AVX512 inline __m512i lookup64(const std::array<std::uint8_t, 64>& table, __m512i index) {
  __m512i t = _mm512_loadu_si512(table.data());
  __asm__("" : "+v"(t));  // loaded once, kept in a register (see splat)
  return _mm512_maskz_permutexvar_epi8(~std::uint64_t{0}, index, t);
}

// UTF-16 units a byte starts, by its top six bits (VPERMB index): one for
// ASCII, none for a continuation (10______), one for a 2- or 3-byte lead,
// two (a surrogate pair) for a 4-byte lead (F5..FF are invalid anyway).
constexpr std::array<std::uint8_t, 64> kUnits64 = [] {
  std::array<std::uint8_t, 64> units{};
  for (std::size_t j = 0; j < units.size(); ++j) units[j] = j < 32 ? 1 : j < 48 ? 0 : j < 60 ? 1 : 2;
  return units;
}();

// Non-zero bytes where the non-ASCII block `input` (after `previous`) is
// not valid UTF-8: the AVX2 kernel's checks, with VPERMB lookups.
AGENT_SESSION_AVX512 inline __m512i errors(__m512i input, __m512i previous, __m512i input_top6) {
  const __m512i prev1 = previous_bytes<1>(input, previous);
  const __m512i first_high = lookup64(kFirstHigh64, _mm512_srli_epi16(prev1, 2));
  const __m512i first_low = lookup64(kFirstLow64, prev1);
  const __m512i second_high = lookup64(kSecondHigh64, input_top6);
  const __m512i third = _mm512_subs_epu8(previous_bytes<2>(input, previous), splat<static_cast<char>(lookup::kThirdByteBias)>());
  const __m512i fourth = _mm512_subs_epu8(previous_bytes<3>(input, previous), splat<static_cast<char>(lookup::kFourthByteBias)>());
  // must_continue = (third | fourth) & 0x80 (truth table 0xA8 of (a | b) & c).
  const __m512i must_continue = _mm512_ternarylogic_epi32(third, fourth, splat<static_cast<char>(0x80)>(), 0xA8);
  // must_continue ^ (first_high & first_low & second_high): 0x78 is the
  // truth table of a ^ (b & c).
  return _mm512_ternarylogic_epi32(must_continue, _mm512_and_si512(first_high, first_low), second_high, 0x78);
}

// Non-zero when the block ends inside a sequence (a lead byte in the last
// three positions that needs more bytes than remain).
AGENT_SESSION_AVX512 inline __m512i incomplete_end(__m512i input) {
  alignas(64) static constexpr std::uint8_t kMax[64] = {
      255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
      255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
      255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
      255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 0xF0 - 1, 0xE0 - 1, 0xC0 - 1};
  return _mm512_subs_epu8(input, _mm512_load_si512(kMax));
}

// The sum of the eight 64-bit lanes of `v`.
AGENT_SESSION_AVX512 inline std::uint64_t sum(__m512i v) {
  const __m256i four = _mm256_add_epi64(_mm512_maskz_extracti64x4_epi64(kAllQwords, v, 0),
                                        _mm512_maskz_extracti64x4_epi64(kAllQwords, v, 1));
  const __m128i two = _mm_add_epi64(_mm256_castsi256_si128(four), _mm256_extracti128_si256(four, 1));
  return static_cast<std::uint64_t>(_mm_cvtsi128_si64(two)) + static_cast<std::uint64_t>(_mm_extract_epi64(two, 1));
}

// State carried from block to block of a string. Validity and the units
// of non-ASCII blocks stay in vector registers (the compares into masks
// and their moves to general registers are what Zen 4 runs slowest).
struct Blocks {
  __m512i previous;             // the last block
  __m512i previous_incomplete;  // non-zero: it ends inside a sequence
  __m512i error;                // non-zero: invalid
  __m512i vector_units;         // UTF-16 units of non-ASCII blocks, in eight sums
  std::uint64_t units = 0;      // those of ASCII blocks, and escapes' extra ones

  AGENT_SESSION_AVX512 Blocks()
      : previous(_mm512_setzero_si512()),
        previous_incomplete(_mm512_setzero_si512()),
        error(_mm512_setzero_si512()),
        vector_units(_mm512_setzero_si512()) {}

  // Takes the next 64 bytes, of which those in `valid` belong to the string
  // (the others are zero: ASCII, so they end any sequence, which makes a
  // truncated one an error, and count nothing).
  AGENT_SESSION_AVX512 void add(__m512i input, std::uint64_t valid) {
    const std::uint64_t non_ascii = _mm512_movepi8_mask(input);
    if (non_ascii == 0) {
      // One unit a byte; only a sequence left open by the last block can
      // be wrong.
      error = _mm512_or_si512(error, previous_incomplete);
      previous_incomplete = _mm512_setzero_si512();
      units += static_cast<std::uint64_t>(_mm_popcnt_u64(valid));
    } else {
      const __m512i top6 = _mm512_srli_epi16(input, 2);
      error = _mm512_or_si512(error, errors(input, previous, top6));
      previous_incomplete = incomplete_end(input);
      const __m512i byte_units = _mm512_maskz_permutexvar_epi8(valid, top6, _mm512_loadu_si512(kUnits64.data()));
      vector_units = _mm512_add_epi64(vector_units, _mm512_sad_epu8(byte_units, _mm512_setzero_si512()));
    }
    // Escapes are ASCII: a block of only non-ASCII text (CJK, emoji) has none.
    if ((~non_ascii & valid) != 0) units += escape_units(input, valid);
    previous = input;
  }

  // Units of the whole string, quotes included, or nullopt when invalid.
  AGENT_SESSION_AVX512 std::uint64_t finish() {
    error = _mm512_or_si512(error, previous_incomplete);
    if (_mm512_test_epi8_mask(error, error) != 0) return kInvalid;
    return 2 + units + sum(vector_units);
  }
};

// The first `count` (at most 64) bytes at `data`, the rest zero, reading
// nothing past them.
AGENT_SESSION_AVX512 inline __m512i load_prefix(const char* data, std::size_t count, std::uint64_t& valid) {
  valid = _bzhi_u64(~std::uint64_t{0}, static_cast<unsigned>(count));
  return _mm512_maskz_loadu_epi8(valid, data);
}

// A string of at most 64 bytes (ids, keys, names): one masked load, no
// copy, and counts from masks, without the long strings' vector sums.
AGENT_SESSION_AVX512 inline std::uint64_t short_json_string_units(const char* data, std::size_t size) {
  std::uint64_t valid = 0;
  const __m512i input = load_prefix(data, size, valid);
  std::uint64_t units = 2 + size + escape_units(input, valid);
  if (_mm512_movepi8_mask(input) != 0) {
    // The zero padding ends any sequence, so a truncated one is an error;
    // incomplete_end matters only when all 64 bytes are the string's.
    const __m512i error =
        _mm512_or_si512(errors(input, _mm512_setzero_si512(), _mm512_srli_epi16(input, 2)), incomplete_end(input));
    if (_mm512_test_epi8_mask(error, error) != 0) return kInvalid;
    units += extra_units(input);
  }
  return units;
}

AGENT_SESSION_AVX512 std::uint64_t json_string_units(std::string_view text) noexcept {
  const char* data = text.data();
  const std::size_t size = text.size();
  if (size <= 64) return short_json_string_units(data, size);
  Blocks blocks;
  std::size_t i = 0;
  for (; i + 64 <= size; i += 64) blocks.add(_mm512_loadu_si512(data + i), ~std::uint64_t{0});
  if (i < size) {
    // The tail: one masked load, no copy.
    std::uint64_t valid = 0;
    const __m512i input = load_prefix(data + i, size - i, valid);
    blocks.add(input, valid);
  }
  return blocks.finish();
}

AGENT_SESSION_AVX512 std::uint64_t utf16_length(std::string_view text) noexcept {
  const char* data = text.data();
  const std::size_t size = text.size();
  std::uint64_t units = size;
  std::size_t i = 0;
  for (; i + 64 <= size; i += 64) units += extra_units(_mm512_loadu_si512(data + i));
  if (i < size) {
    std::uint64_t valid = 0;
    units += extra_units(load_prefix(data + i, size - i, valid));  // zero bytes count nothing
  }
  return units;
}
}  // namespace avx512

bool cpu_runs(Utf8Kernel kernel) noexcept {
  __builtin_cpu_init();  // may run before libgcc's own initializer
  switch (kernel) {
    case Utf8Kernel::scalar: return true;
    case Utf8Kernel::avx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("bmi");
    case Utf8Kernel::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi") &&
             __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("bmi") &&
             __builtin_cpu_supports("bmi2");
  }
  return false;
}
#else
bool cpu_runs(Utf8Kernel kernel) noexcept { return kernel == Utf8Kernel::scalar; }
#endif

// Asked once. Both are zero-initialized (scalar only) until their dynamic
// initializers run, so a call from another file's static initializer is
// still safe.
const bool kRunsAvx2 = cpu_runs(Utf8Kernel::avx2);
const bool kRunsAvx512 = cpu_runs(Utf8Kernel::avx512);
const Utf8Kernel kFastest = kRunsAvx512 ? Utf8Kernel::avx512 : kRunsAvx2 ? Utf8Kernel::avx2 : Utf8Kernel::scalar;

[[maybe_unused]] bool runs(Utf8Kernel kernel) noexcept {
  return kernel == Utf8Kernel::avx512 ? kRunsAvx512 : kernel == Utf8Kernel::avx2 ? kRunsAvx2 : true;
}

}  // namespace

std::string_view kernel_name(Utf8Kernel kernel) noexcept {
  switch (kernel) {
    case Utf8Kernel::scalar: return "scalar";
    case Utf8Kernel::avx2: return "avx2";
    case Utf8Kernel::avx512: return "avx512";
  }
  return "unknown";
}

bool kernel_supported(Utf8Kernel kernel) noexcept { return cpu_runs(kernel); }

Utf8Kernel fastest_kernel() noexcept { return kFastest; }

std::optional<std::uint64_t> json_string_units_with(Utf8Kernel kernel, std::string_view text) noexcept {
  const auto run = [&] {
#ifdef AGENT_SESSION_HAS_X86_KERNELS
    if (kernel == Utf8Kernel::avx512 && runs(kernel)) return avx512::json_string_units(text);
    if (kernel == Utf8Kernel::avx2 && runs(kernel)) return avx2::json_string_units(text);
#endif
    return json_string_units_scalar(text);
  };
  static_cast<void>(kernel);
  const std::uint64_t units = run();
  if (units == kInvalid) return std::nullopt;
  return units;
}

std::uint64_t utf16_length_with(Utf8Kernel kernel, std::string_view text) noexcept {
#ifdef AGENT_SESSION_HAS_X86_KERNELS
  if (kernel == Utf8Kernel::avx512 && runs(kernel)) return avx512::utf16_length(text);
  if (kernel == Utf8Kernel::avx2 && runs(kernel)) return avx2::utf16_length(text);
#endif
  static_cast<void>(kernel);
  return utf16_length_scalar(text);
}

std::uint64_t json_string_units_or_zero(std::string_view text) noexcept {
#ifdef AGENT_SESSION_HAS_X86_KERNELS
  if (kFastest == Utf8Kernel::avx512) return avx512::json_string_units(text);
  // Short strings (ids, keys, names) are cheaper a word at a time than
  // copied into a padded block.
  if (kFastest == Utf8Kernel::avx2 && text.size() >= 32) return avx2::json_string_units(text);
#endif
  return json_string_units_scalar(text);
}

std::uint64_t utf16_length(std::string_view text) noexcept {
#ifdef AGENT_SESSION_HAS_X86_KERNELS
  if (kFastest == Utf8Kernel::avx512) return avx512::utf16_length(text);
  if (kFastest == Utf8Kernel::avx2) return avx2::utf16_length(text);
#endif
  return utf16_length_scalar(text);
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
