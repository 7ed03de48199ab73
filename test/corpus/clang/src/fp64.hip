// fp64 arithmetic: fma/mul/add/div/sqrt on doubles (v_fma_f64, v_mul_f64,
// v_add_f64, v_div_scale_f64/v_div_fmas_f64, v_rsq_f64, v_cvt_f64_*).
#include <hip/hip_runtime.h>

__global__ void dp_kernel(const double* x, const double* y, double* out, double alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double a = x[i], b = y[i];
  double r = fma(alpha, a, b) * a + (double)i;
  r = r / (b + 1.5);
  out[i] = sqrt(fabs(r)) + floor(a);
}
