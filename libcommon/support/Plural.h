// Counts in messages: "1 kernel", "2 kernels", "1 code object".
#pragma once

#include <cstdint>
#include <string>

namespace asmevo {

// "N noun" with the noun in the plural unless N is 1 (Plural: the irregular plural, if any).
inline std::string countOf(uint64_t N, const std::string &Noun, const std::string &Plural = "") {
  return std::to_string(N) + " " + (N == 1 ? Noun : Plural.empty() ? Noun + "s" : Plural);
}

} // namespace asmevo
