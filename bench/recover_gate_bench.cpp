// recover_gate_bench: wall-clock cost of the in-process round-trip gate against the naive
// stock-tool pipeline it replaces, on the same code objects, in one run.
//
// For every code object (.hsaco) named on the command line, each pipeline runs R times
// (--repeat, default 3) and the per-object median is kept:
//   (a) in-process: read the file, sha256, asmevo::CodeObject::read, asmevo::runRoundTripGate
//       (recover -> reassemble -> relink -> compare kernel by kernel), all in this process.
//   (b) naive: the subprocess chain the issue names as the baseline,
//         llvm-objdump -d --mcpu=P [--mattr=F] FILE  -> hand fix-ups ->
//         llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=P [-mattr=F] -filetype=obj -> ld.lld -shared
//       with files in a temporary directory, then a cheap check: the rebuilt .text bytes and
//       address against the original's. The fix-ups only make the listing assemble (strip the
//       "// ADDR: ENCODING" comments, "<name>:" headers -> "name:" labels, drop "..." zero-run
//       lines, add .amdgcn_target / .amdhsa_code_object_version / .text); the result has no
//       kernel descriptors, metadata or data sections, so it is not a faithful rebuild even
//       when the .text bytes match. Its time, when a step fails, is the time up to the failure.
// One untimed warm-up of each pipeline runs on the first object (LLVM target initialisation,
// page cache). Figures are wall-clock on the machine that runs it, not a portable constant.
#include "bench_support.h"

#include "asm/RoundTrip.h"
#include "codeobj/CodeObject.h"
#include "codeobj/TargetId.h"
#include "support/FileIO.h"

#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <set>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

using namespace asmevo;
using namespace asmevo::bench;

namespace {

std::string firstLine(const std::string &S) {
  std::string L = S.substr(0, S.find('\n'));
  return L.size() > 160 ? L.substr(0, 160) + "..." : L;
}

// The hand fix-ups that turn an llvm-objdump -d listing into something llvm-mc accepts.
std::string fixUpListing(const std::string &Dump, const TargetId &T) {
  std::string Out = ".amdgcn_target \"" + T.str() + "\"\n.amdhsa_code_object_version " +
                    std::to_string(T.CodeObjectVersion) + "\n.text\n";
  std::istringstream In(Dump);
  std::string L;
  bool InText = false;
  while (std::getline(In, L)) {
    if (L.rfind("Disassembly of section ", 0) == 0) { // only .text is disassembled by -d here
      InText = L.find(".text") != std::string::npos;
      continue;
    }
    if (!InText)
      continue;
    if (size_t C = L.find("//"); C != std::string::npos) // "// 000000001F00: BF8C0000 <sym+0x..>"
      L.erase(C);
    while (!L.empty() && (L.back() == ' ' || L.back() == '\t'))
      L.pop_back();
    size_t NB = L.find_first_not_of(" \t");
    if (NB == std::string::npos || L.compare(NB, std::string::npos, "...") == 0)
      continue;                        // blank, or an elided zero run
    if (L[0] != '\t' && L[0] != ' ') { // "0000000000001f00 <name>:"
      size_t Lt = L.find('<'), Gt = L.rfind(">:");
      if (Lt == std::string::npos || Gt == std::string::npos || Gt < Lt)
        continue;
      std::string Name = L.substr(Lt + 1, Gt - Lt - 1);
      if (Name == ".text")
        continue;
      Out += "\"" + Name + "\":\n";
      continue;
    }
    Out += L + "\n";
  }
  return Out;
}

struct NaiveResult {
  bool Disassembled = false, Assembled = false, Linked = false, TextIdentical = false,
       TextAtOrigAddr = false;
  std::string Failure; // first line of the failing tool's stderr
};

NaiveResult runNaive(const std::string &File, const CodeObject &C, const std::string &BinDir) {
  NaiveResult R;
  auto D = TempDir::create("recover-gate-bench");
  if (!D) {
    R.Failure = llvm::toString(D.takeError());
    return R;
  }
  const TargetId &T = C.Target;
  std::string Mattr = T.mattr(), Err = D->file("err.txt"), Dump = D->file("dump.txt"),
              Asm = D->file("a.s"), Obj = D->file("a.o"), So = D->file("a.so");
  std::vector<std::string> Objdump{BinDir + "/llvm-objdump", "-d", "--mcpu=" + T.Processor};
  std::vector<std::string> Mc{BinDir + "/llvm-mc", "-triple=amdgcn-amd-amdhsa",
                              "-mcpu=" + T.Processor};
  if (!Mattr.empty()) {
    Objdump.push_back("--mattr=" + Mattr);
    Mc.push_back("-mattr=" + Mattr);
  }
  Objdump.push_back(File);
  for (const std::string &S : {std::string("-filetype=obj"), Asm, std::string("-o"), Obj})
    Mc.push_back(S);
  if (!(R.Disassembled = spawn(Objdump, Dump, Err))) {
    R.Failure = "llvm-objdump: " + firstLine(slurp(Err));
    return R;
  }
  {
    std::ofstream A(Asm, std::ios::binary);
    A << fixUpListing(slurp(Dump), T);
  }
  if (!(R.Assembled = spawn(Mc, "", Err))) {
    R.Failure = "llvm-mc: " + firstLine(slurp(Err));
    return R;
  }
  if (!(R.Linked = spawn({BinDir + "/ld.lld", "-shared", Obj, "-o", So}, "", Err))) {
    R.Failure = "ld.lld: " + firstLine(slurp(Err));
    return R;
  }
  // Cheap comparison of .text. CodeObject::read is tried first, but it rejects the naive
  // rebuild (no AMDGPU metadata note), so the section is then taken from a plain ELF read.
  std::string Bytes = slurp(So);
  const ElfSection *Orig = C.section(".text");
  auto Compare = [&](llvm::StringRef Data, uint64_t Addr) {
    R.TextIdentical = Orig && Data == Orig->Data;
    R.TextAtOrigAddr = Orig && Addr == Orig->Addr;
  };
  if (auto RC = CodeObject::read(Bytes, So)) {
    if (const ElfSection *S = RC->section(".text"))
      Compare(S->Data, S->Addr);
    return R;
  } else {
    llvm::consumeError(RC.takeError());
  }
  auto E = llvm::object::ELF64LEFile::create(Bytes);
  if (!E) {
    R.Failure = "rebuilt ELF: " + llvm::toString(E.takeError());
    return R;
  }
  auto Secs = E->sections();
  if (!Secs) {
    R.Failure = "rebuilt ELF: " + llvm::toString(Secs.takeError());
    return R;
  }
  for (const auto &S : *Secs) {
    auto Name = E->getSectionName(S);
    if (!Name || *Name != ".text") {
      llvm::consumeError(Name.takeError());
      continue;
    }
    if (auto Data = E->getSectionContents(S)) {
      Compare(llvm::toStringRef(*Data), S.sh_addr);
      return R;
    } else {
      llvm::consumeError(Data.takeError());
    }
  }
  R.Failure = "rebuilt object has no .text";
  return R;
}

struct Row {
  std::string Name;
  unsigned Kernels = 0, KernelsPassed = 0;
  double GateMs = 0, NaiveMs = 0;
  std::string Verdict; // "pass", "FAIL", "error"
  NaiveResult Naive;
};

// One in-process gate run; Verdict/kernels filled from it.
double timeGate(const std::string &File, Row &Out) {
  auto T0 = Clock::now();
  auto Buf = readFile(File);
  if (!Buf) {
    Out.Verdict = "error: " + llvm::toString(Buf.takeError());
    return msSince(T0);
  }
  llvm::StringRef Bytes = (*Buf)->getBuffer();
  std::string Hash = sha256Hex(Bytes);
  auto C = CodeObject::read(Bytes, File);
  if (!C) {
    Out.Verdict = "error: " + llvm::toString(C.takeError());
    return msSince(T0);
  }
  auto R = runRoundTripGate(*C, Hash);
  double Ms = msSince(T0);
  if (!R) {
    Out.Verdict = "error: " + llvm::toString(R.takeError());
    return Ms;
  }
  Out.Verdict = R->pass() ? "pass" : "FAIL";
  Out.Kernels = R->Kernels;
  Out.KernelsPassed = R->KernelsPassed;
  return Ms;
}

int usage(const char *Argv0) {
  llvm::errs() << "usage: " << Argv0
               << " [--repeat N] [--json FILE] [--llvm-bindir DIR] FILE.hsaco...\n"
                  "  times the in-process round-trip gate against the naive\n"
                  "  llvm-objdump -> llvm-mc -> ld.lld subprocess pipeline, per code object\n";
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  unsigned Repeat = 3;
  std::string JsonPath, BinDir = "/usr/lib/llvm-22/bin";
  std::vector<std::string> Files;
  std::set<std::string> Seen;
  for (int I = 1; I < argc; ++I) {
    std::string A = argv[I];
    bool HasVal = I + 1 < argc;
    if (A == "--repeat" && HasVal)
      Repeat = std::max(1, std::atoi(argv[++I]));
    else if (A == "--json" && HasVal)
      JsonPath = argv[++I];
    else if (A == "--llvm-bindir" && HasVal)
      BinDir = argv[++I];
    else if (A == "-h" || A == "--help" || A.rfind("--", 0) == 0)
      return usage(argv[0]);
    else {
      llvm::SmallString<256> Real; // overlapping globs (gfx*/ and gfx*-*/) name a file twice
      if (llvm::sys::fs::real_path(A, Real))
        Real = A;
      if (Seen.insert(std::string(Real)).second)
        Files.push_back(A);
    }
  }
  if (Files.empty())
    return usage(argv[0]);
  for (const char *Tool : {"llvm-objdump", "llvm-mc", "ld.lld"})
    if (!llvm::sys::fs::can_execute(BinDir + "/" + Tool)) {
      llvm::errs() << "recover_gate_bench: " << BinDir << "/" << Tool << " not found\n";
      return 2;
    }

  std::vector<Row> Rows;
  bool WarmedUp = false;
  for (const auto &File : Files) {
    Row W;
    W.Name = File;
    auto Buf = readFile(File);
    auto C = Buf ? CodeObject::read((*Buf)->getBuffer(), File)
                 : llvm::Expected<CodeObject>(Buf.takeError());
    if (!C) {
      llvm::errs() << "recover_gate_bench: skipping " << File << ": "
                   << llvm::toString(C.takeError()) << "\n";
      continue;
    }
    if (!WarmedUp) { // untimed: LLVM target initialisation, tool binaries into the page cache
      Row Tmp;
      timeGate(File, Tmp);
      runNaive(File, *C, BinDir);
      WarmedUp = true;
    }
    std::vector<double> G, N;
    for (unsigned I = 0; I < Repeat; ++I) {
      G.push_back(timeGate(File, W));
      auto T0 = Clock::now();
      W.Naive = runNaive(File, *C, BinDir);
      N.push_back(msSince(T0));
    }
    W.GateMs = median(G);
    W.NaiveMs = median(N);
    Rows.push_back(std::move(W));
  }
  if (Rows.empty())
    return 1;

  size_t NameW = 6;
  for (const auto &R : Rows)
    NameW = std::max(NameW, R.Name.size());
  auto YesNo = [](bool B) { return B ? "yes" : "no"; };
  std::printf("recover_gate_bench: %zu code objects, median of %u runs per object and pipeline\n",
              Rows.size(), Repeat);
  std::printf("  in-process = read + CodeObject::read + runRoundTripGate (recover, reassemble, "
              "relink, compare)\n  naive      = %s/{llvm-objdump -d, fix-ups, llvm-mc, ld.lld "
              "-shared} as subprocesses + .text compare\n\n",
              BinDir.c_str());
  std::printf("%-*s %7s %13s %10s %7s %-8s %-10s %-11s %-9s\n", int(NameW), "object", "kernels",
              "in-process ms", "naive ms", "ratio", "gate", "naive asm", "naive .text",
              "same addr");
  std::vector<double> GAll, NAll;
  unsigned Pass = 0, Asm = 0, Linked = 0, Ident = 0, AtAddr = 0;
  double GTot = 0, NTot = 0;
  for (const auto &R : Rows) {
    const NaiveResult &V = R.Naive;
    std::string AsmCol = V.Linked ? "yes" : V.Assembled ? "no(lld)" : "no(mc)";
    std::printf("%-*s %7u %13.2f %10.2f %6.2fx %-8s %-10s %-11s %-9s\n", int(NameW), R.Name.c_str(),
                R.Kernels, R.GateMs, R.NaiveMs, R.NaiveMs / R.GateMs,
                R.Verdict.substr(0, 8).c_str(), AsmCol.c_str(),
                V.TextIdentical ? "identical"
                : V.Linked      ? "differs"
                                : "-",
                YesNo(V.TextAtOrigAddr));
    if (R.Verdict.rfind("error", 0) == 0)
      std::printf("    gate %s\n", R.Verdict.c_str());
    if (!V.Failure.empty())
      std::printf("    naive: %s\n", V.Failure.c_str());
    GAll.push_back(R.GateMs);
    NAll.push_back(R.NaiveMs);
    GTot += R.GateMs;
    NTot += R.NaiveMs;
    Pass += R.Verdict == "pass";
    Asm += V.Assembled;
    Linked += V.Linked;
    Ident += V.TextIdentical;
    AtAddr += V.TextAtOrigAddr;
  }
  size_t M = Rows.size();
  double GMed = median(GAll), NMed = median(NAll);
  std::printf("\nsummary:\n");
  std::printf("in-process gate: median %.2f ms/object, naive pipeline: median %.2f ms/object, "
              "ratio Y/X = %.2f\n",
              GMed, NMed, NMed / GMed);
  std::printf("in-process gate: total %.1f ms, naive pipeline: total %.1f ms, ratio of totals = "
              "%.2f (%zu objects)\n",
              GTot, NTot, NTot / GTot, M);
  std::printf("gate: %u/%zu objects pass; naive: %u/%zu assemble (%u/%zu link), %u/%zu identical "
              ".text, %u/%zu .text at original address\n",
              Pass, M, Asm, M, Linked, M, Ident, M, AtAddr, M);
  std::printf("note: the naive rebuild has no kernel descriptors, metadata or data sections, and "
              "its pc-relative offsets are literals: identical .text at another address is not a "
              "working object\n");
  std::printf("benchmark: figures are wall-clock on this machine\n");

  if (!JsonPath.empty()) {
    nlohmann::json Objs = nlohmann::json::array();
    for (const auto &R : Rows)
      Objs.push_back({{"object", R.Name},
                      {"kernels", R.Kernels},
                      {"kernels_passed", R.KernelsPassed},
                      {"in_process_ms", R.GateMs},
                      {"naive_ms", R.NaiveMs},
                      {"gate", R.Verdict},
                      {"naive_assembled", R.Naive.Assembled},
                      {"naive_linked", R.Naive.Linked},
                      {"naive_text_identical", R.Naive.TextIdentical},
                      {"naive_text_at_original_address", R.Naive.TextAtOrigAddr},
                      {"naive_failure", R.Naive.Failure}});
    nlohmann::json J{{"benchmark", "recover_gate_bench"},
                     {"note", "wall-clock on the machine that ran it"},
                     {"repeat", Repeat},
                     {"llvm_bindir", BinDir},
                     {"objects", Objs},
                     {"summary",
                      {{"objects", M},
                       {"in_process_median_ms", GMed},
                       {"naive_median_ms", NMed},
                       {"ratio_of_medians", NMed / GMed},
                       {"in_process_total_ms", GTot},
                       {"naive_total_ms", NTot},
                       {"ratio_of_totals", NTot / GTot},
                       {"gate_pass", Pass},
                       {"naive_assembled", Asm},
                       {"naive_linked", Linked},
                       {"naive_text_identical", Ident},
                       {"naive_text_at_original_address", AtAddr}}}};
    if (auto E = writeFileAtomic(JsonPath, J.dump(2) + "\n")) {
      llvm::errs() << "recover_gate_bench: " << llvm::toString(std::move(E)) << "\n";
      return 1;
    }
  }
  return 0;
}
