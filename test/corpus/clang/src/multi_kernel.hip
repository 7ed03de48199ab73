// Several kernels in one code object, each with a different kernel-descriptor
// shape: 1-D / 3-D work-item ids, static and dynamic LDS, launch bounds.
#include <hip/hip_runtime.h>

__global__ void fill(int* out, int value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

__global__ void __launch_bounds__(1024) saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void copy3d(const float* in, float* out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < nx && y < ny && z < nz) {
    long i = ((long)z * ny + y) * nx + x;
    out[i] = in[i];
  }
}

__global__ void reverse_dynamic_lds(const int* in, int* out) {
  extern __shared__ int s[];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = s[blockDim.x - 1 - t];
}
