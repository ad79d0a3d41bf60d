#include "fast/utf8_kernels.hpp"

#include "fast/utf8_avx2.hpp"
#include "fast/utf8_avx512.hpp"
#include "fast/utf8_swar.hpp"

namespace agent_session::fast {
namespace {

#ifdef AGENT_SESSION_HAS_X86_KERNELS
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
    return swar::json_string_units(text);
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
  return swar::utf16_length(text);
}

std::uint64_t json_string_units_or_zero(std::string_view text) noexcept {
#ifdef AGENT_SESSION_HAS_X86_KERNELS
  if (kFastest == Utf8Kernel::avx512) return avx512::json_string_units(text);
  // Short strings (ids, keys, names) are cheaper a word at a time than
  // copied into a padded block.
  if (kFastest == Utf8Kernel::avx2 && text.size() >= 32) return avx2::json_string_units(text);
#endif
  return swar::json_string_units(text);
}

std::uint64_t utf16_length(std::string_view text) noexcept {
#ifdef AGENT_SESSION_HAS_X86_KERNELS
  if (kFastest == Utf8Kernel::avx512) return avx512::utf16_length(text);
  if (kFastest == Utf8Kernel::avx2) return avx2::utf16_length(text);
#endif
  return swar::utf16_length(text);
}

}  // namespace agent_session::fast
