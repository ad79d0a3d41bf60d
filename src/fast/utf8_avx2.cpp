// The AVX2 kernel: 32 bytes at a time.
#include "fast/utf8_avx2.hpp"
#include "fast/utf8_swar.hpp"

#ifdef AGENT_SESSION_HAS_X86_KERNELS
#include "fast/utf8_x86.hpp"

#include <cstring>

namespace agent_session::fast {

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
  const __m256i fourth =
      _mm256_subs_epu8(previous_bytes<3>(input, previous), _mm256_set1_epi8(lookup::kFourthByteBias));
  const __m256i must_continue =
      _mm256_and_si256(_mm256_or_si256(third, fourth), _mm256_set1_epi8(static_cast<char>(0x80)));
  return _mm256_xor_si256(must_continue, special_cases);
}

// Non-zero when the block ends inside a sequence (a lead byte in the last
// three positions that needs more bytes than remain).
AGENT_SESSION_AVX2 inline __m256i incomplete_end(__m256i input) {
  alignas(32) static constexpr std::uint8_t kMax[32] = {
      255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,      255,      255,
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
  return units - (size - i) + swar::utf16_length(text.substr(i));
}
}  // namespace avx2

}  // namespace agent_session::fast
#endif  // AGENT_SESSION_HAS_X86_KERNELS
