#include "launch/EdgeShape.h"

#include <algorithm>
#include <cstring>
#include <optional>

namespace asmevo::launch {

namespace {

// A by-value argument's integer value when it is one (a JSON integer, or any value of an
// integer "type"), read from its encoded bytes as a signed number of its size.
std::optional<int64_t> integerValue(const ArgSpec &A) {
  if (A.Buffer || A.ValueBytes.empty() || A.ValueBytes.size() > 8)
    return std::nullopt;
  bool IntType = !A.ScalarType.empty() && (A.ScalarType[0] == 'i' || A.ScalarType[0] == 'u');
  bool IntJson = A.Value.is_number_integer() && A.ScalarType.empty();
  if (!IntType && !IntJson)
    return std::nullopt;
  uint64_t U = 0;
  std::memcpy(&U, A.ValueBytes.data(), A.ValueBytes.size());
  unsigned Bits = unsigned(8 * A.ValueBytes.size());
  if (Bits < 64 && (U >> (Bits - 1)) & 1)
    return std::nullopt; // negative as a signed number (or past its positive half): not a size
  return int64_t(U);
}

std::string dims(const std::array<uint32_t, 3> &D) {
  return std::to_string(D[0]) + "x" + std::to_string(D[1]) + "x" + std::to_string(D[2]);
}

} // namespace

std::vector<EdgeShape> edgeShapes(const LaunchSpec &S) {
  std::vector<EdgeShape> Out;
  for (int64_t Less = 1; Less <= kTailShapes; ++Less) {
    EdgeShape Tail{"tail-" + std::to_string(Less), "", S};
    for (ArgSpec &A : Tail.Spec.Args) {
      auto V = integerValue(A);
      if (!V || *V < 2)
        continue;
      uint64_t Smaller = uint64_t(std::max<int64_t>(1, *V - Less));
      std::memcpy(A.ValueBytes.data(), &Smaller, A.ValueBytes.size());
      A.Value = Smaller;
      Tail.Change += std::string(Tail.Change.empty() ? "" : ", ") + "'" + A.Label + "' " +
                     std::to_string(*V) + " -> " + std::to_string(Smaller);
    }
    if (!Tail.Change.empty())
      Out.push_back(std::move(Tail));
  }
  uint64_t Workgroups = 1;
  for (int D = 0; D < 3; ++D)
    Workgroups *= (uint64_t(S.GridItems[D]) + S.Block[D] - 1) / S.Block[D];
  if (Workgroups > 1) {
    EdgeShape One{"one-workgroup", "", S};
    for (int D = 0; D < 3; ++D)
      One.Spec.GridItems[D] = std::min(S.GridItems[D], S.Block[D]);
    if (S.HasGridItems) {
      One.Change = "grid_items " + dims(S.GridItems) + " -> " + dims(One.Spec.GridItems);
    } else {
      One.Spec.Grid = {1, 1, 1};
      One.Change = "grid " + dims(S.Grid) + " -> 1x1x1";
    }
    Out.push_back(std::move(One));
  }
  return Out;
}

} // namespace asmevo::launch
