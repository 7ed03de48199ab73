// Synthetic inputs for kernel-diffcheck: deterministic per (seed, argument), random values in the
// type's useful range with boundary values mixed in, poison for outputs, canary guards around
// every buffer.
//
// Policy (documented in kernel-diffcheck(1)):
//   floats: uniform in [-1, 1) (or in the argument's "range" [lo, hi)); from seed 2 on, about
//     1 value in 128 is a finite boundary value (0, -0, the smallest and largest denormal, the
//     smallest normal, +-1, +-1024); from seed 3 on, about 1 in 1024 is NaN, +Inf or -Inf and
//     about 1 in 1024 the type's largest finite magnitude (+-65504 for f16).
//   integers: uniform in the "range" [lo, hi] (inclusive), else in [-8, 8] (signed) or
//     [0, 16] (unsigned); from seed 2 on, about 1 in 128 is 0, 1, -1, the minimum or maximum;
//     from seed 3 on these also include values at and around multiples of a divisor (k*d-1,
//     k*d, k*d+1 for d a power of two up to 2^24, 3, 5, 7, 12 or 1000, up to the maximum).
//   "range" arguments get in-range values only; "bytes" get uniform random bytes.
//   outputs are poisoned with a recognisable NaN (f32 0x7fc0dead, f16 0x7dea, bf16 0x7fde,
//     f64 0x7ff8dead7ff8dead) or 0xff bytes (integers and bytes).
#pragma once

#include "launch/LaunchSpec.h"

#include <cstdint>
#include <vector>

namespace asmevo::launch {

// Bytes of canary before and after every buffer (in one allocation with the buffer).
constexpr uint64_t kGuardBytes = 4096;

// A small, portable generator (SplitMix64): the same numbers on every platform and compiler.
class Rng {
public:
  explicit Rng(uint64_t Seed) : S(Seed) {}
  uint64_t next() {
    uint64_t Z = (S += 0x9e3779b97f4a7c15ull);
    Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ull;
    Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebull;
    return Z ^ (Z >> 31);
  }
  double unit() { return double(next() >> 11) * 0x1.0p-53; } // [0, 1)

private:
  uint64_t S;
};

// The generator seed of argument Index under Seed.
uint64_t argSeed(uint64_t Seed, unsigned Index);

// Elements random values of A's type for (Seed, A.Index). Boundaries: 0 none, 1 finite
// boundary values, 2 also NaN/Inf (ignored for arguments with a "range").
std::vector<uint8_t> generateValues(const ArgSpec &A, uint64_t Elements, uint64_t Seed,
                                    unsigned Boundaries);
// The boundary level a seed uses (seed 1: 0, seed 2: 1, seed >= 3: 2).
unsigned boundaryLevel(uint64_t Seed);

// The initial contents of a buffer for one run: the file, zeros, poison (role out) or values.
llvm::Expected<std::vector<uint8_t>> initialContents(const ArgSpec &A, uint64_t Seed);

void fillPoison(ElemType T, uint8_t *P, uint64_t Bytes);
// Canary byte at position I of a guard (the same pattern before and after). Salt (the
// argument index) makes each buffer's guards differ: a kernel that copies past the end of one
// buffer to past the end of another must not copy a canary into an identical canary.
inline uint8_t canaryByte(uint64_t I, unsigned Salt = 0) {
  return uint8_t(0xa5 ^ (I * 0x3b) ^ (I >> 8) ^ (Salt * 0x5b));
}
void fillCanary(uint8_t *P, uint64_t Bytes, unsigned Salt = 0);
// The first byte of [P, P+Bytes) that is not the canary, or -1.
int64_t firstCanaryDiff(const uint8_t *P, uint64_t Bytes, unsigned Salt = 0);

} // namespace asmevo::launch
