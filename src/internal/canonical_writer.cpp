#include "internal/canonical_writer.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace agent_session::internal {
namespace {

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

bool needs_escape(unsigned char c) noexcept { return c < 0x20 || c == '"' || c == '\\'; }

template <class Sink>
void write_escape(Sink& sink, unsigned char c) {
  switch (c) {
    case '"': sink.ascii("\\\""); return;
    case '\\': sink.ascii("\\\\"); return;
    case '\b': sink.ascii("\\b"); return;
    case '\f': sink.ascii("\\f"); return;
    case '\n': sink.ascii("\\n"); return;
    case '\r': sink.ascii("\\r"); return;
    case '\t': sink.ascii("\\t"); return;
    default: {
      static constexpr char kHex[] = "0123456789abcdef";
      const char escape[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
      sink.ascii(std::string_view(escape, sizeof escape));
    }
  }
}

// JSON.stringify's string escaping: `"`, `\` and U+0000..U+001F only;
// everything else, U+2028/U+2029 included, stays raw UTF-8.
template <class Sink>
void write_string(Sink& sink, std::string_view text) {
  if constexpr (std::is_same_v<Sink, Utf16CountSink>) {
    // The estimator's hot path: count without walking the printing code.
    const std::optional<std::uint64_t> units = json_string_units(text);
    if (!units) throw SerializationError("string is not valid UTF-8");
    sink.units += *units;
    return;
  }
  sink.ascii('"');
  std::size_t run = 0;  // start of the pending run of raw bytes
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const std::size_t length = utf8_sequence_length(text, i);
      if (length == 0) throw SerializationError("string is not valid UTF-8");
      i += length;
    } else if (needs_escape(c)) {
      sink.utf8(text.substr(run, i - run));
      write_escape(sink, c);
      run = ++i;
    } else {
      ++i;
    }
  }
  sink.utf8(text.substr(run));
  sink.ascii('"');
}

// Decimal digits of an integral value 1 <= value < 1e21. Powers of ten up
// to 1e21 are exact doubles, so every comparison is exact.
int integer_digits(double value) noexcept {
  int digits = 1;
  for (double power = 10; digits < 21 && value >= power; power *= 10) ++digits;
  return digits;
}

// The length Number::toString prints for a short decimal, found without
// generating digits, or 0 when `magnitude` is not one. A short decimal is a
// non-integral 1e-6 <= magnitude < 1e15 that equals m / 10^k for integers
// m < 10^15 and k <= 8: then m·10^-k is its shortest round-trip form (two
// different decimals of at most 15 significant digits never round to the
// same double, DBL_DIG), so it prints as m's digits with a decimal point.
// The check is exact: m and 10^k are exact doubles and IEEE division
// rounds m / 10^k correctly, exactly as parsing "m e-k" would.
int short_decimal_length(double magnitude) noexcept {
  static constexpr double kPowers[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
  if (!(magnitude >= 1e-6 && magnitude < 1e15)) return 0;
  for (int k = 1; k <= 8; ++k) {
    const double scaled = magnitude * kPowers[k];
    if (scaled >= 1e15) return 0;
    const double m = std::nearbyint(scaled);
    if (m / kPowers[k] != magnitude) continue;
    // digits(m) with the point k from the right: "ddd.ddd" or "0.000ddd".
    const int digits = integer_digits(m);
    return digits > k ? digits + 1 : 2 + k;
  }
  return 0;
}

template <class Sink>
void write_number(Sink& sink, double value) {
  if (!std::isfinite(value)) throw SerializationError("number is not finite");
  if constexpr (std::is_same_v<Sink, Utf16CountSink>) {
    // An integral value below 1e21 prints as its integer digits, sign
    // first (Number::toString pads the shortest digits with zeros up to
    // the decimal point), so its length needs no digit generation.
    const double magnitude = std::fabs(value);
    const std::uint64_t sign = value < 0 ? 1 : 0;
    if (magnitude < 1e21 && magnitude == std::trunc(magnitude)) {
      sink.units += value == 0 ? 1 : static_cast<std::uint64_t>(integer_digits(magnitude)) + sign;
      return;
    }
    if (const int length = short_decimal_length(magnitude); length > 0) {
      sink.units += static_cast<std::uint64_t>(length) + sign;
      return;
    }
  }
  char buffer[32];
  sink.ascii(format_js_number(value, buffer));
}

template <class Sink>
void write_value(Sink& sink, const Json& value, int depth);

template <class Sink>
void write_member(Sink& sink, bool& first, const std::string& key, const Json& value, int depth) {
  if (!first) sink.ascii(',');
  first = false;
  write_string(sink, key);
  sink.ascii(':');
  write_value(sink, value, depth + 1);
}

// JavaScript's property order: array-index keys ascending, then the rest
// in insertion order. Sorting needs scratch space only when an index key
// is present, which real sessions almost never have.
template <class Sink>
void write_object(Sink& sink, const Json& object, int depth) {
  sink.ascii('{');
  bool first = true;
  const auto& members = *object.get_ptr<const Json::object_t*>();
  const bool has_index_key =
      std::any_of(members.begin(), members.end(), [](const auto& member) { return is_array_index(member.first); });
  if (has_index_key) {
    std::vector<std::pair<unsigned long, const Json::object_t::value_type*>> index_members;
    for (const auto& member : members) {
      if (is_array_index(member.first)) index_members.emplace_back(std::stoul(member.first), &member);
    }
    std::sort(index_members.begin(), index_members.end());
    for (const auto& [index, member] : index_members) {
      write_member(sink, first, member->first, member->second, depth);
    }
  }
  for (const auto& member : members) {
    if (has_index_key && is_array_index(member.first)) continue;
    write_member(sink, first, member.first, member.second, depth);
  }
  sink.ascii('}');
}

template <class Sink>
void write_array(Sink& sink, const Json& array, int depth) {
  sink.ascii('[');
  bool first = true;
  for (const auto& element : array) {
    if (!first) sink.ascii(',');
    first = false;
    write_value(sink, element, depth + 1);
  }
  sink.ascii(']');
}

// `depth` is the nesting level `value` occupies if it is an array/object.
template <class Sink>
void write_value(Sink& sink, const Json& value, int depth) {
  using Type = Json::value_t;
  if ((value.is_object() || value.is_array()) && depth > kMaxNestingDepth) {
    throw SerializationError("nesting deeper than 512 levels");
  }
  switch (value.type()) {
    case Type::null: sink.ascii("null"); return;
    case Type::boolean: sink.ascii(value.get<bool>() ? "true" : "false"); return;
    case Type::string: write_string(sink, value.get_ref<const std::string&>()); return;
    case Type::number_integer: write_number(sink, static_cast<double>(value.get<std::int64_t>())); return;
    case Type::number_unsigned: write_number(sink, static_cast<double>(value.get<std::uint64_t>())); return;
    case Type::number_float: write_number(sink, value.get<double>()); return;
    case Type::object: write_object(sink, value, depth); return;
    case Type::array: write_array(sink, value, depth); return;
    case Type::binary:
    case Type::discarded: break;
  }
  throw SerializationError("value has no JSON form");
}

// Literal keys and role names are ASCII and need no escaping.
template <class Sink>
void write_field(Sink& sink, std::string_view prefix_and_key, std::string_view text) {
  sink.ascii(prefix_and_key);
  write_string(sink, text);
}

template <class Sink>
void write_tool_calls(Sink& sink, const std::vector<ToolCall>& calls) {
  sink.ascii(",\"toolCalls\":[");
  bool first = true;
  for (const auto& call : calls) {
    sink.ascii(first ? "{" : ",{");
    first = false;
    write_field(sink, "\"id\":", call.id);
    write_field(sink, ",\"name\":", call.name);
    sink.ascii(",\"input\":");
    write_value(sink, call.input, /*depth=*/4);  // message 1, toolCalls 2, call 3
    sink.ascii('}');
  }
  sink.ascii(']');
}

}  // namespace

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

void Utf16CountSink::utf8(std::string_view text) noexcept { units += utf16_length(text); }

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

std::string_view format_js_number(double value, char* buffer) noexcept {
  if (value == 0) return "0";  // both zeros, as Number::toString prints -0
  char* out = buffer;
  if (value < 0) {
    *out++ = '-';
    value = -value;
  }
  // Shortest round-trip digits d[.ddd]e±X, as ECMAScript requires.
  char scientific[32];
  const auto end = std::to_chars(scientific, scientific + sizeof scientific, value,
                                 std::chars_format::scientific).ptr;
  const char* e = std::find(scientific, end, 'e');
  char digits[20];
  int k = 0;
  for (const char* p = scientific; p != e; ++p) {
    if (*p != '.') digits[k++] = *p;
  }
  int exponent = 0;
  std::from_chars(e + (e[1] == '+' ? 2 : 1), end, exponent);
  const int n = exponent + 1;  // value = 0.digits * 10^n

  const auto put_digits = [&](int from, int to) {
    std::memcpy(out, digits + from, static_cast<std::size_t>(to - from));
    out += to - from;
  };
  if (k <= n && n <= 21) {
    put_digits(0, k);
    out = std::fill_n(out, n - k, '0');
  } else if (0 < n && n <= 21) {
    put_digits(0, n);
    *out++ = '.';
    put_digits(n, k);
  } else if (-6 < n && n <= 0) {
    *out++ = '0';
    *out++ = '.';
    out = std::fill_n(out, -n, '0');
    put_digits(0, k);
  } else {
    put_digits(0, 1);
    if (k > 1) {
      *out++ = '.';
      put_digits(1, k);
    }
    *out++ = 'e';
    *out++ = n - 1 >= 0 ? '+' : '-';
    out = std::to_chars(out, out + 8, n - 1 >= 0 ? n - 1 : 1 - n).ptr;
  }
  return {buffer, static_cast<std::size_t>(out - buffer)};
}

bool is_array_index(std::string_view key) noexcept {
  if (key.empty() || key.size() > 10) return false;
  if (key.size() > 1 && key[0] == '0') return false;
  std::uint64_t value = 0;
  for (const char c : key) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return value <= 4294967294ULL;
}

template <class Sink>
void write_message(Sink& sink, const Message& message) {
  sink.ascii("{\"role\":\"");
  sink.ascii(role_of(message));
  sink.ascii('"');
  std::visit(
      [&](const auto& m) {
        write_field(sink, ",\"content\":", m.content);
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, AssistantMessage>) {
          write_tool_calls(sink, m.tool_calls);
        } else if constexpr (std::is_same_v<T, ToolResultMessage>) {
          write_field(sink, ",\"toolCallId\":", m.tool_call_id);
          sink.ascii(m.is_error ? ",\"isError\":true" : ",\"isError\":false");
        }
      },
      message);
  sink.ascii('}');
}

template void write_message(StringSink&, const Message&);
template void write_message(Utf16CountSink&, const Message&);

}  // namespace agent_session::internal
