#include "launch/InputGen.h"

#include "support/FileIO.h"
#include "support/Float.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace asmevo::launch {

uint64_t argSeed(uint64_t Seed, unsigned Index) {
  Rng R(Seed * 0x100000001b3ull ^ (uint64_t(Index) + 1) * 0xd6e8feb86659fd93ull);
  return R.next();
}

unsigned boundaryLevel(uint64_t Seed) { return Seed <= 1 ? 0 : Seed == 2 ? 1 : 2; }

namespace {

void storeFloat(ElemType T, double V, uint8_t *P) {
  if (auto F = smallFormatOf(T)) {
    // Finite values past the format's range saturate (a random input, not an overflow test);
    // NaN and the infinities take the format's NaN or infinity.
    uint32_t Code = 0;
    if (!f64ToSmall(V, *F, std::isfinite(V), Code))
      f64ToSmall(V, *F, false, Code);
    P[0] = uint8_t(Code);
    return;
  }
  switch (T) {
  case ElemType::F64:
    std::memcpy(P, &V, 8);
    break;
  case ElemType::F32: {
    float F = float(V);
    std::memcpy(P, &F, 4);
    break;
  }
  case ElemType::F16: {
    uint16_t H = f32ToF16(float(V));
    std::memcpy(P, &H, 2);
    break;
  }
  default: {
    uint16_t H = f32ToBf16(float(V));
    std::memcpy(P, &H, 2);
    break;
  }
  }
}

// Finite boundary values of a float type.
double floatBoundary(ElemType T, uint64_t K) {
  double MinDen, MaxDen, MinNorm;
  switch (T) {
  case ElemType::F16:
    MinDen = 0x1p-24;
    MinNorm = 0x1p-14;
    break;
  case ElemType::F8E4M3FN: // bias 7, 3 mantissa bits
    MinDen = 0x1p-9;
    MinNorm = 0x1p-6;
    break;
  case ElemType::F8E5M2: // bias 15, 2 mantissa bits
    MinDen = 0x1p-16;
    MinNorm = 0x1p-14;
    break;
  case ElemType::F8E4M3FNUZ: // bias 8
    MinDen = 0x1p-10;
    MinNorm = 0x1p-7;
    break;
  case ElemType::F8E5M2FNUZ: // bias 16
    MinDen = 0x1p-17;
    MinNorm = 0x1p-15;
    break;
  case ElemType::BF16:
    MinDen = 0x1p-133;
    MinNorm = 0x1p-126;
    break;
  case ElemType::F32:
    MinDen = 0x1p-149;
    MinNorm = 0x1p-126;
    break;
  default:
    MinDen = std::numeric_limits<double>::denorm_min();
    MinNorm = 0x1p-1022;
    break;
  }
  MaxDen = MinNorm - MinDen;
  static const double Sign[] = {1, -1};
  switch (K % 8) {
  case 0:
    return 0.0;
  case 1:
    return -0.0;
  case 2:
    return MinDen * Sign[(K / 8) & 1];
  case 3:
    return MaxDen * Sign[(K / 8) & 1];
  case 4:
    return MinNorm * Sign[(K / 8) & 1];
  case 5:
    return 1.0;
  case 6:
    return -1.0;
  default:
    return 1024.0 * Sign[(K / 8) & 1];
  }
}

// The largest finite value of a float type (fp8 and fp4 formats saturate: any large value).
double floatLargest(ElemType T) {
  switch (T) {
  case ElemType::F16:
    return 65504.0;
  case ElemType::BF16:
    return 0x1.fep127;
  case ElemType::F32:
    return double(std::numeric_limits<float>::max());
  case ElemType::F64:
    return std::numeric_limits<double>::max();
  default:
    return 0x1p60; // stored saturated to the small format's largest value
  }
}

// A non-negative integer at or next to a multiple of a divisor, at most Max: k*d-1, k*d or
// k*d+1 for d a power of two (2^1 .. 2^24) or a small odd number or a round size (3, 5, 7,
// 12, 1000), k random and large enough that a reciprocal-based quotient may be off by one.
uint64_t nearMultiple(uint64_t X, uint64_t Max) {
  static const uint64_t Odd[] = {3, 5, 7, 12, 1000};
  uint64_t D = X & 1 ? uint64_t(1) << (1 + (X >> 1) % 24) : Odd[(X >> 1) % 5];
  uint64_t K = (X >> 8) % (Max / D + 1);
  uint64_t V = K * D;
  switch ((X >> 6) % 3) {
  case 0:
    return V ? V - 1 : 0;
  case 1:
    return V;
  default:
    return V < Max ? V + 1 : V;
  }
}

} // namespace

std::vector<uint8_t> generateValues(const ArgSpec &A, uint64_t Elements, uint64_t Seed,
                                    unsigned Boundaries) {
  ElemType T = A.Type;
  unsigned ES = elemSize(T);
  std::vector<uint8_t> Out(Elements * ES);
  Rng R(argSeed(Seed, A.Index));
  if (A.Range)
    Boundaries = 0;
  // Bytes, and f4e2m1x2: two random e2m1 codes a byte, every one a finite value.
  if (T == ElemType::Bytes || T == ElemType::F4E2M1X2) {
    for (uint64_t I = 0; I < Elements; ++I)
      Out[I] = uint8_t(R.next() >> 56);
    return Out;
  }
  if (T == ElemType::E8M0) {
    // Scales 2^k for integers k in [log2 lo, log2 hi] (default 2^-4 .. 2^4); no boundaries:
    // 2^-127, 2^127 and NaN would only flood the outputs with zeros, infinities and NaN.
    int KLo = -4, KHi = 4;
    if (A.Range && A.Range->first > 0 && A.Range->second >= A.Range->first) {
      KLo = std::max(-127, int(std::ceil(std::log2(A.Range->first))));
      KHi = std::min(127, int(std::floor(std::log2(A.Range->second))));
      if (KHi < KLo)
        KHi = KLo;
    }
    for (uint64_t I = 0; I < Elements; ++I)
      Out[I] = uint8_t(127 + KLo + int(R.next() % uint64_t(KHi - KLo + 1)));
    return Out;
  }
  if (isFloatType(T)) {
    double Lo = A.Range ? A.Range->first : -1.0, Hi = A.Range ? A.Range->second : 1.0;
    for (uint64_t I = 0; I < Elements; ++I) {
      uint64_t X = R.next();
      double V = Lo + (Hi - Lo) * (double(X >> 11) * 0x1.0p-53);
      unsigned Pick = unsigned(X & 1023);
      if (Boundaries >= 1 && Pick < 8)
        V = floatBoundary(T, R.next());
      else if (Boundaries >= 2 && Pick == 8) {
        uint64_t K = R.next() % 3;
        V = K == 0   ? std::numeric_limits<double>::quiet_NaN()
            : K == 1 ? std::numeric_limits<double>::infinity()
                     : -std::numeric_limits<double>::infinity();
      } else if (Boundaries >= 2 && Pick == 9)
        V = floatLargest(T) * (R.next() & 1 ? -1 : 1);
      storeFloat(T, V, &Out[I * ES]);
    }
    return Out;
  }
  bool Signed = isSignedType(T);
  unsigned Bits = 8 * ES;
  int64_t Min =
      Signed ? (Bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (Bits - 1))) : 0;
  uint64_t Max = Signed ? (Bits == 64 ? uint64_t(std::numeric_limits<int64_t>::max())
                                      : (uint64_t(1) << (Bits - 1)) - 1)
                        : (Bits == 64 ? ~0ull : (uint64_t(1) << Bits) - 1);
  int64_t Lo, Hi;
  if (A.Range) {
    Lo = int64_t(std::ceil(A.Range->first));
    Hi = int64_t(std::floor(A.Range->second));
    if (Hi < Lo)
      Hi = Lo;
  } else {
    Lo = Signed ? -8 : 0;
    Hi = Signed ? 8 : 16;
  }
  uint64_t Span = uint64_t(Hi - Lo) + 1;
  for (uint64_t I = 0; I < Elements; ++I) {
    uint64_t X = R.next();
    uint64_t V = uint64_t(Lo) + (Span ? (X >> 8) % Span : (X >> 8));
    if (Boundaries >= 1 && (X & 127) == 0) {
      // Seed 2: 0, 1, -1, the extremes; from seed 3 on also values at and around multiples of
      // a divisor (integer division's correction steps).
      uint64_t Y = R.next();
      switch (Boundaries >= 2 ? Y % 8 : Y % 5) {
      case 0:
        V = 0;
        break;
      case 1:
        V = 1;
        break;
      case 2:
        V = Signed ? ~0ull : 0;
        break;
      case 3:
        V = uint64_t(Min);
        break;
      case 4:
        V = Max;
        break;
      default:
        V = nearMultiple(R.next(), Max);
        break;
      }
    }
    std::memcpy(&Out[I * ES], &V, ES); // little-endian truncation
  }
  return Out;
}

void fillPoison(ElemType T, uint8_t *P, uint64_t Bytes) {
  uint64_t Pat;
  unsigned N;
  switch (T) {
  case ElemType::F32:
    Pat = 0x7fc0deadull;
    N = 4;
    break;
  case ElemType::F16:
    Pat = 0x7deaull;
    N = 2;
    break;
  case ElemType::BF16:
    Pat = 0x7fdeull;
    N = 2;
    break;
  case ElemType::F64:
    Pat = 0x7ff8dead7ff8deadull;
    N = 8;
    break;
  case ElemType::F8E4M3FNUZ:
  case ElemType::F8E5M2FNUZ:
    Pat = 0x80; // their only NaN (0xff, the others' NaN, is a number here)
    N = 1;
    break;
  default:
    std::memset(P, 0xff, Bytes);
    return;
  }
  for (uint64_t I = 0; I + N <= Bytes; I += N)
    std::memcpy(P + I, &Pat, N);
}

void fillCanary(uint8_t *P, uint64_t Bytes, unsigned Salt) {
  for (uint64_t I = 0; I < Bytes; ++I)
    P[I] = canaryByte(I, Salt);
}

int64_t firstCanaryDiff(const uint8_t *P, uint64_t Bytes, unsigned Salt) {
  for (uint64_t I = 0; I < Bytes; ++I)
    if (P[I] != canaryByte(I, Salt))
      return int64_t(I);
  return -1;
}

llvm::Expected<std::vector<uint8_t>> initialContents(const ArgSpec &A, uint64_t Seed) {
  uint64_t N = A.Elements.value_or(0);
  if (!A.FilePath.empty()) {
    auto F = readFile(A.FilePath);
    if (!F)
      return F.takeError();
    return std::vector<uint8_t>((*F)->getBufferStart(), (*F)->getBufferEnd());
  }
  std::vector<uint8_t> Out(N * elemSize(A.Type), 0);
  if (A.Fill == "zero")
    return Out;
  if (A.R == Role::Out && A.Fill != "random") {
    fillPoison(A.Type, Out.data(), Out.size());
    return Out;
  }
  return generateValues(A, N, Seed, boundaryLevel(Seed));
}

} // namespace asmevo::launch
