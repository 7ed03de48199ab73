// Device-function calls: a noinline __device__ function called directly
// (s_getpc_b64 + s_swappc_b64 to a non-kernel symbol) and device functions
// called through a pointer chosen at run time (indirect s_swappc_b64).
// Without the flag below clang-22 turns the indirect call into compares and
// direct calls (the AMDGPU attributor knows every possible callee).
// corpus-flags: -mllvm -amdgpu-indirect-call-specialization-threshold=0
#include <hip/hip_runtime.h>

// ROCm 5.2's hip/amd_detail/host_defines.h defines __noinline__ as nothing,
// so spell the attribute out.
#define NOINLINE __attribute__((noinline))

__device__ NOINLINE float poly(float x, float a, float b) {
  float r = 0.0f;
  for (int i = 0; i < 4; ++i) r = r * x + (a + i * b);
  return r;
}

__global__ void direct_call(const float* in, float* out, float a, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = poly(in[i], a, b) + poly(in[i] * 2.0f, b, a);
}

typedef float (*unary_fn)(float);
__device__ NOINLINE float op_square(float x) { return x * x; }
__device__ NOINLINE float op_negate(float x) { return -x; }
__device__ NOINLINE float op_halve(float x) { return x * 0.5f; }

__global__ void indirect_call(const float* in, float* out, int which) {
  unary_fn fn = which == 0 ? op_square : which == 1 ? op_negate : op_halve;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = fn(in[i]);
}
