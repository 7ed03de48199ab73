// Atomics on global and LDS memory: integer add/max/min/or/exchange, CAS loops,
// float add, 64-bit add (global_atomic_*, ds_add_*, ...).
#include <hip/hip_runtime.h>

__global__ void global_int_atomics(const int* in, int* sum, int* mx, unsigned* bits, int* last, unsigned long long* sum64) {
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  atomicAdd(sum, v);
  atomicMax(mx, v);
  atomicMin(mx + 1, v);
  atomicOr(bits, 1u << (v & 31));
  atomicExch(last, v);
  atomicAdd(sum64, (unsigned long long)v);
}

__global__ void float_and_cas(const float* in, float* fsum, int* flag, int* old_out) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  atomicAdd(fsum, v);
  old_out[blockIdx.x * blockDim.x + threadIdx.x] = atomicCAS(flag, 0, (int)threadIdx.x + 1);
}

__global__ void __launch_bounds__(256) lds_histogram(const unsigned char* in, unsigned* hist, int n) {
  __shared__ unsigned local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[in[i]], 1u);
  __syncthreads();
  atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
}
