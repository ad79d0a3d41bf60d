// src/harness/base64.hpp: RFC 4648 §4 base64, as the harness protocol carries bytes.
#include "harness/base64.hpp"

#include <gtest/gtest.h>

#include <string>

namespace agent_session {
namespace {

using harness::base64_decode;
using harness::base64_decoded_size;
using harness::base64_encode;

TEST(Base64, EncodesTheRfc4648TestVectors) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foob"), "Zm9vYg==");
  EXPECT_EQ(base64_encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  // harness.md's examples.
  EXPECT_EQ(base64_encode("1 messages\n"), "MSBtZXNzYWdlcwo=");
  EXPECT_EQ(base64_encode("\xFF\n"), "/wo=");
}

TEST(Base64, EveryByteValueRoundTrips) {
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  for (std::size_t length = 0; length <= all.size(); length += 1) {
    const std::string bytes = all.substr(256 - length) + all.substr(0, length % 7);
    const std::string text = base64_encode(bytes);
    EXPECT_EQ(text.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="),
              std::string::npos);
    ASSERT_EQ(base64_decode(text), bytes) << text;
    EXPECT_EQ(base64_decoded_size(text), bytes.size());
  }
}

TEST(Base64, DecodesTheTestVectors) {
  EXPECT_EQ(base64_decode(""), "");
  EXPECT_EQ(base64_decode("Zg=="), "f");
  EXPECT_EQ(base64_decode("Zm8="), "fo");
  EXPECT_EQ(base64_decode("Zm9vYmFy"), "foobar");
  EXPECT_EQ(base64_decode("AA=="), std::string(1, '\0'));
}

TEST(Base64, RefusesWhatIsNotCanonicalPaddedBase64) {
  for (const char* bad : {"Zg", "Zg=", "Zm9", "Z===", "====", "Zg==Zg==", "Zm=v", "Zm9v\n", "Zm9 v", " Zm9v",
                          "Zm9v-_==", "Zh==", "Zm9=", "Zm8=\r", "Zg==="}) {
    EXPECT_EQ(base64_decode(bad), std::nullopt) << '"' << bad << '"';
  }
  EXPECT_EQ(base64_decode(std::string("Zm\0v", 4)), std::nullopt);
}

}  // namespace
}  // namespace agent_session
