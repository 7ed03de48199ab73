// Test support: load a real code object into the emulator, place buffers, lay out the kernarg
// segment from the metadata, run, and read results back. Inputs are drawn from a seeded RNG;
// ASMEVO_TEST_SEED (a number) adds a fresh seed to the fixed ones.
#pragma once

#include "codeobj/Input.h"
#include "codeobj/KernelArgs.h"
#include "emu/Emulator.h"
#include "support/Float.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace asmevo::emu::test {

inline std::string tritonObject(const std::string &Arch, const std::string &Name) {
  return std::string(ASMEVO_SOURCE_DIR) + "/test/corpus/triton/" + Arch + "/" + Name + ".hsaco";
}

// Seeds every randomized test runs with: two fixed ones, plus ASMEVO_TEST_SEED if set.
inline std::vector<uint64_t> testSeeds() {
  std::vector<uint64_t> S = {1, 2};
  if (const char *E = std::getenv("ASMEVO_TEST_SEED"))
    S.push_back(std::strtoull(E, nullptr, 0));
  return S;
}

class Harness {
public:
  // Kernel: the symbol to run ("" = the object's only/first kernel).
  explicit Harness(const std::string &Path, const std::string &Kernel = "") {
    auto O = openCodeObject(Path);
    if (!O) {
      Error = llvm::toString(O.takeError());
      return;
    }
    Obj = std::move(*O);
    auto E = Emulator::load(Obj->C, Mem);
    if (!E) {
      Error = llvm::toString(E.takeError());
      return;
    }
    Emu = std::move(*E);
    const KernelInfo *KP = Kernel.empty() ? &Obj->C.Kernels.at(0) : Obj->C.kernel(Kernel);
    if (!KP) {
      Error = Path + ": no kernel " + Kernel;
      return;
    }
    const KernelInfo &K = *KP;
    auto S = kernelSignature(Obj->C, K);
    if (!S) {
      Error = llvm::toString(S.takeError());
      return;
    }
    Sig = *S;
    Kernarg.assign(Sig.KernargSize, 0);
    Config.Kernel = K.Name;
  }
  bool ok() const { return Error.empty(); }
  std::string Error;

  // A device buffer holding Bytes (or Size poison bytes 0xff when Bytes is empty).
  uint64_t buffer(const void *Bytes, size_t Size) {
    uint64_t A = Mem.allocate(Size, 256, "buffer");
    if (Bytes)
      llvm::cantFail(Mem.write(A, Bytes, Size));
    else {
      std::vector<uint8_t> P(Size, 0xff);
      llvm::cantFail(Mem.write(A, P.data(), Size));
    }
    return A;
  }
  template <typename T> uint64_t buffer(const std::vector<T> &V) {
    return buffer(V.data(), V.size() * sizeof(T));
  }
  template <typename T> std::vector<T> read(uint64_t Addr, size_t Count) {
    std::vector<T> V(Count);
    llvm::cantFail(Mem.read(Addr, V.data(), Count * sizeof(T)));
    return V;
  }

  // Explicit argument I (in metadata order).
  template <typename T> void arg(unsigned I, T Value) {
    auto E = Sig.explicitArgs();
    ASSERT_LT(I, E.size());
    ASSERT_EQ(E[I]->Size, sizeof(T)) << "argument " << I;
    std::memcpy(&Kernarg[E[I]->Offset], &Value, sizeof(T));
  }

  // Run with a grid in work-items (the last workgroup of a dimension may be partial).
  llvm::Expected<RunStats> runItems(std::array<uint32_t, 3> Items, std::array<uint32_t, 3> Block,
                                    uint32_t DynamicLds = 0, uint64_t Seed = 1) {
    Config.Block = Block;
    Config.GridItems = Items;
    Config.DynamicLds = DynamicLds;
    Config.Kernarg = Kernarg;
    Config.Seed = Seed;
    return Emu->run(Config);
  }

  // Run with a grid in workgroups.
  llvm::Expected<RunStats> run(std::array<uint32_t, 3> Groups, std::array<uint32_t, 3> Block,
                               uint32_t DynamicLds, uint64_t Seed = 1) {
    Config.Block = Block;
    for (unsigned I = 0; I < 3; ++I)
      Config.GridItems[I] = Groups[I] * Block[I];
    Config.DynamicLds = DynamicLds;
    Config.Kernarg = Kernarg;
    Config.Seed = Seed;
    return Emu->run(Config);
  }

  DeviceMemory Mem;
  std::unique_ptr<OpenCodeObject> Obj;
  std::unique_ptr<Emulator> Emu;
  KernelSignature Sig;
  std::vector<uint8_t> Kernarg;
  LaunchConfig Config;
};

inline uint32_t cdiv(uint32_t A, uint32_t B) { return (A + B - 1) / B; }

// Run a Harness launch (H.run's arguments) and fail the test with the emulator's error.
#define RUN_OR_FAIL(H, ...)                                                                        \
  do {                                                                                             \
    auto Stats = (H).run(__VA_ARGS__);                                                             \
    ASSERT_TRUE(bool(Stats)) << llvm::toString(Stats.takeError());                                 \
  } while (0)

// The arguments of test/corpus/triton's matmul_kernel: A [M, K], B [K, N] and C [M, N], each
// row-major and contiguous, then Triton's two hidden scratch pointers (null).
inline void setMatmulArgs(Harness &H, uint64_t A, uint64_t B, uint64_t C, uint32_t M, uint32_t N,
                          uint32_t K) {
  H.arg(0, A);
  H.arg(1, B);
  H.arg(2, C);
  H.arg(3, int32_t(M));
  H.arg(4, int32_t(N));
  H.arg(5, int32_t(K));
  H.arg(6, int32_t(K));
  H.arg(7, int32_t(N));
  H.arg(8, int32_t(N));
  H.arg(9, uint64_t(0));
  H.arg(10, uint64_t(0));
}

inline std::vector<float> randomFloats(std::mt19937_64 &R, size_t N, float Lo, float Hi) {
  std::uniform_real_distribution<float> D(Lo, Hi);
  std::vector<float> V(N);
  for (float &X : V)
    X = D(R);
  return V;
}

inline std::vector<uint16_t> toF16(const std::vector<float> &V) {
  std::vector<uint16_t> R(V.size());
  for (size_t I = 0; I < V.size(); ++I)
    R[I] = f32ToF16(V[I]);
  return R;
}
inline std::vector<uint16_t> toBf16(const std::vector<float> &V) {
  std::vector<uint16_t> R(V.size());
  for (size_t I = 0; I < V.size(); ++I)
    R[I] = f32ToBf16(V[I]);
  return R;
}

} // namespace asmevo::emu::test
