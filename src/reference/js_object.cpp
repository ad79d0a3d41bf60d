#include "reference/js_object.hpp"

#include "base/decimal.hpp"

namespace agent_session::reference {

std::optional<std::uint32_t> array_index(std::string_view key) noexcept {
  if (key.size() > 10 || (key.size() > 1 && key[0] == '0')) return std::nullopt;
  const std::optional<std::uint64_t> value = base::parse_decimal(key);
  if (!value || *value > 4294967294ULL) return std::nullopt;
  return static_cast<std::uint32_t>(*value);
}

}  // namespace agent_session::reference
