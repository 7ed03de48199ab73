// Operation names: the lower-case ones (made at compile time) are the ISA's upper-case names
// in lower case, for every operation, and an operation out of range is "<invalid>".
#include "emu/Inst.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string>

using namespace asmevo::emu;

namespace {

TEST(OpNames, LowerCaseOfEveryOperation) {
  for (unsigned I = 0; I < unsigned(Op::Count); ++I) {
    std::string Upper = opName(Op(I)), Lower;
    for (char C : Upper)
      Lower += char(std::tolower(static_cast<unsigned char>(C)));
    ASSERT_EQ(opNameLower(Op(I)), Lower) << I;
  }
  EXPECT_STREQ(opName(Op::V_ADD_F32_E32), "V_ADD_F32_E32");
  EXPECT_STREQ(opNameLower(Op::V_ADD_F32_E64), "v_add_f32_e64");
  EXPECT_STREQ(opNameLower(Op::DS_READ_U16), "ds_read_u16");
  EXPECT_STREQ(opName(Op::Count), "<invalid>");
  EXPECT_STREQ(opNameLower(Op::Count), "<invalid>");
  EXPECT_STREQ(opNameLower(Op(0xffff)), "<invalid>");
}

} // namespace
