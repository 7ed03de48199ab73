// Scalar memory: s_load_*, s_buffer_load_*, s_store_*, s_atomic_*, s_memtime, cache controls.
// Addresses are dword-aligned by the hardware (the low two bits are ignored).
#include "emu/EmuError.h"
#include "emu/Exec.h"
#include "emu/ExecMemCommon.h"

#include <cstring>

namespace asmevo::emu {

namespace {

unsigned dwordsOf(Op Op) {
  switch (Op) {
  case Op::S_LOAD_DWORD:
  case Op::S_BUFFER_LOAD_DWORD:
  case Op::S_STORE_DWORD:
  case Op::S_BUFFER_STORE_DWORD:
    return 1;
  case Op::S_LOAD_DWORDX2:
  case Op::S_BUFFER_LOAD_DWORDX2:
  case Op::S_STORE_DWORDX2:
  case Op::S_BUFFER_STORE_DWORDX2:
    return 2;
  case Op::S_LOAD_DWORDX4:
  case Op::S_BUFFER_LOAD_DWORDX4:
  case Op::S_STORE_DWORDX4:
  case Op::S_BUFFER_STORE_DWORDX4:
    return 4;
  case Op::S_LOAD_DWORDX8:
  case Op::S_BUFFER_LOAD_DWORDX8:
    return 8;
  case Op::S_LOAD_DWORDX16:
  case Op::S_BUFFER_LOAD_DWORDX16:
    return 16;
  default:
    return 0;
  }
}

uint64_t smemOffset(const WaveState &w, const Inst &In) {
  uint64_t Off = 0;
  if (In.SmemImm)
    Off += uint64_t(int64_t(In.Offset));
  if (In.Soffset != kNoOperand && (In.SmemSoffsetEn || !In.SmemImm))
    Off += w.S[In.Soffset];
  return Off;
}

using memdetail::Rmw;

// The scalar atomics (s_atomic_*, s_buffer_atomic_*): the read-modify-write, whether it is
// 64-bit, whether it addresses through a V#. False for every other op.
bool scalarAtomic(Op Op, Rmw &rmw, bool &is64, bool &isBuffer) {
  switch (Op) {
#define ASMEVO_SATOMIC(NAME, R)                                                                    \
  case Op::S_ATOMIC_##NAME:                                                                        \
    rmw = Rmw::R, is64 = false, isBuffer = false;                                                  \
    return true;                                                                                   \
  case Op::S_ATOMIC_##NAME##_X2:                                                                   \
    rmw = Rmw::R, is64 = true, isBuffer = false;                                                   \
    return true;                                                                                   \
  case Op::S_BUFFER_ATOMIC_##NAME:                                                                 \
    rmw = Rmw::R, is64 = false, isBuffer = true;                                                   \
    return true;                                                                                   \
  case Op::S_BUFFER_ATOMIC_##NAME##_X2:                                                            \
    rmw = Rmw::R, is64 = true, isBuffer = true;                                                    \
    return true;
    ASMEVO_SATOMIC(ADD, Add)
    ASMEVO_SATOMIC(SUB, Sub)
    ASMEVO_SATOMIC(SWAP, Swap)
    ASMEVO_SATOMIC(CMPSWAP, CmpSwap)
    ASMEVO_SATOMIC(SMIN, SMin)
    ASMEVO_SATOMIC(UMIN, UMin)
    ASMEVO_SATOMIC(SMAX, SMax)
    ASMEVO_SATOMIC(UMAX, UMax)
    ASMEVO_SATOMIC(AND, And)
    ASMEVO_SATOMIC(OR, Or)
    ASMEVO_SATOMIC(XOR, Xor)
    ASMEVO_SATOMIC(INC, Inc)
    ASMEVO_SATOMIC(DEC, Dec)
#undef ASMEVO_SATOMIC
  default:
    return false;
  }
}

// One scalar atomic, as the ISA's pseudocode says: tmp = MEM[addr]; MEM[addr] = op(tmp, DATA);
// SDATA = tmp when GLC is set. DATA is SDATA (cmpswap: src in the low half, cmp in the high
// half). The address is formed as for s_load / s_buffer_load; an s_buffer atomic outside the
// V#'s num_records is dropped (and returns 0).
void execScalarAtomic(ExecCtx &c, const Inst &In, Rmw Rmw, bool Is64, bool IsBuffer) {
  WaveState &w = c.W;
  const unsigned Words = (Is64 ? 2u : 1u) * (Rmw == Rmw::CmpSwap ? 2u : 1u);
  if (In.Dst == kNoOperand || In.Dst + Words > 128 || In.Sbase == kNoOperand)
    throw EmuError(EmuErrorKind::IllegalInst, "malformed scalar atomic instruction");
  const unsigned Size = Is64 ? 8 : 4;
  uint64_t Off = smemOffset(w, In) & ~3ull;
  uint64_t Addr;
  bool InRange = true;
  if (IsBuffer) {
    uint32_t s0 = w.S[In.Sbase], s1 = w.S[In.Sbase + 1], s2 = w.S[In.Sbase + 2];
    Addr = (s0 | (uint64_t(s1 & 0xffff) << 32)) + Off;
    InRange = Off + Size <= s2;
  } else {
    Addr = ((w.S[In.Sbase] | (uint64_t(w.S[In.Sbase + 1]) << 32)) + Off) & ~3ull;
  }
  auto Word = [&](unsigned i) { return uint64_t(w.S[In.Dst + i]); };
  uint64_t Src = Is64 ? Word(0) | Word(1) << 32 : Word(0);
  uint64_t Cmp = Rmw != Rmw::CmpSwap ? 0 : Is64 ? Word(2) | Word(3) << 32 : Word(1);
  uint64_t Old = 0;
  if (InRange) {
    uint8_t *p = globalAccess(c, Addr, Size, -1, opNameLower(In.Operation));
    std::lock_guard<std::mutex> g(c.Mem.atomicLock(Addr));
    if (Is64) {
      Old = memdetail::load64(p);
      memdetail::store64(p, memdetail::rmw64(Rmw, Old, Src, Cmp));
    } else {
      Old = memdetail::load32(p);
      memdetail::store32(p, memdetail::rmw32(Rmw, uint32_t(Old), uint32_t(Src), uint32_t(Cmp)));
    }
  }
  if (In.Glc) {
    writeScalar32(w, In.Dst, uint32_t(Old));
    if (Is64)
      writeScalar32(w, uint16_t(In.Dst + 1), uint32_t(Old >> 32));
  }
}

} // namespace

bool execSmem(ExecCtx &c, const Inst &In) {
  WaveState &w = c.W;
  switch (In.Operation) {
  case Op::S_DCACHE_INV:
  case Op::S_DCACHE_INV_VOL:
  case Op::S_DCACHE_WB:
  case Op::S_DCACHE_WB_VOL:
    return true; // the emulated memory is coherent: nothing to invalidate or write back
  case Op::S_MEMTIME:
  case Op::S_MEMREALTIME:
    // Time is modelled as the number of instructions this wave has executed.
    writeScalar64(w, In.Dst, w.InstCount);
    return true;
  default:
    break;
  }
  Rmw Rmw;
  bool Is64, IsBuffer64;
  if (scalarAtomic(In.Operation, Rmw, Is64, IsBuffer64)) {
    execScalarAtomic(c, In, Rmw, Is64, IsBuffer64);
    return true;
  }
  unsigned n = dwordsOf(In.Operation);
  if (n == 0)
    return false;
  bool IsStore = In.Operation == Op::S_STORE_DWORD || In.Operation == Op::S_STORE_DWORDX2 ||
                 In.Operation == Op::S_STORE_DWORDX4 || In.Operation == Op::S_BUFFER_STORE_DWORD ||
                 In.Operation == Op::S_BUFFER_STORE_DWORDX2 ||
                 In.Operation == Op::S_BUFFER_STORE_DWORDX4;
  bool IsBuffer =
      In.Operation == Op::S_BUFFER_LOAD_DWORD || In.Operation == Op::S_BUFFER_LOAD_DWORDX2 ||
      In.Operation == Op::S_BUFFER_LOAD_DWORDX4 || In.Operation == Op::S_BUFFER_LOAD_DWORDX8 ||
      In.Operation == Op::S_BUFFER_LOAD_DWORDX16 || In.Operation == Op::S_BUFFER_STORE_DWORD ||
      In.Operation == Op::S_BUFFER_STORE_DWORDX2 || In.Operation == Op::S_BUFFER_STORE_DWORDX4;
  if (In.Dst == kNoOperand || In.Dst + n > 128 || In.Sbase == kNoOperand)
    throw EmuError(EmuErrorKind::IllegalInst, "malformed scalar memory instruction");
  uint64_t Off = smemOffset(w, In);
  uint32_t Vals[16];
  if (IsBuffer) {
    // V#: base 47:0, stride 61:48, num_records 95:64 (bytes for the scalar unit).
    uint32_t s0 = w.S[In.Sbase], s1 = w.S[In.Sbase + 1], s2 = w.S[In.Sbase + 2];
    uint64_t Base = s0 | (uint64_t(s1 & 0xffff) << 32);
    uint64_t NumRecords = s2;
    uint64_t Start = Off & ~3ull;
    for (unsigned i = 0; i < n; ++i) {
      uint64_t o = Start + 4ull * i;
      bool InRange = o + 4 <= NumRecords;
      if (IsStore) {
        if (InRange)
          std::memcpy(globalAccess(c, Base + o, 4, -1, "s_buffer_store"), &w.S[In.Dst + i], 4);
      } else {
        Vals[i] = 0;
        if (InRange)
          std::memcpy(&Vals[i], globalAccess(c, Base + o, 4, -1, "s_buffer_load"), 4);
      }
    }
  } else {
    uint64_t Base = w.S[In.Sbase] | (uint64_t(w.S[In.Sbase + 1]) << 32);
    uint64_t Addr = (Base + Off) & ~3ull;
    uint8_t *p = globalAccess(c, Addr, 4 * n, -1, IsStore ? "s_store" : "s_load");
    if (IsStore)
      std::memcpy(p, &w.S[In.Dst], 4 * n);
    else
      std::memcpy(Vals, p, 4 * n);
  }
  if (!IsStore)
    for (unsigned i = 0; i < n; ++i)
      writeScalar32(w, uint16_t(In.Dst + i), Vals[i]);
  return true;
}

} // namespace asmevo::emu
