// A number as text with a fixed number of decimals ("%.*f"), as reports and messages write
// speedups, times and percentages.
#pragma once

#include <cstdio>
#include <string>

namespace asmevo {

inline std::string fixed(double V, int Digits) {
  char B[64];
  std::snprintf(B, sizeof B, "%.*f", Digits, V);
  return B;
}

} // namespace asmevo
