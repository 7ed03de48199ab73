// MFMA (matrix core) builtins. One wave computes one tile; the data layout is
// not meant to be a correct GEMM, only to keep every instruction alive.
// fp8 MFMA exists on gfx942/gfx950 only; the 16x16x32 f16/bf16 forms on gfx950 only.
#include <hip/hip_runtime.h>

typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef _Float16 half8 __attribute__((ext_vector_type(8)));
typedef short short4_ __attribute__((ext_vector_type(4)));
typedef __bf16 bf16x8 __attribute__((ext_vector_type(8)));
typedef float float4_ __attribute__((ext_vector_type(4)));
typedef float float16_ __attribute__((ext_vector_type(16)));
typedef double double4_ __attribute__((ext_vector_type(4)));

__global__ void __launch_bounds__(64) mfma_f32_32x32x8f16(const half4* a, const half4* b, float16_* c) {
  int l = threadIdx.x;
  float16_ acc = c[l];
  for (int k = 0; k < 4; ++k)
    acc = __builtin_amdgcn_mfma_f32_32x32x8f16(a[l + 64 * k], b[l + 64 * k], acc, 0, 0, 0);
  c[l] = acc;
}

__global__ void __launch_bounds__(64) mfma_f32_16x16x16f16(const half4* a, const half4* b, float4_* c) {
  int l = threadIdx.x;
  c[l] = __builtin_amdgcn_mfma_f32_16x16x16f16(a[l], b[l], c[l], 0, 0, 0);
}

__global__ void __launch_bounds__(64) mfma_bf16(const short4_* a, const short4_* b, float4_* c, float16_* d) {
  int l = threadIdx.x;
  c[l] = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a[l], b[l], c[l], 0, 0, 0);
  d[l] = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a[l], b[l], d[l], 0, 0, 0);
}

__global__ void __launch_bounds__(64) mfma_f64(const double* a, const double* b, double4_* c) {
  int l = threadIdx.x;
  c[l] = __builtin_amdgcn_mfma_f64_16x16x4f64(a[l], b[l], c[l], 0, 0, 0);
}

#if defined(__gfx942__) || defined(__gfx950__)
__global__ void __launch_bounds__(64) mfma_fp8(const long* a, const long* b, float4_* c) {
  int l = threadIdx.x;
  c[l] = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(a[l], b[l], c[l], 0, 0, 0);
  c[l + 64] = __builtin_amdgcn_mfma_f32_16x16x32_bf8_fp8(a[l], b[l], c[l + 64], 0, 0, 0);
}
#endif

#if defined(__gfx950__)
__global__ void __launch_bounds__(64) mfma_gfx950(const half8* a, const half8* b, const bf16x8* x, float4_* c) {
  int l = threadIdx.x;
  c[l] = __builtin_amdgcn_mfma_f32_16x16x32_f16(a[l], b[l], c[l], 0, 0, 0);
  c[l + 64] = __builtin_amdgcn_mfma_f32_16x16x32_bf16(x[l], x[l + 64], c[l + 64], 0, 0, 0);
}
#endif
