#include "emu/Wave.h"

#include "emu/DeviceMemory.h"
#include "emu/EmuError.h"

#include <string>

namespace asmevo::emu {

bool isInlineConstantCode(uint16_t Code) {
  return (Code >= 128 && Code <= 208) || (Code >= 240 && Code <= 248);
}

uint64_t inlineConstant(uint16_t Code, OpType t) {
  if (Code >= 128 && Code <= 208) {
    const int64_t v = inlineInteger(Code);
    switch (t) {
    case OpType::B64:
    case OpType::F64:
      return uint64_t(v);
    case OpType::B16:
    case OpType::F16:
    case OpType::BF16:
      return uint64_t(v) & 0xffff;
    default:
      return uint64_t(v) & 0xffffffffu;
    }
  }
  // 240..248: 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0, 1/(2*pi).
  static const uint32_t F32[9] = {0x3f000000, 0xbf000000, 0x3f800000, 0xbf800000, 0x40000000,
                                  0xc0000000, 0x40800000, 0xc0800000, 0x3e22f983};
  static const uint16_t F16[9] = {0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000,
                                  0xc000, 0x4400, 0xc400, 0x3118};
  static const uint16_t Bf16[9] = {0x3f00, 0xbf00, 0x3f80, 0xbf80, 0x4000,
                                   0xc000, 0x4080, 0xc080, 0x3e22};
  static const uint64_t F64[9] = {
      0x3fe0000000000000ull, 0xbfe0000000000000ull, 0x3ff0000000000000ull,
      0xbff0000000000000ull, 0x4000000000000000ull, 0xc000000000000000ull,
      0x4010000000000000ull, 0xc010000000000000ull, 0x3fc45f306dc9c882ull};
  unsigned i = Code - 240;
  switch (t) {
  case OpType::F16:
  case OpType::B16:
    return F16[i];
  case OpType::BF16:
    return Bf16[i];
  case OpType::F64:
  case OpType::B64:
    return F64[i];
  default:
    return F32[i];
  }
}

static uint32_t specialScalar(const WaveState &w, uint16_t Code) {
  switch (Code) {
  case kSrcSharedBase:
    return uint32_t(kSharedApertureBase >> 32);
  case kSrcSharedLimit:
    return uint32_t((kSharedApertureBase + kApertureSize - 1) >> 32);
  case kSrcPrivateBase:
    return uint32_t(kPrivateApertureBase >> 32);
  case kSrcPrivateLimit:
    return uint32_t((kPrivateApertureBase + kApertureSize - 1) >> 32);
  case kSrcPopsExitingWaveId:
    return 0;
  case kSrcVccz:
    return w.vcc() == 0;
  case kSrcExecz:
    return w.exec() == 0;
  case kSrcScc:
    return w.Scc;
  default:
    throw EmuError(EmuErrorKind::IllegalInst,
                   "operand code " + std::to_string(Code) + " names no readable scalar source");
  }
}

uint32_t readScalar32Other(const WaveState &w, uint16_t Code, OpType t) {
  if (isInlineConstantCode(Code))
    return uint32_t(inlineConstant(Code, t));
  return specialScalar(w, Code);
}

uint64_t readScalar64(const WaveState &w, const Inst &In, uint16_t Code, OpType t) {
  if (Code < 127)
    return w.S[Code] | (uint64_t(w.S[Code + 1]) << 32);
  if (Code == kLiteralCode)
    // A 32-bit literal for a 64-bit float operand supplies the high half; for an integer
    // operand it is zero-extended (as LLVM's assembler and disassembler model it).
    return t == OpType::F64 ? uint64_t(In.Literal) << 32 : uint64_t(In.Literal);
  if (isInlineConstantCode(Code))
    return inlineConstant(Code, t == OpType::F64 ? OpType::F64 : OpType::B64);
  if (Code == kSrcSharedBase || Code == kSrcPrivateBase || Code == kSrcSharedLimit ||
      Code == kSrcPrivateLimit)
    return uint64_t(specialScalar(w, Code)) << 32;
  return specialScalar(w, Code);
}

void writeScalar32(WaveState &w, uint16_t Code, uint32_t Value) {
  if (Code >= 128)
    throw EmuError(EmuErrorKind::IllegalInst,
                   "operand code " + std::to_string(Code) + " is not a writable scalar register");
  w.S[Code] = Value;
}

void writeScalar64(WaveState &w, uint16_t Code, uint64_t Value) {
  if (Code >= 127)
    throw EmuError(EmuErrorKind::IllegalInst,
                   "operand code " + std::to_string(Code) + " is not a writable register pair");
  w.S[Code] = uint32_t(Value);
  w.S[Code + 1] = uint32_t(Value >> 32);
}

} // namespace asmevo::emu
