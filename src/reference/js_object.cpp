#include "reference/js_object.hpp"

#include "base/decimal.hpp"

#include <algorithm>
#include <utility>

namespace agent_session::reference {

std::optional<std::uint32_t> array_index(std::string_view key) noexcept {
  if (key.size() > 10 || (key.size() > 1 && key[0] == '0')) return std::nullopt;
  const std::optional<std::uint64_t> value = base::parse_decimal(key);
  if (!value || *value > 4294967294ULL) return std::nullopt;
  return static_cast<std::uint32_t>(*value);
}

Json javascript_object(std::vector<std::pair<std::string, Json>> members) {
  std::vector<std::pair<std::string, Json>> kept;
  for (auto& member : members) {
    const auto first =
        std::find_if(kept.begin(), kept.end(), [&](const auto& other) { return other.first == member.first; });
    if (first == kept.end()) {
      kept.push_back(std::move(member));
    } else {
      first->second = std::move(member.second);  // the last value, at the first position
    }
  }
  Json object = Json::object();
  for (const std::size_t i :
       javascript_order(kept.size(), [&](std::size_t i) -> std::string_view { return kept[i].first; })) {
    object[kept[i].first] = std::move(kept[i].second);
  }
  return object;
}

}  // namespace agent_session::reference
