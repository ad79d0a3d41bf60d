// What the x86 kernels share: their function-level targets and the UTF-8
// validation tables.
#pragma once

#include "fast/utf8_kernel_set.hpp"

#include <immintrin.h>

#include <array>
#include <cstdint>

// Function-level targets: the library is built for the baseline x86-64
// and picks a kernel at run time, so it still runs on older CPUs.
#define AGENT_SESSION_AVX2 __attribute__((target("avx2,popcnt,bmi")))
#define AGENT_SESSION_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,avx2,popcnt,bmi,bmi2")))

namespace agent_session::fast {

// UTF-8 validation a block at a time: the lookup algorithm of Keiser and
// Lemire, "Validating UTF-8 In Less Than One Instruction Per Byte" (2021),
// as simdjson and simdutf use it. Each byte is classified by three table
// lookups (the high nibble of the previous byte, its low nibble, the high
// nibble of this byte); the AND of the three is non-zero exactly for the
// invalid two-byte patterns, and a continuation byte is then checked
// against what the bytes two and three back require.
namespace utf8_lookup {
constexpr std::uint8_t kTooShort = 1 << 0;      // lead byte not followed by a continuation
constexpr std::uint8_t kTooLong = 1 << 1;       // ASCII followed by a continuation
constexpr std::uint8_t kOverlong3 = 1 << 2;     // E0 80..9F
constexpr std::uint8_t kTooLarge = 1 << 3;      // F4 90..BF, F5..FF
constexpr std::uint8_t kSurrogate = 1 << 4;     // ED A0..BF
constexpr std::uint8_t kOverlong2 = 1 << 5;     // C0, C1
constexpr std::uint8_t kTooLarge1000 = 1 << 6;  // F5..FF 80..8F
constexpr std::uint8_t kOverlong4 = 1 << 6;     // F0 80..8F
constexpr std::uint8_t kTwoContinuations = 1 << 7;
constexpr std::uint8_t kCarry = kTooShort | kTooLong | kTwoContinuations;

constexpr std::array<std::uint8_t, 16> kFirstHigh = {
    kTooLong,
    kTooLong,
    kTooLong,
    kTooLong,
    kTooLong,
    kTooLong,
    kTooLong,
    kTooLong,  // 0_______
    kTwoContinuations,
    kTwoContinuations,
    kTwoContinuations,
    kTwoContinuations,                                   // 10______
    kTooShort | kOverlong2,                              // 1100____
    kTooShort,                                           // 1101____
    kTooShort | kOverlong3 | kSurrogate,                 // 1110____
    kTooShort | kTooLarge | kTooLarge1000 | kOverlong4,  // 1111____
};
constexpr std::array<std::uint8_t, 16> kFirstLow = {
    kCarry | kOverlong3 | kOverlong2 | kOverlong4,  // ____0000
    kCarry | kOverlong2,                            // ____0001
    kCarry,
    kCarry,
    kCarry | kTooLarge,                  // ____0100
    kCarry | kTooLarge | kTooLarge1000,  // ____0101
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
    kTooShort,
    kTooShort,
    kTooShort,
    kTooShort,
    kTooShort,
    kTooShort,
    kTooShort,
    kTooShort,                                                                            // 0_______
    kTooLong | kOverlong2 | kTwoContinuations | kOverlong3 | kTooLarge1000 | kOverlong4,  // 1000____
    kTooLong | kOverlong2 | kTwoContinuations | kOverlong3 | kTooLarge,                   // 1001____
    kTooLong | kOverlong2 | kTwoContinuations | kSurrogate | kTooLarge,                   // 1010____
    kTooLong | kOverlong2 | kTwoContinuations | kSurrogate | kTooLarge,                   // 1011____
    kTooShort,
    kTooShort,
    kTooShort,
    kTooShort,  // 11______
};

// A byte must be a continuation when the byte two back is a 3- or 4-byte
// lead or the byte three back a 4-byte lead: unsigned saturating
// subtraction leaves bit 7 set exactly then.
constexpr std::uint8_t kThirdByteBias = 0xE0 - 0x80;
constexpr std::uint8_t kFourthByteBias = 0xF0 - 0x80;
}  // namespace utf8_lookup

}  // namespace agent_session::fast
