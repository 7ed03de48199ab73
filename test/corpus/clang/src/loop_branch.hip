// Loops with uniform (s_cbranch_scc*) and divergent (s_cbranch_execz/vccz)
// branches: a per-thread Collatz step count with an early exit, and an
// uniform outer loop over a kernel argument.
#include <hip/hip_runtime.h>

__global__ void collatz(const unsigned* in, unsigned* out, int rounds, int limit) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned total = 0;
  for (int r = 0; r < rounds; ++r) {
    unsigned x = in[i] + r;
    int steps = 0;
    while (x != 1 && steps < limit) {
      if (x & 1) x = 3 * x + 1;
      else x >>= 1;
      ++steps;
    }
    if (steps == limit) break;
    total += steps;
  }
  out[i] = total;
}
