#include "report/AsmDiff.h"

#include <algorithm>
#include <cstdint>

namespace asmevo::report {

std::vector<std::string> splitLines(llvm::StringRef Text) {
  std::vector<std::string> Lines;
  while (!Text.empty()) {
    size_t Nl = Text.find('\n');
    Lines.push_back(Text.substr(0, Nl).str());
    Text = Nl == llvm::StringRef::npos ? llvm::StringRef() : Text.drop_front(Nl + 1);
  }
  return Lines;
}

namespace {

// The whole edit script: one DiffLine per line of either text, in order.
std::vector<DiffLine> script(const std::vector<std::string> &A, const std::vector<std::string> &B,
                             size_t MaxCells) {
  size_t Head = 0;
  while (Head < A.size() && Head < B.size() && A[Head] == B[Head])
    ++Head;
  size_t Tail = 0;
  while (Tail < A.size() - Head && Tail < B.size() - Head &&
         A[A.size() - 1 - Tail] == B[B.size() - 1 - Tail])
    ++Tail;
  size_t N = A.size() - Head - Tail, M = B.size() - Head - Tail;
  std::vector<DiffLine> S;
  auto Same = [&](size_t I, size_t J) { S.push_back({' ', A[I], I + 1, J + 1}); };
  auto Del = [&](size_t I) { S.push_back({'-', A[I], I + 1, 0}); };
  auto Add = [&](size_t J) { S.push_back({'+', B[J], 0, J + 1}); };
  for (size_t K = 0; K < Head; ++K)
    Same(K, K);
  if (N && M && (N + 1) * (M + 1) <= MaxCells) {
    // L[i][j]: the longest common subsequence of A's middle from i and B's middle from j.
    std::vector<uint32_t> L((N + 1) * (M + 1), 0);
    auto At = [&](size_t I, size_t J) -> uint32_t & { return L[I * (M + 1) + J]; };
    for (size_t I = N; I-- > 0;)
      for (size_t J = M; J-- > 0;)
        At(I, J) = A[Head + I] == B[Head + J] ? At(I + 1, J + 1) + 1
                                              : std::max(At(I + 1, J), At(I, J + 1));
    size_t I = 0, J = 0;
    while (I < N && J < M) {
      if (A[Head + I] == B[Head + J]) {
        Same(Head + I++, Head + J++);
      } else if (At(I + 1, J) >= At(I, J + 1)) {
        Del(Head + I++);
      } else {
        Add(Head + J++);
      }
    }
    for (; I < N; ++I)
      Del(Head + I);
    for (; J < M; ++J)
      Add(Head + J);
  } else {
    for (size_t I = 0; I < N; ++I)
      Del(Head + I);
    for (size_t J = 0; J < M; ++J)
      Add(Head + J);
  }
  for (size_t K = 0; K < Tail; ++K)
    Same(A.size() - Tail + K, B.size() - Tail + K);
  return S;
}

} // namespace

std::vector<DiffHunk> diffTexts(llvm::StringRef Old, llvm::StringRef New, unsigned Context,
                                size_t MaxCells) {
  std::vector<std::string> A = splitLines(Old), B = splitLines(New);
  std::vector<DiffLine> S = script(A, B, MaxCells);
  std::vector<DiffHunk> Hunks;
  size_t K = 0;
  while (K < S.size()) {
    while (K < S.size() && S[K].Kind == ' ')
      ++K;
    if (K == S.size())
      break;
    // A hunk: from Context lines before this change through Context lines after the last
    // change that is at most 2 * Context unchanged lines from the next.
    size_t Begin = K >= Context ? K - Context : 0, End = K;
    for (;;) {
      while (End < S.size() && S[End].Kind != ' ')
        ++End;
      size_t Next = End;
      while (Next < S.size() && S[Next].Kind == ' ')
        ++Next;
      if (Next < S.size() && Next - End <= 2 * size_t(Context)) {
        End = Next;
        continue;
      }
      End = std::min(S.size(), End + Context);
      break;
    }
    DiffHunk H;
    H.Lines.assign(S.begin() + Begin, S.begin() + End);
    for (const DiffLine &L : H.Lines) {
      H.OldCount += L.Kind != '+';
      H.NewCount += L.Kind != '-';
    }
    // The line numbers before the hunk's first line in each text (unified diffs give the
    // number before an empty range).
    size_t OldBefore = 0, NewBefore = 0;
    for (size_t I = 0; I < Begin; ++I) {
      OldBefore += S[I].Kind != '+';
      NewBefore += S[I].Kind != '-';
    }
    H.OldStart = H.OldCount ? OldBefore + 1 : OldBefore;
    H.NewStart = H.NewCount ? NewBefore + 1 : NewBefore;
    Hunks.push_back(std::move(H));
    K = End;
  }
  return Hunks;
}

std::string unifiedText(const std::vector<DiffHunk> &Hunks) {
  std::string T;
  for (const DiffHunk &H : Hunks) {
    T += "@@ -" + std::to_string(H.OldStart) + "," + std::to_string(H.OldCount) + " +" +
         std::to_string(H.NewStart) + "," + std::to_string(H.NewCount) + " @@\n";
    for (const DiffLine &L : H.Lines)
      T += std::string(1, L.Kind) + L.Text + "\n";
  }
  return T;
}

} // namespace asmevo::report
