#include "timing/Annotate.h"

#include "asm/Recover.h"
#include "asm/SchedInfo.h"
#include "support/Error.h"
#include "support/FileIO.h"
#include "timing/HotWindows.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cstdio>
#include <map>

namespace asmevo::timing {

namespace {

// The bytes a data directive line emits, or -1 when it is not one of those.
int64_t dataBytes(llvm::StringRef Line) {
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

std::string figures(const InstProfile &P) {
  const Breakdown &B = P.Cycles;
  std::pair<double, const char *> Why[] = {
      {B.WaitVm, "vmcnt"},           {B.WaitLgkm, "lgkmcnt"},   {B.WaitExp, "expcnt"},
      {B.Barrier, "barrier"},        {B.UnitBusy, "unit busy"}, {B.Dependency, "s_nop/latency"},
      {B.Arbitration, "arbitration"}};
  const std::pair<double, const char *> *Top = &Why[0];
  for (const auto &W : Why)
    if (W.first > Top->first)
      Top = &W;
  char Buf[160];
  double T = totalCycles(B);
  if (Top->first > 0)
    std::snprintf(Buf, sizeof Buf, " ; modeled: %llu executions, %.0f wave-cycles (%.0f%% %s)",
                  static_cast<unsigned long long>(P.Executions), T, 100 * Top->first / T,
                  Top->second);
  else
    std::snprintf(Buf, sizeof Buf, " ; modeled: %llu executions, %.0f wave-cycles (issue)",
                  static_cast<unsigned long long>(P.Executions), T);
  return Buf;
}

} // namespace

llvm::Expected<std::string> annotatedAssembly(const CodeObject &K, const std::string &SourceName,
                                              const std::string &AsmName, const std::string &Kernel,
                                              const std::vector<InstProfile> &Insts) {
  const KernelInfo *KI = K.kernel(Kernel);
  if (!KI)
    return makeError("'" + K.Path + "': no kernel named '" + Kernel + "'");
  auto Rec = recoverAssembly(K, SourceName, sha256Hex(K.Bytes), AsmName);
  if (!Rec)
    return Rec.takeError();
  auto Sched = SchedInfo::create(K);
  if (!Sched)
    return Sched.takeError();
  std::map<int64_t, const InstProfile *> ByOffset;
  for (const InstProfile &P : Insts)
    ByOffset[P.Offset] = &P;
  const FunctionExtent *F = K.kernelCode(*KI);
  uint64_t End = F ? F->End : KI->EntryAddr;
  std::string Label = asmSymbolName(Kernel) + ":";

  std::string Out;
  llvm::SmallVector<llvm::StringRef> Lines;
  llvm::StringRef(Rec->Asm).split(Lines, '\n');
  bool Inside = false;
  uint64_t Addr = KI->EntryAddr;
  unsigned Annotated = 0;
  for (size_t I = 0; I < Lines.size(); ++I) {
    llvm::StringRef L = Lines[I];
    Out += L.str();
    if (I + 1 < Lines.size())
      Out += "\n";
    if (!Inside) {
      Inside = L.trim() == Label;
      continue;
    }
    if (Addr >= End)
      continue;
    llvm::StringRef T = L.trim();
    if (T.empty() || T.starts_with(";") || T.starts_with("//") || T.ends_with(":"))
      continue;
    if (int64_t N = dataBytes(T); N >= 0) {
      Addr += uint64_t(N);
      continue;
    }
    if (T.starts_with("."))
      continue; // another directive: no bytes of code
    auto C = (*Sched)->cost(Addr);
    if (!C)
      return C.takeError();
    llvm::StringRef Mn = T.split(' ').first.split('\t').first;
    llvm::StringRef Printed = llvm::StringRef((*C)->Text).split(' ').first;
    if (Mn != Printed)
      return makeError("'" + K.Path + "': cannot match the recovered line '" + T.str() +
                       "' to the instruction at +0x" + llvm::utohexstr(Addr - KI->EntryAddr) +
                       " (" + Printed.str() + ")");
    auto It = ByOffset.find(int64_t(Addr - KI->EntryAddr));
    if (It != ByOffset.end()) {
      Out.insert(Out.size() - (I + 1 < Lines.size() ? 1 : 0), figures(*It->second));
      ++Annotated;
    }
    Addr += (*C)->Size;
  }
  if (!Inside)
    return makeError("'" + K.Path + "': the recovered text has no label '" + Label + "'");
  if (Annotated == 0 && !Insts.empty())
    return makeError("'" + K.Path + "': no instruction of kernel '" + Kernel +
                     "' matched a recovered line");
  return Out;
}

} // namespace asmevo::timing
