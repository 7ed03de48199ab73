#include "support/SmallFloat.h"

#include <cmath>
#include <limits>

namespace asmevo {

namespace {

struct Layout {
  unsigned E, M; // exponent and mantissa bits
  int Bias;
  bool Fnuz;        // 0x80 is the only NaN, no negative zero
  bool OcpE4M3NaN;  // S.1111.111 is NaN (the exponent's top value is otherwise normal)
  bool IeeeTop;     // the top exponent holds infinity and NaNs (E5M2)
  uint32_t MaxCode; // the largest finite magnitude's code
};

Layout layoutOf(SmallFormat F) {
  switch (F) {
  case SmallFormat::E4M3Fnuz:
    return {4, 3, 8, true, false, false, 0x7f};
  case SmallFormat::E5M2Fnuz:
    return {5, 2, 16, true, false, false, 0x7f};
  case SmallFormat::E4M3:
    return {4, 3, 7, false, true, false, 0x7e};
  case SmallFormat::E5M2:
    return {5, 2, 15, false, false, true, 0x7b};
  case SmallFormat::E2M3:
    return {2, 3, 1, false, false, false, 0x1f};
  case SmallFormat::E3M2:
    return {3, 2, 3, false, false, false, 0x1f};
  case SmallFormat::E2M1:
    return {2, 1, 1, false, false, false, 0x7};
  }
  return {4, 3, 7, false, true, false, 0x7e};
}

// The magnitude of a finite code (sign stripped), as a double.
double magnitude(uint32_t Mag, const Layout &L) {
  uint32_t Exp = Mag >> L.M, Man = Mag & ((1u << L.M) - 1);
  if (Exp == 0)
    return std::ldexp(double(Man), 1 - L.Bias - int(L.M));
  return std::ldexp(double((1u << L.M) | Man), int(Exp) - L.Bias - int(L.M));
}

} // namespace

float smallToF32(uint32_t Code, SmallFormat F) {
  const Layout L = layoutOf(F);
  const unsigned Bits = 1 + L.E + L.M;
  Code &= (1u << Bits) - 1;
  const bool Sign = Code >> (Bits - 1);
  const uint32_t Mag = Code & ((1u << (Bits - 1)) - 1);
  const float QNaN = std::numeric_limits<float>::quiet_NaN();
  if (L.Fnuz && Code == 0x80)
    return QNaN;
  if (L.OcpE4M3NaN && Mag == 0x7f)
    return Sign ? -QNaN : QNaN;
  if (L.IeeeTop && (Mag >> L.M) == (1u << L.E) - 1) {
    float R = (Mag & ((1u << L.M) - 1)) ? QNaN : std::numeric_limits<float>::infinity();
    return Sign ? -R : R;
  }
  float V = float(magnitude(Mag, L));
  return Sign ? -V : V;
}

bool f32ToSmall(float X, SmallFormat F, bool Saturate, uint32_t &Code) {
  return f64ToSmall(double(X), F, Saturate, Code);
}

bool f64ToSmall(double X, SmallFormat F, bool Saturate, uint32_t &Code) {
  const Layout L = layoutOf(F);
  const unsigned Bits = 1 + L.E + L.M;
  const bool Narrow = Bits < 8; // FP6 / FP4: no NaN, no infinity
  const uint32_t SignBit = 1u << (Bits - 1);
  const uint32_t Sign = std::signbit(X) ? SignBit : 0;
  const uint32_t NaNCode = L.Fnuz ? 0x80u : L.OcpE4M3NaN ? (Sign | 0x7fu) : (Sign | 0x7fu);
  if (std::isnan(X)) {
    if (Narrow)
      return false;
    Code = NaNCode;
    return true;
  }
  auto Overflow = [&]() {
    if (Saturate) {
      Code = (L.Fnuz && Sign) ? (0x80u | L.MaxCode) : (Sign | L.MaxCode);
      return true;
    }
    if (Narrow)
      return false;
    Code = L.IeeeTop ? (Sign | 0x7cu) : NaNCode;
    return true;
  };
  if (std::isinf(X)) {
    if (Saturate)
      return false; // saturating an infinity is not documented
    return Overflow();
  }
  const double A = std::fabs(X);
  const int EMin = 1 - L.Bias; // exponent of the smallest normal
  int E = 0;
  if (A != 0) {
    (void)std::frexp(A, &E);
    E -= 1; // A = 1.f * 2^E
  }
  const int QExp = (A == 0 || E < EMin ? EMin : E) - int(L.M); // weight of the last mantissa bit
  const double N = std::ldexp(A, -QExp);                       // exact (a power-of-two scaling)
  double R = std::floor(N);
  const double Frac = N - R;
  if (Frac > 0.5 || (Frac == 0.5 && std::fmod(R, 2.0) != 0))
    R += 1; // nearest, ties to even
  const double V = std::ldexp(R, QExp);
  if (V > magnitude(L.MaxCode, L))
    return Overflow();
  uint32_t Mag;
  if (V == 0) {
    Code = L.Fnuz ? 0u : Sign;
    return true;
  }
  int VE;
  (void)std::frexp(V, &VE);
  VE -= 1;
  if (VE < EMin)
    Mag = uint32_t(std::ldexp(V, -(EMin - int(L.M)))); // subnormal: the mantissa alone
  else
    Mag = (uint32_t(VE + L.Bias) << L.M) |
          (uint32_t(std::ldexp(V, -(VE - int(L.M)))) & ((1u << L.M) - 1));
  Code = Sign | Mag;
  return true;
}

float e8m0ToF32(uint8_t E) {
  if (E == 0xff)
    return std::numeric_limits<float>::quiet_NaN();
  return std::ldexp(1.0f, int(E) - 127);
}

} // namespace asmevo
