// A HIP host program with pointer-rich kernels, for the emulated HIP runtime's tests
// (test/cli/hip-runtime.bats). Every result is checked against a reference computed here on the
// CPU; the program prints one line per check and exits 0 only if all of them pass.
//
//   pointer_rich MODULE.hsaco [fault|unsupported|load|vmm|time]
//
// - gather_rows, launched with <<<...>>>: out[i] = rows[pick[i / width]][i % width] * scale + 1,
//   through a device table of row pointers (each row its own allocation) and a __device__
//   variable set with hipMemcpyToSymbol;
// - paged_sum, loaded from MODULE with hipModuleLoad and launched with hipModuleLaunchKernel,
//   once with kernelParams and once with `extra`: per sequence, the sum over its positions p of
//   page[p % page_size] * (p + 1), where the page comes from a block table (block -> page
//   number) and a table of page pointers, as in paged attention.
// "fault" makes one pick index point past the row table (the launch must fail with
// hipErrorIllegalAddress); "unsupported" calls an entry point the runtime does not implement;
// "load" only loads MODULE with hipModuleLoad and prints the result; "vmm" runs gather_rows
// alone, its output in memory made with the virtual memory calls (hipMemAddressReserve,
// hipMemCreate, hipMemMap, hipMemSetAccess) instead of hipMalloc; "time" runs gather_rows alone
// and prints the elapsed time between the events around its launch.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                                \
  do {                                                                                             \
    hipError_t e_ = (call);                                                                        \
    if (e_ != hipSuccess) {                                                                        \
      std::printf("FAIL %s: %s\n", #call, hipGetErrorName(e_));                                    \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

__device__ float scale;

extern "C" __global__ void gather_rows(const float *const *rows, const int *pick, float *out,
                                       int n, int width) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = rows[pick[i / width]][i % width] * scale + 1.0f;
}

extern "C" __global__ void paged_sum(float *const *pages, const int *block_table,
                                     int blocks_per_seq, int page_size, const int *seq_lens,
                                     float *out) {
  __shared__ float part[256];
  int s = blockIdx.x, len = seq_lens[s];
  float acc = 0;
  for (int p = threadIdx.x; p < len; p += blockDim.x) {
    int page = block_table[s * blocks_per_seq + p / page_size];
    acc += pages[page][p % page_size] * float(p + 1);
  }
  part[threadIdx.x] = acc;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w)
      part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[s] = part[0];
}

static int gather(bool Fault, bool Vmm = false, bool PrintTime = false) {
  const int Rows = 5, Width = 64, Picks = 7, N = Picks * Width;
  std::vector<std::vector<float>> Host(Rows, std::vector<float>(Width));
  std::vector<float *> DevRows(Rows);
  for (int r = 0; r < Rows; ++r) {
    for (int c = 0; c < Width; ++c)
      Host[r][c] = float(r * 100 + c);
    CHECK(hipMalloc(&DevRows[r], Width * sizeof(float)));
    CHECK(hipMemcpy(DevRows[r], Host[r].data(), Width * sizeof(float), hipMemcpyHostToDevice));
  }
  std::vector<int> Pick = {3, 0, 4, 4, 1, 2, 0};
  if (Fault)
    Pick[5] = 1000; // rows[1000]: past the end of the 5-pointer table
  float **Table;
  int *DevPick;
  float *Out;
  CHECK(hipMalloc(&Table, Rows * sizeof(float *)));
  CHECK(hipMemcpy(Table, DevRows.data(), Rows * sizeof(float *), hipMemcpyHostToDevice));
  CHECK(hipMalloc(&DevPick, Picks * sizeof(int)));
  CHECK(hipMemcpy(DevPick, Pick.data(), Picks * sizeof(int), hipMemcpyHostToDevice));
  hipMemAllocationProp Prop = {};
  Prop.type = hipMemAllocationTypePinned;
  Prop.location.type = hipMemLocationTypeDevice;
  Prop.location.id = 0;
  size_t OutBytes = N * sizeof(float);
  void *Va = nullptr;
  hipMemGenericAllocationHandle_t Handle = nullptr;
  if (Vmm) {
    size_t G = 0;
    CHECK(hipMemGetAllocationGranularity(&G, &Prop, hipMemAllocationGranularityMinimum));
    OutBytes = (OutBytes + G - 1) / G * G;
    CHECK(hipMemAddressReserve(&Va, OutBytes, 0, nullptr, 0));
    CHECK(hipMemCreate(&Handle, OutBytes, &Prop, 0));
    CHECK(hipMemMap(Va, OutBytes, 0, Handle, 0));
    hipMemAccessDesc Access = {};
    Access.location = Prop.location;
    Access.flags = hipMemAccessFlagsProtReadWrite;
    CHECK(hipMemSetAccess(Va, OutBytes, &Access, 1));
    Out = static_cast<float *>(Va);
  } else {
    CHECK(hipMalloc(&Out, N * sizeof(float)));
  }
  const float Scale = 3.0f;
  CHECK(hipMemcpyToSymbol(HIP_SYMBOL(scale), &Scale, sizeof Scale, 0, hipMemcpyHostToDevice));
  hipEvent_t Start, Stop;
  CHECK(hipEventCreate(&Start));
  CHECK(hipEventCreate(&Stop));
  CHECK(hipEventRecord(Start, nullptr));
  gather_rows<<<dim3((N + 127) / 128), dim3(128)>>>(Table, DevPick, Out, N, Width);
  hipError_t Launch = hipGetLastError();
  CHECK(hipEventRecord(Stop, nullptr));
  hipError_t Sync = hipDeviceSynchronize();
  if (Fault) {
    std::printf("fault: launch %s, synchronize %s; rows[1000] is at %p\n", hipGetErrorName(Launch),
                hipGetErrorName(Sync), static_cast<void *>(Table + 1000));
    return Launch == hipErrorIllegalAddress && Sync == hipErrorIllegalAddress ? 0 : 1;
  }
  CHECK(Launch);
  CHECK(Sync);
  float Ms = -1;
  CHECK(hipEventElapsedTime(&Ms, Start, Stop));
  std::vector<float> Got(N);
  CHECK(hipMemcpy(Got.data(), Out, N * sizeof(float), hipMemcpyDeviceToHost));
  int Bad = 0;
  for (int i = 0; i < N; ++i)
    Bad += Got[i] != Host[Pick[i / Width]][i % Width] * Scale + 1.0f;
  std::printf("gather_rows <<<>>>%s: %d values, %d wrong; event time %s\n",
              Vmm ? " into hipMemMap'd memory" : "", N, Bad, Ms >= 0 ? "recorded" : "negative");
  if (PrintTime)
    std::printf("gather_rows events: %.9g ms\n", Ms);
  for (float *P : DevRows)
    CHECK(hipFree(P));
  CHECK(hipFree(Table));
  CHECK(hipFree(DevPick));
  if (Vmm) {
    CHECK(hipMemUnmap(Va, OutBytes));
    CHECK(hipMemRelease(Handle));
    CHECK(hipMemAddressFree(Va, OutBytes));
  } else {
    CHECK(hipFree(Out));
  }
  return Bad != 0 || Ms < 0;
}

static int paged(const char *ModulePath) {
  const int Pages = 12, PageSize = 16, Seqs = 3, BlocksPerSeq = 4;
  std::vector<int> SeqLens = {50, 64, 7};
  std::vector<int> BlockTable = {7, 2, 11, 0, /**/ 5, 9, 1, 3, /**/ 10, 4, 6, 8};
  std::vector<std::vector<float>> Host(Pages, std::vector<float>(PageSize));
  std::vector<float *> DevPages(Pages);
  for (int p = 0; p < Pages; ++p) {
    for (int i = 0; i < PageSize; ++i)
      Host[p][i] = float((p * 7 + i * 3) % 11) - 5.0f;
    CHECK(hipMalloc(&DevPages[p], PageSize * sizeof(float)));
    CHECK(hipMemcpy(DevPages[p], Host[p].data(), PageSize * sizeof(float),
                    hipMemcpyHostToDevice));
  }
  std::vector<float> Want(Seqs, 0.0f);
  for (int s = 0; s < Seqs; ++s)
    for (int p = 0; p < SeqLens[s]; ++p)
      Want[s] += Host[BlockTable[s * BlocksPerSeq + p / PageSize]][p % PageSize] * float(p + 1);

  float **PageTable;
  int *DevBlocks, *DevLens;
  float *Out;
  CHECK(hipMalloc(&PageTable, Pages * sizeof(float *)));
  CHECK(hipMemcpy(PageTable, DevPages.data(), Pages * sizeof(float *), hipMemcpyHostToDevice));
  CHECK(hipMalloc(&DevBlocks, BlockTable.size() * sizeof(int)));
  CHECK(hipMemcpy(DevBlocks, BlockTable.data(), BlockTable.size() * sizeof(int),
                  hipMemcpyHostToDevice));
  CHECK(hipMalloc(&DevLens, Seqs * sizeof(int)));
  CHECK(hipMemcpy(DevLens, SeqLens.data(), Seqs * sizeof(int), hipMemcpyHostToDevice));
  CHECK(hipMalloc(&Out, Seqs * sizeof(float)));

  hipModule_t Module;
  hipFunction_t F;
  CHECK(hipModuleLoad(&Module, ModulePath));
  CHECK(hipModuleGetFunction(&F, Module, "paged_sum"));
  int Bad = 0;
  for (int Style = 0; Style < 2; ++Style) {
    CHECK(hipMemset(Out, 0xff, Seqs * sizeof(float)));
    int Bps = BlocksPerSeq, Ps = PageSize;
    if (Style == 0) {
      void *Params[] = {&PageTable, &DevBlocks, &Bps, &Ps, &DevLens, &Out};
      CHECK(hipModuleLaunchKernel(F, Seqs, 1, 1, 64, 1, 1, 0, nullptr, Params, nullptr));
    } else {
      struct {
        float **Pages;
        int *Blocks;
        int Bps, Ps;
        int *Lens;
        float *Out;
      } Args = {PageTable, DevBlocks, Bps, Ps, DevLens, Out};
      size_t Size = sizeof Args;
      void *Extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &Args, HIP_LAUNCH_PARAM_BUFFER_SIZE, &Size,
                       HIP_LAUNCH_PARAM_END};
      CHECK(hipModuleLaunchKernel(F, Seqs, 1, 1, 64, 1, 1, 0, nullptr, nullptr, Extra));
    }
    CHECK(hipDeviceSynchronize());
    std::vector<float> Got(Seqs);
    CHECK(hipMemcpy(Got.data(), Out, Seqs * sizeof(float), hipMemcpyDeviceToHost));
    int Wrong = 0;
    for (int s = 0; s < Seqs; ++s)
      Wrong += Got[s] != Want[s];
    std::printf("paged_sum hipModuleLaunchKernel(%s): %d sequences, %d wrong (sums %g %g %g)\n",
                Style == 0 ? "kernelParams" : "extra", Seqs, Wrong, Got[0], Got[1], Got[2]);
    Bad += Wrong;
  }
  CHECK(hipModuleUnload(Module));
  return Bad != 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODULE.hsaco [fault|unsupported|load|vmm|time]\n", argv[0]);
    return 2;
  }
  const char *Mode = argc > 2 ? argv[2] : "";
  hipDeviceProp_t Prop;
  CHECK(hipGetDeviceProperties(&Prop, 0));
  std::printf("device: %s (%s), %d CUs, warp %d\n", Prop.name, Prop.gcnArchName,
              Prop.multiProcessorCount, Prop.warpSize);
  if (!std::strcmp(Mode, "load")) {
    hipModule_t M;
    hipError_t E = hipModuleLoad(&M, argv[1]);
    std::printf("hipModuleLoad: %s\n", hipGetErrorName(E));
    return E == hipSuccess ? 0 : 1;
  }
  if (!std::strcmp(Mode, "fault"))
    return gather(true);
  if (!std::strcmp(Mode, "vmm"))
    return gather(false, true);
  if (!std::strcmp(Mode, "time"))
    return gather(false, false, true);
  if (!std::strcmp(Mode, "unsupported")) {
    hipGraph_t G;
    hipError_t E = hipGraphCreate(&G, 0);
    std::printf("hipGraphCreate: %s; hipGetLastError: %s\n", hipGetErrorName(E),
                hipGetErrorName(hipGetLastError()));
    return E == hipErrorNotSupported ? 0 : 1;
  }
  int Rc = gather(false);
  Rc |= paged(argv[1]);
  std::printf("%s\n", Rc ? "FAILED" : "all checks passed");
  return Rc;
}
