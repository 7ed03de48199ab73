// The floating-point fields of the wave's MODE register (HW_REG_MODE) and what the vector
// executors do with them (CDNA3 ISA, "MODE register"):
//   FP_ROUND  [1:0] single precision, [3:2] double and half precision:
//             0 nearest even, 1 toward +inf, 2 toward -inf, 3 toward zero;
//   FP_DENORM [5:4] single, [7:6] double/half; in each 2-bit field bit 0 allows input
//             denormals (else inputs are flushed to a zero of the same sign) and bit 1
//             allows output denormals (else results are flushed, after rounding);
//   DX10_CLAMP [8]: the clamp modifier maps NaN to +0 (else NaN passes through);
//   IEEE [9]: v_min/v_max/v_med3 quiet a signalling NaN operand and return it (else a NaN
//             operand of either kind is ignored).
// The default of compiled kernels (and the fast path of the executors) is FP bits 0xf0:
// nearest even, all denormals kept.
#pragma once

#include <cfenv>
#include <cstdint>

namespace asmevo::emu::fpmode {

constexpr uint32_t kRoundSpMask = 0x3, kRoundDpMask = 0xc;
constexpr uint32_t kDenormSpIn = 1u << 4, kDenormSpOut = 1u << 5;
constexpr uint32_t kDenormDpIn = 1u << 6, kDenormDpOut = 1u << 7;
constexpr uint32_t kDx10Clamp = 1u << 8, kIeee = 1u << 9;
constexpr uint32_t kFpFields = 0xff, kFpDefault = 0xf0;

// True when round and denormal fields are the compiled-kernel default (the fast path).
inline bool isDefault(uint32_t Mode) { return (Mode & kFpFields) == kFpDefault; }

enum Round : unsigned { kNearestEven = 0, kTowardPosInf = 1, kTowardNegInf = 2, kTowardZero = 3 };
inline Round roundSp(uint32_t Mode) { return Round(Mode & 3); }
inline Round roundDp(uint32_t Mode) { return Round((Mode >> 2) & 3); }
inline const char *roundName(Round r) {
  static const char *const k[] = {"nearest-even", "toward +inf", "toward -inf", "toward zero"};
  return k[r & 3];
}

// Denormal flushing: a denormal becomes a zero of the same sign; every other value is kept.
inline uint32_t flush32(uint32_t b) { return (b & 0x7f800000u) ? b : (b & 0x80000000u); }
inline uint32_t flush16(uint32_t b) { return (b & 0x7c00u) ? b : (b & 0xffff8000u); }
inline uint64_t flush64(uint64_t b) {
  return (b & 0x7ff0000000000000ull) ? b : (b & 0x8000000000000000ull);
}

// Sets the host (SSE) rounding mode for the lifetime of the object; restores nearest-even.
// Only the moded slow path uses it, around the lane loop of one instruction; the host
// arithmetic there (+, -, *, fma, int->float and double->float conversions, ldexp) rounds in
// the current mode. Each use keeps its operands in memory written before the call and its
// results stored before the destructor runs, so the compiler cannot move the arithmetic across
// the calls (fesetround is an opaque call that may read or write memory).
class HostRounding {
public:
  explicit HostRounding(Round r) : Active(r != kNearestEven) {
    if (Active)
      std::fesetround(r == kTowardPosInf   ? FE_UPWARD
                      : r == kTowardNegInf ? FE_DOWNWARD
                                           : FE_TOWARDZERO);
  }
  ~HostRounding() {
    if (Active)
      std::fesetround(FE_TONEAREST);
  }
  HostRounding(const HostRounding &) = delete;
  HostRounding &operator=(const HostRounding &) = delete;

private:
  bool Active;
};

} // namespace asmevo::emu::fpmode
