// Packed math on 2-element vectors: _Float16 x2 add/mul/fma (v_pk_add_f16,
// v_pk_mul_f16, v_pk_fma_f16) and float x2 fma/mul/add (v_pk_fma_f32,
// v_pk_mul_f32, v_pk_add_f32; gfx90a and later).
// Uses clang ext_vector types rather than __half2/__hadd2: ROCm 5.2's
// hip_fp16.h does not compile with clang-22 (it calls __llvm_amdgcn_rcp_f16,
// which newer clang headers no longer declare).
#include <hip/hip_runtime.h>

typedef _Float16 half2_ __attribute__((ext_vector_type(2)));
typedef float float2_ __attribute__((ext_vector_type(2)));

__global__ void half2_ops(const half2_* x, const half2_* y, half2_* out, half2_ a, half2_ b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    half2_ p = a * x[i], s = x[i] + y[i];
    out[2 * i] = __builtin_elementwise_fma(b, p, s);
    out[2 * i + 1] = p * s;
  }
}

__global__ void float2_fma(const float2_* x, const float2_* y, float2_* out, float2_ a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float2_ v = x[i], w = y[i];
    v = __builtin_elementwise_fma(v, a, w);
    out[2 * i] = v * w;
    out[2 * i + 1] = v + a;
  }
}
