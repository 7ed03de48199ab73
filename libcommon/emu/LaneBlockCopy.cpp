#include "emu/LaneBlockCopy.h"

#include "emu/Wave.h"

#include <cstring>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace asmevo::emu {

namespace {

// True when the 64 offsets ascend by `step` from lane 0's, with no wrap-around: consecutive
// differences are checked in T (a loop the compiler vectorizes), and the last lane's offset in
// 64 bits, which rules out a wrap in between.
template <class T> bool lanesAscendBy(const T *Off, uint64_t Step) {
  const T o0 = Off[0];
  T Bad = 0;
  for (unsigned l = 0; l < kWaveSize; ++l)
    Bad |= Off[l] ^ T(o0 + T(Step) * l);
  return Bad == 0 && uint64_t(Off[kWaveSize - 1]) == uint64_t(o0) + Step * (kWaveSize - 1);
}

using UnalignedDword = uint32_t __attribute__((aligned(1), may_alias));

// Lane l's N dwords at p + 4 * N * l, to or from the N rows. Out of line, one function per
// shape: inlined into the executors, GCC left most of these loops scalar. Lanes further apart
// (one dword of every four, as Triton's elementwise kernels load) were tried too: no faster
// than the lane-by-lane copy for loads, slower for stores (emu_inst_bench), so they take it.
template <unsigned N, bool Load>
[[gnu::noinline]] void copyPacked(uint8_t *p, uint32_t *const *Rows) {
  static_assert(N >= 1 && N <= 4, "1 to 4 dwords per lane");
  UnalignedDword *__restrict m = reinterpret_cast<UnalignedDword *>(p);
  uint32_t *__restrict r0 = Rows[0];
  uint32_t *__restrict r1 = Rows[N > 1 ? 1 : 0];
  uint32_t *__restrict r2 = Rows[N > 2 ? 2 : 0];
  uint32_t *__restrict r3 = Rows[N > 3 ? 3 : 0];
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (Load) {
      r0[l] = m[N * l];
      if (N > 1)
        r1[l] = m[N * l + 1];
      if (N > 2)
        r2[l] = m[N * l + 2];
      if (N > 3)
        r3[l] = m[N * l + 3];
    } else {
      m[N * l] = r0[l];
      if (N > 1)
        m[N * l + 1] = r1[l];
      if (N > 2)
        m[N * l + 2] = r2[l];
      if (N > 3)
        m[N * l + 3] = r3[l];
    }
  }
}

template <bool Load> void copyShape(uint8_t *p, unsigned n, uint32_t *const *Rows) {
  switch (n) {
  case 1:
    return copyPacked<1, Load>(p, Rows);
  case 2:
    return copyPacked<2, Load>(p, Rows);
  case 3:
    return copyPacked<3, Load>(p, Rows);
  default:
    return copyPacked<4, Load>(p, Rows);
  }
}

template <class T>
bool copyPackedT(bool Load, uint8_t *Lane0, const T *Off, unsigned n, uint32_t *const *Rows) {
  if (n < 1 || n > 4 || T(Off[1] - Off[0]) != T(4 * n) || !lanesAscendBy(Off, 4 * n))
    return false;
  copyPackedBlock(Load, Lane0, n, Rows);
  return true;
}

} // namespace

void copyPackedBlock(bool Load, uint8_t *Lane0, unsigned n, uint32_t *const *Rows) {
  if (Load)
    copyShape<true>(Lane0, n, Rows);
  else
    copyShape<false>(Lane0, n, Rows);
}

bool copyPackedLanes(bool Load, uint8_t *Lane0, const uint32_t *Off, unsigned n,
                     uint32_t *const *Rows) {
  return copyPackedT(Load, Lane0, Off, n, Rows);
}

bool copyPackedLanes(bool Load, uint8_t *Lane0, const uint64_t *Off, unsigned n,
                     uint32_t *const *Rows) {
  return copyPackedT(Load, Lane0, Off, n, Rows);
}

void gatherLaneWords(const uint8_t *Base, const uint32_t *Off, uint32_t *Out) {
#if defined(__AVX2__)
  // The offsets are below the LDS size (at most 160 KiB), so they fit the signed 32-bit indices.
  for (unsigned l = 0; l < kWaveSize; l += 8) {
    const __m256i Idx = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(Off + l));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(Out + l),
                        _mm256_i32gather_epi32(reinterpret_cast<const int *>(Base), Idx, 1));
  }
#else
  for (unsigned l = 0; l < kWaveSize; ++l)
    std::memcpy(Out + l, Base + Off[l], 4);
#endif
}

void gatherLaneDwordPairs(const uint8_t *Base, const uint32_t *Off, uint32_t *Row0,
                          uint32_t *Row1) {
#if defined(__AVX2__)
  const auto *B = reinterpret_cast<const long long *>(Base);
  for (unsigned l = 0; l < kWaveSize; l += 8) {
    const __m256i Idx = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(Off + l));
    // Lanes l..l+3 and l+4..l+7, each lane's 8 bytes as one element: (d0, d1) pairs.
    const __m256 G0 =
        _mm256_castsi256_ps(_mm256_i32gather_epi64(B, _mm256_castsi256_si128(Idx), 1));
    const __m256 G1 =
        _mm256_castsi256_ps(_mm256_i32gather_epi64(B, _mm256_extracti128_si256(Idx, 1), 1));
    // Within each 128-bit half: the first dwords of two lanes of G0, then of G1 (lanes 0 1 4 5 |
    // 2 3 6 7), put in lane order by the 64-bit permute.
    const __m256 D0 = _mm256_shuffle_ps(G0, G1, _MM_SHUFFLE(2, 0, 2, 0));
    const __m256 D1 = _mm256_shuffle_ps(G0, G1, _MM_SHUFFLE(3, 1, 3, 1));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(Row0 + l),
                        _mm256_permute4x64_epi64(_mm256_castps_si256(D0), _MM_SHUFFLE(3, 1, 2, 0)));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(Row1 + l),
                        _mm256_permute4x64_epi64(_mm256_castps_si256(D1), _MM_SHUFFLE(3, 1, 2, 0)));
  }
#else
  for (unsigned l = 0; l < kWaveSize; ++l) {
    std::memcpy(Row0 + l, Base + Off[l], 4);
    std::memcpy(Row1 + l, Base + Off[l] + 4, 4);
  }
#endif
}

void permuteLanes(const uint32_t *Row, const int8_t *Src, uint32_t *Out) {
#if defined(__AVX2__)
  const auto *R = reinterpret_cast<const int *>(Row);
  for (unsigned l = 0; l < kWaveSize; l += 8) {
    int64_t Eight;
    std::memcpy(&Eight, Src + l, 8);
    const __m256i Idx = _mm256_cvtepi8_epi32(_mm_cvtsi64_si128(Eight));
    const __m256i Take = _mm256_cmpgt_epi32(Idx, _mm256_set1_epi32(-1));
    const __m256i Zero = _mm256_setzero_si256();
    // A negative index is masked off (no load), and its lane keeps the zero.
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(Out + l),
                        _mm256_mask_i32gather_epi32(Zero, R, Idx, Take, 4));
  }
#else
  for (unsigned l = 0; l < kWaveSize; ++l)
    Out[l] = Src[l] >= 0 ? Row[Src[l]] : 0;
#endif
}

void gatherStridedWords(const uint8_t *Base, uint32_t Stride, uint32_t *Out) {
#if defined(__AVX2__)
  const __m256i S = _mm256_set1_epi32(int(Stride));
  __m256i Lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (unsigned l = 0; l < kWaveSize; l += 8) {
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(Out + l),
                        _mm256_i32gather_epi32(reinterpret_cast<const int *>(Base),
                                               _mm256_mullo_epi32(Lane, S), 1));
    Lane = _mm256_add_epi32(Lane, _mm256_set1_epi32(8));
  }
#else
  for (unsigned l = 0; l < kWaveSize; ++l)
    std::memcpy(Out + l, Base + size_t(Stride) * l, 4);
#endif
}

} // namespace asmevo::emu
