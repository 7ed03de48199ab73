// Scalar memory: s_load_*, s_buffer_load_*, s_store_*, s_memtime, cache controls.
// Addresses are dword-aligned by the hardware (the low two bits are ignored).
#include "emu/EmuError.h"
#include "emu/Exec.h"

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
  if (in.smemImm)
    off += uint64_t(int64_t(in.offset));
  if (in.soffset != kNoOperand && (in.smemSoffsetEn || !in.smemImm))
    off += w.s[in.soffset];
  return off;
}

} // namespace

bool execSmem(ExecCtx &c, const Inst &in) {
  WaveState &w = c.w;
  switch (in.op) {
  case Op::S_DCACHE_INV:
  case Op::S_DCACHE_INV_VOL:
  case Op::S_DCACHE_WB:
  case Op::S_DCACHE_WB_VOL:
    return true; // the emulated memory is coherent: nothing to invalidate or write back
  case Op::S_MEMTIME:
  case Op::S_MEMREALTIME:
    // Time is modelled as the number of instructions this wave has executed.
    writeScalar64(w, in.dst, w.instCount);
    return true;
  default:
    break;
  }
  unsigned n = dwordsOf(in.op);
  if (n == 0)
    return false;
  bool isStore = in.op == Op::S_STORE_DWORD || in.op == Op::S_STORE_DWORDX2 ||
                 in.op == Op::S_STORE_DWORDX4 || in.op == Op::S_BUFFER_STORE_DWORD ||
                 in.op == Op::S_BUFFER_STORE_DWORDX2 || in.op == Op::S_BUFFER_STORE_DWORDX4;
  bool isBuffer = in.op == Op::S_BUFFER_LOAD_DWORD || in.op == Op::S_BUFFER_LOAD_DWORDX2 ||
                  in.op == Op::S_BUFFER_LOAD_DWORDX4 || in.op == Op::S_BUFFER_LOAD_DWORDX8 ||
                  in.op == Op::S_BUFFER_LOAD_DWORDX16 || in.op == Op::S_BUFFER_STORE_DWORD ||
                  in.op == Op::S_BUFFER_STORE_DWORDX2 || in.op == Op::S_BUFFER_STORE_DWORDX4;
  if (in.dst == kNoOperand || in.dst + n > 128 || in.sbase == kNoOperand)
    throw EmuError(EmuErrorKind::IllegalInst, "malformed scalar memory instruction");
  uint64_t off = smemOffset(w, in);
  uint32_t vals[16];
  if (isBuffer) {
    // V#: base 47:0, stride 61:48, num_records 95:64 (bytes for the scalar unit).
    uint32_t s0 = w.s[in.sbase], s1 = w.s[in.sbase + 1], s2 = w.s[in.sbase + 2];
    uint64_t base = s0 | (uint64_t(s1 & 0xffff) << 32);
    uint64_t numRecords = s2;
    uint64_t start = off & ~3ull;
    for (unsigned i = 0; i < n; ++i) {
      uint64_t o = start + 4ull * i;
      bool inRange = o + 4 <= numRecords;
      if (isStore) {
        if (inRange)
          std::memcpy(globalAccess(c, base + o, 4, -1, "s_buffer_store"), &w.s[in.dst + i], 4);
      } else {
        vals[i] = 0;
        if (inRange)
          std::memcpy(&vals[i], globalAccess(c, base + o, 4, -1, "s_buffer_load"), 4);
      }
    }
  } else {
    uint64_t base = w.s[in.sbase] | (uint64_t(w.s[in.sbase + 1]) << 32);
    uint64_t addr = (base + off) & ~3ull;
    uint8_t *p = globalAccess(c, addr, 4 * n, -1, isStore ? "s_store" : "s_load");
    if (isStore)
      std::memcpy(p, &w.s[in.dst], 4 * n);
    else
      std::memcpy(vals, p, 4 * n);
  }
  if (!isStore)
    for (unsigned i = 0; i < n; ++i)
      writeScalar32(w, uint16_t(in.dst + i), vals[i]);
  return true;
}

} // namespace asmevo::emu
