// Kernel arguments preloaded into SGPRs (gfx942/gfx950): build.sh compiles this
// file with the flags below. The result starts with the 256-byte compatibility
// prologue (s_load of the kernargs + s_branch over padding) and the kernel
// descriptor has .amdhsa_user_sgpr_kernarg_preload_length > 0.
// corpus-flags: -mllvm -amdgpu-kernarg-preload-count=8
#include <hip/hip_runtime.h>

__global__ void preload_axpy(float* y, const float* x, float a, float b, int n, int stride, int offset, int flags) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * stride + offset;
  if (i < n) {
    float v = a * x[i] + b;
    y[i] = (flags & 1) ? v + y[i] : v;
  }
}

__global__ void preload_small(int* out, int v) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
