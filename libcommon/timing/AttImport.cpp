#include "timing/AttImport.h"

#include "asm/SchedInfo.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <map>

namespace asmevo::timing {

namespace {

// One CSV line split into fields ("..." quoting with "" for a quote).
std::vector<std::string> csvFields(llvm::StringRef Line) {
  std::vector<std::string> F(1);
  bool Quoted = false;
  for (size_t I = 0; I < Line.size(); ++I) {
    char C = Line[I];
    if (Quoted) {
      if (C == '"' && I + 1 < Line.size() && Line[I + 1] == '"') {
        F.back() += '"';
        ++I;
      } else if (C == '"') {
        Quoted = false;
      } else {
        F.back() += C;
      }
    } else if (C == '"') {
      Quoted = true;
    } else if (C == ',') {
      F.emplace_back();
    } else if (C != '\r') {
      F.back() += C;
    }
  }
  return F;
}

struct Row {
  std::string Codeobj, Text;
  uint64_t Vaddr = 0, Hit = 0;
  double Latency = 0, Stall = 0, Idle = 0;
  unsigned Line = 0;
};

} // namespace

llvm::Expected<AttProfile> importAttStats(const std::string &Dir, const CodeObject &K,
                                          const std::string &Kernel) {
  const KernelInfo *KI = K.kernel(Kernel);
  if (!KI)
    return makeError("'" + K.Path + "': no kernel named '" + Kernel + "'");
  const FunctionExtent *F = K.kernelCode(*KI);
  std::vector<std::string> Files;
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator I(Dir, EC), E; I != E && !EC; I.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(I->path());
    if (Name.starts_with("stats_") && Name.ends_with(".csv"))
      Files.push_back(I->path());
  }
  if (EC)
    return makeError("'" + Dir + "': " + EC.message());
  if (Files.empty())
    return makeError("'" + Dir + "': no rocprofv3 thread-trace statistics (stats_*.csv) in it");
  std::sort(Files.begin(), Files.end());
  auto Sched = SchedInfo::create(K);
  if (!Sched)
    return Sched.takeError();

  for (const std::string &File : Files) {
    auto Buf = readFile(File);
    if (!Buf)
      return Buf.takeError();
    llvm::SmallVector<llvm::StringRef> Lines;
    (*Buf)->getBuffer().split(Lines, '\n');
    if (Lines.empty())
      continue;
    std::vector<std::string> Head = csvFields(Lines[0]);
    std::map<std::string, size_t> Col;
    for (size_t I = 0; I < Head.size(); ++I)
      Col[llvm::StringRef(Head[I]).trim().str()] = I;
    for (const char *Need :
         {"Codeobj", "Vaddr", "Instruction", "Hitcount", "Latency", "Stall", "Idle"})
      if (!Col.count(Need))
        return lineError(File, 1, std::string("no column '") + Need + "' in the header");
    std::vector<Row> Rows;
    for (size_t L = 1; L < Lines.size(); ++L) {
      if (Lines[L].trim().empty())
        continue;
      std::vector<std::string> Fs = csvFields(Lines[L]);
      auto Field = [&](const char *N) -> std::string {
        size_t I = Col[N];
        return I < Fs.size() ? llvm::StringRef(Fs[I]).trim().str() : "";
      };
      Row R;
      R.Line = unsigned(L + 1);
      R.Codeobj = Field("Codeobj");
      R.Text = Field("Instruction");
      auto Num = [&](const char *N, double &Out) -> llvm::Error {
        std::string T = Field(N);
        char *End = nullptr;
        Out = std::strtod(T.c_str(), &End);
        if (T.empty() || *End)
          return lineError(File, R.Line,
                           std::string("column '") + N + "': '" + T + "' is not a number");
        return llvm::Error::success();
      };
      double Vaddr = 0, Hit = 0;
      for (auto [N, P] : {std::pair{"Vaddr", &Vaddr},
                          {"Hitcount", &Hit},
                          {"Latency", &R.Latency},
                          {"Stall", &R.Stall},
                          {"Idle", &R.Idle}})
        if (llvm::Error E = Num(N, *P))
          return std::move(E);
      // Vaddr may be written in hex (0x...) or decimal.
      std::string V = Field("Vaddr");
      R.Vaddr =
          llvm::StringRef(V).starts_with("0x") ? std::stoull(V, nullptr, 16) : uint64_t(Vaddr);
      R.Hit = uint64_t(Hit);
      Rows.push_back(std::move(R));
    }
    // The load id whose rows all lie in the kernel's code and match its instructions.
    std::map<std::string, std::pair<uint64_t, uint64_t>> Match; // id -> (rows, matching)
    for (const Row &R : Rows) {
      auto &M = Match[R.Codeobj];
      ++M.first;
      if (!F || R.Vaddr < F->Begin || R.Vaddr >= F->End)
        continue;
      auto C = (*Sched)->cost(R.Vaddr);
      if (!C) {
        llvm::consumeError(C.takeError());
        continue;
      }
      if (llvm::StringRef(R.Text).starts_with((*C)->Mnemonic))
        ++M.second;
    }
    std::string Chosen;
    for (auto &[Id, M] : Match)
      if (M.second && M.second == M.first && (Chosen.empty() || M.first > Match[Chosen].first))
        Chosen = Id;
    if (Chosen.empty())
      continue;
    AttProfile P;
    P.File = File;
    P.Sha256 = sha256Hex((*Buf)->getBuffer());
    P.Codeobj = Chosen;
    std::map<int64_t, InstProfile> ByOffset;
    for (const Row &R : Rows) {
      if (R.Codeobj != Chosen)
        continue;
      ++P.Rows;
      const InstCost *C = llvm::cantFail((*Sched)->cost(R.Vaddr));
      InstProfile &I = ByOffset[int64_t(R.Vaddr - KI->EntryAddr)];
      I.Offset = int64_t(R.Vaddr - KI->EntryAddr);
      I.Size = C->Size;
      I.Text = C->Text;
      I.Reads = C->Reads;
      I.Writes = C->Writes;
      if (C->BranchTarget)
        I.Target = int64_t(*C->BranchTarget - KI->EntryAddr);
      I.Executions += R.Hit;
      I.Cycles.Issue += std::max(0.0, R.Latency - R.Stall);
      I.Cycles.UnitBusy += R.Stall;
      I.Cycles.Arbitration += R.Idle;
    }
    for (auto &[Off, I] : ByOffset)
      P.Insts.push_back(std::move(I));
    return P;
  }
  return makeError("'" + Dir + "': no rows of kernel '" + Kernel + "' of '" + K.Path +
                   "' in its stats_*.csv (rows must lie in the kernel's code, with its "
                   "instructions)");
}

} // namespace asmevo::timing
