#include "runtime/core/error.h"

#include <set>
#include <string>

#include "gtest/gtest.h"
#include "runtime/core/error_detail.h"
#include "runtime/core/result.h"

namespace edgefleet {
namespace {

TEST(ErrorTest, NamesAreDistinctAndKnown) {
  std::set<std::string> names;
  for (Error e : kAllErrors) {
    const std::string name = ErrorName(e);
    EXPECT_NE(name, "unknown") << static_cast<int>(e);
    EXPECT_TRUE(names.insert(name).second) << name;
  }
  EXPECT_EQ(names.size(), sizeof(kAllErrors) / sizeof(kAllErrors[0]));
}

TEST(ErrorTest, ValuesMatchTheRealRuntime) {
  EXPECT_EQ(static_cast<uint32_t>(Error::kOperatorMissing), 0x14u);
  EXPECT_EQ(static_cast<uint32_t>(Error::kInvalidProgram), 0x23u);
  EXPECT_EQ(static_cast<uint32_t>(Error::kDelegateInvalidHandle), 0x32u);
}

Result<int> Half(int x) {
  EF_CHECK_OR_RETURN(x % 2 == 0, Error::kInvalidArgument, "%d is odd", x);
  return x / 2;
}

Error Quarter(int x, int* out) {
  EF_ASSIGN_OR_RETURN(int h, Half(x));
  EF_ASSIGN_OR_RETURN(*out, Half(h));
  return Error::kOk;
}

TEST(ErrorTest, MacrosPropagateErrorAndDetail) {
  ClearErrorDetail();
  int out = 0;
  EXPECT_EQ(Quarter(8, &out), Error::kOk);
  EXPECT_EQ(out, 2);
  EXPECT_EQ(Quarter(6, &out), Error::kInvalidArgument);
  EXPECT_STREQ(LastErrorDetail(), "3 is odd");
}

}  // namespace
}  // namespace edgefleet
