#include "timing/Annotate.h"

#include "asm/LineMap.h"
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
  auto Map = mapKernelLines(K, **Sched, Rec->Asm, Kernel);
  if (!Map)
    return Map.takeError();
  std::vector<const InstProfile *> ByLine(Map->Lines.size(), nullptr);
  unsigned Annotated = 0;
  for (const CodeLine &L : Map->Code) {
    auto It = ByOffset.find(int64_t(L.Offset));
    if (L.Cost && It != ByOffset.end()) {
      ByLine[L.Line] = It->second;
      ++Annotated;
    }
  }
  if (Annotated == 0 && !Insts.empty())
    return makeError("'" + K.Path + "': no instruction of kernel '" + Kernel +
                     "' matched a recovered line");
  std::string Out;
  for (size_t I = 0; I < Map->Lines.size(); ++I) {
    Out += Map->Lines[I];
    if (ByLine[I])
      Out += figures(*ByLine[I]);
    if (I + 1 < Map->Lines.size())
      Out += "\n";
  }
  return Out;
}

} // namespace asmevo::timing
