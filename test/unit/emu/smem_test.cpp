// Scalar memory atomics (s_atomic_*, s_buffer_atomic_*), on hand-built instructions; the
// expected values follow the ISA's pseudocode (cdna4-isa.json, SMEMOp.S_ATOMIC_*), computed
// independently in the tests.
#include "emu/DeviceMemory.h"
#include "emu/EmuError.h"
#include "emu/Exec.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

using namespace asmevo::emu;

namespace {

struct Env {
  DeviceMemory Mem;
  Workgroup Wg;
  std::unique_ptr<WaveState> Wp = std::make_unique<WaveState>();
  WaveState &W = *Wp;
  ExecCtx C{W, Wg, Mem, Gfx::Gfx942};
  uint64_t Base = 0;

  Env() {
    W.setExec(~0ull);
    C.InstPc = 0x1000;
    Base = Mem.allocate(64, 256, "buf");
    std::vector<uint8_t> z(64, 0);
    llvm::cantFail(Mem.write(Base, z.data(), 64));
    W.S[4] = uint32_t(Base);
    W.S[5] = uint32_t(Base >> 32);
  }
  uint32_t rd32(uint64_t a) {
    uint32_t v;
    llvm::cantFail(Mem.read(a, &v, 4));
    return v;
  }
  uint64_t rd64(uint64_t a) {
    uint64_t v;
    llvm::cantFail(Mem.read(a, &v, 8));
    return v;
  }
  void wr32(uint64_t a, uint32_t v) { llvm::cantFail(Mem.write(a, &v, 4)); }
  void wr64(uint64_t a, uint64_t v) { llvm::cantFail(Mem.write(a, &v, 8)); }
};

Inst satomic(Op op, uint16_t sdata, int32_t offset, bool glc) {
  Inst in;
  in.Operation = op;
  in.Encoding = Enc::SMEM;
  in.Dst = sdata;
  in.Sbase = 4;
  in.SmemImm = true;
  in.Offset = offset;
  in.Glc = glc;
  return in;
}

TEST(ScalarAtomic, IncWrapsAtTheLimitAndReturnsThePreOpValue) {
  Env e;
  e.wr32(e.Base + 8, 6);
  e.W.S[20] = 7; // limit
  ASSERT_TRUE(execSmem(e.C, satomic(Op::S_ATOMIC_INC, 20, 8, true)));
  EXPECT_EQ(e.W.S[20], 6u);
  EXPECT_EQ(e.rd32(e.Base + 8), 7u);
  e.W.S[20] = 7;
  ASSERT_TRUE(execSmem(e.C, satomic(Op::S_ATOMIC_INC, 20, 8, true)));
  EXPECT_EQ(e.W.S[20], 7u);
  EXPECT_EQ(e.rd32(e.Base + 8), 0u); // tmp >= src: 0
}

TEST(ScalarAtomic, DecWrapsFromZeroAndAboveTheLimit) {
  Env e;
  e.W.S[20] = 5;
  ASSERT_TRUE(execSmem(e.C, satomic(Op::S_ATOMIC_DEC, 20, 0, false)));
  EXPECT_EQ(e.rd32(e.Base), 5u); // tmp == 0: src
  EXPECT_EQ(e.W.S[20], 5u);      // no GLC: SDATA untouched
  e.wr32(e.Base, 9);
  ASSERT_TRUE(execSmem(e.C, satomic(Op::S_ATOMIC_DEC, 20, 0, true)));
  EXPECT_EQ(e.rd32(e.Base), 5u); // tmp > src: src
  EXPECT_EQ(e.W.S[20], 9u);
  e.W.S[20] = 5;
  ASSERT_TRUE(execSmem(e.C, satomic(Op::S_ATOMIC_DEC, 20, 0, true)));
  EXPECT_EQ(e.rd32(e.Base), 4u);
}

TEST(ScalarAtomic, CmpSwapX2TakesSourceLowCompareHigh) {
  Env e;
  e.wr64(e.Base + 16, 0x1111222233334444ull);
  // s[20:21] = src, s[22:23] = cmp
  e.W.S[20] = 0xaaaa0000, e.W.S[21] = 0xbbbb0000;
  e.W.S[22] = 0x33334444, e.W.S[23] = 0x11112222;
  ASSERT_TRUE(execSmem(e.C, satomic(Op::S_ATOMIC_CMPSWAP_X2, 20, 16, true)));
  EXPECT_EQ(e.rd64(e.Base + 16), 0xbbbb0000aaaa0000ull);
  EXPECT_EQ(e.W.S[20], 0x33334444u);
  EXPECT_EQ(e.W.S[21], 0x11112222u);
  EXPECT_EQ(e.W.S[22], 0x33334444u); // the compare half is not a destination
}

TEST(ScalarAtomic, BufferAtomicOutsideNumRecordsIsDropped) {
  Env e;
  // V# in s[8:11]: base, stride 0, num_records 8
  e.W.S[8] = uint32_t(e.Base), e.W.S[9] = uint32_t(e.Base >> 32), e.W.S[10] = 8, e.W.S[11] = 0;
  Inst in = satomic(Op::S_BUFFER_ATOMIC_ADD, 20, 4, true);
  in.Sbase = 8;
  e.W.S[20] = 3;
  ASSERT_TRUE(execSmem(e.C, in));
  EXPECT_EQ(e.rd32(e.Base + 4), 3u);
  in.Offset = 8;
  e.W.S[20] = 3;
  ASSERT_TRUE(execSmem(e.C, in));
  EXPECT_EQ(e.rd32(e.Base + 8), 0u);
  EXPECT_EQ(e.W.S[20], 0u);
}

TEST(ScalarAtomic, AddressOutsideEveryAllocationFaults) {
  Env e;
  e.W.S[4] = 0x10, e.W.S[5] = 0;
  try {
    execSmem(e.C, satomic(Op::S_ATOMIC_ADD, 20, 0, true));
    FAIL() << "no fault";
  } catch (const EmuError &E) {
    EXPECT_EQ(E.Kind, EmuErrorKind::MemoryFault);
    EXPECT_NE(std::string(E.what()).find("s_atomic_add"), std::string::npos) << E.what();
  }
}

} // namespace
