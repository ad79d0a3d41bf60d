#include "reference/js_number.hpp"

#include "base/decimal.hpp"

#include <charconv>
#include <string_view>
#include <system_error>

namespace agent_session::reference {

void append_js_number(std::string& out, double value) {
  if (value == 0) {  // both zeros
    out += '0';
    return;
  }
  if (value < 0) {
    out += '-';
    value = -value;
  }
  // The shortest digits that round-trip, in scientific form: d.ddde±x.
  char text[32];
  const auto [end, error] = std::to_chars(text, text + sizeof text, value, std::chars_format::scientific);
  static_cast<void>(error);  // 32 bytes hold every double's form
  const std::string_view scientific(text, static_cast<std::size_t>(end - text));
  const std::size_t e = scientific.find('e');
  std::string digits(1, scientific[0]);
  if (e > 1) digits.append(scientific.substr(2, e - 2));  // past "d."
  // value = 0.d1d2...dk x 10^n, in Number::toString's terms.
  const int k = static_cast<int>(digits.size());
  std::string_view exponent = scientific.substr(e + 1);                                         // "+x" or "-x"
  const int magnitude = static_cast<int>(base::parse_decimal(exponent.substr(1)).value_or(0));  // at most 324
  const int n = (exponent[0] == '-' ? -magnitude : magnitude) + 1;
  if (k <= n && n <= 21) {
    out += digits;
    out.append(static_cast<std::size_t>(n - k), '0');
  } else if (0 < n && n <= 21) {
    out.append(digits, 0, static_cast<std::size_t>(n));
    out += '.';
    out.append(digits, static_cast<std::size_t>(n));
  } else if (-6 < n && n <= 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-n), '0');
    out += digits;
  } else {
    out += digits[0];
    if (k > 1) {
      out += '.';
      out.append(digits, 1);
    }
    out += n - 1 >= 0 ? "e+" : "e-";
    out += std::to_string(n - 1 >= 0 ? n - 1 : 1 - n);
  }
}

}  // namespace agent_session::reference
