#include "search/EditHunks.h"

#include <algorithm>
#include <cstdint>

namespace asmevo::search {

namespace {

// Old lines [OldBegin, OldEnd) become New lines [NewBegin, NewEnd).
struct Hunk {
  size_t OldBegin, OldEnd, NewBegin, NewEnd;
};

std::string joinLines(llvm::ArrayRef<std::string> Lines, size_t Begin, size_t End) {
  std::string Out;
  for (size_t I = Begin; I < End; ++I)
    Out += Lines[I] + (I + 1 < End ? "\n" : "");
  return Out;
}

} // namespace

std::vector<Edit> hunkEdits(const std::string &Function, llvm::ArrayRef<std::string> Old,
                            llvm::ArrayRef<std::string> New, unsigned FirstLine) {
  const size_t N = Old.size(), M = New.size();
  if (N == 0 || (N + 1) * (M + 1) > kMaxHunkCells || Old.equals(New))
    return {};
  // L[i][j]: the longest common subsequence of Old[i..] and New[j..].
  std::vector<uint32_t> L((N + 1) * (M + 1), 0);
  auto At = [&](size_t I, size_t J) -> uint32_t & { return L[I * (M + 1) + J]; };
  for (size_t I = N; I-- > 0;)
    for (size_t J = M; J-- > 0;)
      At(I, J) = Old[I] == New[J] ? At(I + 1, J + 1) + 1 : std::max(At(I + 1, J), At(I, J + 1));
  // The runs of lines off the common subsequence.
  std::vector<Hunk> Runs;
  size_t I = 0, J = 0;
  while (I < N || J < M) {
    if (I < N && J < M && Old[I] == New[J]) {
      ++I, ++J;
      continue;
    }
    Hunk H{I, I, J, J};
    while ((I < N || J < M) && !(I < N && J < M && Old[I] == New[J])) {
      if (J < M && (I == N || At(I, J + 1) >= At(I + 1, J)))
        ++J;
      else
        ++I;
    }
    H.OldEnd = I, H.NewEnd = J;
    // A window holds at least one line: an insertion takes the unchanged line before it (after
    // it at the start) into its window and its replacement.
    if (H.OldBegin == H.OldEnd) {
      if (H.OldBegin > 0)
        --H.OldBegin, --H.NewBegin;
      else
        ++H.OldEnd, ++H.NewEnd;
    }
    Runs.push_back(H);
  }
  // Runs close together are one window: fewer, larger edits.
  std::vector<Hunk> Hunks;
  for (const Hunk &H : Runs) {
    if (!Hunks.empty() && H.OldBegin <= Hunks.back().OldEnd + 2) {
      Hunks.back().OldEnd = std::max(Hunks.back().OldEnd, H.OldEnd);
      Hunks.back().NewEnd = std::max(Hunks.back().NewEnd, H.NewEnd);
      continue;
    }
    Hunks.push_back(H);
  }
  std::vector<Edit> Out;
  for (const Hunk &H : Hunks) {
    Edit E;
    E.W.Function = Function;
    E.W.FirstLine = FirstLine + unsigned(H.OldBegin);
    E.W.LastLine = FirstLine + unsigned(H.OldEnd) - 1;
    E.Original = joinLines(Old, H.OldBegin, H.OldEnd);
    E.Replacement = joinLines(New, H.NewBegin, H.NewEnd);
    Out.push_back(std::move(E));
  }
  return Out;
}

} // namespace asmevo::search
