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
  DeviceMemory mem;
  Workgroup wg;
  std::unique_ptr<WaveState> wp = std::make_unique<WaveState>();
  WaveState &w = *wp;
  ExecCtx c{w, wg, mem, Gfx::Gfx942};
  uint64_t base = 0;

  Env() {
    w.setExec(~0ull);
    c.instPc = 0x1000;
    base = mem.allocate(64, 256, "buf");
    std::vector<uint8_t> z(64, 0);
    llvm::cantFail(mem.write(base, z.data(), 64));
    w.s[4] = uint32_t(base);
    w.s[5] = uint32_t(base >> 32);
  }
  uint32_t rd32(uint64_t a) {
    uint32_t v;
    llvm::cantFail(mem.read(a, &v, 4));
    return v;
  }
  uint64_t rd64(uint64_t a) {
    uint64_t v;
    llvm::cantFail(mem.read(a, &v, 8));
    return v;
  }
  void wr32(uint64_t a, uint32_t v) { llvm::cantFail(mem.write(a, &v, 4)); }
  void wr64(uint64_t a, uint64_t v) { llvm::cantFail(mem.write(a, &v, 8)); }
};

Inst satomic(Op op, uint16_t sdata, int32_t offset, bool glc) {
  Inst in;
  in.op = op;
  in.enc = Enc::SMEM;
  in.dst = sdata;
  in.sbase = 4;
  in.smemImm = true;
  in.offset = offset;
  in.glc = glc;
  return in;
}

TEST(ScalarAtomic, IncWrapsAtTheLimitAndReturnsThePreOpValue) {
  Env e;
  e.wr32(e.base + 8, 6);
  e.w.s[20] = 7; // limit
  ASSERT_TRUE(execSmem(e.c, satomic(Op::S_ATOMIC_INC, 20, 8, true)));
  EXPECT_EQ(e.w.s[20], 6u);
  EXPECT_EQ(e.rd32(e.base + 8), 7u);
  e.w.s[20] = 7;
  ASSERT_TRUE(execSmem(e.c, satomic(Op::S_ATOMIC_INC, 20, 8, true)));
  EXPECT_EQ(e.w.s[20], 7u);
  EXPECT_EQ(e.rd32(e.base + 8), 0u); // tmp >= src: 0
}

TEST(ScalarAtomic, DecWrapsFromZeroAndAboveTheLimit) {
  Env e;
  e.w.s[20] = 5;
  ASSERT_TRUE(execSmem(e.c, satomic(Op::S_ATOMIC_DEC, 20, 0, false)));
  EXPECT_EQ(e.rd32(e.base), 5u); // tmp == 0: src
  EXPECT_EQ(e.w.s[20], 5u);      // no GLC: SDATA untouched
  e.wr32(e.base, 9);
  ASSERT_TRUE(execSmem(e.c, satomic(Op::S_ATOMIC_DEC, 20, 0, true)));
  EXPECT_EQ(e.rd32(e.base), 5u); // tmp > src: src
  EXPECT_EQ(e.w.s[20], 9u);
  e.w.s[20] = 5;
  ASSERT_TRUE(execSmem(e.c, satomic(Op::S_ATOMIC_DEC, 20, 0, true)));
  EXPECT_EQ(e.rd32(e.base), 4u);
}

TEST(ScalarAtomic, CmpSwapX2TakesSourceLowCompareHigh) {
  Env e;
  e.wr64(e.base + 16, 0x1111222233334444ull);
  // s[20:21] = src, s[22:23] = cmp
  e.w.s[20] = 0xaaaa0000, e.w.s[21] = 0xbbbb0000;
  e.w.s[22] = 0x33334444, e.w.s[23] = 0x11112222;
  ASSERT_TRUE(execSmem(e.c, satomic(Op::S_ATOMIC_CMPSWAP_X2, 20, 16, true)));
  EXPECT_EQ(e.rd64(e.base + 16), 0xbbbb0000aaaa0000ull);
  EXPECT_EQ(e.w.s[20], 0x33334444u);
  EXPECT_EQ(e.w.s[21], 0x11112222u);
  EXPECT_EQ(e.w.s[22], 0x33334444u); // the compare half is not a destination
}

TEST(ScalarAtomic, BufferAtomicOutsideNumRecordsIsDropped) {
  Env e;
  // V# in s[8:11]: base, stride 0, num_records 8
  e.w.s[8] = uint32_t(e.base), e.w.s[9] = uint32_t(e.base >> 32), e.w.s[10] = 8, e.w.s[11] = 0;
  Inst in = satomic(Op::S_BUFFER_ATOMIC_ADD, 20, 4, true);
  in.sbase = 8;
  e.w.s[20] = 3;
  ASSERT_TRUE(execSmem(e.c, in));
  EXPECT_EQ(e.rd32(e.base + 4), 3u);
  in.offset = 8;
  e.w.s[20] = 3;
  ASSERT_TRUE(execSmem(e.c, in));
  EXPECT_EQ(e.rd32(e.base + 8), 0u);
  EXPECT_EQ(e.w.s[20], 0u);
}

TEST(ScalarAtomic, AddressOutsideEveryAllocationFaults) {
  Env e;
  e.w.s[4] = 0x10, e.w.s[5] = 0;
  try {
    execSmem(e.c, satomic(Op::S_ATOMIC_ADD, 20, 0, true));
    FAIL() << "no fault";
  } catch (const EmuError &E) {
    EXPECT_EQ(E.Kind, EmuErrorKind::MemoryFault);
    EXPECT_NE(std::string(E.what()).find("s_atomic_add"), std::string::npos) << E.what();
  }
}

} // namespace
