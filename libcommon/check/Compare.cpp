#include "check/Compare.h"

#include "launch/InputGen.h"
#include "support/Float.h"
#include "support/Format.h"

#include <cmath>
#include <cstring>
#include <sstream>

namespace asmevo::check {

using namespace asmevo::launch;

double elementValue(ElemType T, const uint8_t *P) {
  if (auto F = smallFormatOf(T))
    return smallToF32(P[0], *F);
  switch (T) {
  case ElemType::E8M0:
    return e8m0ToF32(P[0]);
  case ElemType::F16: {
    uint16_t H;
    std::memcpy(&H, P, 2);
    return f16ToF32(H);
  }
  case ElemType::BF16: {
    uint16_t H;
    std::memcpy(&H, P, 2);
    return bf16ToF32(H);
  }
  case ElemType::F32: {
    float F;
    std::memcpy(&F, P, 4);
    return F;
  }
  case ElemType::F64: {
    double D;
    std::memcpy(&D, P, 8);
    return D;
  }
  case ElemType::I8:
    return double(int8_t(P[0]));
  case ElemType::I16: {
    int16_t V;
    std::memcpy(&V, P, 2);
    return V;
  }
  case ElemType::I32: {
    int32_t V;
    std::memcpy(&V, P, 4);
    return V;
  }
  case ElemType::I64: {
    int64_t V;
    std::memcpy(&V, P, 8);
    return double(V);
  }
  case ElemType::U16: {
    uint16_t V;
    std::memcpy(&V, P, 2);
    return V;
  }
  case ElemType::U32: {
    uint32_t V;
    std::memcpy(&V, P, 4);
    return V;
  }
  case ElemType::U64: {
    uint64_t V;
    std::memcpy(&V, P, 8);
    return double(V);
  }
  default:
    return P[0];
  }
}

std::string formatElement(ElemType T, const uint8_t *P) {
  char Buf[64];
  if (isFloatType(T)) {
    double V = elementValue(T, P);
    if (std::isnan(V))
      return "nan";
    if (std::isinf(V))
      return V > 0 ? "inf" : "-inf";
    std::snprintf(Buf, sizeof Buf, "%.9g", V);
    return Buf;
  }
  switch (T) {
  case ElemType::Bytes:
  case ElemType::F4E2M1X2: // two packed values: the byte
    std::snprintf(Buf, sizeof Buf, "0x%02x", P[0]);
    return Buf;
  case ElemType::I64: {
    int64_t V;
    std::memcpy(&V, P, 8);
    return std::to_string(V);
  }
  case ElemType::U64: {
    uint64_t V;
    std::memcpy(&V, P, 8);
    return std::to_string(V);
  }
  default:
    return std::to_string(int64_t(elementValue(T, P)));
  }
}

BufferMetrics compareBuffers(ElemType T, const uint8_t *A, const uint8_t *B, uint64_t Elements,
                             double Theta, double Tau) {
  BufferMetrics M;
  M.Elements = Elements;
  unsigned ES = elemSize(T);
  if (!isFloatType(T)) {
    for (uint64_t I = 0; I < Elements; ++I)
      if (std::memcmp(A + I * ES, B + I * ES, ES)) {
        if (M.FirstDiff < 0)
          M.FirstDiff = int64_t(I);
        ++M.Mismatches;
      }
    if (M.Mismatches)
      M.Failure = "mismatches " + std::to_string(M.Mismatches) + " (byte-exact)";
  } else {
    M.Float = true;
    int64_t FirstNan = -1, FirstInf = -1, FirstTau = -1, FirstDiff = -1;
    double Scale = 0;
    for (uint64_t I = 0; I < Elements; ++I) {
      double X = elementValue(T, A + I * ES), Y = elementValue(T, B + I * ES);
      bool NX = std::isnan(X), NY = std::isnan(Y);
      if (NX != NY) {
        ++M.NanMismatches;
        if (FirstNan < 0)
          FirstNan = int64_t(I);
      }
      if (NX || NY)
        continue;
      bool IX = std::isinf(X), IY = std::isinf(Y);
      if ((IX || IY) && X != Y) {
        ++M.InfMismatches;
        if (FirstInf < 0)
          FirstInf = int64_t(I);
      }
      if (X != Y) {
        ++M.Mismatches;
        if (FirstDiff < 0)
          FirstDiff = int64_t(I);
      }
      if (IX || IY)
        continue;
      Scale = std::max(Scale, std::max(std::fabs(X), std::fabs(Y)));
      double D = std::fabs(X - Y);
      if (D > M.MaxAbsDiff) {
        M.MaxAbsDiff = D;
        M.MaxAbsDiffIndex = I;
      }
      if (D > Tau && FirstTau < 0)
        FirstTau = int64_t(I);
    }
    M.Mismatches += M.NanMismatches;
    double Dot = 0, NA = 0, NB = 0;
    if (Scale > 0)
      for (uint64_t I = 0; I < Elements; ++I) {
        double X = elementValue(T, A + I * ES), Y = elementValue(T, B + I * ES);
        if (!std::isfinite(X) || !std::isfinite(Y))
          continue;
        X /= Scale;
        Y /= Scale;
        Dot += X * Y;
        NA += X * X;
        NB += Y * Y;
      }
    if (NA == 0 && NB == 0)
      M.Cosine = 1.0;
    else if (NA == 0 || NB == 0)
      M.Cosine = 0.0;
    else
      M.Cosine = std::min(1.0, Dot / std::sqrt(NA * NB));
    if (M.NanMismatches) {
      M.Failure = "nan_mismatches " + std::to_string(M.NanMismatches);
      M.FirstDiff = FirstNan;
    } else if (M.InfMismatches) {
      M.Failure = "inf_mismatches " + std::to_string(M.InfMismatches);
      M.FirstDiff = FirstInf;
    } else if (M.MaxAbsDiff > Tau) {
      M.Failure = "max_abs_diff " + general(M.MaxAbsDiff) + " > tau " + general(Tau);
      M.FirstDiff = FirstTau;
    } else if (M.Cosine < Theta) {
      M.Failure = "cosine " + general(M.Cosine) + " < theta " + general(Theta);
      M.FirstDiff = FirstDiff;
    } else {
      M.FirstDiff = FirstDiff;
    }
  }
  if (M.FirstDiff >= 0) {
    M.K0Value = formatElement(T, A + M.FirstDiff * ES);
    M.K1Value = formatElement(T, B + M.FirstDiff * ES);
  }
  return M;
}

nlohmann::json BufferMetrics::toJson() const {
  nlohmann::json J;
  J["ok"] = ok();
  J["elements"] = Elements;
  if (Float) {
    J["cosine"] = Cosine;
    J["max_abs_diff"] = MaxAbsDiff;
    J["nan_mismatches"] = NanMismatches;
    J["inf_mismatches"] = InfMismatches;
  }
  J["mismatches"] = Mismatches;
  if (!ok())
    J["failure"] = Failure;
  if (FirstDiff >= 0)
    J["first_diff"] = {{"index", FirstDiff}, {"k0", K0Value}, {"k1", K1Value}};
  else
    J["first_diff"] = nullptr;
  return J;
}

std::string GuardHit::text() const {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "0x%02x", Value);
  return std::string("guard ") + (Before ? "before the buffer" : "after the buffer") +
         " written at byte offset " + std::to_string(Offset) + " (value " + Buf + ")";
}

std::optional<GuardHit> checkGuards(const uint8_t *Alloc, uint64_t DataBytes, unsigned Salt) {
  // Report the changed byte nearest the buffer in each guard; before wins.
  for (int64_t I = int64_t(kGuardBytes) - 1; I >= 0; --I)
    if (Alloc[I] != canaryByte(uint64_t(I), Salt)) {
      GuardHit H;
      H.Before = true;
      H.Offset = I - int64_t(kGuardBytes);
      H.Value = Alloc[I];
      return H;
    }
  const uint8_t *After = Alloc + kGuardBytes + DataBytes;
  int64_t D = firstCanaryDiff(After, kGuardBytes, Salt);
  if (D >= 0) {
    GuardHit H;
    H.Offset = int64_t(DataBytes) + D;
    H.Value = After[D];
    return H;
  }
  return std::nullopt;
}

} // namespace asmevo::check
