// Cross-lane operations: __shfl_xor (ds_bpermute), explicit DPP
// (__builtin_amdgcn_update_dpp / __builtin_amdgcn_mov_dpp -> row_shr, quad_perm,
// row_bcast modifiers) and ds_swizzle (__builtin_amdgcn_ds_swizzle).
#include <hip/hip_runtime.h>

__global__ void wave_sum_shfl(const float* in, float* out) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int m = 32; m > 0; m >>= 1) v += __shfl_xor(v, m);
  if (threadIdx.x % 64 == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 64] = v;
}

// DPP control values: 0x111..0x11f row_shr:1..15, 0xb1 quad_perm:[1,0,3,2],
// 0x4e quad_perm:[2,3,0,1], 0x142 row_bcast:15, 0x143 row_bcast:31.
__global__ void wave_sum_dpp(const int* in, int* out) {
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  v += __builtin_amdgcn_mov_dpp(v, 0xb1, 0xf, 0xf, false);
  v += __builtin_amdgcn_mov_dpp(v, 0x4e, 0xf, 0xf, false);
  v += __builtin_amdgcn_update_dpp(0, v, 0x114, 0xf, 0xe, false);  // row_shr:4
  v += __builtin_amdgcn_update_dpp(0, v, 0x118, 0xf, 0xc, false);  // row_shr:8
  v += __builtin_amdgcn_update_dpp(0, v, 0x142, 0xa, 0xf, false);  // row_bcast:15
  v += __builtin_amdgcn_update_dpp(0, v, 0x143, 0xc, 0xf, false);  // row_bcast:31
  if (threadIdx.x % 64 == 63) out[(blockIdx.x * blockDim.x + threadIdx.x) / 64] = v;
}

// ds_swizzle: bitmask mode (and_mask=0x1f, or_mask=0, xor_mask=1/2/4/8/16).
__global__ void swizzle_sum(const int* in, int* out) {
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  v += __builtin_amdgcn_ds_swizzle(v, 0x041f);
  v += __builtin_amdgcn_ds_swizzle(v, 0x081f);
  v += __builtin_amdgcn_ds_swizzle(v, 0x101f);
  v += __builtin_amdgcn_ds_swizzle(v, 0x201f);
  v += __builtin_amdgcn_ds_swizzle(v, 0x401f);
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
