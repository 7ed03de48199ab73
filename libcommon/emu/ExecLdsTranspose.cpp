// gfx950's transposing LDS reads: ds_read_b64_tr_b16, ds_read_b64_tr_b8, ds_read_b64_tr_b4 and
// ds_read_b96_tr_b6. Every lane reads 64 bits (96 for b6) at its own address, as ds_read_b64
// would: n elements of w bits (b16: 4, b8: 8, b4: 16, b6: 16), element p at bit p * w. Within
// each group of 16 lanes the elements are then exchanged: lane l = 16 * G + i receives as its
// element e the element i % n of lane 16 * G + e * (16 / n) + i / n. (b16: a 4 x 16 tile read
// as four rows of four lanes comes back as one column per lane; b4 and b6 are a 16 x 16
// transpose.)
// Sources: the CDNA4 ISA guide, section 11.4 (the operation; EXEC must be all ones; the address
// aligned to the data size); the exchange as Triton's linear layout for these reads states it
// (chooseDsReadB64TrLayout), which AMD's rocRoller hardware tests for gfx950 (rocm-libraries,
// TransposeLoadsTest) agree with.
//
// Not emulated, with the reason: EXEC not all ones (the ISA requires it), an address not
// aligned to 8 bytes (b64; the ISA requires it) or not to 16 bytes (b96: rocRoller's tests
// use 16, the guide only says "the data size").
#include "emu/EmuError.h"
#include "emu/Exec.h"

#include <cstring>
#include <string>

namespace asmevo::emu {

namespace {

inline uint32_t getBits(const uint8_t *p, unsigned Bit, unsigned w) {
  uint32_t v = 0;
  std::memcpy(&v, p + Bit / 8, (Bit % 8 + w + 7) / 8);
  return (v >> (Bit % 8)) & ((1u << w) - 1);
}

inline void putBits(uint8_t *p, unsigned Bit, unsigned w, uint32_t x) {
  uint32_t v = 0;
  const unsigned n = (Bit % 8 + w + 7) / 8;
  std::memcpy(&v, p + Bit / 8, n);
  const uint32_t m = ((1u << w) - 1) << (Bit % 8);
  v = (v & ~m) | ((x << (Bit % 8)) & m);
  std::memcpy(p + Bit / 8, &v, n);
}

[[noreturn]] void refuse(const ExecCtx &c, const Inst &In, const std::string &Why) {
  throw EmuError(EmuErrorKind::Unsupported,
                 "unsupported instruction " + std::string(opNameLower(In.Operation)) + " at pc " +
                     hexText(c.InstPc) + ": " + Why,
                 c.InstPc);
}

} // namespace

bool execLdsTransposeRead(ExecCtx &c, const Inst &In) {
  unsigned w = 0, Bytes = 8;
  switch (In.Operation) {
  case Op::DS_READ_B64_TR_B16:
    w = 16;
    break;
  case Op::DS_READ_B64_TR_B8:
    w = 8;
    break;
  case Op::DS_READ_B64_TR_B4:
    w = 4;
    break;
  case Op::DS_READ_B96_TR_B6:
    w = 6, Bytes = 12;
    break;
  default:
    return false;
  }
  if (In.Addr == kNoOperand || In.Dst == kNoOperand || In.Gds)
    return false;
  WaveState &Ws = c.W;
  if (Ws.exec() == 0)
    return true; // nothing runs (the probe of kernel-run --coverage)
  if (Ws.exec() != ~0ull)
    refuse(c, In, "a transposing LDS read with EXEC not all ones (the ISA requires all ones)");
  const unsigned n = Bytes * 8 / w, Regs = Bytes / 4;
  const unsigned Align = Bytes == 8 ? 8 : 16;
  const unsigned Offset16 = unsigned(In.Offset0) | (unsigned(In.Offset1) << 8);
  const uint32_t *a = Ws.vrowOf(In.Addr);
  const char *What = opNameLower(In.Operation);
  uint8_t Src[kWaveSize][12];
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const uint64_t Addr = uint64_t(a[l]) + Offset16;
    if (Addr % Align)
      refuse(c, In,
             "LDS address " + hexText(Addr) + " of lane " + std::to_string(l) + " is not " +
                 std::to_string(Align) + "-byte aligned" +
                 (Bytes == 8 ? " (the ISA requires it)"
                             : " (the guide asks for 'the data size'; only 16 is known to work)"));
    std::memcpy(Src[l], ldsAccess(c, Addr, Bytes, int(l), What), Bytes);
  }
  if (vectorIndex(In.Dst) + Regs > kNumVectorRegs)
    throw EmuError(EmuErrorKind::IllegalInst, std::string(What) + " at pc " + hexText(c.InstPc) +
                                                  ": destination out of range");
  for (unsigned l = 0; l < kWaveSize; ++l) {
    const unsigned g = l >> 4, i = l & 15;
    uint8_t Out[12] = {};
    for (unsigned e = 0; e < n; ++e) {
      const unsigned From = 16 * g + e * (16 / n) + i / n;
      putBits(Out, e * w, w, getBits(Src[From], (i % n) * w, w));
    }
    for (unsigned r = 0; r < Regs; ++r)
      std::memcpy(&Ws.vrow(vectorIndex(In.Dst) + r)[l], Out + 4 * r, 4);
  }
  return true;
}

} // namespace asmevo::emu
