// Comparing two states of a captured dispatch (launch/CaptureLaunch.h's CaptureState: every
// region's and global's bytes), byte for byte by default. A bundle holds no element types; the
// user may give them (kernel-diffcheck --types) for the memory a pointer argument points to,
// and such typed spans are compared by Eq. 1 (check/Compare.h: floats by cosine and max |diff|,
// integers exact) instead, everything else still byte for byte. This is what lets a capture
// recorded on an AMD GPU stand as the oracle for the emulator, whose float results may differ
// from the hardware's in the last bits.
#pragma once

#include "check/Compare.h"
#include "codeobj/KernelArgs.h"
#include "launch/CaptureBundle.h"
#include "launch/CaptureLaunch.h"

#include <nlohmann/json.hpp>

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace asmevo::check {

// Bytes [Offset, Offset + Bytes) of region Region hold elements of Type; Label says where the
// user's type came from ("#2", "#0[3]": the region the fourth pointer of #0's region reaches).
struct TypedSpan {
  size_t Region = 0;
  uint64_t Offset = 0, Bytes = 0;
  ElemType Type = ElemType::Bytes;
  std::string Label;
};

// Parses "ARG=TYPE[,ARG=TYPE...]" for the bundle's kernel (Sig): ARG is an explicit argument's
// name or "#N" (its index among the explicit arguments), and must be a pointer whose kernarg
// value lies in a captured region; the span runs from that address to the region's end. "ARG[]"
// instead types every region that a pointer word of ARG's region points into (the rows of a
// row table, the pages of a page table), each from that word's address. A span ends where the
// next one in its region begins. Errors (usage): an unknown argument or type, an argument that
// is not a pointer or points outside every region, one address given two types.
llvm::Expected<std::vector<TypedSpan>> captureTypedSpans(const launch::CaptureBundle &B,
                                                         const KernelSignature &Sig,
                                                         llvm::StringRef Types);

// The first place Got differs from Want, in words ("" when none): a byte outside every typed
// span ("region 0x7f..00 (reached from kernarg+0x10) byte 12 (address 0x..): 0x00 where K0 has
// 0x41", WantName naming Want), or a typed span that fails Eq. 1 ("region 0x.. ('#2', f32):
// max_abs_diff 1 > tau 0.001 at index 0 (K0 901, K1 902)"). Metrics gets one object per typed
// span: its region base, label, type and check/Compare.h's figures.
std::string firstCaptureDifference(const launch::CaptureBundle &B,
                                   const std::vector<TypedSpan> &Spans,
                                   const launch::CaptureState &Want,
                                   const launch::CaptureState &Got, const std::string &WantName,
                                   const std::string &GotName, double Theta, double Tau,
                                   nlohmann::json *Metrics = nullptr);

} // namespace asmevo::check
