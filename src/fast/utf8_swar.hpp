// The swar kernel of the UTF-8 counters (utf8_kernels.hpp).
#pragma once

#include "fast/utf8_kernel_set.hpp"

#include <cstdint>
#include <string_view>

namespace agent_session::fast {

namespace swar {
std::uint64_t json_string_units(std::string_view text) noexcept;
std::uint64_t utf16_length(std::string_view text) noexcept;
}  // namespace swar

}  // namespace agent_session::fast
