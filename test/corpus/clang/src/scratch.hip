// Scratch (private segment) use: a private array indexed with run-time values
// cannot be promoted to registers, so it lives in scratch memory
// (scratch_store/scratch_load or buffer_store/buffer_load ... offen;
// private_segment_fixed_size > 0 in the kernel descriptor).
#include <hip/hip_runtime.h>

#define N 96

__global__ void private_histogram(const int* keys, int* out, int n) {
  int hist[N];
  for (int i = 0; i < N; ++i) hist[i] = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    int k = keys[i];
    hist[(unsigned)k % N] += k & 7;
  }
  int idx = out[threadIdx.x];
  out[blockIdx.x * blockDim.x + threadIdx.x] = hist[(unsigned)idx % N] + hist[(unsigned)(idx * 7) % N];
}
