// rebuild_bench: latency of hsaco-rebuild's in-process rebuild against the same assemble+link
// work done by the stock tools as subprocesses (llvm-mc -filetype=obj, ld.lld -shared), on the
// same recovered files, in one run.
//
// For each code object named on the command line, its recovered assembly is made once (not
// timed); then, R times each (--repeat, default 5), median kept:
//   (a) in-process: asmevo::rebuildFromAssembly with --abi-of the original (assemble, link,
//       rescan resources, ABI check; a second assembly only if resources changed);
//   (b) subprocesses: write the .s, llvm-mc, ld.lld (no rescan, no check: less work).
// Per-kernel figures divide an object's time by its number of kernels. Figures are wall-clock
// on the machine that runs it.
#include "bench_support.h"

#include "asm/Rebuild.h"
#include "asm/Recover.h"
#include "codeobj/CodeObject.h"
#include "support/FileIO.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdio>

using namespace asmevo;
using namespace asmevo::bench;

int main(int argc, char **argv) {
  std::vector<std::string> Files;
  unsigned Repeat = 5;
  std::string BinDir = "/usr/lib/llvm-22/bin";
  for (int I = 1; I < argc; ++I) {
    std::string A = argv[I];
    if (A == "--repeat" && I + 1 < argc)
      Repeat = std::max(1, std::atoi(argv[++I]));
    else if (A == "--llvm-bindir" && I + 1 < argc)
      BinDir = argv[++I];
    else if (!A.empty() && A[0] == '-') {
      fprintf(stderr, "usage: %s [--repeat N] [--llvm-bindir DIR] K.hsaco...\n", argv[0]);
      return 2;
    } else
      Files.push_back(A);
  }
  if (Files.empty()) {
    fprintf(stderr, "usage: %s [--repeat N] [--llvm-bindir DIR] K.hsaco...\n", argv[0]);
    return 2;
  }
  auto Dir = TempDir::create("rebuild-bench");
  if (!Dir) {
    llvm::errs() << llvm::toString(Dir.takeError()) << "\n";
    return 2;
  }
  std::vector<double> InObj, SubObj, InKernel, SubKernel;
  unsigned Kernels = 0, Ok = 0;
  printf("%-60s %7s %10s %10s %7s\n", "object", "kernels", "inproc ms", "subproc ms", "ratio");
  for (size_t F = 0; F < Files.size(); ++F) {
    auto Buf = readFile(Files[F]);
    if (!Buf) {
      llvm::errs() << llvm::toString(Buf.takeError()) << "\n";
      return 2;
    }
    auto C = CodeObject::read((*Buf)->getBuffer(), Files[F]);
    if (!C) {
      llvm::errs() << llvm::toString(C.takeError()) << "\n";
      return 2;
    }
    auto Rec = recoverAssembly(*C, Files[F], sha256Hex((*Buf)->getBuffer()));
    if (!Rec) {
      llvm::errs() << llvm::toString(Rec.takeError()) << "\n";
      return 2;
    }
    std::string S = Dir->file("k.s"), O = Dir->file("k.o"), H = Dir->file("k.hsaco"),
                E = Dir->file("err");
    if (llvm::Error Err = writeFileAtomic(S, Rec->Asm)) {
      llvm::errs() << llvm::toString(std::move(Err)) << "\n";
      return 2;
    }
    std::string Mcpu = "-mcpu=" + C->Target.Processor;
    std::vector<std::string> Mc = {BinDir + "/llvm-mc", "-triple=amdgcn-amd-amdhsa", Mcpu};
    if (!C->Target.mattr().empty())
      Mc.push_back("-mattr=" + C->Target.mattr());
    Mc.insert(Mc.end(), {"-filetype=obj", S, "-o", O});
    std::vector<std::string> Ld = {BinDir + "/ld.lld", "-shared", O, "-o", H};
    std::vector<double> A, B;
    bool Good = true;
    for (unsigned R = 0; R <= Repeat; ++R) { // the first round warms up and is not counted
      auto T0 = Clock::now();
      auto Res = rebuildFromAssembly(Rec->Asm, Files[F], &*C);
      double Ta = msSince(T0);
      if (!Res) {
        llvm::errs() << llvm::toString(Res.takeError()) << "\n";
        return 2;
      }
      Good = Good && Res->Violations.empty();
      T0 = Clock::now();
      bool Sub =
          !llvm::errorToBool(writeFileAtomic(S, Rec->Asm)) && spawn(Mc, "", E) && spawn(Ld, "", E);
      double Tb = msSince(T0);
      if (!Sub) {
        fprintf(stderr, "subprocess route failed for %s: %s\n", Files[F].c_str(), slurp(E).c_str());
        return 2;
      }
      if (R) {
        A.push_back(Ta);
        B.push_back(Tb);
      }
    }
    unsigned K = std::max<size_t>(1, C->Kernels.size());
    double Ma = median(A), Mb = median(B);
    InObj.push_back(Ma);
    SubObj.push_back(Mb);
    InKernel.push_back(Ma / K);
    SubKernel.push_back(Mb / K);
    Kernels += C->Kernels.size();
    Ok += Good;
    printf("%-60s %7zu %10.2f %10.2f %7.2f\n", Files[F].c_str(), C->Kernels.size(), Ma, Mb,
           Mb / Ma);
  }
  double A = median(InObj), B = median(SubObj), Ak = median(InKernel), Bk = median(SubKernel);
  printf("rebuild in-process: median %.2f ms/object, %.2f ms/kernel; subprocess llvm-mc + ld.lld: "
         "median %.2f ms/object, %.2f ms/kernel; ratio %.2f (per kernel %.2f)\n",
         A, Ak, B, Bk, B / A, Bk / Ak);
  printf("%zu objects, %u kernels, %u/%zu rebuilt with no ABI violation\n", Files.size(), Kernels,
         Ok, Files.size());
  printf("benchmark: figures are wall-clock on this machine\n");
  return 0;
}
