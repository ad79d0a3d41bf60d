// The AVX-512 kernel: 64 bytes at a time.
#include "fast/utf8_avx512.hpp"

#ifdef AGENT_SESSION_HAS_X86_KERNELS
#include "fast/utf8_x86.hpp"

#include <cstring>

namespace agent_session::fast {

// The AVX2 kernel's algorithm on 64-byte blocks, with what AVX-512 adds:
// masked loads (the tail and short strings need no copy: masked-off bytes
// read as zero and never fault), VPERMB's 64-entry lookups (no nibble
// masking; one lookup gives every byte its UTF-16 units), compares into
// 64-bit masks for escapes and short strings. Long strings keep validity
// and units in vector registers and reduce them once at the end, since
// moving masks to general registers is slow (bench/RESULTS.md).
namespace avx512 {
namespace lookup = utf8_lookup;

// (The maskz_ forms of the intrinsics below, with every lane on, avoid a
// -Wmaybe-uninitialized false positive of the plain forms.)
constexpr __mmask8 kAllQwords = 0xFF;

// Every byte `kByte`, broadcast from memory by an instruction the compiler
// cannot replace with a build from a general register at every use, which
// costs more than a load (bench/RESULTS.md).
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
  const __m512i third =
      _mm512_subs_epu8(previous_bytes<2>(input, previous), splat<static_cast<char>(lookup::kThirdByteBias)>());
  const __m512i fourth =
      _mm512_subs_epu8(previous_bytes<3>(input, previous), splat<static_cast<char>(lookup::kFourthByteBias)>());
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
      255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,      255,      255,
      255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,      255,      255,
      255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,      255,      255,
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
// and their moves to general registers are the slow part).
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

}  // namespace agent_session::fast
#endif  // AGENT_SESSION_HAS_X86_KERNELS
