// Unsigned integers from text as the command line and kernel-run's --arg give them: decimal,
// 0x hexadecimal or 0 octal (strtoull with base 0), the whole text, no sign, no overflow.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace asmevo {

inline bool parseU64(const std::string &S, uint64_t &V) {
  if (S.empty() || S[0] == '-')
    return false;
  errno = 0;
  char *End = nullptr;
  V = std::strtoull(S.c_str(), &End, 0);
  return errno == 0 && End && *End == 0;
}

} // namespace asmevo
