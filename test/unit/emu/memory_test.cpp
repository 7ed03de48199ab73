// Vector memory (FLAT/GLOBAL/SCRATCH/MUBUF/MTBUF) and LDS (DS) executors, on hand-built
// instructions; expectations are computed independently in the tests.
#include "emu/DeviceMemory.h"
#include "emu/EmuError.h"
#include "emu/Exec.h"
#include "emu/LaneBlockCopy.h"
#include "support/Float.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace asmevo;
using namespace asmevo::emu;

namespace {

constexpr uint16_t V(unsigned n) { return uint16_t(kVgprBase + n); }
constexpr uint16_t A(unsigned n) { return uint16_t(kAgprBase + n); }

struct Env {
  DeviceMemory Mem;
  Workgroup Wg;
  std::unique_ptr<WaveState> Wp = std::make_unique<WaveState>();
  WaveState &W = *Wp;
  ExecCtx C{W, Wg, Mem, Gfx::Gfx942};

  Env() {
    W.setExec(~0ull);
    C.InstPc = 0x1000;
  }
  uint64_t alloc(size_t n, uint8_t fill = 0) {
    uint64_t a = Mem.allocate(n, 256, "buf");
    std::vector<uint8_t> b(n, fill);
    llvm::cantFail(Mem.write(a, b.data(), n));
    return a;
  }
  // Fill with the byte pattern (i * 7 + 3) & 0xff.
  uint64_t pattern(size_t n) {
    uint64_t a = Mem.allocate(n, 256, "buf");
    std::vector<uint8_t> b(n);
    for (size_t i = 0; i < n; ++i)
      b[i] = uint8_t(i * 7 + 3);
    llvm::cantFail(Mem.write(a, b.data(), n));
    return a;
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
  uint32_t &v(unsigned reg, unsigned lane) { return W.vrow(reg)[lane]; }
  void fillV(unsigned reg, uint32_t val) {
    for (unsigned l = 0; l < 64; ++l)
      W.vrow(reg)[l] = val;
  }
  void setSgprPair(unsigned s, uint64_t val) {
    W.S[s] = uint32_t(val);
    W.S[s + 1] = uint32_t(val >> 32);
  }
  // Buffer resource in s[s..s+3].
  void setRsrc(unsigned s, uint64_t base, uint32_t stride, uint32_t numRecords,
               bool swizzle = false, unsigned indexStride = 0, bool addTid = false,
               unsigned dfmt = 4, unsigned nfmt = 4, uint32_t dstSel = 0xfac /*x,y,z,w*/) {
    W.S[s] = uint32_t(base);
    W.S[s + 1] =
        uint32_t((base >> 32) & 0xffff) | ((stride & 0x3fff) << 16) | (swizzle ? 0x80000000u : 0);
    W.S[s + 2] = numRecords;
    W.S[s + 3] = (dstSel & 0xfff) | (nfmt << 12) | (dfmt << 15) | (indexStride << 21) |
                 (addTid ? (1u << 23) : 0);
  }
  bool vmem(const Inst &in) { return execVmem(C, in); }
  bool lds(const Inst &in) { return execLds(C, in); }
};

uint16_t u8At(size_t i) { return uint8_t(i * 7 + 3); }
uint32_t patDword(size_t off) {
  return u8At(off) | (u8At(off + 1) << 8) | (uint32_t(u8At(off + 2)) << 16) |
         (uint32_t(u8At(off + 3)) << 24);
}

Inst global(Op op) {
  Inst in;
  in.Operation = op;
  in.Encoding = Enc::GLOBAL;
  return in;
}
Inst buffer(Op op, Enc enc = Enc::MUBUF) {
  Inst in;
  in.Operation = op;
  in.Encoding = enc;
  in.Sbase = 8;
  in.Soffset = 128; // inline constant 0
  return in;
}
Inst dsInst(Op op) {
  Inst in;
  in.Operation = op;
  in.Encoding = Enc::DS;
  return in;
}

// ---- GLOBAL / FLAT / SCRATCH -------------------------------------------------------------

TEST(Global, LoadDwordSaddrNegativeOffsetExecMask) {
  Env e;
  uint64_t base = e.pattern(1024);
  e.setSgprPair(10, base);
  const uint64_t exec = 0xF0F0F0F00000FFFFull;
  e.W.setExec(exec);
  for (unsigned l = 0; l < 64; ++l)
    e.v(1, l) = 8 + 4 * l;
  e.fillV(2, 0xdeadbeef);
  Inst in = global(Op::GLOBAL_LOAD_DWORD);
  in.Saddr = 10;
  in.Addr = V(1);
  in.Dst = V(2);
  in.Offset = -4;
  ASSERT_TRUE(e.vmem(in));
  for (unsigned l = 0; l < 64; ++l) {
    if ((exec >> l) & 1)
      EXPECT_EQ(e.v(2, l), patDword(4 + 4 * l)) << l;
    else
      EXPECT_EQ(e.v(2, l), 0xdeadbeefu) << l;
  }
}

TEST(Global, SaddrVgprOffsetIsUnsigned) {
  Env e;
  uint64_t base = e.pattern(64);
  // SGPR base below the buffer, 32-bit VGPR offset with the top bit set: not sign-extended.
  e.setSgprPair(10, base - 0x80000000ull);
  e.W.setExec(1);
  e.v(1, 0) = 0x80000010u;
  Inst in = global(Op::GLOBAL_LOAD_DWORD);
  in.Saddr = 10;
  in.Addr = V(1);
  in.Dst = V(2);
  ASSERT_TRUE(e.vmem(in));
  EXPECT_EQ(e.v(2, 0), patDword(16));
}

TEST(Global, StoreDwordX2VgprAddress) {
  Env e;
  uint64_t base = e.alloc(2048);
  for (unsigned l = 0; l < 64; ++l) {
    uint64_t a = base + 16ull * l;
    e.v(4, l) = uint32_t(a);
    e.v(5, l) = uint32_t(a >> 32);
    e.v(6, l) = 0x1000 + l;
    e.v(7, l) = 0x2000 + l;
  }
  e.W.setExec(0xAAAAAAAAAAAAAAAAull);
  Inst in = global(Op::GLOBAL_STORE_DWORDX2);
  in.Addr = V(4);
  in.Data0 = V(6);
  in.Offset = 8;
  ASSERT_TRUE(e.vmem(in));
  for (unsigned l = 0; l < 64; ++l) {
    uint64_t a = base + 16ull * l + 8;
    if (l & 1) {
      EXPECT_EQ(e.rd32(a), 0x1000u + l);
      EXPECT_EQ(e.rd32(a + 4), 0x2000u + l);
    } else {
      EXPECT_EQ(e.rd64(a), 0u);
    }
  }
}

TEST(Global, LoadX4ToAgprsAndSubDword) {
  Env e;
  uint64_t base = e.pattern(256);
  e.setSgprPair(10, base);
  e.fillV(0, 32);
  Inst in = global(Op::GLOBAL_LOAD_DWORDX4);
  in.Saddr = 10;
  in.Addr = V(0);
  in.Dst = A(4);
  ASSERT_TRUE(e.vmem(in));
  for (unsigned k = 0; k < 4; ++k)
    EXPECT_EQ(e.W.vrow(256 + 4 + k)[7], patDword(32 + 4 * k));

  Inst sb = global(Op::GLOBAL_LOAD_SBYTE);
  sb.Saddr = 10;
  sb.Addr = V(0);
  sb.Dst = V(9);
  e.fillV(0, 19); // byte 19 = 19*7+3 = 136 = 0x88: negative
  ASSERT_TRUE(e.vmem(sb));
  EXPECT_EQ(e.v(9, 3), 0xffffff88u);
  Inst ub = sb;
  ub.Operation = Op::GLOBAL_LOAD_UBYTE;
  ASSERT_TRUE(e.vmem(ub));
  EXPECT_EQ(e.v(9, 3), 0x88u);
  Inst ss = sb;
  ss.Operation = Op::GLOBAL_LOAD_SSHORT; // bytes 19,20 = 0x88, 0x8f
  ASSERT_TRUE(e.vmem(ss));
  EXPECT_EQ(e.v(9, 3), 0xffff8f88u);
}

TEST(Global, D16PreservesOtherHalf) {
  Env e;
  uint64_t base = e.pattern(64);
  e.setSgprPair(10, base);
  e.fillV(0, 19); // bytes 0x88 0x8f
  Inst in = global(Op::GLOBAL_LOAD_SHORT_D16_HI);
  in.Saddr = 10;
  in.Addr = V(0);
  in.Dst = V(3);
  e.fillV(3, 0x12345678);
  ASSERT_TRUE(e.vmem(in));
  EXPECT_EQ(e.v(3, 0), 0x8f885678u);
  in.Operation = Op::GLOBAL_LOAD_SHORT_D16;
  e.fillV(3, 0x12345678);
  ASSERT_TRUE(e.vmem(in));
  EXPECT_EQ(e.v(3, 0), 0x12348f88u);
  in.Operation = Op::GLOBAL_LOAD_SBYTE_D16;
  e.fillV(3, 0x12345678);
  ASSERT_TRUE(e.vmem(in));
  EXPECT_EQ(e.v(3, 0), 0x1234ff88u);
  in.Operation = Op::GLOBAL_LOAD_UBYTE_D16_HI;
  e.fillV(3, 0x12345678);
  ASSERT_TRUE(e.vmem(in));
  EXPECT_EQ(e.v(3, 0), 0x00885678u);
  in.Operation = Op::GLOBAL_LOAD_SBYTE_D16_HI;
  e.fillV(3, 0x12345678);
  ASSERT_TRUE(e.vmem(in));
  EXPECT_EQ(e.v(3, 0), 0xff885678u);

  // Stores of the high half.
  uint64_t out = e.alloc(64);
  e.setSgprPair(12, out);
  e.W.setExec(1);
  e.v(0, 0) = 0;
  e.v(3, 0) = 0xaabbccdd;
  Inst st = global(Op::GLOBAL_STORE_SHORT_D16_HI);
  st.Saddr = 12;
  st.Addr = V(0);
  st.Data0 = V(3);
  ASSERT_TRUE(e.vmem(st));
  st.Operation = Op::GLOBAL_STORE_BYTE_D16_HI;
  st.Offset = 4;
  ASSERT_TRUE(e.vmem(st));
  EXPECT_EQ(e.rd32(out), 0x0000aabbu);
  EXPECT_EQ(e.rd32(out + 4), 0x000000bbu);
}

TEST(Global, FaultNamesLaneAndAddress) {
  Env e;
  uint64_t base = e.alloc(256);
  e.setSgprPair(10, base);
  e.W.setExec(0xffull);
  for (unsigned l = 0; l < 64; ++l)
    e.v(1, l) = 4 * l;
  e.v(1, 5) = 0x10000000; // far outside the buffer
  Inst in = global(Op::GLOBAL_LOAD_DWORD);
  in.Saddr = 10;
  in.Addr = V(1);
  in.Dst = V(2);
  try {
    e.vmem(in);
    FAIL() << "no fault";
  } catch (const EmuError &err) {
    EXPECT_EQ(err.Kind, EmuErrorKind::MemoryFault);
    std::string msg = err.what();
    EXPECT_NE(msg.find("(lane 5)"), std::string::npos) << msg;
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)(base + 0x10000000));
    EXPECT_NE(msg.find(hex), std::string::npos) << msg;
    EXPECT_NE(msg.find("global_load_dword"), std::string::npos) << msg;
    EXPECT_NE(msg.find("0x1000"), std::string::npos) << msg;
  }
  // Running past the end of the allocation is a fault too.
  e.v(1, 5) = 254;
  EXPECT_THROW(e.vmem(in), EmuError);
}

TEST(Global, AtomicsReturnPreOpInLaneOrder) {
  Env e;
  uint64_t base = e.alloc(256);
  e.wr32(base, 100);
  e.setSgprPair(10, base);
  e.fillV(0, 0);
  for (unsigned l = 0; l < 64; ++l)
    e.v(1, l) = l + 1;
  e.fillV(2, 0xdeadbeef);
  const uint64_t exec = 0x00000000FFFFFFFFull;
  e.W.setExec(exec);
  Inst in = global(Op::GLOBAL_ATOMIC_ADD);
  in.Saddr = 10;
  in.Addr = V(0);
  in.Data0 = V(1);
  in.Dst = V(2);
  in.Sc0 = true;
  ASSERT_TRUE(e.vmem(in));
  uint32_t run = 100;
  for (unsigned l = 0; l < 32; ++l) {
    EXPECT_EQ(e.v(2, l), run);
    run += l + 1;
  }
  EXPECT_EQ(e.v(2, 40), 0xdeadbeefu);
  EXPECT_EQ(e.rd32(base), run);

  // Without return (glc/sc0 clear): memory changes, dst untouched.
  e.fillV(2, 0x5555);
  in.Sc0 = false;
  in.Operation = Op::GLOBAL_ATOMIC_SUB;
  ASSERT_TRUE(e.vmem(in));
  EXPECT_EQ(e.rd32(base), 100u);
  EXPECT_EQ(e.v(2, 0), 0x5555u);

  // cmpswap: DATA[31:0] = new value, DATA[63:32] = compare. Only the first lane matches.
  for (unsigned l = 0; l < 64; ++l) {
    e.v(4, l) = 1000 + l;
    e.v(5, l) = 100;
  }
  in.Operation = Op::GLOBAL_ATOMIC_CMPSWAP;
  in.Data0 = V(4);
  in.Glc = true;
  ASSERT_TRUE(e.vmem(in));
  EXPECT_EQ(e.rd32(base), 1000u);
  EXPECT_EQ(e.v(2, 0), 100u);
  EXPECT_EQ(e.v(2, 1), 1000u);

  // 64-bit: smax_x2 with negative values, umin_x2, cmpswap_x2.
  e.W.setExec(0xf);
  e.wr64(base + 8, uint64_t(-50));
  for (unsigned l = 0; l < 4; ++l) {
    uint64_t v = uint64_t(int64_t(l) * 20 - 60); // -60 -40 -20 0
    e.v(6, l) = uint32_t(v);
    e.v(7, l) = uint32_t(v >> 32);
  }
  Inst x2 = global(Op::GLOBAL_ATOMIC_SMAX_X2);
  x2.Saddr = 10;
  x2.Addr = V(0);
  x2.Offset = 8;
  x2.Data0 = V(6);
  x2.Dst = V(10);
  x2.Sc0 = true;
  ASSERT_TRUE(e.vmem(x2));
  EXPECT_EQ(e.rd64(base + 8), 0u);
  EXPECT_EQ(uint64_t(e.v(10, 2)) | (uint64_t(e.v(11, 2)) << 32), uint64_t(-40));
  x2.Operation = Op::GLOBAL_ATOMIC_CMPSWAP_X2;
  e.W.setExec(1);
  e.v(12, 0) = 7;
  e.v(13, 0) = 9; // new value 0x900000007
  e.v(14, 0) = 0;
  e.v(15, 0) = 0; // compare 0
  x2.Data0 = V(12);
  ASSERT_TRUE(e.vmem(x2));
  EXPECT_EQ(e.rd64(base + 8), 0x900000007ull);
}

TEST(Global, FloatAtomics) {
  Env e;
  uint64_t base = e.alloc(64);
  e.setSgprPair(10, base);
  e.fillV(0, 0);
  e.W.setExec(0x7);
  // add_f32: 1.5 + 3 * 0.25
  e.wr32(base, f32ToBits(1.5f));
  e.fillV(1, f32ToBits(0.25f));
  Inst in = global(Op::GLOBAL_ATOMIC_ADD_F32);
  in.Saddr = 10;
  in.Addr = V(0);
  in.Data0 = V(1);
  ASSERT_TRUE(e.vmem(in));
  EXPECT_EQ(bitsToF32(e.rd32(base)), 2.25f);
  // pk_add_f16: (1.0, 2.0) + 3 * (0.5, -1.0) = (2.5, -1.0)
  e.wr32(base + 4, 0x3c00u | (0x4000u << 16));
  e.fillV(1, 0x3800u | (0xbc00u << 16));
  in.Operation = Op::GLOBAL_ATOMIC_PK_ADD_F16;
  in.Offset = 4;
  ASSERT_TRUE(e.vmem(in));
  EXPECT_EQ(e.rd32(base + 4), 0x4100u | (0xbc00u << 16));
  // pk_add_bf16: 1.0 + 3 * 1.0 = 4.0 in both halves
  e.wr32(base + 8, 0x3f803f80u);
  e.fillV(1, 0x3f803f80u);
  in.Operation = Op::GLOBAL_ATOMIC_PK_ADD_BF16;
  in.Offset = 8;
  ASSERT_TRUE(e.vmem(in));
  EXPECT_EQ(e.rd32(base + 8), 0x40804080u);
  // add_f64 / max_f64 with return
  e.wr64(base + 16, f64ToBits(1.0));
  for (unsigned l = 0; l < 3; ++l)
    writeVector64(e.W, V(2), l, f64ToBits(0.5 * (l + 1)));
  in.Operation = Op::GLOBAL_ATOMIC_ADD_F64;
  in.Offset = 16;
  in.Data0 = V(2);
  ASSERT_TRUE(e.vmem(in));
  EXPECT_EQ(bitsToF64(e.rd64(base + 16)), 4.0);
  in.Operation = Op::GLOBAL_ATOMIC_MIN_F64;
  in.Dst = V(6);
  in.Sc0 = true;
  ASSERT_TRUE(e.vmem(in));
  EXPECT_EQ(bitsToF64(e.rd64(base + 16)), 0.5);
  EXPECT_EQ(bitsToF64(readVector64(e.W, V(6), 1)), 0.5);
  EXPECT_EQ(bitsToF64(readVector64(e.W, V(6), 0)), 4.0);
}

TEST(Global, IncDecWrap) {
  Env e;
  uint64_t base = e.alloc(64);
  e.setSgprPair(10, base);
  e.fillV(0, 0);
  e.fillV(1, 2); // limit
  e.W.setExec(0x1f);
  Inst in = global(Op::GLOBAL_ATOMIC_INC);
  in.Saddr = 10;
  in.Addr = V(0);
  in.Data0 = V(1);
  in.Dst = V(2);
  in.Sc0 = true;
  ASSERT_TRUE(e.vmem(in)); // 0,1,2,0,1 -> 2
  EXPECT_EQ(e.v(2, 3), 0u);
  EXPECT_EQ(e.rd32(base), 2u);
  in.Operation = Op::GLOBAL_ATOMIC_DEC; // returns 2,1,0,2,1 -> 0
  ASSERT_TRUE(e.vmem(in));
  EXPECT_EQ(e.v(2, 2), 0u);
  EXPECT_EQ(e.v(2, 3), 2u);
  EXPECT_EQ(e.rd32(base), 0u);
}

TEST(Flat, GlobalAndLdsApertures) {
  Env e;
  uint64_t base = e.pattern(64);
  e.Wg.Lds.assign(256, 0);
  e.Wg.Lds[20] = 0x44;
  e.W.setExec(3);
  // lane 0: global, lane 1: LDS through the shared aperture
  uint64_t a0 = base + 8, a1 = kSharedApertureBase + 16;
  e.v(0, 0) = uint32_t(a0);
  e.v(1, 0) = uint32_t(a0 >> 32);
  e.v(0, 1) = uint32_t(a1);
  e.v(1, 1) = uint32_t(a1 >> 32);
  Inst in;
  in.Operation = Op::FLAT_LOAD_DWORD;
  in.Encoding = Enc::FLAT;
  in.Addr = V(0);
  in.Dst = V(2);
  in.Offset = 4;
  ASSERT_TRUE(e.vmem(in));
  EXPECT_EQ(e.v(2, 0), patDword(12));
  EXPECT_EQ(e.v(2, 1), 0x44u);
  // flat atomic on LDS
  e.fillV(3, 5);
  in.Operation = Op::FLAT_ATOMIC_ADD;
  in.Data0 = V(3);
  in.Glc = true;
  in.Offset = 0;
  e.W.setExec(2);
  ASSERT_TRUE(e.vmem(in));
  EXPECT_EQ(e.v(2, 1), 0u);
  EXPECT_EQ(e.Wg.Lds[16], 5);
}

TEST(Scratch, SaddrVaddrAndPerLaneSegments) {
  Env e;
  const uint32_t perLane = 64;
  uint64_t priv = e.alloc(perLane * 64);
  e.C.ScratchBase = priv;
  e.C.ScratchPerLane = perLane;
  e.W.S[kFlatScratchLo] = uint32_t(priv);
  e.W.S[kFlatScratchHi] = uint32_t(priv >> 32);
  e.W.S[20] = 16; // saddr
  for (unsigned l = 0; l < 64; ++l) {
    e.v(0, l) = 4;
    e.v(1, l) = 0xabc00 + l;
  }
  // gfx940 SVE: saddr + vaddr + offset
  Inst in;
  in.Operation = Op::SCRATCH_STORE_DWORD;
  in.Encoding = Enc::SCRATCH;
  in.Saddr = 20;
  in.Addr = V(0);
  in.Data0 = V(1);
  in.Offset = -8;
  in.Sve = true;
  ASSERT_TRUE(e.vmem(in));
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(e.rd32(priv + l * perLane + 12), 0xabc00u + l);
  // saddr only
  Inst ld;
  ld.Operation = Op::SCRATCH_LOAD_DWORD;
  ld.Encoding = Enc::SCRATCH;
  ld.Saddr = 20;
  ld.Dst = V(2);
  ld.Offset = -4;
  ASSERT_TRUE(e.vmem(ld));
  EXPECT_EQ(e.v(2, 9), 0xabc09u);
  // vaddr only, out of the lane's segment -> fault
  ld.Saddr = kNoOperand;
  ld.Addr = V(0);
  ld.Offset = 64;
  EXPECT_THROW(e.vmem(ld), EmuError);
}

// ---- MUBUF / MTBUF -----------------------------------------------------------------------

TEST(Buffer, RawRangeCheckLoadStore) {
  Env e;
  uint64_t base = e.pattern(1024);
  e.setRsrc(8, base, 0, 64); // raw: 64 bytes
  for (unsigned l = 0; l < 64; ++l)
    e.v(0, l) = 4 * l;
  e.fillV(1, 0xdeadbeef);
  Inst in = buffer(Op::BUFFER_LOAD_DWORD);
  in.Offen = true;
  in.Addr = V(0);
  in.Dst = V(1);
  ASSERT_TRUE(e.vmem(in));
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(e.v(1, l), l < 16 ? patDword(4 * l) : 0u) << l;

  // soffset and inst offset count: with soffset 8 + offset 4, only lanes 0..12 fit.
  e.W.S[30] = 8;
  in.Soffset = 30;
  in.Offset = 4;
  ASSERT_TRUE(e.vmem(in));
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(e.v(1, l), l < 13 ? patDword(12 + 4 * l) : 0u) << l;

  // dwordx4 straddling the end: per-dword check.
  Inst x4 = buffer(Op::BUFFER_LOAD_DWORDX4);
  x4.Offen = true;
  x4.Addr = V(0);
  x4.Dst = V(4);
  e.W.setExec(1);
  e.v(0, 0) = 56;
  ASSERT_TRUE(e.vmem(x4));
  EXPECT_EQ(e.v(4, 0), patDword(56));
  EXPECT_EQ(e.v(5, 0), patDword(60));
  EXPECT_EQ(e.v(6, 0), 0u);
  EXPECT_EQ(e.v(7, 0), 0u);

  // Out-of-range stores are dropped (the memory beyond num_records is mapped).
  uint64_t out = e.alloc(256, 0x11);
  e.setRsrc(8, out, 0, 32);
  e.W.setExec(~0ull);
  for (unsigned l = 0; l < 64; ++l) {
    e.v(0, l) = 4 * l;
    e.v(2, l) = 0x100 + l;
  }
  Inst st = buffer(Op::BUFFER_STORE_DWORD);
  st.Offen = true;
  st.Addr = V(0);
  st.Data0 = V(2);
  ASSERT_TRUE(e.vmem(st));
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(e.rd32(out + 4 * l), l < 8 ? 0x100u + l : 0x11111111u) << l;
  // A masked-off huge offset (Triton's OOB trick) is not a fault.
  e.v(0, 3) = 0x80000000u;
  EXPECT_TRUE(e.vmem(st));
}

TEST(Buffer, OffenOnlyThroughAStridedRsrcIsCheckedByByteOffset) {
  // AITer's GEMMs: stride 4, num_records = the buffer's bytes (64), offsets only (no idxen).
  // Lanes whose dword lies past byte 64 read 0 and their stores are dropped.
  Env e;
  uint64_t base = e.pattern(256);
  e.setRsrc(8, base, 4, 64);
  for (unsigned l = 0; l < 64; ++l)
    e.v(1, l) = 4 * l;
  Inst in = buffer(Op::BUFFER_LOAD_DWORD);
  in.Offen = true;
  in.Addr = V(1);
  in.Dst = V(2);
  ASSERT_TRUE(e.vmem(in));
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(e.v(2, l), l < 16 ? patDword(4 * l) : 0u) << "lane " << l;
  e.fillV(3, 0xabcdef01);
  Inst st = buffer(Op::BUFFER_STORE_DWORD);
  st.Offen = true;
  st.Addr = V(1);
  st.Data0 = V(3);
  ASSERT_TRUE(e.vmem(st));
  EXPECT_EQ(e.rd32(base + 60), 0xabcdef01u);
  EXPECT_EQ(e.rd32(base + 64), patDword(64)); // past num_records: dropped
}

TEST(Buffer, InRangeOutsideAllocationFaults) {
  Env e;
  uint64_t base = e.alloc(64);
  e.setRsrc(8, base, 0, 0x10000); // num_records larger than the allocation
  e.W.setExec(1ull << 7);
  e.v(0, 7) = 0x1000;
  Inst in = buffer(Op::BUFFER_LOAD_DWORD);
  in.Offen = true;
  in.Addr = V(0);
  in.Dst = V(1);
  try {
    e.vmem(in);
    FAIL();
  } catch (const EmuError &err) {
    EXPECT_EQ(err.Kind, EmuErrorKind::MemoryFault);
    EXPECT_NE(std::string(err.what()).find("(lane 7)"), std::string::npos);
  }
}

TEST(Buffer, StructuredIdxenOffen) {
  Env e;
  uint64_t base = e.pattern(1024);
  e.setRsrc(8, base, 16, 4); // 4 records of 16 bytes
  for (unsigned l = 0; l < 64; ++l) {
    e.v(0, l) = l % 8;       // index
    e.v(1, l) = 4 * (l / 8); // offset
  }
  Inst in = buffer(Op::BUFFER_LOAD_DWORD);
  in.Idxen = true;
  in.Offen = true;
  in.Addr = V(0);
  in.Dst = V(2);
  in.Offset = 2;
  ASSERT_TRUE(e.vmem(in));
  for (unsigned l = 0; l < 64; ++l) {
    unsigned idx = l % 8, off = 4 * (l / 8) + 2;
    // Non-swizzled structured buffers check the index only.
    EXPECT_EQ(e.v(2, l), idx < 4 ? patDword(idx * 16 + off) : 0u) << l;
  }
  // idxen only
  Inst i2 = buffer(Op::BUFFER_LOAD_USHORT);
  i2.Idxen = true;
  i2.Addr = V(0);
  i2.Dst = V(3);
  ASSERT_TRUE(e.vmem(i2));
  EXPECT_EQ(e.v(3, 2), patDword(32) & 0xffffu);
  EXPECT_EQ(e.v(3, 5), 0u);
}

TEST(Buffer, SwizzledAddressing) {
  Env e;
  uint64_t base = e.pattern(4096);
  // stride 8, swizzle, index_stride 8 (field 0), element size 4, 64 records.
  e.setRsrc(8, base, 8, 64, true, 0);
  e.W.setExec(3);
  e.v(0, 0) = 9;
  e.v(1, 0) = 4; // idx 9 off 4: (1*8 + 4)*8 + 1*4 + 0 = 100
  e.v(0, 1) = 3;
  e.v(1, 1) = 2; // idx 3 off 2: (0 + 0)*8 + 3*4 + 2 = 14
  Inst in = buffer(Op::BUFFER_LOAD_DWORD);
  in.Idxen = true;
  in.Offen = true;
  in.Addr = V(0);
  in.Dst = V(2);
  ASSERT_TRUE(e.vmem(in));
  EXPECT_EQ(e.v(2, 0), patDword(100));
  EXPECT_EQ(e.v(2, 1), patDword(14));
  // dwordx2 at offset 4 of a record: second dword is at offset 8 >= stride -> 0.
  Inst x2 = in;
  x2.Operation = Op::BUFFER_LOAD_DWORDX2;
  x2.Dst = V(4);
  e.W.setExec(1);
  e.v(1, 0) = 0; // idx 9 off 0 -> (8 + 0)*8 + 4 = 68; off 4 -> 100
  ASSERT_TRUE(e.vmem(x2));
  EXPECT_EQ(e.v(4, 0), patDword(68));
  EXPECT_EQ(e.v(5, 0), patDword(100));
  e.v(1, 0) = 4;
  ASSERT_TRUE(e.vmem(x2));
  EXPECT_EQ(e.v(4, 0), patDword(100));
  EXPECT_EQ(e.v(5, 0), 0u);
  // index_stride 16 (field 1): idx 17 off 4: (1*8 + 4)*16 + 1*4 = 196
  e.setRsrc(8, base, 8, 64, true, 1);
  e.v(0, 0) = 17;
  ASSERT_TRUE(e.vmem(in));
  EXPECT_EQ(e.v(2, 0), patDword(196));
}

TEST(Buffer, AddTidPrivateSegment) {
  Env e;
  uint64_t base = e.alloc(64 * 32);
  // The launch's private segment buffer: add_tid_enable, stride = per-lane bytes, no range
  // check (num_records 0 would otherwise reject everything).
  e.setRsrc(8, base, 32, 0, false, 0, true, 0);
  for (unsigned l = 0; l < 64; ++l)
    e.v(1, l) = 0x700 + l;
  e.W.S[30] = 4;
  Inst st = buffer(Op::BUFFER_STORE_DWORD);
  st.Soffset = 30;
  st.Offset = 8;
  st.Data0 = V(1);
  ASSERT_TRUE(e.vmem(st));
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(e.rd32(base + 32 * l + 12), 0x700u + l);
  // data_format extends the stride (bits 17:14) when add_tid_enable is set.
  uint64_t big = e.alloc(2 * 16384 + 64);
  e.setRsrc(8, big, 0, 0, false, 0, true, /*dfmt*/ 1);
  e.W.setExec(3);
  st.Soffset = 128;
  st.Offset = 0;
  ASSERT_TRUE(e.vmem(st));
  EXPECT_EQ(e.rd32(big), 0x700u);
  EXPECT_EQ(e.rd32(big + 16384), 0x701u);
}

TEST(Buffer, AtomicsAndOutOfRangeAtomics) {
  Env e;
  uint64_t base = e.alloc(256);
  e.setRsrc(8, base, 0, 8);
  e.wr32(base + 4, 10);
  e.wr32(base + 8, 77); // beyond num_records
  e.W.setExec(0xf);
  e.v(0, 0) = 4;
  e.v(0, 1) = 4;
  e.v(0, 2) = 8;
  e.v(0, 3) = 4;
  e.fillV(1, 3);
  e.fillV(2, 0xdeadbeef);
  Inst in = buffer(Op::BUFFER_ATOMIC_ADD);
  in.Offen = true;
  in.Addr = V(0);
  in.Data0 = V(1);
  in.Dst = V(2);
  in.Glc = true;
  ASSERT_TRUE(e.vmem(in));
  EXPECT_EQ(e.v(2, 0), 10u);
  EXPECT_EQ(e.v(2, 1), 13u);
  EXPECT_EQ(e.v(2, 2), 0u); // out of range: dropped, returns 0
  EXPECT_EQ(e.v(2, 3), 16u);
  EXPECT_EQ(e.rd32(base + 4), 19u);
  EXPECT_EQ(e.rd32(base + 8), 77u);
  // umax_x2 in range
  e.setRsrc(8, base, 0, 64);
  e.wr64(base + 16, 5);
  e.W.setExec(1);
  e.v(0, 0) = 16;
  e.v(4, 0) = 0;
  e.v(5, 0) = 1;
  Inst x2 = buffer(Op::BUFFER_ATOMIC_UMAX_X2);
  x2.Offen = true;
  x2.Addr = V(0);
  x2.Data0 = V(4);
  ASSERT_TRUE(e.vmem(x2));
  EXPECT_EQ(e.rd64(base + 16), 1ull << 32);
}

TEST(Buffer, D16AndCacheOps) {
  Env e;
  uint64_t base = e.pattern(64);
  e.setRsrc(8, base, 0, 64);
  e.fillV(0, 19);
  e.fillV(1, 0x12345678);
  Inst in = buffer(Op::BUFFER_LOAD_SHORT_D16_HI);
  in.Offen = true;
  in.Addr = V(0);
  in.Dst = V(1);
  ASSERT_TRUE(e.vmem(in));
  EXPECT_EQ(e.v(1, 0), 0x8f885678u);
  e.fillV(0, 100); // out of range: the half is written with 0, the other kept
  ASSERT_TRUE(e.vmem(in));
  EXPECT_EQ(e.v(1, 0), 0x00005678u);
  for (Op op : {Op::BUFFER_WBINVL1, Op::BUFFER_WBINVL1_VOL, Op::BUFFER_WBL2, Op::BUFFER_INV})
    EXPECT_TRUE(e.vmem(buffer(op)));
}

TEST(Buffer, FormatLoadsAndStores) {
  Env e;
  uint64_t base = e.pattern(256);
  // V# format 32_32 uint, dst_sel = (Y, X, 0, 1)
  uint32_t sel = 5 | (4 << 3) | (0 << 6) | (1 << 9);
  e.setRsrc(8, base, 8, 16, false, 0, false, 11, 4, sel);
  e.fillV(0, 2); // index 2
  Inst in = buffer(Op::BUFFER_LOAD_FORMAT_XYZW);
  in.Idxen = true;
  in.Addr = V(0);
  in.Dst = V(4);
  ASSERT_TRUE(e.vmem(in));
  EXPECT_EQ(e.v(4, 0), patDword(20));
  EXPECT_EQ(e.v(5, 0), patDword(16));
  EXPECT_EQ(e.v(6, 0), 0u);
  EXPECT_EQ(e.v(7, 0), 1u);
  // Out of range: zeros except SEL_1.
  e.fillV(0, 16);
  ASSERT_TRUE(e.vmem(in));
  EXPECT_EQ(e.v(4, 0), 0u);
  EXPECT_EQ(e.v(7, 0), 1u);

  // MTBUF: format from the instruction (32_32_32_32 float), xy load and xyz store.
  e.setRsrc(8, base, 0, 256);
  e.fillV(0, 32);
  Inst t = buffer(Op::TBUFFER_LOAD_FORMAT_XY, Enc::MTBUF);
  t.Offen = true;
  t.Addr = V(0);
  t.Dst = V(8);
  t.Dfmt = 14;
  t.Nfmt = 7;
  ASSERT_TRUE(e.vmem(t));
  EXPECT_EQ(e.v(8, 0), patDword(32));
  EXPECT_EQ(e.v(9, 0), patDword(36));
  uint64_t out = e.alloc(64, 0xee);
  e.setRsrc(8, out, 0, 64);
  e.W.setExec(1);
  e.v(0, 0) = 4;
  e.v(8, 0) = 1;
  e.v(9, 0) = 2;
  e.v(10, 0) = 3;
  Inst ts = buffer(Op::TBUFFER_STORE_FORMAT_XYZ, Enc::MTBUF);
  ts.Offen = true;
  ts.Addr = V(0);
  ts.Data0 = V(8);
  ts.Dfmt = 14;
  ts.Nfmt = 4;
  ASSERT_TRUE(e.vmem(ts));
  EXPECT_EQ(e.rd32(out + 4), 1u);
  EXPECT_EQ(e.rd32(out + 8), 2u);
  EXPECT_EQ(e.rd32(out + 12), 3u);
  EXPECT_EQ(e.rd32(out + 16), 0xeeeeeeeeu);
  // 16_16 float format through d16 xy: raw halves.
  e.wr32(out + 32, 0x3c00c000u);
  e.v(0, 0) = 32;
  Inst d = buffer(Op::TBUFFER_LOAD_FORMAT_D16_XY, Enc::MTBUF);
  d.Offen = true;
  d.Addr = V(0);
  d.Dst = V(12);
  d.Dfmt = 5;
  d.Nfmt = 7;
  ASSERT_TRUE(e.vmem(d));
  EXPECT_EQ(e.v(12, 0), 0x3c00c000u);
  // 16-bit float channel widened by a non-d16 load.
  d.Operation = Op::TBUFFER_LOAD_FORMAT_X;
  ASSERT_TRUE(e.vmem(d));
  EXPECT_EQ(e.v(12, 0), f32ToBits(-2.0f));
  // Unsupported format: not guessed.
  d.Dfmt = 8;
  EXPECT_FALSE(e.vmem(d));
}

// ---- DS ----------------------------------------------------------------------------------

TEST(Lds, ReadWriteOffsetsAndExec) {
  Env e;
  e.Wg.Lds.assign(4096, 0);
  const uint64_t exec = 0x8000000000000001ull | 0xff00;
  e.W.setExec(exec);
  for (unsigned l = 0; l < 64; ++l) {
    e.v(0, l) = 8 * l;
    e.v(1, l) = 0x1000 + l;
    e.v(2, l) = 0x2000 + l;
  }
  Inst w = dsInst(Op::DS_WRITE_B64);
  w.Addr = V(0);
  w.Data0 = V(1);
  w.Offset0 = 0x10;
  w.Offset1 = 0x01; // offset 0x110
  ASSERT_TRUE(e.lds(w));
  e.fillV(4, 0xdeadbeef);
  e.fillV(5, 0xdeadbeef);
  Inst r = dsInst(Op::DS_READ_B64);
  r.Addr = V(0);
  r.Dst = V(4);
  r.Offset0 = 0x10;
  r.Offset1 = 0x01;
  e.W.setExec(~0ull);
  ASSERT_TRUE(e.lds(r));
  for (unsigned l = 0; l < 64; ++l) {
    bool on = (exec >> l) & 1;
    EXPECT_EQ(e.v(4, l), on ? 0x1000u + l : 0u) << l;
    EXPECT_EQ(e.v(5, l), on ? 0x2000u + l : 0u) << l;
  }
  // Out of the LDS allocation: fault with the lane.
  e.W.setExec(1ull << 9);
  e.v(0, 9) = 4096 - 4;
  try {
    e.lds(r);
    FAIL();
  } catch (const EmuError &err) {
    EXPECT_EQ(err.Kind, EmuErrorKind::MemoryFault);
    EXPECT_NE(std::string(err.what()).find("(lane 9)"), std::string::npos);
  }
  EXPECT_FALSE(e.lds([] {
    Inst g = dsInst(Op::DS_READ_B32);
    g.Gds = true;
    return g;
  }()));
}

TEST(Lds, Read2Write2St64) {
  Env e;
  e.Wg.Lds.assign(65536, 0);
  for (unsigned l = 0; l < 64; ++l) {
    e.v(0, l) = 4 * l;
    e.v(1, l) = 0xa000 + l;
    e.v(2, l) = 0xb000 + l;
  }
  Inst w = dsInst(Op::DS_WRITE2_B32);
  w.Addr = V(0);
  w.Data0 = V(1);
  w.Data1 = V(2);
  w.Offset0 = 0;
  w.Offset1 = 64; // +256 bytes
  ASSERT_TRUE(e.lds(w));
  uint32_t v;
  std::memcpy(&v, &e.Wg.Lds[4 * 5], 4);
  EXPECT_EQ(v, 0xa005u);
  std::memcpy(&v, &e.Wg.Lds[256 + 4 * 5], 4);
  EXPECT_EQ(v, 0xb005u);

  Inst r = dsInst(Op::DS_READ2ST64_B32);
  r.Addr = V(0);
  r.Dst = V(4);
  r.Offset0 = 0;
  r.Offset1 = 1; // +256
  ASSERT_TRUE(e.lds(r));
  EXPECT_EQ(e.v(4, 7), 0xa007u);
  EXPECT_EQ(e.v(5, 7), 0xb007u);

  // write2st64_b64: offsets scaled by 512.
  for (unsigned l = 0; l < 64; ++l) {
    e.v(0, l) = 8 * l;
    writeVector64(e.W, V(6), l, 0x1111000000000000ull + l);
    writeVector64(e.W, V(8), l, 0x2222000000000000ull + l);
  }
  Inst w64 = dsInst(Op::DS_WRITE2ST64_B64);
  w64.Addr = V(0);
  w64.Data0 = V(6);
  w64.Data1 = V(8);
  w64.Offset0 = 2;
  w64.Offset1 = 5;
  ASSERT_TRUE(e.lds(w64));
  uint64_t q;
  std::memcpy(&q, &e.Wg.Lds[1024 + 8 * 3], 8);
  EXPECT_EQ(q, 0x1111000000000003ull);
  std::memcpy(&q, &e.Wg.Lds[2560 + 8 * 3], 8);
  EXPECT_EQ(q, 0x2222000000000003ull);
  Inst r64 = dsInst(Op::DS_READ2_B64);
  r64.Addr = V(0);
  r64.Dst = V(10);
  r64.Offset0 = 128; // 1024 / 8
  r64.Offset1 = 0;
  ASSERT_TRUE(e.lds(r64));
  EXPECT_EQ(readVector64(e.W, V(10), 3), 0x1111000000000003ull);
  // 8*3 bytes: written by the write2_b32 above (lanes 6 and 7).
  EXPECT_EQ(readVector64(e.W, V(12), 3), 0x0000a0070000a006ull);
}

TEST(Lds, SubDwordAndD16) {
  Env e;
  e.Wg.Lds.assign(256, 0);
  e.W.setExec(1);
  e.v(0, 0) = 10;
  e.v(1, 0) = 0xa1b2c3d4;
  Inst w = dsInst(Op::DS_WRITE_B8_D16_HI);
  w.Addr = V(0);
  w.Data0 = V(1);
  ASSERT_TRUE(e.lds(w));
  EXPECT_EQ(e.Wg.Lds[10], 0xb2);
  w.Operation = Op::DS_WRITE_B16;
  w.Offset0 = 2; // 12
  ASSERT_TRUE(e.lds(w));
  EXPECT_EQ(e.Wg.Lds[12], 0xd4);
  EXPECT_EQ(e.Wg.Lds[13], 0xc3);
  Inst r = dsInst(Op::DS_READ_U16_D16_HI);
  r.Addr = V(0);
  r.Dst = V(2);
  r.Offset0 = 2;
  e.v(2, 0) = 0x11112222;
  ASSERT_TRUE(e.lds(r));
  EXPECT_EQ(e.v(2, 0), 0xc3d42222u);
  r.Operation = Op::DS_READ_I8_D16;
  ASSERT_TRUE(e.lds(r));
  EXPECT_EQ(e.v(2, 0), 0xc3d4ffd4u);
  r.Operation = Op::DS_READ_I16;
  ASSERT_TRUE(e.lds(r));
  EXPECT_EQ(e.v(2, 0), 0xffffc3d4u);
}

// Every sub-dword and D16 read shape, on all lanes under a partial EXEC and under a full one
// (where each lane's dword is gathered at once), also with the last lane's bytes at the very
// end of the LDS (no whole dword to gather there), against the ISA's definitions computed here
// from the LDS bytes: zero- or sign-extend 8/16 bits into the dword, or (D16) into one half
// with the other half kept.
TEST(Lds, SubDwordReadShapesAllLanes) {
  Env e;
  struct Shape {
    Op Operation;
    unsigned Bytes;
    bool Sign;
    int Half; // -1 whole dword, 0 low half (high kept), 1 high half (low kept)
  };
  const Shape shapes[] = {
      {Op::DS_READ_U8, 1, false, -1},       {Op::DS_READ_I8, 1, true, -1},
      {Op::DS_READ_U16, 2, false, -1},      {Op::DS_READ_I16, 2, true, -1},
      {Op::DS_READ_U8_D16, 1, false, 0},    {Op::DS_READ_I8_D16, 1, true, 0},
      {Op::DS_READ_U8_D16_HI, 1, false, 1}, {Op::DS_READ_I8_D16_HI, 1, true, 1},
      {Op::DS_READ_U16_D16, 2, false, 0},   {Op::DS_READ_U16_D16_HI, 2, false, 1},
  };
  struct Case {
    uint64_t Exec;
    bool Tight; // the LDS ends right after the highest lane's bytes
  };
  for (const Case &cs : {Case{0xf0f0ffff0000a5a5ull, false}, Case{~0ull, false}, Case{~0ull, true}})
    for (const Shape &sh : shapes) {
      const uint64_t exec = cs.Exec;
      // lane 0 reads the highest address, 2 * 63 + 8 + 6
      e.Wg.Lds.resize(cs.Tight ? 2 * 63 + 14 + sh.Bytes : 512);
      for (unsigned i = 0; i < e.Wg.Lds.size(); ++i)
        e.Wg.Lds[i] = uint8_t(i * 37 + 11); // both signs in every byte position
      e.W.setExec(exec);
      for (unsigned l = 0; l < 64; ++l) {
        e.v(0, l) = 2 * (63 - l) + 8; // even addresses, lanes not in order
        e.v(2, l) = 0x12345678u + l;
      }
      Inst r = dsInst(sh.Operation);
      r.Addr = V(0);
      r.Dst = V(2);
      r.Offset0 = 6;
      ASSERT_TRUE(e.lds(r)) << opName(sh.Operation);
      for (unsigned l = 0; l < 64; ++l) {
        const uint32_t old = 0x12345678u + l;
        if (!((exec >> l) & 1)) {
          EXPECT_EQ(e.v(2, l), old) << opName(sh.Operation) << " lane " << l;
          continue;
        }
        const unsigned a = 2 * (63 - l) + 8 + 6;
        uint32_t raw = e.Wg.Lds[a] | (sh.Bytes == 2 ? uint32_t(e.Wg.Lds[a + 1]) << 8 : 0u);
        const unsigned bits = 8 * sh.Bytes;
        const bool neg = sh.Sign && ((raw >> (bits - 1)) & 1);
        uint32_t want;
        if (sh.Half < 0) {
          want = neg ? raw | (~0u << bits) : raw;
        } else {
          const uint32_t h = (neg ? raw | (~0u << bits) : raw) & 0xffffu;
          want = sh.Half ? (old & 0xffffu) | (h << 16) : (old & 0xffff0000u) | h;
        }
        EXPECT_EQ(e.v(2, l), want) << opName(sh.Operation) << " lane " << l << " exec " << cs.Exec
                                   << (cs.Tight ? " tight" : "");
      }
    }
}

TEST(Lds, AtomicsLaneOrder) {
  Env e;
  e.Wg.Lds.assign(256, 0);
  uint32_t init = 5;
  std::memcpy(&e.Wg.Lds[16], &init, 4);
  e.fillV(0, 12);
  for (unsigned l = 0; l < 64; ++l)
    e.v(1, l) = l;
  Inst in = dsInst(Op::DS_ADD_RTN_U32);
  in.Addr = V(0);
  in.Data0 = V(1);
  in.Dst = V(2);
  in.Offset0 = 4;
  const uint64_t exec = 0x0F0F0F0F0F0F0F0Full;
  e.W.setExec(exec);
  e.fillV(2, 0xdeadbeef);
  ASSERT_TRUE(e.lds(in));
  uint32_t run = 5;
  for (unsigned l = 0; l < 64; ++l) {
    if ((exec >> l) & 1) {
      EXPECT_EQ(e.v(2, l), run);
      run += l;
    } else {
      EXPECT_EQ(e.v(2, l), 0xdeadbeefu);
    }
  }
  uint32_t m;
  std::memcpy(&m, &e.Wg.Lds[16], 4);
  EXPECT_EQ(m, run);

  // cmpst: DATA0 = compare, DATA1 = new value.
  e.W.setExec(3);
  e.v(3, 0) = run;
  e.v(4, 0) = 99;
  e.v(3, 1) = run;
  e.v(4, 1) = 77;
  Inst cs = dsInst(Op::DS_CMPST_RTN_B32);
  cs.Addr = V(0);
  cs.Data0 = V(3);
  cs.Data1 = V(4);
  cs.Dst = V(5);
  cs.Offset0 = 4;
  ASSERT_TRUE(e.lds(cs));
  std::memcpy(&m, &e.Wg.Lds[16], 4);
  EXPECT_EQ(m, 99u);
  EXPECT_EQ(e.v(5, 0), run);
  EXPECT_EQ(e.v(5, 1), 99u);

  // rsub, mskor, min_i32, max_f32, wrxchg
  e.W.setExec(1);
  Inst a = dsInst(Op::DS_RSUB_U32);
  a.Addr = V(0);
  a.Offset0 = 4;
  a.Data0 = V(6);
  e.v(6, 0) = 100;
  ASSERT_TRUE(e.lds(a)); // 100 - 99
  std::memcpy(&m, &e.Wg.Lds[16], 4);
  EXPECT_EQ(m, 1u);
  a.Operation = Op::DS_MSKOR_B32;
  a.Data1 = V(7);
  e.v(6, 0) = 0x1;
  e.v(7, 0) = 0xf0;
  ASSERT_TRUE(e.lds(a));
  std::memcpy(&m, &e.Wg.Lds[16], 4);
  EXPECT_EQ(m, 0xf0u);
  a.Operation = Op::DS_MIN_I32;
  e.v(6, 0) = uint32_t(-3);
  ASSERT_TRUE(e.lds(a));
  std::memcpy(&m, &e.Wg.Lds[16], 4);
  EXPECT_EQ(m, uint32_t(-3));
  a.Operation = Op::DS_WRXCHG_RTN_B32;
  a.Dst = V(8);
  e.v(6, 0) = 42;
  ASSERT_TRUE(e.lds(a));
  EXPECT_EQ(e.v(8, 0), uint32_t(-3));
  a.Operation = Op::DS_ADD_RTN_F32;
  e.v(6, 0) = f32ToBits(1.5f);
  std::memcpy(&e.Wg.Lds[16], &(m = f32ToBits(2.0f)), 4);
  ASSERT_TRUE(e.lds(a));
  std::memcpy(&m, &e.Wg.Lds[16], 4);
  EXPECT_EQ(bitsToF32(m), 3.5f);
  EXPECT_EQ(bitsToF32(e.v(8, 0)), 2.0f);
  // 64-bit add_rtn
  uint64_t q = 0xffffffffull;
  std::memcpy(&e.Wg.Lds[32], &q, 8);
  Inst a64 = dsInst(Op::DS_ADD_RTN_U64);
  a64.Addr = V(0);
  a64.Offset0 = 20;
  a64.Data0 = V(10);
  a64.Dst = V(12);
  writeVector64(e.W, V(10), 0, 1);
  ASSERT_TRUE(e.lds(a64));
  std::memcpy(&q, &e.Wg.Lds[32], 8);
  EXPECT_EQ(q, 0x100000000ull);
  EXPECT_EQ(readVector64(e.W, V(12), 0), 0xffffffffull);
}

TEST(Lds, ConflictingWritesHighestLaneWins) {
  Env e;
  e.Wg.Lds.assign(64, 0);
  e.fillV(0, 8);
  for (unsigned l = 0; l < 64; ++l)
    e.v(1, l) = l;
  e.W.setExec(0x00ff00ff00ff00ffull);
  Inst w = dsInst(Op::DS_WRITE_B32);
  w.Addr = V(0);
  w.Data0 = V(1);
  ASSERT_TRUE(e.lds(w));
  EXPECT_EQ(e.Wg.Lds[8], 55);
}

TEST(Lds, PermuteBpermute) {
  Env e;
  for (unsigned l = 0; l < 64; ++l) {
    e.v(1, l) = 0x100 + l;
    e.v(0, l) = 4 * ((l + 1) % 64); // bpermute: read from lane l+1
  }
  const uint64_t exec = ~(1ull << 5); // lane 5 inactive
  e.W.setExec(exec);
  e.fillV(2, 0xdeadbeef);
  Inst b = dsInst(Op::DS_BPERMUTE_B32);
  b.Addr = V(0);
  b.Data0 = V(1);
  b.Dst = V(2);
  ASSERT_TRUE(e.lds(b));
  for (unsigned l = 0; l < 64; ++l) {
    unsigned src = (l + 1) % 64;
    if (l == 5)
      EXPECT_EQ(e.v(2, l), 0xdeadbeefu);
    else
      EXPECT_EQ(e.v(2, l), src == 5 ? 0u : 0x100 + src) << l;
  }
  // offset applies, high bits of the address ignored
  b.Offset0 = 4;
  for (unsigned l = 0; l < 64; ++l)
    e.v(0, l) = 0x10000 + 4 * l; // lane l reads lane l+1 via offset
  ASSERT_TRUE(e.lds(b));
  EXPECT_EQ(e.v(2, 10), 0x10bu);
  EXPECT_EQ(e.v(2, 63), 0x100u);

  // permute: lane l writes to lane (l*2)%64; collisions -> the highest source lane wins.
  for (unsigned l = 0; l < 64; ++l)
    e.v(0, l) = 4 * ((2 * l) % 64);
  e.W.setExec(~0ull);
  Inst p = dsInst(Op::DS_PERMUTE_B32);
  p.Addr = V(0);
  p.Data0 = V(1);
  p.Dst = V(3);
  ASSERT_TRUE(e.lds(p));
  EXPECT_EQ(e.v(3, 0), 0x100u + 32);
  EXPECT_EQ(e.v(3, 2), 0x100u + 33);
  EXPECT_EQ(e.v(3, 1), 0u); // nobody writes odd lanes
}

TEST(Lds, Swizzle) {
  Env e;
  for (unsigned l = 0; l < 64; ++l)
    e.v(1, l) = l;
  Inst s = dsInst(Op::DS_SWIZZLE_B32);
  s.Addr =
      V(1); // the source is encoded in the ADDR field (llvm-mc: ds_swizzle_b32 v1, v5 -> addr 5)
  s.Dst = V(2);
  auto run = [&](unsigned off) {
    s.Offset0 = uint8_t(off);
    s.Offset1 = uint8_t(off >> 8);
    EXPECT_TRUE(e.lds(s));
  };
  // quad perm (3,2,1,0): reverse each quad
  run(0x8000 | (3 << 0) | (2 << 2) | (1 << 4) | (0 << 6));
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(e.v(2, l), (l & ~3u) | (3 - (l & 3))) << l;
  // bit mask: and 0x1f, or 0, xor 1 -> swap neighbours
  run((1 << 10) | 0x1f);
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(e.v(2, l), l ^ 1u) << l;
  // broadcast lane 3 of each 32-lane half: and 0, or 3
  run((3 << 5) | 0);
  EXPECT_EQ(e.v(2, 10), 3u);
  EXPECT_EQ(e.v(2, 40), 35u);
  // FFT mode, mask 0: the ISA table lists (1-based hex) 1,11,9,19,5,15,...
  run(0xe000);
  const unsigned fft[8] = {0x1, 0x11, 0x9, 0x19, 0x5, 0x15, 0xd, 0x1d};
  for (unsigned l = 0; l < 8; ++l)
    EXPECT_EQ(e.v(2, l), fft[l] - 1) << l;
  EXPECT_EQ(e.v(2, 32 + 1), 32u + 0x10);
  // FFT mask 0x10 table: 1,9,5,d,... and 0x11 at index 16
  run(0xe010);
  EXPECT_EQ(e.v(2, 1), 0x8u);
  EXPECT_EQ(e.v(2, 3), 0xcu);
  EXPECT_EQ(e.v(2, 16), 0x10u);
  // FFT 0x1f: no swizzle
  run(0xe01f);
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(e.v(2, l), l);
  // inactive source lanes read 0
  e.W.setExec(~2ull);
  run((1 << 10) | 0x1f);
  EXPECT_EQ(e.v(2, 0), 0u);
  EXPECT_EQ(e.v(2, 3), 2u);
}

TEST(Lds, AddTid) {
  Env e;
  e.Wg.Lds.assign(1024, 0);
  e.W.S[kM0] = 0x10000 | 64; // only M0[15:0] counts
  for (unsigned l = 0; l < 64; ++l)
    e.v(1, l) = 0x300 + l;
  Inst w = dsInst(Op::DS_WRITE_ADDTID_B32);
  w.Data0 = V(1);
  w.Offset0 = 4;
  ASSERT_TRUE(e.lds(w));
  uint32_t v;
  std::memcpy(&v, &e.Wg.Lds[68 + 4 * 10], 4);
  EXPECT_EQ(v, 0x30au);
  Inst r = dsInst(Op::DS_READ_ADDTID_B32);
  r.Dst = V(2);
  r.Offset0 = 4;
  ASSERT_TRUE(e.lds(r));
  EXPECT_EQ(e.v(2, 63), 0x33fu);
}

TEST(Lds, Wrxchg2ReadsBeforeWriting) {
  Env e;
  e.Wg.Lds.assign(256, 0);
  uint32_t a = 11, b = 22;
  std::memcpy(&e.Wg.Lds[0], &a, 4);
  std::memcpy(&e.Wg.Lds[8], &b, 4);
  e.W.setExec(1);
  e.v(0, 0) = 0;
  e.v(1, 0) = 33;
  e.v(2, 0) = 44;
  Inst x = dsInst(Op::DS_WRXCHG2_RTN_B32);
  x.Addr = V(0);
  x.Data0 = V(1);
  x.Data1 = V(2);
  x.Dst = V(4);
  x.Offset0 = 0;
  x.Offset1 = 2;
  ASSERT_TRUE(e.lds(x));
  EXPECT_EQ(e.v(4, 0), 11u);
  EXPECT_EQ(e.v(5, 0), 22u);
  std::memcpy(&a, &e.Wg.Lds[0], 4);
  std::memcpy(&b, &e.Wg.Lds[8], 4);
  EXPECT_EQ(a, 33u);
  EXPECT_EQ(b, 44u);
}

// ---- Packed lanes (LaneBlockCopy) ---------------------------------------------------------
// With EXEC all ones and each lane's n dwords right after the previous lane's, the executors
// move the access as one block. Every width, load and store, through a V#, a global address
// and LDS, packed and with two lanes swapped (the lane-by-lane path; an LDS 2-dword load gathers
// instead): each lane's dwords are the ones at its own offset.
enum class Path { Buffer, Global, Lds };

void packedRoundTrip(Path path, unsigned n, bool swapped) {
  SCOPED_TRACE(::testing::Message()
               << "path " << int(path) << " n " << n << " swapped " << swapped);
  Env e;
  const size_t size = 4096;
  const Op loads[4][3] = {{Op::BUFFER_LOAD_DWORD, Op::GLOBAL_LOAD_DWORD, Op::DS_READ_B32},
                          {Op::BUFFER_LOAD_DWORDX2, Op::GLOBAL_LOAD_DWORDX2, Op::DS_READ_B64},
                          {Op::BUFFER_LOAD_DWORDX3, Op::GLOBAL_LOAD_DWORDX3, Op::DS_READ_B96},
                          {Op::BUFFER_LOAD_DWORDX4, Op::GLOBAL_LOAD_DWORDX4, Op::DS_READ_B128}};
  const Op stores[4][3] = {{Op::BUFFER_STORE_DWORD, Op::GLOBAL_STORE_DWORD, Op::DS_WRITE_B32},
                           {Op::BUFFER_STORE_DWORDX2, Op::GLOBAL_STORE_DWORDX2, Op::DS_WRITE_B64},
                           {Op::BUFFER_STORE_DWORDX3, Op::GLOBAL_STORE_DWORDX3, Op::DS_WRITE_B96},
                           {Op::BUFFER_STORE_DWORDX4, Op::GLOBAL_STORE_DWORDX4, Op::DS_WRITE_B128}};
  const unsigned p = unsigned(path);
  // Lane l's offset: 16 + 4n * l, lanes 5 and 6 exchanged when swapped.
  uint32_t off[64];
  for (unsigned l = 0; l < 64; ++l)
    off[l] = 16 + 4 * n * l;
  if (swapped)
    std::swap(off[5], off[6]);
  uint64_t base = 0;
  if (path == Path::Lds) {
    e.Wg.Lds.resize(size);
    for (size_t i = 0; i < size; ++i)
      e.Wg.Lds[i] = uint8_t(u8At(i));
  } else {
    base = e.pattern(size);
    e.setRsrc(8, base, 0, uint32_t(size));
    e.setSgprPair(10, base);
  }
  auto make = [&](Op op) {
    Inst in = path == Path::Buffer ? buffer(op) : path == Path::Global ? global(op) : dsInst(op);
    in.Addr = V(0);
    if (path == Path::Buffer)
      in.Offen = true;
    if (path == Path::Global)
      in.Saddr = 10;
    return in;
  };
  auto run = [&](const Inst &in) { return path == Path::Lds ? e.lds(in) : e.vmem(in); };
  for (unsigned l = 0; l < 64; ++l)
    e.v(0, l) = off[l];
  for (unsigned k = 0; k < 4; ++k)
    e.fillV(4 + k, 0xdeadbeef);
  Inst ld = make(loads[n - 1][p]);
  ld.Dst = V(4);
  ASSERT_TRUE(run(ld));
  for (unsigned l = 0; l < 64; ++l)
    for (unsigned k = 0; k < 4; ++k)
      ASSERT_EQ(e.v(4 + k, l), k < n ? patDword(off[l] + 4 * k) : 0xdeadbeefu)
          << "lane " << l << " dword " << k;
  // Stores: distinct values per lane and dword, then every byte of the buffer checked.
  for (unsigned l = 0; l < 64; ++l)
    for (unsigned k = 0; k < 4; ++k)
      e.v(12 + k, l) = 0xab000000u | (l << 8) | k;
  Inst st = make(stores[n - 1][p]);
  st.Data0 = V(12);
  ASSERT_TRUE(run(st));
  std::vector<uint8_t> want(size), got(size);
  for (size_t i = 0; i < size; ++i)
    want[i] = uint8_t(u8At(i));
  for (unsigned l = 0; l < 64; ++l)
    for (unsigned k = 0; k < n; ++k) {
      const uint32_t v = 0xab000000u | (l << 8) | k;
      std::memcpy(&want[off[l] + 4 * k], &v, 4);
    }
  if (path == Path::Lds)
    got.assign(e.Wg.Lds.begin(), e.Wg.Lds.end());
  else
    llvm::cantFail(e.Mem.read(base, got.data(), size));
  for (size_t i = 0; i < size; ++i)
    ASSERT_EQ(int(got[i]), int(want[i])) << "byte " << i;
}

TEST(PackedLanes, EveryWidthAndPathMatchesLaneByLane) {
  for (Path path : {Path::Buffer, Path::Global, Path::Lds})
    for (unsigned n = 1; n <= 4; ++n)
      for (bool swapped : {false, true})
        packedRoundTrip(path, n, swapped);
}

// Lanes a constant stride apart that is not the access's width (one dword of each lane's 16
// bytes, as Triton's elementwise kernels load; the same offset on every lane): under a full
// EXEC a buffer dword load gathers them. Each lane's dword is the one at its own offset.
TEST(PackedLanes, StridedDwordLoads) {
  for (uint32_t Stride : {16u, 12u, 4096u / 64u, 0u}) {
    SCOPED_TRACE(::testing::Message() << "stride " << Stride);
    Env e;
    const size_t size = 8192;
    const uint64_t base = e.pattern(size);
    e.setRsrc(8, base, 0, uint32_t(size));
    for (unsigned l = 0; l < 64; ++l)
      e.v(0, l) = 8 + Stride * l;
    e.fillV(4, 0xdeadbeef);
    Inst ld = buffer(Op::BUFFER_LOAD_DWORD);
    ld.Addr = V(0);
    ld.Offen = true;
    ld.Offset = 4;
    ld.Dst = V(4);
    ASSERT_TRUE(e.vmem(ld));
    for (unsigned l = 0; l < 64; ++l)
      ASSERT_EQ(e.v(4, l), patDword(12 + Stride * l)) << "lane " << l;
  }
}

// The block copy itself: offsets that are packed only modulo 2^32 (lane 16's wraps to 0) are
// not a block, and nothing is written; 64-bit addresses are checked the same way.
TEST(PackedLanes, WrappedOrUnevenOffsetsAreNotABlock) {
  std::vector<uint8_t> mem(4096, 0x5a);
  uint32_t row[4][64];
  uint32_t *rows[4] = {row[0], row[1], row[2], row[3]};
  for (auto &r : row)
    std::fill(std::begin(r), std::end(r), 7u);
  uint32_t off32[64];
  for (unsigned l = 0; l < 64; ++l)
    off32[l] = 0xffffff00u + 16 * l;
  EXPECT_FALSE(copyPackedLanes(true, mem.data(), off32, 4, rows));
  for (auto &r : row)
    for (uint32_t v : r)
      ASSERT_EQ(v, 7u);
  uint64_t off64[64];
  for (unsigned l = 0; l < 64; ++l)
    off64[l] = 0x100000000ull + 8 * l;
  off64[63] += 8; // the last lane one step further
  EXPECT_FALSE(copyPackedLanes(true, mem.data(), off64, 2, rows));
  off64[63] -= 8;
  for (unsigned l = 0; l < 64; ++l)
    std::memcpy(&mem[8 * l], &l, 4);
  ASSERT_TRUE(copyPackedLanes(true, mem.data(), off64, 2, rows));
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(row[0][l], l);
    EXPECT_EQ(row[1][l], 0x5a5a5a5au);
    EXPECT_EQ(row[2][l], 7u); // past n: untouched
  }
}

} // namespace
