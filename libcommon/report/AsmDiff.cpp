// The line diff of two assembly texts as unified-diff hunks (report/AsmDiff.h).
#include "report/AsmDiff.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <set>

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

// Myers' greedy shortest edit script of A[Head, Head+N) into B[Head, Head+M), appended to S:
// O((N+M)D) time for D differing lines, and the frontier of every round kept for the way back
// ((D+1)^2 cells). False, with S untouched, when that would pass MaxCells.
bool myers(const std::vector<std::string> &A, const std::vector<std::string> &B, size_t Head,
           size_t N, size_t M, size_t MaxCells, std::vector<DiffLine> &S) {
  const long Max = long(N + M);
  std::vector<long> V(2 * size_t(Max) + 3, 0);
  auto Vk = [&](std::vector<long> &Of, long K) -> long & { return Of[size_t(K + Max + 1)]; };
  std::vector<std::vector<long>> Trace; // round d: V[-d..d] after it
  size_t Cells = 0;
  long D = 0;
  for (bool Done = false; !Done; ++D) {
    if (D > Max || (Cells += 2 * size_t(D) + 1) > MaxCells)
      return false;
    for (long K = -D; K <= D; K += 2) {
      long X = K == -D || (K != D && Vk(V, K - 1) < Vk(V, K + 1)) ? Vk(V, K + 1) : Vk(V, K - 1) + 1;
      long Y = X - K;
      while (X < long(N) && Y < long(M) && A[Head + X] == B[Head + Y])
        ++X, ++Y;
      Vk(V, K) = X;
      if (X >= long(N) && Y >= long(M))
        Done = true;
    }
    Trace.emplace_back(V.begin() + (Max + 1 - D), V.begin() + (Max + 2 + D));
  }
  // Back from (N, M): each round ends in a snake (equal lines) after one step down (a line of B
  // added) or right (a line of A removed).
  std::vector<DiffLine> Back;
  long X = long(N), Y = long(M);
  for (long Dd = long(Trace.size()) - 1; Dd > 0; --Dd) {
    const std::vector<long> &P = Trace[size_t(Dd - 1)];
    auto Pk = [&](long K) { return P[size_t(K + Dd - 1)]; };
    long K = X - Y;
    long PrevK = K == -Dd || (K != Dd && Pk(K - 1) < Pk(K + 1)) ? K + 1 : K - 1;
    long PrevX = Pk(PrevK), PrevY = PrevX - PrevK;
    for (; X > PrevX && Y > PrevY; --X, --Y)
      Back.push_back({' ', A[Head + X - 1], size_t(Head + X), size_t(Head + Y)});
    if (PrevK == K + 1)
      Back.push_back({'+', B[Head + PrevY], 0, size_t(Head + PrevY + 1)});
    else
      Back.push_back({'-', A[Head + PrevX], size_t(Head + PrevX + 1), 0});
    X = PrevX;
    Y = PrevY;
  }
  for (; X > 0 && Y > 0; --X, --Y)
    Back.push_back({' ', A[Head + X - 1], size_t(Head + X), size_t(Head + Y)});
  S.insert(S.end(), Back.rbegin(), Back.rend());
  return true;
}

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
  } else if (!myers(A, B, Head, N, M, MaxCells, S)) {
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

std::string mnemonicOf(llvm::StringRef Line) {
  llvm::StringRef T = Line.ltrim(" \t");
  size_t End = 0;
  while (End < T.size() &&
         (std::isalnum(static_cast<unsigned char>(T[End])) || T[End] == '_' || T[End] == '.'))
    ++End;
  llvm::StringRef Word = T.take_front(End);
  if (Word.empty() || !std::isalpha(static_cast<unsigned char>(Word[0])) ||
      T.drop_front(End).starts_with(":"))
    return ""; // a comment, a directive (".p2align"), a label (".LBB0_1:", "k:") or nothing
  return Word.str();
}

std::map<std::string, size_t> markDeleted(llvm::StringRef Old, llvm::StringRef New,
                                          std::vector<DiffHunk> &Hunks) {
  std::map<std::string, long> Count;
  for (const std::string &L : splitLines(Old))
    if (std::string Mn = mnemonicOf(L); !Mn.empty())
      ++Count[Mn];
  for (const std::string &L : splitLines(New))
    if (std::string Mn = mnemonicOf(L); !Mn.empty())
      --Count[Mn];
  std::map<std::string, size_t> Deleted;
  for (const auto &[Mn, C] : Count)
    if (C > 0)
      Deleted[Mn] = size_t(C);
  std::set<std::string> Added;
  for (const DiffHunk &H : Hunks)
    for (const DiffLine &L : H.Lines)
      if (L.Kind == '+')
        Added.insert(llvm::StringRef(L.Text).trim().str());
  std::map<std::string, size_t> Left = Deleted;
  // Lines that reappear elsewhere (moved) are marked last.
  for (bool Moved : {false, true})
    for (DiffHunk &H : Hunks)
      for (DiffLine &L : H.Lines) {
        if (L.Kind != '-' || L.Deleted ||
            Added.count(llvm::StringRef(L.Text).trim().str()) != size_t(Moved))
          continue;
        auto It = Left.find(mnemonicOf(L.Text));
        if (It != Left.end() && It->second > 0) {
          --It->second;
          L.Deleted = true;
        }
      }
  return Deleted;
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
