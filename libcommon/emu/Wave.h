// The architectural state of one wave64 and the helpers every executor uses to read and write
// operands. Register storage follows the ISA's operand codes (Inst.h): scalar registers are
// indexed by their source code (SGPRs 0..101, FLAT_SCRATCH 102/103, XNACK_MASK 104/105,
// VCC 106/107, TTMP 108..123, M0 124, EXEC 126/127), vector registers by unified index
// (arch VGPRs 0..255, AGPRs 256..511), each register a row of 64 lanes.
#pragma once

#include "emu/Inst.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace asmevo::emu {

constexpr unsigned kWaveSize = 64;
constexpr unsigned kNumVectorRegs = 512;
// A row of 64 zero lanes: the value of an absent operand, or of no per-lane offset.
alignas(64) inline constexpr uint32_t kZeroLanes[kWaveSize] = {};

enum ScalarCode : uint16_t {
  kFlatScratchLo = 102,
  kFlatScratchHi = 103,
  kXnackMaskLo = 104,
  kXnackMaskHi = 105,
  kVccLo = 106,
  kVccHi = 107,
  kTtmp0 = 108,
  kM0 = 124,
  kExecLo = 126,
  kExecHi = 127,
  kSrcSharedBase = 235,
  kSrcSharedLimit = 236,
  kSrcPrivateBase = 237,
  kSrcPrivateLimit = 238,
  kSrcPopsExitingWaveId = 239,
  kSrcVccz = 251,
  kSrcExecz = 252,
  kSrcScc = 253,
  kSrcLdsDirect = 254,
};

// How an operand is typed decides how an inline constant reads (1.0 is 0x3f800000 as F32,
// 0x3c00 as F16, 0x3ff0000000000000 as F64) and how a literal widens to 64 bits.
enum class OpType : uint8_t { B32, F32, B16, F16, BF16, B64, F64 };

// MODE bits the scalar unit sets (HW_REG_MODE; CDNA3/CDNA4 ISA guides, the MODE table):
// GPR_IDX_EN (bit 27, s_set_gpr_idx_on/off: VALU VGPR operands indexed by M0, GprIndex.h) and
// VSKIP (bit 28, s_setvskip: vector instructions are skipped, not executed).
constexpr uint32_t kModeGprIdxEn = 1u << 27;
constexpr uint32_t kModeVskip = 1u << 28;

struct WaveState {
  uint32_t S[128]; // scalar register space by operand code
  bool Scc = false;
  uint64_t Pc = 0;   // device address of the next instruction to fetch
  uint32_t Mode = 0; // HW_REG_MODE (rounding, denormals, IEEE, DX10 clamp)
  uint32_t Trapsts = 0;
  uint32_t Priority = 0;
  // Scheduling state.
  bool Done = false;        // executed s_endpgm
  bool AtBarrier = false;   // waiting in s_barrier
  unsigned WaveInGroup = 0; // wave index within its workgroup
  uint64_t InstCount = 0;   // instructions executed (a model count, not time)
  // Loads into LDS (buffer_load_* lds, global_load_lds_*) whose data has not landed: they land
  // when an s_waitcnt vmcnt proves them complete, or at s_endpgm (ExecVmem.cpp). vmemIssued
  // counts the vector memory instructions (vmcnt's, in issue order) the wave has issued.
  struct PendingLdsWrite {
    uint64_t Seq; // vmemIssued after the load issued
    uint32_t LdsAddr;
    uint8_t Bytes[16];
    uint8_t Size;
  };
  std::vector<PendingLdsWrite> PendingLds;
  uint64_t VmemIssued = 0;
  // The prefix of a scaled MFMA (v_mfma_ld_scale_b32) just executed, for the MFMA after it.
  bool MfmaScalePending = false;
  uint64_t MfmaScalePc = 0;
  Inst MfmaScale;
  alignas(64) uint32_t V[kNumVectorRegs * kWaveSize];

  WaveState() {
    std::memset(S, 0, sizeof(S));
    std::memset(V, 0, sizeof(V));
  }

  uint64_t exec() const { return S[kExecLo] | (uint64_t(S[kExecHi]) << 32); }
  void setExec(uint64_t m) {
    S[kExecLo] = uint32_t(m);
    S[kExecHi] = uint32_t(m >> 32);
  }
  uint64_t vcc() const { return S[kVccLo] | (uint64_t(S[kVccHi]) << 32); }
  void setVcc(uint64_t m) {
    S[kVccLo] = uint32_t(m);
    S[kVccHi] = uint32_t(m >> 32);
  }

  // Row of 64 lanes of unified vector register `index` (0..511).
  uint32_t *vrow(unsigned Index) { return &V[Index * kWaveSize]; }
  const uint32_t *vrow(unsigned Index) const { return &V[Index * kWaveSize]; }
  // Row of a vector operand code (256..767).
  uint32_t *vrowOf(uint16_t Code) { return vrow(vectorIndex(Code)); }
  const uint32_t *vrowOf(uint16_t Code) const { return vrow(vectorIndex(Code)); }
};

// The value an inline-constant code (128..208, 240..248) has for an operand of type T, in the
// operand's width (zero-extended into the 64-bit result).
uint64_t inlineConstant(uint16_t Code, OpType t);
// The integer an integer inline-constant code (128..208) stands for: 0..64, then -1..-16.
inline int32_t inlineInteger(uint16_t Code) {
  return Code <= 192 ? int32_t(Code) - 128 : 192 - int32_t(Code);
}
bool isInlineConstantCode(uint16_t Code);

// Scalar source operands (codes 0..255): SGPRs and specials, inline constants, the literal.
// Throws EmuError for a code that names nothing readable on gfx9 (e.g. LDS_DIRECT).
// readScalar32 is inline for SGPRs, the literal and the integer inline constants of a 32-bit
// operand (every VALU broadcast, scalar op and buffer soffset reads one); float inline
// constants, other widths and special registers are readScalar32Other's.
uint32_t readScalar32Other(const WaveState &w, uint16_t Code, OpType t);
inline uint32_t readScalar32(const WaveState &w, const Inst &In, uint16_t Code, OpType t) {
  if (Code < 128)
    return w.S[Code];
  if (Code == kLiteralCode)
    return In.Literal;
  if (Code <= 208 && (t == OpType::B32 || t == OpType::F32))
    return uint32_t(inlineInteger(Code));
  return readScalar32Other(w, Code, t);
}
uint64_t readScalar64(const WaveState &w, const Inst &In, uint16_t Code, OpType t);
void writeScalar32(WaveState &w, uint16_t Code, uint32_t Value);
void writeScalar64(WaveState &w, uint16_t Code, uint64_t Value);

// The 64 lane values of a 32-bit source: a row of the register file for a vector code, else
// `tmp` filled with the broadcast scalar value. Never null.
inline const uint32_t *readVectorSrc32(const WaveState &w, const Inst &In, uint16_t Code, OpType t,
                                       uint32_t *Tmp) {
  if (Code >= kVgprBase)
    return w.vrowOf(Code);
  const uint32_t v = readScalar32(w, In, Code, t);
  for (unsigned i = 0; i < kWaveSize; ++i)
    Tmp[i] = v;
  return Tmp;
}
// Write a 64-bit value to lane `lane` of the vector register pair at `code`.
inline void writeVector64(WaveState &w, uint16_t Code, unsigned Lane, uint64_t Value) {
  unsigned r = vectorIndex(Code);
  w.vrow(r)[Lane] = uint32_t(Value);
  w.vrow(r + 1)[Lane] = uint32_t(Value >> 32);
}
inline uint64_t readVector64(const WaveState &w, uint16_t Code, unsigned Lane) {
  unsigned r = vectorIndex(Code);
  return w.vrow(r)[Lane] | (uint64_t(w.vrow(r + 1)[Lane]) << 32);
}

// Iterate the set bits of a 64-bit mask (active lanes).
template <typename F> inline void forEachLane(uint64_t Mask, F &&f) {
  while (Mask) {
    unsigned Lane = unsigned(__builtin_ctzll(Mask));
    f(Lane);
    Mask &= Mask - 1;
  }
}

} // namespace asmevo::emu
