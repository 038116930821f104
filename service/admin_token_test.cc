// AdminToken: file parsing and the constant-time comparison's results.
// (That its time does not depend on the token is by construction: it visits
// every byte whatever they hold; no test here times it.)
#include "service/admin_token.h"

#include <gtest/gtest.h>

#include <fstream>

namespace edgefleet {
namespace service {
namespace {

TEST(AdminTokenTest, MatchesOnlyTheExactToken) {
  auto token = AdminToken::FromString("0123456789abcdef-token");
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_TRUE((*token)->Matches("0123456789abcdef-token"));
  EXPECT_FALSE((*token)->Matches("0123456789abcdef-tokem"));   // last byte
  EXPECT_FALSE((*token)->Matches("1123456789abcdef-token"));   // first byte
  EXPECT_FALSE((*token)->Matches("0123456789abcdef-toke"));    // prefix
  EXPECT_FALSE((*token)->Matches("0123456789abcdef-token0"));  // extension
  EXPECT_FALSE((*token)->Matches(""));
  EXPECT_FALSE((*token)->Matches(std::string("0123456789abcdef-token\0", 23)));
}

TEST(AdminTokenTest, RejectsWeakOrMalformedTokens) {
  EXPECT_FALSE(AdminToken::FromString("short").ok());
  EXPECT_FALSE(AdminToken::FromString("has a space in the middle").ok());
  EXPECT_FALSE(AdminToken::FromString(std::string(AdminToken::kMaxBytes + 1, 'x')).ok());
  EXPECT_FALSE(AdminToken::FromString("0123456789abcdef\n2nd line").ok());
}

TEST(AdminTokenTest, FileLosesItsTrailingNewlineAndErrorsNameTheFile) {
  const std::string path = ::testing::TempDir() + "/admin_token";
  std::ofstream(path) << "0123456789abcdef-token\n";
  auto token = AdminToken::FromFile(path);
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_TRUE((*token)->Matches("0123456789abcdef-token"));
  auto missing = AdminToken::FromFile(path + ".absent");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("admin_token.absent"), std::string::npos);
}

}  // namespace
}  // namespace service
}  // namespace edgefleet
