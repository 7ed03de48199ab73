// PyTorch's fp8 / e8m0 conversion tables (test/corpus/fp8-tables, written by gen_tables.py):
// an implementation of the narrow formats that shares no code with support/SmallFloat, for tests
// that need to decode inputs or check encodings independently.
#pragma once

#include "support/Float.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace asmevo::emu::test {

inline std::string torchTablePath(const std::string &Name) {
  return std::string(ASMEVO_SOURCE_DIR) + "/test/corpus/fp8-tables/" + Name;
}

// Rows of one of the tab-separated tables, header dropped.
inline std::vector<std::vector<std::string>> readTorchTable(const std::string &Name) {
  std::ifstream In(torchTablePath(Name));
  EXPECT_TRUE(In.good()) << "cannot read " << torchTablePath(Name);
  std::vector<std::vector<std::string>> Rows;
  std::string Line;
  bool Header = true;
  while (std::getline(In, Line)) {
    if (Header) {
      Header = false;
      continue;
    }
    std::vector<std::string> Cols;
    std::stringstream S(Line);
    std::string C;
    while (std::getline(S, C, '\t'))
      Cols.push_back(C);
    Rows.push_back(Cols);
  }
  return Rows;
}

inline uint32_t parseHex(const std::string &S) { return uint32_t(std::stoul(S, nullptr, 16)); }

// Every byte code of a format ("e4m3fn", "e5m2", "e4m3fnuz", "e5m2fnuz", "e8m0fnu") as torch
// decodes it to f32.
inline std::array<float, 256> torchDecode(const std::string &Format) {
  std::array<float, 256> T{};
  auto Rows = readTorchTable("decode_" + Format + ".tsv");
  EXPECT_EQ(Rows.size(), 256u) << Format;
  for (const auto &R : Rows)
    if (R.size() >= 2)
      T[parseHex(R[0]) & 0xff] = bitsToF32(parseHex(R[1]));
  return T;
}

} // namespace asmevo::emu::test
