// Comparison of K1's buffer contents with K0's (Eq. 1 of DESIGN.md): float buffers by cosine
// similarity >= theta and max |K1 - K0| <= tau over the positions where both are finite, with
// NaN positions equal (K0 NaN <=> K1 NaN) and Inf positions and signs equal; integer and
// "bytes" buffers byte-exact.
#pragma once

#include "launch/LaunchSpec.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace asmevo::check {

using launch::ElemType;

struct BufferMetrics {
  uint64_t Elements = 0;
  bool Float = false;
  double Cosine = 1.0;     // floats: over positions where both are finite
  double MaxAbsDiff = 0.0; // floats: over positions where both are finite
  uint64_t MaxAbsDiffIndex = 0;
  uint64_t NanMismatches = 0; // floats: positions where exactly one is NaN
  uint64_t InfMismatches = 0; // floats: positions where an Inf is not matched by an equal Inf
  uint64_t Mismatches = 0; // elements whose values differ (floats: by value; -0 == 0, NaN == NaN)
  // The first element that shows the failure (or the first difference when all passed); -1 none.
  int64_t FirstDiff = -1;
  std::string K0Value, K1Value;
  // Empty when the buffer passed, else what failed: "nan_mismatches 3", "max_abs_diff 0.5 >
  // tau 0.001", "cosine 0.99 < theta 0.9999", "mismatches 4 (byte-exact)".
  std::string Failure;
  bool ok() const { return Failure.empty(); }
  nlohmann::json toJson() const;
};

// Compare N elements of type T (A: K0, B: K1).
BufferMetrics compareBuffers(ElemType T, const uint8_t *A, const uint8_t *B, uint64_t Elements,
                             double Theta, double Tau);

// One element as a double (floats, integers) and as text ("1.5", "nan", "-inf", "0x7f").
double elementValue(ElemType T, const uint8_t *P);
std::string formatElement(ElemType T, const uint8_t *P);

// A guard region that was written: Before (the guard before the buffer) or after, the byte
// offset of the first changed byte relative to the buffer's start (negative before it).
struct GuardHit {
  bool Before = false;
  int64_t Offset = 0;
  uint8_t Value = 0;
  std::string text() const; // "guard before the buffer written at byte offset -4"
};
// Alloc holds kGuardBytes of canary (salted with Salt), DataBytes of buffer, kGuardBytes of canary.
std::optional<GuardHit> checkGuards(const uint8_t *Alloc, uint64_t DataBytes, unsigned Salt = 0);

} // namespace asmevo::check
