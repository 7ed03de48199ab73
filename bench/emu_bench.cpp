// Emulator throughput on one host core: an elementwise kernel (Triton vector add, fp32), a
// reduction through LDS (Triton softmax, one row of 1024 per workgroup) and an MFMA matmul
// (Triton matmul fp16, 64x64x32 tiles), each against the same computation in plain C++.
// Prints lane-instructions per second (vector instructions x active lanes) and wave
// instructions per second, medians of --repeat runs. These are host-time figures of an
// emulator, not GPU times.
// With --strict the dispatches run under the strict checks (emu/StrictCheck.h): the cost of
// the stricter oracle.
// Each kernel runs with 1 and with 2 host threads (--threads to choose); lane-inst/s/core is the
// rate divided by the threads.
//   emu_bench [--arch gfx942] [--repeat 5] [--source-dir DIR] [--strict] [--threads 1,2]
//             [--only NAME]   (NAME: a substring of the kernel's object name)
#include "bench_support.h"

#include "codeobj/Input.h"
#include "codeobj/KernelArgs.h"
#include "emu/Emulator.h"
#include "support/Float.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>

using namespace asmevo;
using namespace asmevo::emu;
using namespace asmevo::bench;

namespace {

struct Case {
  const char *Name;
  const char *Object;
  uint32_t Groups;
  uint32_t Lds;
};

std::vector<float> rnd(size_t N, uint64_t Seed) {
  std::mt19937_64 R(Seed);
  std::uniform_real_distribution<float> D(-1, 1);
  std::vector<float> V(N);
  for (float &X : V)
    X = D(R);
  return V;
}

template <typename T> uint64_t put(DeviceMemory &M, const std::vector<T> &V) {
  uint64_t A = M.allocate(V.size() * sizeof(T), 256, "bench");
  llvm::cantFail(M.write(A, V.data(), V.size() * sizeof(T)));
  return A;
}

// The computations in plain C++, one function each (noinline: each is compiled on its own,
// whatever else main holds). Out is allocated by the caller, before timing.
[[gnu::noinline]] float refVectorAdd(const std::vector<float> &X, const std::vector<float> &Y,
                                     std::vector<float> &Out) {
  for (size_t I = 0; I < X.size(); ++I)
    Out[I] = X[I] + Y[I];
  return Out[X.size() / 2];
}

[[gnu::noinline]] float refSoftmax(const std::vector<float> &X, uint32_t Rows, uint32_t Cols,
                                   std::vector<float> &Out) {
  for (uint32_t Rw = 0; Rw < Rows; ++Rw) {
    const float *In = &X[size_t(Rw) * Cols];
    float Mx = In[0], Sum = 0;
    for (uint32_t I = 1; I < Cols; ++I)
      Mx = std::max(Mx, In[I]);
    for (uint32_t I = 0; I < Cols; ++I)
      Sum += (Out[size_t(Rw) * Cols + I] = std::exp(In[I] - Mx));
    for (uint32_t I = 0; I < Cols; ++I)
      Out[size_t(Rw) * Cols + I] /= Sum;
  }
  return Out[7];
}

// fp16 inputs converted to f32, f32 accumulation, fp16 output (small buffers, allocated here).
[[gnu::noinline]] float refMatmul(const std::vector<uint16_t> &A16,
                                  const std::vector<uint16_t> &B16, uint32_t M, uint32_t Nn,
                                  uint32_t K) {
  std::vector<float> Af(A16.size()), Bf(B16.size()), Cf(size_t(M) * Nn, 0);
  for (size_t I = 0; I < Af.size(); ++I)
    Af[I] = f16ToF32(A16[I]);
  for (size_t I = 0; I < Bf.size(); ++I)
    Bf[I] = f16ToF32(B16[I]);
  for (uint32_t I = 0; I < M; ++I)
    for (uint32_t Kk = 0; Kk < K; ++Kk)
      for (uint32_t J = 0; J < Nn; ++J)
        Cf[size_t(I) * Nn + J] += Af[size_t(I) * K + Kk] * Bf[size_t(Kk) * Nn + J];
  std::vector<uint16_t> Out(Cf.size());
  for (size_t I = 0; I < Cf.size(); ++I)
    Out[I] = f32ToF16(Cf[I]);
  return float(Out[3]);
}

} // namespace

int main(int argc, char **argv) {
  std::string Arch = "gfx942", Src = ASMEVO_SOURCE_DIR;
  int Repeat = 5;
  bool Strict = false;
  std::vector<unsigned> ThreadCounts = {1, 2};
  std::string Only;
  for (int I = 1; I < argc; ++I)
    if (!std::strcmp(argv[I], "--strict"))
      Strict = true;
  for (int I = 1; I + 1 < argc; I += 2) {
    if (!std::strcmp(argv[I], "--strict")) {
      --I;
      continue;
    }
    if (!std::strcmp(argv[I], "--arch"))
      Arch = argv[I + 1];
    else if (!std::strcmp(argv[I], "--repeat"))
      Repeat = std::atoi(argv[I + 1]);
    else if (!std::strcmp(argv[I], "--source-dir"))
      Src = argv[I + 1];
    else if (!std::strcmp(argv[I], "--only"))
      Only = argv[I + 1];
    else if (!std::strcmp(argv[I], "--threads")) {
      ThreadCounts.clear();
      for (const char *P = argv[I + 1]; *P;) {
        char *End;
        unsigned long T = std::strtoul(P, &End, 10);
        if (End == P || T == 0) {
          std::fprintf(stderr, "emu_bench: --threads takes a list like 1,2\n");
          return 2;
        }
        ThreadCounts.push_back(unsigned(T));
        P = *End == ',' ? End + 1 : End;
      }
    }
  }
  std::printf("emu_bench: %s, median of %d runs%s (emulated: host time, not GPU time); the C++ "
              "reference runs on 1 thread\n",
              Arch.c_str(), Repeat, Strict ? ", strict checks on" : "");
  std::printf("%-28s %3s %10s %16s %14s %12s %10s %8s\n", "kernel", "thr", "emu ms",
              "lane-inst/s/core", "wave-inst/s", "lane-insts", "C++ ms", "ratio");
  const uint32_t N = 1 << 20, Rows = 256, Cols = 1024, M = 256, Nn = 256, K = 256;
  Case Cases[] = {{"elementwise (vector add)", "vector_add_fp32", N / 1024, 0},
                  {"reduction (softmax, LDS)", "softmax_fp32", Rows, 16},
                  {"MFMA matmul fp16", "matmul_fp16", (M / 64) * (Nn / 64), 4096}};
  for (const Case &C : Cases)
    for (unsigned Threads : ThreadCounts) {
      if (!Only.empty() && std::string(C.Object).find(Only) == std::string::npos)
        continue;
      auto O = openCodeObject(Src + "/test/corpus/triton/" + Arch + "/" + C.Object + ".hsaco");
      if (!O) {
        std::fprintf(stderr, "emu_bench: %s\n", llvm::toString(O.takeError()).c_str());
        return 2;
      }
      DeviceMemory Mem;
      auto E = llvm::cantFail(Emulator::load((*O)->C, Mem));
      auto Sig = llvm::cantFail(kernelSignature((*O)->C, (*O)->C.Kernels[0]));
      std::vector<uint8_t> KA(Sig.KernargSize, 0);
      auto args = Sig.explicitArgs();
      auto set = [&](unsigned I, auto V) { std::memcpy(&KA[args[I]->Offset], &V, sizeof(V)); };
      std::vector<double> EmuMs, CppMs;
      uint64_t Lanes = 0, Waves = 0;
      std::vector<float> X, Y;
      std::vector<uint16_t> A16, B16;
      if (!std::strcmp(C.Object, "vector_add_fp32")) {
        X = rnd(N, 1), Y = rnd(N, 2);
        set(0, put(Mem, X));
        set(1, put(Mem, Y));
        set(2, put(Mem, std::vector<float>(N)));
        set(3, int32_t(N));
      } else if (!std::strcmp(C.Object, "softmax_fp32")) {
        X = rnd(size_t(Rows) * Cols, 3);
        set(0, put(Mem, std::vector<float>(size_t(Rows) * Cols)));
        set(1, put(Mem, X));
        set(2, int32_t(Cols));
        set(3, int32_t(Cols));
        set(4, int32_t(Cols));
      } else {
        auto Af = rnd(size_t(M) * K, 4), Bf = rnd(size_t(K) * Nn, 5);
        for (float F : Af)
          A16.push_back(f32ToF16(F));
        for (float F : Bf)
          B16.push_back(f32ToF16(F));
        set(0, put(Mem, A16));
        set(1, put(Mem, B16));
        set(2, put(Mem, std::vector<uint16_t>(M * Nn)));
        set(3, int32_t(M));
        set(4, int32_t(Nn));
        set(5, int32_t(K));
        set(6, int32_t(K));
        set(7, int32_t(Nn));
        set(8, int32_t(Nn));
      }
      LaunchConfig L;
      L.Kernel = (*O)->C.Kernels[0].Name;
      L.Block = {256, 1, 1};
      L.GridItems = {C.Groups * 256, 1, 1};
      L.DynamicLds = C.Lds;
      L.Kernarg = KA;
      L.Threads = Threads;
      L.Strict = Strict;
      // The elementwise and softmax references' output, allocated (and so touched) before any
      // timing: the timed region is the computation, not the page faults of a fresh 4 MiB
      // allocation each time.
      std::vector<float> RefOut(X.size());
      for (int R = 0; R < Repeat; ++R) {
        auto T0 = Clock::now();
        auto S = E->run(L);
        if (!S) {
          std::fprintf(stderr, "emu_bench: %s: %s\n", C.Name,
                       llvm::toString(S.takeError()).c_str());
          return 3;
        }
        EmuMs.push_back(msSince(T0));
        Lanes = S->LaneInstructions;
        Waves = S->WaveInstructions;
        // The same computation in plain C++ (single thread).
        volatile float Sink = 0;
        auto T1 = Clock::now();
        if (!X.empty() && !Y.empty())
          Sink = refVectorAdd(X, Y, RefOut);
        else if (!X.empty())
          Sink = refSoftmax(X, Rows, Cols, RefOut);
        else
          Sink = refMatmul(A16, B16, M, Nn, K);
        (void)Sink;
        CppMs.push_back(msSince(T1));
      }
      double Ems = median(EmuMs), Cms = median(CppMs);
      std::printf("%-28s %3u %10.2f %16.3e %14.3e %12llu %10.3f %7.1fx\n", C.Name, Threads, Ems,
                  double(Lanes) / (Ems / 1000) / Threads, double(Waves) / (Ems / 1000),
                  (unsigned long long)Lanes, Cms, Ems / Cms);
    }
  return 0;
}
