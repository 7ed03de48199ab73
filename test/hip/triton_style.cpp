// Launches a Triton-compiled kernel the way Triton 3.6's HIP launcher does, for the capture
// tests (test/cli/dispatch-capture.bats): the runtime is opened with dlopen (RTLD_LOCAL), its
// entry points are found with dlsym, the code object is loaded from memory with
// hipModuleLoadData, and hipModuleLaunchKernel gets kernelParams ending in the two scratch
// pointers Triton appends (global and profile scratch; null for this kernel).
//
//   triton_style VECTOR_ADD.hsaco N
//
// The kernel is test/corpus/triton's add_kernel (BLOCK_SIZE 1024, 4 warps): out = x + y, with
// x[i] = i / 2 and y[i] = 1000 - i, checked here on the CPU.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

using hipError_t = int;
using Malloc = hipError_t (*)(void **, size_t);
using Memcpy = hipError_t (*)(void *, const void *, size_t, int);
using LoadData = hipError_t (*)(void **, const void *);
using GetFunction = hipError_t (*)(void **, void *, const char *);
using Launch = hipError_t (*)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, void *, void **, void **);
using Sync = hipError_t (*)();

template <typename F> F get(void *Lib, const char *Name) {
  void *P = dlsym(Lib, Name);
  if (!P) {
    std::fprintf(stderr, "triton_style: %s not found\n", Name);
    std::exit(2);
  }
  return reinterpret_cast<F>(P);
}

#define CHECK(call)                                                                                \
  do {                                                                                             \
    if (hipError_t e_ = (call)) {                                                                  \
      std::printf("FAIL %s: %d\n", #call, e_);                                                     \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s VECTOR_ADD.hsaco N\n", argv[0]);
    return 2;
  }
  std::ifstream In(argv[1], std::ios::binary);
  std::vector<char> Code((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
  int N = std::atoi(argv[2]);
  void *Lib = dlopen("libamdhip64.so", RTLD_NOW | RTLD_LOCAL);
  if (!Lib) {
    std::fprintf(stderr, "triton_style: %s\n", dlerror());
    return 2;
  }
  auto hipMalloc = get<Malloc>(Lib, "hipMalloc");
  auto hipMemcpy = get<Memcpy>(Lib, "hipMemcpy");
  auto hipModuleLoadData = get<LoadData>(Lib, "hipModuleLoadData");
  auto hipModuleGetFunction = get<GetFunction>(Lib, "hipModuleGetFunction");
  auto hipModuleLaunchKernel = get<Launch>(Lib, "hipModuleLaunchKernel");
  auto hipDeviceSynchronize = get<Sync>(Lib, "hipDeviceSynchronize");

  std::vector<float> X(N), Y(N), Out(N);
  for (int i = 0; i < N; ++i) {
    X[i] = i * 0.5f;
    Y[i] = 1000.0f - i;
  }
  void *DX, *DY, *DOut;
  CHECK(hipMalloc(&DX, N * sizeof(float)));
  CHECK(hipMalloc(&DY, N * sizeof(float)));
  CHECK(hipMalloc(&DOut, N * sizeof(float)));
  CHECK(hipMemcpy(DX, X.data(), N * sizeof(float), 1));
  CHECK(hipMemcpy(DY, Y.data(), N * sizeof(float), 1));
  void *Module, *F;
  CHECK(hipModuleLoadData(&Module, Code.data()));
  CHECK(hipModuleGetFunction(&F, Module, "add_kernel"));
  void *GlobalScratch = nullptr, *ProfileScratch = nullptr;
  void *Params[] = {&DX, &DY, &DOut, &N, &GlobalScratch, &ProfileScratch};
  CHECK(hipModuleLaunchKernel(F, (N + 1023) / 1024, 1, 1, 256, 1, 1, 0, nullptr, Params, nullptr));
  CHECK(hipDeviceSynchronize());
  CHECK(hipMemcpy(Out.data(), DOut, N * sizeof(float), 2));
  int Bad = 0;
  for (int i = 0; i < N; ++i)
    Bad += Out[i] != X[i] + Y[i];
  std::printf("add_kernel via dlopen and hipModuleLaunchKernel: %d values, %d wrong\n", N, Bad);
  return Bad != 0;
}
