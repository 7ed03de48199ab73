// Scalar memory: s_load_*, s_buffer_load_*, s_store_*, s_atomic_*, s_memtime, cache controls.
// Addresses are dword-aligned by the hardware (the low two bits are ignored).
#include "emu/EmuError.h"
#include "emu/Exec.h"
#include "emu/ExecMemCommon.h"

#include <cstring>

namespace asmevo::emu {

namespace {

unsigned dwordsOf(Op op) {
  switch (op) {
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

uint64_t smemOffset(const WaveState &w, const Inst &in) {
  uint64_t off = 0;
  if (in.SmemImm)
    off += uint64_t(int64_t(in.Offset));
  if (in.Soffset != kNoOperand && (in.SmemSoffsetEn || !in.SmemImm))
    off += w.S[in.Soffset];
  return off;
}

using memdetail::Rmw;

// The scalar atomics (s_atomic_*, s_buffer_atomic_*): the read-modify-write, whether it is
// 64-bit, whether it addresses through a V#. False for every other op.
bool scalarAtomic(Op op, Rmw &rmw, bool &is64, bool &isBuffer) {
  switch (op) {
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
void execScalarAtomic(ExecCtx &c, const Inst &in, Rmw rmw, bool is64, bool isBuffer) {
  WaveState &w = c.W;
  const unsigned words = (is64 ? 2u : 1u) * (rmw == Rmw::CmpSwap ? 2u : 1u);
  if (in.Dst == kNoOperand || in.Dst + words > 128 || in.Sbase == kNoOperand)
    throw EmuError(EmuErrorKind::IllegalInst, "malformed scalar atomic instruction");
  const unsigned size = is64 ? 8 : 4;
  uint64_t off = smemOffset(w, in) & ~3ull;
  uint64_t addr;
  bool inRange = true;
  if (isBuffer) {
    uint32_t s0 = w.S[in.Sbase], s1 = w.S[in.Sbase + 1], s2 = w.S[in.Sbase + 2];
    addr = (s0 | (uint64_t(s1 & 0xffff) << 32)) + off;
    inRange = off + size <= s2;
  } else {
    addr = ((w.S[in.Sbase] | (uint64_t(w.S[in.Sbase + 1]) << 32)) + off) & ~3ull;
  }
  auto word = [&](unsigned i) { return uint64_t(w.S[in.Dst + i]); };
  uint64_t src = is64 ? word(0) | word(1) << 32 : word(0);
  uint64_t cmp = rmw != Rmw::CmpSwap ? 0 : is64 ? word(2) | word(3) << 32 : word(1);
  uint64_t old = 0;
  if (inRange) {
    uint8_t *p = globalAccess(c, addr, size, -1, opNameLower(in.Operation));
    std::lock_guard<std::mutex> g(c.Mem.atomicLock(addr));
    if (is64) {
      old = memdetail::load64(p);
      memdetail::store64(p, memdetail::rmw64(rmw, old, src, cmp));
    } else {
      old = memdetail::load32(p);
      memdetail::store32(p, memdetail::rmw32(rmw, uint32_t(old), uint32_t(src), uint32_t(cmp)));
    }
  }
  if (in.Glc) {
    writeScalar32(w, in.Dst, uint32_t(old));
    if (is64)
      writeScalar32(w, uint16_t(in.Dst + 1), uint32_t(old >> 32));
  }
}

} // namespace

bool execSmem(ExecCtx &c, const Inst &in) {
  WaveState &w = c.W;
  switch (in.Operation) {
  case Op::S_DCACHE_INV:
  case Op::S_DCACHE_INV_VOL:
  case Op::S_DCACHE_WB:
  case Op::S_DCACHE_WB_VOL:
    return true; // the emulated memory is coherent: nothing to invalidate or write back
  case Op::S_MEMTIME:
  case Op::S_MEMREALTIME:
    // Time is modelled as the number of instructions this wave has executed.
    writeScalar64(w, in.Dst, w.InstCount);
    return true;
  default:
    break;
  }
  Rmw rmw;
  bool is64, isBuffer64;
  if (scalarAtomic(in.Operation, rmw, is64, isBuffer64)) {
    execScalarAtomic(c, in, rmw, is64, isBuffer64);
    return true;
  }
  unsigned n = dwordsOf(in.Operation);
  if (n == 0)
    return false;
  bool isStore = in.Operation == Op::S_STORE_DWORD || in.Operation == Op::S_STORE_DWORDX2 ||
                 in.Operation == Op::S_STORE_DWORDX4 || in.Operation == Op::S_BUFFER_STORE_DWORD ||
                 in.Operation == Op::S_BUFFER_STORE_DWORDX2 ||
                 in.Operation == Op::S_BUFFER_STORE_DWORDX4;
  bool isBuffer =
      in.Operation == Op::S_BUFFER_LOAD_DWORD || in.Operation == Op::S_BUFFER_LOAD_DWORDX2 ||
      in.Operation == Op::S_BUFFER_LOAD_DWORDX4 || in.Operation == Op::S_BUFFER_LOAD_DWORDX8 ||
      in.Operation == Op::S_BUFFER_LOAD_DWORDX16 || in.Operation == Op::S_BUFFER_STORE_DWORD ||
      in.Operation == Op::S_BUFFER_STORE_DWORDX2 || in.Operation == Op::S_BUFFER_STORE_DWORDX4;
  if (in.Dst == kNoOperand || in.Dst + n > 128 || in.Sbase == kNoOperand)
    throw EmuError(EmuErrorKind::IllegalInst, "malformed scalar memory instruction");
  uint64_t off = smemOffset(w, in);
  uint32_t vals[16];
  if (isBuffer) {
    // V#: base 47:0, stride 61:48, num_records 95:64 (bytes for the scalar unit).
    uint32_t s0 = w.S[in.Sbase], s1 = w.S[in.Sbase + 1], s2 = w.S[in.Sbase + 2];
    uint64_t base = s0 | (uint64_t(s1 & 0xffff) << 32);
    uint64_t numRecords = s2;
    uint64_t start = off & ~3ull;
    for (unsigned i = 0; i < n; ++i) {
      uint64_t o = start + 4ull * i;
      bool inRange = o + 4 <= numRecords;
      if (isStore) {
        if (inRange)
          std::memcpy(globalAccess(c, base + o, 4, -1, "s_buffer_store"), &w.S[in.Dst + i], 4);
      } else {
        vals[i] = 0;
        if (inRange)
          std::memcpy(&vals[i], globalAccess(c, base + o, 4, -1, "s_buffer_load"), 4);
      }
    }
  } else {
    uint64_t base = w.S[in.Sbase] | (uint64_t(w.S[in.Sbase + 1]) << 32);
    uint64_t addr = (base + off) & ~3ull;
    uint8_t *p = globalAccess(c, addr, 4 * n, -1, isStore ? "s_store" : "s_load");
    if (isStore)
      std::memcpy(p, &w.S[in.Dst], 4 * n);
    else
      std::memcpy(vals, p, 4 * n);
  }
  if (!isStore)
    for (unsigned i = 0; i < n; ++i)
      writeScalar32(w, uint16_t(in.Dst + i), vals[i]);
  return true;
}

} // namespace asmevo::emu
