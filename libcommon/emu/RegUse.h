// What one decoded instruction reads and writes, register by register, and which pipeline it
// issues to. The strict checks (StrictCheck.h: wait counters, LDS races; Hazards.h: wait-state
// rules) are written against this, never against encodings.
//
// Registers are operand codes (Inst.h): SGPRs and specials 0..127 (VCC 106/107, M0 124,
// EXEC 126/127), SCC as 253, VGPRs 256..511, AGPRs 512..767. A range is `count` consecutive
// codes starting at `code`. Inline constants and literals are not registers and never appear.
// Implicit operands are explicit here too: every vector instruction reads EXEC, VOPC/carry ops
// write VCC where the decoder put it, v_cmpx and s_*_saveexec write EXEC, s_cbranch_vccz reads
// VCC. SCC is left out: no wait counter or wait-state rule concerns it.
#pragma once

#include "emu/Gfx.h"
#include "emu/Inst.h"

#include <cstdint>
#include <string>

namespace asmevo::emu {

constexpr uint16_t kSccCode = 253;
constexpr uint16_t kNumberedSgprs = 102; // s0..s101; codes 102.. are FLAT_SCRATCH, XNACK, VCC, ...

struct RegRange {
  uint16_t Code = kNoOperand;
  uint8_t Count = 0;
  bool contains(uint16_t c) const { return c >= Code && c < Code + Count; }
  bool overlaps(const RegRange &o) const {
    return Count && o.Count && Code < o.Code + o.Count && o.Code < Code + Count;
  }
};

// The pipeline an instruction issues to, as the ISA's wait counters and hazard tables name them.
enum class IssueClass : uint8_t {
  Salu, // SOP1/SOP2/SOPK/SOPC
  Sopp, // program control (s_nop, s_waitcnt, branches, s_barrier, ...)
  Smem, // scalar memory: lgkmcnt, returns out of order
  Valu, // VOP1/VOP2/VOPC/VOP3/VOP3P other than MFMA
  Mfma, // MFMA / SMFMAC (XDL and DGEMM)
  Ds,   // LDS/GDS: lgkmcnt, in order
  Vmem, // MUBUF/MTBUF/GLOBAL/SCRATCH: vmcnt, in order
  Flat, // FLAT: vmcnt and (when it reaches LDS) lgkmcnt
};

// How a memory instruction touches memory.
enum MemAccess : uint8_t {
  kMemNone = 0,
  kMemRead = 1,
  kMemWrite = 2,
  kMemAtomic = 4, // read-modify-write done atomically by the memory (kMemRead|kMemWrite too)
};

struct RegUses {
  static constexpr unsigned kMaxReads = 8, kMaxWrites = 4;
  RegRange Reads[kMaxReads];
  RegRange Writes[kMaxWrites];
  uint8_t NumReads = 0, NumWrites = 0;
  IssueClass Cls = IssueClass::Sopp;
  uint8_t Mem = kMemNone;   // MemAccess bits (memory instructions only)
  bool ReturnsData = false; // a memory instruction whose result lands in `writes` later
  // The registers a pending store reads for its data (VMEM/FLAT/DS stores and atomics).
  RegRange StoreData;
  // The highest numbered SGPR (s0..s101), arch VGPR and AGPR index read or written; -1 if none.
  // The run checks them against the registers the kernel's descriptor allocates.
  int16_t MaxSgpr = -1, MaxVgpr = -1, MaxAgpr = -1;
  // The same as register counts (max + 1) in one word, VGPRs in bits 0-15, AGPRs 16-31, SGPRs
  // 32-47: regsExceed() checks all three with one subtraction.
  uint64_t Need = 0;

  // Whether the instruction writes the register of operand code c (an SGPR, VCC, EXEC, ...).
  bool writesCode(uint16_t c) const {
    for (unsigned i = 0; i < NumWrites; ++i)
      if (Writes[i].contains(c))
        return true;
    return false;
  }
};

// Register counts packed as RegUses::need is (each below 0x8000).
constexpr uint64_t packRegCounts(unsigned Vgprs, unsigned Agprs, unsigned Sgprs) {
  return uint64_t(Vgprs) | uint64_t(Agprs) << 16 | uint64_t(Sgprs) << 32;
}
// Whether U needs more of some register kind than Limits (packRegCounts) gives. Field by field
// from bit 0: the first field whose limit is short is reached with no borrow from below and
// its difference has bit 15 set; when no field is short there is no borrow anywhere.
inline bool regsExceed(const RegUses &U, uint64_t Limits) {
  return ((Limits - U.Need) & 0x0000800080008000ull) != 0;
}

// The register reads and writes and the issue class of In on Target.
RegUses regUses(const Inst &In, Gfx Target);

// "v[4:7]", "s12", "vcc", "exec", "m0", "a3": a register range as LLVM writes it.
std::string regName(RegRange R);

} // namespace asmevo::emu
