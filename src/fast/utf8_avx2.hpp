// The avx2 kernel of the UTF-8 counters (utf8_kernels.hpp).
#pragma once

#include "fast/utf8_kernel_set.hpp"

#include <cstdint>
#include <string_view>

namespace agent_session::fast {

#ifdef AGENT_SESSION_HAS_X86_KERNELS
namespace avx2 {
std::uint64_t json_string_units(std::string_view text) noexcept;
std::uint64_t utf16_length(std::string_view text) noexcept;
}  // namespace avx2
#endif

}  // namespace agent_session::fast
