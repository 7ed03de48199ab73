// A number as text with a fixed number of decimals ("%.*f"), as reports and messages write
// speedups, times and percentages; or in "%g" form (weights, factors: "3", "0.5", "1e+06").
#pragma once

#include <cstdio>
#include <string>

namespace asmevo {

inline std::string fixed(double V, int Digits) {
  char B[64];
  std::snprintf(B, sizeof B, "%.*f", Digits, V);
  return B;
}

inline std::string general(double V) {
  char B[64];
  std::snprintf(B, sizeof B, "%g", V);
  return B;
}

} // namespace asmevo
