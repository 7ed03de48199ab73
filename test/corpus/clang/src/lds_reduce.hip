// LDS + barriers: block sum reduction and a 32x32 tiled transpose through
// __shared__ memory, both synchronised with __syncthreads() (s_barrier).
#include <hip/hip_runtime.h>

#define BLOCK 256
#define TILE 32

__global__ void __launch_bounds__(BLOCK) block_sum(const float* in, float* out, int n) {
  __shared__ float buf[BLOCK];
  int tid = threadIdx.x;
  int i = blockIdx.x * BLOCK + tid;
  buf[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (tid < s) buf[tid] += buf[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = buf[0];
}

__global__ void __launch_bounds__(TILE * 8) transpose(const float* in, float* out, int w, int h) {
  __shared__ float tile[TILE][TILE + 1];  // +1 avoids bank conflicts
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8)
    if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += 8)
    if (x < h && y + j < w) out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}
