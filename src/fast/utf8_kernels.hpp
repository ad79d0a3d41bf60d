// The fast path's UTF-16 counting, the estimator's innermost loop
// (SPEC.md §4): the reference's json_string_units and utf16_length
// (base/utf8.hpp), with one kernel per instruction set: a portable one
// (8 bytes at a time, SWAR), AVX2 (32 bytes) and AVX-512 (64 bytes, with
// masked loads for the tail and for short strings). The plain entry points
// pick the fastest kernel the CPU runs, once, at start up; the `_with`
// variants run a given kernel, so the differential tests and the benchmark
// can check and measure each one on any machine that has it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace agent_session::fast {

// UTF-16 code units of the JSON string literal JSON.stringify prints for
// `text` (quotes and escapes included), or 0 when `text` is not valid
// UTF-8: a literal has at least its two quotes. The estimator's hot path,
// on the fastest kernel; a plain integer, not an optional, because that is
// what the compiler returns in a register (bench/RESULTS.md).
std::uint64_t json_string_units_or_zero(std::string_view text) noexcept;

// The same, nullopt when `text` is not valid UTF-8. Inline, so the caller
// tests the integer and no optional is ever built.
inline std::optional<std::uint64_t> json_string_units(std::string_view text) noexcept {
  const std::uint64_t units = json_string_units_or_zero(text);
  if (units == 0) return std::nullopt;
  return units;
}

// Number of UTF-16 code units of `text`, which must be valid UTF-8
// (validated when it was built, e.g. canonical JSON text): one per
// character, two for a character outside the BMP (a 4-byte sequence).
// On invalid UTF-8 the result is meaningless, never undefined behaviour.
std::uint64_t utf16_length(std::string_view text) noexcept;

// The kernels of json_string_units and utf16_length, slowest first.
enum class Utf8Kernel { scalar, avx2, avx512 };
inline constexpr Utf8Kernel kUtf8Kernels[] = {Utf8Kernel::scalar, Utf8Kernel::avx2, Utf8Kernel::avx512};

// "scalar", "avx2", "avx512".
std::string_view kernel_name(Utf8Kernel kernel) noexcept;

// True when this build has `kernel` and this CPU (and OS) can run it: the
// scalar kernel always; AVX2 needs AVX2, POPCNT, BMI1; AVX-512 needs F, BW,
// VL, VBMI and AVX2, POPCNT, BMI1, BMI2.
bool kernel_supported(Utf8Kernel kernel) noexcept;

// The kernel json_string_units and utf16_length use.
Utf8Kernel fastest_kernel() noexcept;

// json_string_units and utf16_length on `kernel`; an unsupported kernel
// runs the scalar one instead (never an illegal instruction).
std::optional<std::uint64_t> json_string_units_with(Utf8Kernel kernel, std::string_view text) noexcept;
std::uint64_t utf16_length_with(Utf8Kernel kernel, std::string_view text) noexcept;

}  // namespace agent_session::fast
