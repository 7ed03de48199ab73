#include "asm/LineMap.h"

#include "asm/Recover.h"
#include "support/Error.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

namespace asmevo {

int64_t dataDirectiveBytes(llvm::StringRef Line) {
  llvm::StringRef L = Line.trim();
  L = L.split(';').first.split("//").first.trim();
  auto Args = [](llvm::StringRef A) {
    llvm::SmallVector<llvm::StringRef> V;
    A.split(V, ',', -1, false);
    return V;
  };
  if (L.consume_front(".long") || L.consume_front(".4byte"))
    return int64_t(Args(L).size()) * 4;
  if (L.consume_front(".byte"))
    return int64_t(Args(L).size());
  if (L.consume_front(".short") || L.consume_front(".2byte"))
    return int64_t(Args(L).size()) * 2;
  if (L.consume_front(".zero")) {
    uint64_t N = 0;
    return Args(L).empty() || Args(L)[0].trim().getAsInteger(0, N) ? -1 : int64_t(N);
  }
  if (L.consume_front(".fill")) {
    auto A = Args(L);
    uint64_t N = 0, Size = 1;
    if (A.empty() || A[0].trim().getAsInteger(0, N))
      return -1;
    if (A.size() > 1 && A[1].trim().getAsInteger(0, Size))
      return -1;
    return int64_t(N * Size);
  }
  return -1;
}

llvm::Expected<KernelLines> mapKernelLines(const CodeObject &K, SchedInfo &Sched,
                                           llvm::StringRef Text, llvm::StringRef Kernel) {
  const KernelInfo *KI = K.kernel(Kernel.str());
  if (!KI)
    return makeError("'" + K.Path + "': no kernel named '" + Kernel.str() + "'");
  const FunctionExtent *F = K.kernelCode(*KI);
  uint64_t End = F ? F->End : KI->EntryAddr;
  std::string Label = asmSymbolName(Kernel.str()) + ":";
  KernelLines R;
  llvm::SmallVector<llvm::StringRef> Lines;
  Text.split(Lines, '\n');
  R.Lines.reserve(Lines.size());
  for (llvm::StringRef L : Lines)
    R.Lines.push_back(L.str());
  bool Inside = false;
  uint64_t Addr = KI->EntryAddr;
  for (size_t I = 0; I < R.Lines.size(); ++I) {
    llvm::StringRef L = R.Lines[I];
    if (!Inside) {
      Inside = L.trim() == Label;
      R.Label = I;
      R.End = R.FirstEditable = I + 1;
      continue;
    }
    if (L.trim() == ".endif" && I >= 3 &&
        llvm::StringRef(R.Lines[I - 3]).contains("kernarg-preload compatibility prologue"))
      R.FirstEditable = I + 1;
    if (Addr >= End)
      break;
    llvm::StringRef T = L.trim();
    if (T.empty() || T.starts_with(";") || T.starts_with("//") || T.ends_with(":"))
      continue;
    if (int64_t N = dataDirectiveBytes(T); N >= 0) {
      R.Code.push_back(CodeLine{I, Addr - KI->EntryAddr, unsigned(N), nullptr});
      Addr += uint64_t(N);
      R.End = I + 1;
      continue;
    }
    if (T.starts_with("."))
      continue; // another directive: no bytes of code
    auto C = Sched.cost(Addr);
    if (!C)
      return C.takeError();
    llvm::StringRef Mn = T.split(' ').first.split('\t').first;
    llvm::StringRef Printed = llvm::StringRef((*C)->Text).split(' ').first;
    if (Mn != Printed)
      return makeError("'" + K.Path + "': cannot match the line " + std::to_string(I + 1) + " '" +
                       T.str() + "' to the instruction at +0x" +
                       llvm::utohexstr(Addr - KI->EntryAddr) + " (" + Printed.str() + ")");
    R.Code.push_back(CodeLine{I, Addr - KI->EntryAddr, (*C)->Size, *C});
    Addr += (*C)->Size;
    R.End = I + 1;
  }
  if (!Inside)
    return makeError("'" + K.Path + "': the assembly text has no label '" + Label + "'");
  return R;
}

} // namespace asmevo
