// OpenCL C 2.0 kernels: a local-memory reduction with barriers, and a float4
// vector add. clang-22 also emits a callable copy of every kernel
// (__clang_ocl_kern_imp_<name>, a non-kernel function); a kernel-scope
// __local variable would be an LDS global used by that function, which clang-22
// compiles into s_trap 2. So the local buffer is a __local kernel argument
// (dynamic group segment) instead.
__kernel void __attribute__((reqd_work_group_size(128, 1, 1)))
ocl_reduce(__global const float* in, __global float* out, __local float* buf) {
  size_t l = get_local_id(0);
  buf[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = 64; s > 0; s >>= 1) {
    if (l < s) buf[l] += buf[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) out[get_group_id(0)] = buf[0];
}

__kernel void ocl_vadd4(__global const float4* a, __global const float4* b, __global float4* c, uint n) {
  size_t i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
