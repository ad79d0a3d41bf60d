#include "internal/canonical_writer.hpp"

#include "internal/utf8.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace agent_session::internal {
namespace {

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
  } else {
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
}

template <class Sink>
void write_number(Sink& sink, double value) {
  if (!std::isfinite(value)) throw SerializationError("number is not finite");
  char room[kJsNumberRoom];
  sink.ascii(std::string_view(room, static_cast<std::size_t>(write_js_number(room, value) - room)));
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
void write_canonical_text(Sink& sink, const std::string& text) {
  if constexpr (std::is_same_v<Sink, Utf16CountSink>) {
    sink.units += utf16_length(text);  // valid UTF-8: it was printed by us
  } else {
    sink.utf8(text);
  }
}

// An input is printed once, when it is built; here its text is copied or
// counted. One that could not be printed is printed again from its value,
// which throws the SerializationError its message must raise.
template <class Sink>
void write_input(Sink& sink, const ToolInput& input) {
  if (const auto& value = ToolInputAccess::unprintable(input)) {
    std::string text;
    append_canonical_value(text, *value, kToolInputDepth);
    write_canonical_text(sink, text);
    return;
  }
  write_canonical_text(sink, ToolInputAccess::canonical_json(input));
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
    write_input(sink, call.input);
    sink.ascii('}');
  }
  sink.ascii(']');
}

}  // namespace

namespace {

// A double's shortest round-trip decimal: value = significand × 10^(n - k),
// where the significand has k digits: once the layout drops its trailing
// zeros, the digits and n of ECMAScript Number::toString.
struct Decimal {
  std::uint64_t significand = 0;
  int k = 0;
  int n = 0;
};

// Powers of ten that are exact doubles (10^22 is the last: 5^22 < 2^53).
constexpr std::array<double, 23> kExactPowersOfTen = [] {
  std::array<double, 23> powers{};
  double power = 1;
  for (double& p : powers) {
    p = power;
    power *= 10;
  }
  return powers;
}();

// 10^-k, correctly rounded: inexact, for candidates only.
constexpr std::array<double, 23> kInversePowersOfTen = [] {
  std::array<double, 23> inverses{};
  for (std::size_t k = 0; k < inverses.size(); ++k) inverses[k] = 1 / kExactPowersOfTen[k];
  return inverses;
}();

// 10^0 .. 10^19, every power of ten a std::uint64_t holds.
constexpr std::array<std::uint64_t, 20> kIntegerPowersOfTen = [] {
  std::array<std::uint64_t, 20> powers{};
  std::uint64_t power = 1;
  for (std::uint64_t& p : powers) {
    p = power;
    power *= 10;
  }
  return powers;
}();

// The decimal digits of m, written two at a time.
constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// How many decimal digits m has (m > 0): floor(log10(2) · bit width) is
// the count or one more, and one comparison tells which.
int decimal_length(std::uint64_t m) noexcept {
  const int guess = (std::bit_width(m) * 1233) >> 12;
  return guess + (m >= kIntegerPowersOfTen[static_cast<std::size_t>(guess)] ? 1 : 0);
}

// Writes the `length` digits of m at out, from the last two at a time.
void put_digits(char* out, std::uint64_t m, int length) noexcept {
  char* end = out + length;
  for (; length >= 2; length -= 2) {
    end -= 2;
    std::memcpy(end, kDigitPairs + 2 * (m % 100), 2);
    m /= 100;
  }
  if (length == 1) end[-1] = static_cast<char>('0' + m);
}

// The shortest digits of `magnitude` (> 0) when it has a decimal form of at
// most 15 significant digits, found without generating digits the long
// way; false otherwise (the caller then does). Why it is exact:
// - the candidate m is the 15-digit integer nearest magnitude·10^s, for the
//   s that puts magnitude's leading digit at 10^14 (an estimate: a wrong
//   one only fails the check below);
// - the check m / 10^s == magnitude (or m·10^-s for s < 0) uses only exact
//   doubles (m < 10^15 < 2^53, |s| <= 22) and one correctly rounded IEEE
//   operation, so it holds exactly when the decimal m·10^-s parses back to
//   magnitude;
// - two different decimals of at most 15 significant digits never round
//   to the same double (DBL_DIG), so m's digits, trailing zeros dropped,
//   are the shortest ones, and the unique ones, that round-trip.
// Most numbers in real data have few digits (0.5, 12.75, 2.5e-7, 6.02e23).
bool short_digits(double magnitude, Decimal& out) noexcept {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &magnitude, sizeof bits);
  const int binary_exponent = static_cast<int>((bits >> 52) & 0x7FF) - 1023;
  // floor(binary_exponent · log10(2)): the decimal exponent, or one below.
  int exponent = (binary_exponent * 78913) >> 18;
  const int s = 14 - exponent;
  if (s < -22 || s > 22) return false;
  // The candidate: rounding errors here at worst fail the check below.
  double scaled = s >= 0 ? magnitude * kExactPowersOfTen[static_cast<std::size_t>(s)]
                         : magnitude * kInversePowersOfTen[static_cast<std::size_t>(-s)];
  int shift = s;
  if (scaled >= 1e15 - 0.5 && shift > -22) {  // the estimate was one low
    scaled *= 0.1;
    --shift;
  }
  if (!(scaled < 1e15 - 0.5)) return false;
  const std::uint64_t m = static_cast<std::uint64_t>(scaled + 0.5);
  const double exact_m = static_cast<double>(m);
  const double back = shift >= 0 ? exact_m / kExactPowersOfTen[static_cast<std::size_t>(shift)]
                                 : exact_m * kExactPowersOfTen[static_cast<std::size_t>(-shift)];
  if (back != magnitude) return false;
  // m has 15 digits here (10^14 <= m < 10^15), trailing zeros included:
  // put_short_decimal drops them.
  out.significand = m;
  out.k = 15;
  out.n = 15 - shift;
  return true;
}

// The shortest round-trip digits, generated by Dragonbox, {fmt}'s digit
// generator (about twice as fast as std::to_chars's Ryu, whose digits then
// had to be read back from text). It sits in fmt::detail: fmt's public
// calls print in fmt's own layout and cost what Ryu does. Held to
// std::to_chars's digits by canonical_writer_test on 450k doubles.
Decimal generated_digits(double magnitude) noexcept {
  // Its significand may end with zeros (not on every path in fmt 9):
  // put_generated_decimal drops them.
  const auto shortest = fmt::detail::dragonbox::to_decimal(magnitude);
  Decimal out;
  out.significand = shortest.significand;
  out.k = decimal_length(out.significand);
  out.n = shortest.exponent + out.k;
  return out;
}

// The 8 digits of v (< 10^8), leading zeros included, as byte values 0..9,
// the first digit in the lowest byte (first in memory). SWAR: each step
// splits every lane in two with a multiply, a shift and a mask (the
// constants are exact quotients for the lane's range: 10486/2^20 for
// /100 below 10^4, 103/2^10 for /10 below 100), with no loop and no branch.
static_assert(std::endian::native == std::endian::little, "digit_bytes lays digits out little-endian");

std::uint64_t digit_bytes(std::uint32_t v) noexcept {
  const std::uint64_t quads = (v / 10000) | (std::uint64_t{v % 10000} << 32);
  const std::uint64_t hundreds = ((quads * 10486) >> 20) & 0x0000007F0000007FULL;
  const std::uint64_t pairs = hundreds | ((quads - hundreds * 100) << 16);
  const std::uint64_t tens = ((pairs * 103) >> 10) & 0x000F000F000F000FULL;
  return tens | ((pairs - tens * 10) << 8);
}

__extension__ using Bytes16 = unsigned __int128;  // 16 bytes, the first in the low byte

void put_16(char* out, Bytes16 bytes) noexcept { std::memcpy(out, &bytes, sizeof bytes); }

// Number::toString's layout (ECMA-262, step 6 onwards) of the decimal
// 0.d1 d2...dk × 10^n at out, which has kJsNumberRoom bytes less the sign:
// d1 is `first`, d2... are the text bytes of `rest`, lowest first (past
// the k - 1 digits they hold garbage, as the room does past the text).
// Each piece is placed with one 16-byte store, no loop per digit.
char* put_decimal(char* out, char first, Bytes16 rest, int k, int n) noexcept {
  if (k <= n && n <= 21) {  // ddd000: at most 20 zeros, written as 24
    out[0] = first;
    put_16(out + 1, rest);
    std::memset(out + k, '0', 24);
    return out + n;
  }
  if (0 < n && n <= 21) {  // dd.ddd, n < k <= 17
    out[0] = first;
    put_16(out + 1, rest);
    out[n] = '.';
    put_16(out + n + 1, rest >> (8 * (n - 1)));
    return out + k + 1;
  }
  if (-6 < n && n <= 0) {  // 0.000ddd: at most 5 zeros, written as 6
    std::memcpy(out, "0.000000", 8);
    out += 2 - n;
    out[0] = first;
    put_16(out + 1, rest);
    return out + k;
  }
  out[0] = first;  // d.ddde±x
  out[1] = '.';
  put_16(out + 2, rest);
  out += k > 1 ? k + 1 : 1;
  *out++ = 'e';
  *out++ = n - 1 >= 0 ? '+' : '-';
  const int exponent = n - 1 >= 0 ? n - 1 : 1 - n;  // 1..324
  const int length = exponent >= 100 ? 3 : exponent >= 10 ? 2 : 1;
  put_digits(out, static_cast<std::uint64_t>(exponent), length);
  return out + length;
}

// short_digits's 15-digit m × 10^(n - 15), laid out. The digits come as
// text in two registers, so their trailing zeros are counted without a
// division or a branch per digit.
char* put_short_decimal(char* out, Decimal decimal) noexcept {
  const auto high = digit_bytes(static_cast<std::uint32_t>(decimal.significand / 100000000));  // 0 then 7 digits
  const auto low = digit_bytes(static_cast<std::uint32_t>(decimal.significand % 100000000));   // 8 digits
  // Trailing zero digits are the zero bytes at the top of `low` (then of
  // `high`, whose first digit after the padding is not zero).
  const int zeros = low != 0 ? std::countl_zero(low) / 8 : 8 + std::countl_zero(high) / 8;
  const Bytes16 digits = ((Bytes16{low} << 64 | high) >> 8) | (Bytes16{0x0030303030303030ULL} << 64 | 0x3030303030303030ULL);
  return put_decimal(out, static_cast<char>(digits & 0xFF), digits >> 8, 15 - zeros, decimal.n);
}

// Generated digits (Dragonbox's, up to 17), laid out: the significand is
// scaled to exactly 17 digits, its first digit taken alone and the other
// 16 as text in two registers, whose trailing zeros are the digits to drop.
char* put_generated_decimal(char* out, Decimal decimal) noexcept {
  const std::uint64_t m = decimal.significand * kIntegerPowersOfTen[static_cast<std::size_t>(17 - decimal.k)];
  const auto first = static_cast<char>('0' + m / 10000000000000000ULL);
  const std::uint64_t rest = m % 10000000000000000ULL;
  const auto high = digit_bytes(static_cast<std::uint32_t>(rest / 100000000));
  const auto low = digit_bytes(static_cast<std::uint32_t>(rest % 100000000));
  const int zeros = low != 0 ? std::countl_zero(low) / 8 : high != 0 ? 8 + std::countl_zero(high) / 8 : 16;
  const Bytes16 digits = (Bytes16{low} << 64 | high) | (Bytes16{0x3030303030303030ULL} << 64 | 0x3030303030303030ULL);
  return put_decimal(out, first, digits, 17 - zeros, decimal.n);
}

// The digits of 0 < v < 10^8 at out (8 bytes of room): its leading zero
// digits are the zero bytes at the bottom of digit_bytes(v), shifted out,
// so no branch depends on how many digits v has.
char* put_small_integer(char* out, std::uint32_t v) noexcept {
  const std::uint64_t digits = digit_bytes(v);
  const int leading_zeros = std::countr_zero(digits) / 8;
  const std::uint64_t text = (digits >> (8 * leading_zeros)) | (0x3030303030303030ULL >> (8 * leading_zeros));
  std::memcpy(out, &text, sizeof text);
  return out + 8 - leading_zeros;
}

// The digits of 0 < v < 2^53 at out.
char* put_integer(char* out, std::uint64_t v) noexcept {
  if (v < 100000000) return put_small_integer(out, static_cast<std::uint32_t>(v));
  const int length = decimal_length(v);
  put_digits(out, v, length);
  return out + length;
}

}  // namespace

char* write_js_number(char* out, double value) noexcept {
  if (value == 0) {  // both zeros, as Number::toString prints -0
    *out = '0';
    return out + 1;
  }
  if (value < 0) {
    *out++ = '-';
    value = -value;
  }
  if (const auto integer = value < 0x1p53 ? static_cast<std::uint64_t>(value) : 0;
      integer != 0 && static_cast<double>(integer) == value) {
    return put_integer(out, integer);  // exact below 2^53: its digits are the shortest form
  }
  if (Decimal decimal; short_digits(value, decimal)) return put_short_decimal(out, decimal);
  return put_generated_decimal(out, generated_digits(value));
}

char* write_js_integer(char* out, std::int64_t value) noexcept {
  if (value == 0) {
    *out = '0';
    return out + 1;
  }
  if (value < 0) *out++ = '-';
  // The magnitude, two's complement negation done unsigned (INT64_MIN too).
  const std::uint64_t magnitude =
      value < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(value) : static_cast<std::uint64_t>(value);
  if (magnitude < (std::uint64_t{1} << 53)) return put_integer(out, magnitude);  // exact as a double
  return write_js_number(out, static_cast<double>(magnitude));  // rounded to a double first
}

std::string_view format_js_number(double value, char* buffer) noexcept {
  char room[kJsNumberRoom];
  const char* const end = write_js_number(room, value);
  const auto length = static_cast<std::size_t>(end - room);
  std::memcpy(buffer, room, length);
  return {buffer, length};
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

namespace {

struct TextBufferSink {
  TextBuffer& out;
  void ascii(std::string_view text) { out.append(text); }
  void ascii(char c) { out.push_back(c); }
  void utf8(std::string_view text) { out.append(text); }
};

}  // namespace

void TextBuffer::grow(std::size_t bytes) {
  // Doubling: a text grown a piece at a time is copied O(1) times a byte.
  const std::size_t capacity = std::max({size_ + bytes, 2 * capacity_, std::size_t{256}});
  auto data = std::make_unique_for_overwrite<char[]>(capacity);
  if (size_ != 0) std::memcpy(data.get(), data_.get(), size_);
  data_ = std::move(data);
  capacity_ = capacity;
}

void append_json_string(TextBuffer& out, std::string_view text) {
  TextBufferSink sink{out};
  write_string(sink, text);
}

void append_json_number(TextBuffer& out, double value) {
  if (!std::isfinite(value)) throw SerializationError("number is not finite");
  out.advance_to(write_js_number(out.room(kJsNumberRoom), value));
}

void append_canonical_value(std::string& out, const Json& value, int depth) {
  StringSink sink{out};
  write_value(sink, value, depth);
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
