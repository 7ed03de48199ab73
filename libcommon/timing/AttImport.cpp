// Importing a rocprofv3 thread trace's stats CSVs (AttImport.h): every field read strictly, so
// that a damaged or hand-edited file is an input error naming its line, column and value.
#include "timing/AttImport.h"

#include "asm/SchedInfo.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
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

// A field's text as a message shows it: printable ASCII kept, other bytes as \xNN (the text may
// be anything a file holds), cut short.
std::string shown(llvm::StringRef T, size_t Max = 40) {
  std::string S;
  for (unsigned char C : T.take_front(Max))
    S += C >= 0x20 && C < 0x7f ? std::string(1, char(C)) : "\\x" + llvm::utohexstr(C, false, 2);
  return T.size() > Max ? S + "..." : S;
}

// The most a count or a number of cycles may be: beyond, a double no longer holds every whole
// number, and no traced dispatch comes near it.
constexpr double kMaxCount = 9007199254740992.0; // 2^53

// A non-negative decimal number of at most kMaxCount, written as a person or a CSV writer
// does ("12", "3.5", "1e3"): no sign, no NaN or infinity, no hexadecimal float.
llvm::Expected<double> countField(llvm::StringRef T, bool Whole) {
  const char *Kind = Whole ? "a whole number" : "a number";
  auto Bad = [&](const char *Why) {
    return makeError("'" + shown(T) + "' is " + Why + " (" + Kind + " from 0 to 2^53)");
  };
  if (T.empty())
    return makeError("is empty");
  if (T.find_first_not_of("0123456789.eE+-") != llvm::StringRef::npos)
    return Bad("not a number");
  if (T.front() == '-')
    return Bad("negative");
  std::string S = T.str();
  char *End = nullptr;
  double V = std::strtod(S.c_str(), &End);
  if (End != S.c_str() + S.size() || (!llvm::isDigit(T.front()) && T.front() != '.'))
    return Bad("not a number");
  if (!std::isfinite(V) || V > kMaxCount)
    return Bad("out of range");
  if (V < 0)
    return Bad("negative");
  if (Whole && V != std::floor(V))
    return Bad("not a whole number");
  return V;
}

// An instruction's address: 0x and at most 16 hexadecimal digits, or a decimal number below
// 2^64.
llvm::Expected<uint64_t> addressField(llvm::StringRef T) {
  uint64_t V = 0;
  if (T.empty())
    return makeError("is empty");
  if (T.starts_with_insensitive("0x")) {
    llvm::StringRef Digits = T.drop_front(2).ltrim('0');
    if (T.size() > 2 &&
        T.drop_front(2).find_first_not_of("0123456789abcdefABCDEF") == llvm::StringRef::npos) {
      if (Digits.size() > 16)
        return makeError("'" + shown(T) + "' is wider than 64 bits");
      if (!Digits.empty() && Digits.getAsInteger(16, V))
        return makeError("'" + shown(T) + "' is wider than 64 bits");
      return V;
    }
  } else if (T.find_first_not_of("0123456789") == llvm::StringRef::npos) {
    if (T.getAsInteger(10, V))
      return makeError("'" + shown(T) + "' is wider than 64 bits");
    return V;
  }
  return makeError("'" + shown(T) + "' is not an address (0x and hexadecimal digits, or decimal)");
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
  // Symbolic links to directories are not followed: a link to a parent would never end.
  for (llvm::sys::fs::recursive_directory_iterator I(Dir, EC, /*follow_symlinks=*/false), E;
       I != E && !EC; I.increment(EC)) {
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
    // A byte order mark is skipped: rocprofv3 writes none, but a CSV saved again by a
    // spreadsheet often starts with one, and the first column's name would not be found.
    (*Buf)
        ->getBuffer()
        .drop_front((*Buf)->getBuffer().starts_with("\xEF\xBB\xBF") ? 3 : 0)
        .split(Lines, '\n');
    if (Lines.empty())
      continue;
    std::vector<std::string> Head = csvFields(Lines[0]);
    std::map<std::string, size_t> Col;
    for (size_t I = 0; I < Head.size(); ++I)
      Col[llvm::StringRef(Head[I]).trim().str()] = I;
    for (const char *Need :
         {"Codeobj", "Vaddr", "Instruction", "Hitcount", "Latency", "Stall", "Idle"})
      if (!Col.count(Need))
        return lineError(File, 1,
                         std::string("no column '") + Need + "' in the header '" +
                             shown(Lines[0].rtrim("\r"), 100) + "'");
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
      // Each field's error says which column and value; the line and file come here.
      auto InField = [&](const char *N, llvm::Error E) {
        std::string Why = llvm::toString(std::move(E)); // "is empty", "'x' is not ..."
        return lineError(File, R.Line,
                         std::string("column '") + N + (Why[0] == '\'' ? "': " : "' ") + Why);
      };
      auto Vaddr = addressField(Field("Vaddr"));
      if (!Vaddr)
        return InField("Vaddr", Vaddr.takeError());
      R.Vaddr = *Vaddr;
      auto Hit = countField(Field("Hitcount"), /*Whole=*/true);
      if (!Hit)
        return InField("Hitcount", Hit.takeError());
      R.Hit = uint64_t(*Hit);
      for (auto [N, P] :
           {std::pair{"Latency", &R.Latency}, {"Stall", &R.Stall}, {"Idle", &R.Idle}}) {
        auto V = countField(Field(N), /*Whole=*/false);
        if (!V)
          return InField(N, V.takeError());
        *P = *V;
      }
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
