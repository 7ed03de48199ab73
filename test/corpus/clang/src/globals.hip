// Reads and writes of module-scope data: a __constant__ table (.rodata), an
// initialised __device__ array (.data) and a zero-initialised __device__
// counter (.bss). The code addresses them pc-relatively:
// s_getpc_b64 + s_add_u32/s_addc_u32 with sym@rel32@lo/hi relocations.
#include <hip/hip_runtime.h>

__constant__ float coeffs[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
__device__ int lut[8] = {3, 1, 4, 1, 5, 9, 2, 6};
__device__ unsigned int counter;

__global__ void apply_table(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  out[i] = coeffs[i & 15] * v + (float)lut[(int)v & 7];
  lut[i & 7] = i;
  atomicAdd(&counter, 1u);
}
