// MFMA executor: the dense matrix fused-multiply-add instructions of gfx90a (CDNA2),
// gfx940/941/942 (CDNA3) and gfx950 (CDNA4). The gfx950 F8F6F4 / scaled MFMAs are
// ExecMfmaF8F6F4.cpp's; gfx950's FP8/BF8 SMFMACs (sparse) are ExecSmfmac.cpp's; the other SMFMACs
// are not implemented (the executor returns false for them).
//
// Operand layout. Every shape is M x N x K (M == N) with `blocks` independent blocks. The
// layouts below are the ones AMD's matrix instruction calculator documents for CDNA2/CDNA3
// (github.com/ROCm/amd_matrix_instruction_calculator, --detail-instruction), which agree with
// the CDNA3 ISA guide's matrix-instruction chapter:
//   A[i][k] of block b (B[k][j] likewise with j for i):
//     multi-block shapes (blocks > 1): lane = M*b + i, element k of the lane's packed K values
//     single-block shapes:             lane = M*(k / kpl) + i, element k % kpl of the lane,
//       where kpl = elements per lane (K * M / 64). Elements pack little-endian across the
//       operand's consecutive registers (element e of width w bits: register e*w/32, bit e*w%32).
//     v_mfma_f64_4x4x4_4b_f64:         lane = 4*b + 16*k + i (one f64 per lane).
//   C/D[i][j] of block b (32-bit results):
//     M = 32: register 16*b + 4*(i/8) + i%4, lane 32*((i/4)%2) + j
//     M = 16: register 4*b + i%4,            lane 16*(i/4) + j
//     M = 4:  register i,                    lane 4*b + j
//   f64 results: 16x16x4: register pair i/4, lane 16*(i%4) + j; 4x4x4_4b: lane 16*i + 4*b + j.
// The gfx950 shapes (32x32x16 / 16x16x32 f16/bf16, 32x32x32 / 16x16x64 i8) are not in the
// calculator; they are modelled with the same single-block rule and kpl = 8 (16 for i8), i.e.
// each lane holds K-contiguous elements, which is how the compilers feed them (kWidth 8/16).
//
// Modifiers:
//   CBSZ/ABID (multi-block shapes): block b reads A from block (b & ~(2^CBSZ - 1)) + ABID.
//   BLGP (non-f64): B of lane L is read from lane
//     0: L, 1: L%32, 2: 32+L%32, 3: (L+16)%64, 4: L%16, 5: 16+L%16, 6: 32+L%16, 7: 48+L%16.
//   BLGP on f64 (gfx940+): bit 0 negates A, bit 1 negates B, bit 2 negates C.
//   A non-zero modifier on an instruction the documentation does not give it to makes the
//   executor return false (unsupported) rather than guess.
//
// Numerics (the hardware's internal precision and summation order are not fully documented):
// each D element is computed as acc = C; for k = 0..K-1: acc = fma(A[i][k], B[k][j], acc),
// in f32 for the f32-accumulating shapes (f16/bf16/fp8/bf8 inputs are converted exactly to f32,
// so their products are exact and each step rounds once, round-to-nearest-even; f32/xf32 inputs
// use the fused product), in f64 for the f64 shapes, and exactly in wrapping 32-bit integer
// arithmetic for i8. XF32 inputs are used at full f32 precision. Denormals are kept (the MODE
// register's denormal controls are not applied; see f32Result). EXEC is not consulted: the
// matrix core computes all 64 lanes.
//
// FP8 formats: gfx940/941/942 use the FNUZ encodings (E4M3 bias 8, E5M2 bias 16, 0x80 = NaN,
// no infinities, no negative zero); gfx950 uses the OCP encodings (E4M3FN bias 7 with
// S.1111.111 = NaN and no infinities; E5M2 bias 15 with IEEE infinities and NaNs).
#include "emu/EmuError.h"
#include "emu/Exec.h"
#include "support/Float.h"
#include "support/SmallFloat.h"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#include <immintrin.h>
#define ASMEVO_MFMA_AVX2 1
#if defined(__GNUC__) && defined(__x86_64__)
// The f32 MFMA's inner products also have an AVX-512 form, compiled for that target alone and
// chosen at run time on hosts that have it (mfmaHostAvx512): the same fma or product-then-sum
// per term, in the same k order, on 16 lanes at a time, so its results are bit for bit the
// AVX2 form's (mfma_test's Mfma.Avx512MatchesAvx2 runs both).
#define ASMEVO_MFMA_AVX512 1
#endif
#endif

namespace asmevo::emu {

namespace {
std::atomic<bool> MfmaAvx512Allowed{true};
} // namespace

bool mfmaHostAvx512() {
#ifdef ASMEVO_MFMA_AVX512
  static const bool Has = __builtin_cpu_supports("avx512f");
  return Has && MfmaAvx512Allowed.load(std::memory_order_relaxed);
#else
  return false;
#endif
}

void allowMfmaHostAvx512(bool Allow) { MfmaAvx512Allowed.store(Allow); }

namespace {

enum class EType : uint8_t { F32, F16, BF16, I8, Fp8, Bf8, F64 };

struct Shape {
  uint8_t M = 0, K = 0, Blocks = 1;
  EType A = EType::F32, B = EType::F32;
  bool Gfx950Shape = false; // not documented for modifiers: require CBSZ/ABID/BLGP == 0
  bool BlgpOnGfx94 = false; // CDNA3 documents BLGP lane patterns for this single-block shape
};

bool shapeOf(Op Op, Shape &s) {
  auto Set = [&](unsigned m, unsigned k, unsigned Blocks, EType t, bool G950 = false) {
    s.M = uint8_t(m);
    s.K = uint8_t(k);
    s.Blocks = uint8_t(Blocks);
    s.A = s.B = t;
    s.Gfx950Shape = G950;
    return true;
  };
  switch (Op) {
  // f32
  case Op::V_MFMA_F32_32X32X1_2B_F32:
    return Set(32, 1, 2, EType::F32);
  case Op::V_MFMA_F32_16X16X1_4B_F32:
    return Set(16, 1, 4, EType::F32);
  case Op::V_MFMA_F32_4X4X1_16B_F32:
    return Set(4, 1, 16, EType::F32);
  case Op::V_MFMA_F32_32X32X2_F32:
    Set(32, 2, 1, EType::F32);
    s.BlgpOnGfx94 = true;
    return true;
  case Op::V_MFMA_F32_16X16X4_F32:
    Set(16, 4, 1, EType::F32);
    s.BlgpOnGfx94 = true;
    return true;
  case Op::V_MFMA_F32_32X32X4_XF32:
    return Set(32, 4, 1, EType::F32);
  case Op::V_MFMA_F32_16X16X8_XF32:
    return Set(16, 8, 1, EType::F32);
  // f16
  case Op::V_MFMA_F32_32X32X4_2B_F16:
    return Set(32, 4, 2, EType::F16);
  case Op::V_MFMA_F32_16X16X4_4B_F16:
    return Set(16, 4, 4, EType::F16);
  case Op::V_MFMA_F32_4X4X4_16B_F16:
    return Set(4, 4, 16, EType::F16);
  case Op::V_MFMA_F32_32X32X8_F16:
    return Set(32, 8, 1, EType::F16);
  case Op::V_MFMA_F32_16X16X16_F16:
    return Set(16, 16, 1, EType::F16);
  case Op::V_MFMA_F32_32X32X16_F16:
    return Set(32, 16, 1, EType::F16, true);
  case Op::V_MFMA_F32_16X16X32_F16:
    return Set(16, 32, 1, EType::F16, true);
  // bf16 (gfx90a *_1k and gfx940+ names)
  case Op::V_MFMA_F32_32X32X4_2B_BF16:
    return Set(32, 4, 2, EType::BF16);
  case Op::V_MFMA_F32_16X16X4_4B_BF16:
    return Set(16, 4, 4, EType::BF16);
  case Op::V_MFMA_F32_4X4X4_16B_BF16:
    return Set(4, 4, 16, EType::BF16);
  case Op::V_MFMA_F32_32X32X8_BF16:
    return Set(32, 8, 1, EType::BF16);
  case Op::V_MFMA_F32_16X16X16_BF16:
    return Set(16, 16, 1, EType::BF16);
  case Op::V_MFMA_F32_32X32X16_BF16:
    return Set(32, 16, 1, EType::BF16, true);
  case Op::V_MFMA_F32_16X16X32_BF16:
    return Set(16, 32, 1, EType::BF16, true);
  // gfx90a's original bf16 shapes (two bf16 per lane)
  case Op::V_MFMA_F32_32X32X2BF16:
    return Set(32, 2, 2, EType::BF16);
  case Op::V_MFMA_F32_16X16X2BF16:
    return Set(16, 2, 4, EType::BF16);
  case Op::V_MFMA_F32_4X4X2BF16:
    return Set(4, 2, 16, EType::BF16);
  case Op::V_MFMA_F32_32X32X4BF16:
    return Set(32, 4, 1, EType::BF16);
  case Op::V_MFMA_F32_16X16X8BF16:
    return Set(16, 8, 1, EType::BF16);
  // i8
  case Op::V_MFMA_I32_32X32X4_2B_I8:
    return Set(32, 4, 2, EType::I8);
  case Op::V_MFMA_I32_16X16X4_4B_I8:
    return Set(16, 4, 4, EType::I8);
  case Op::V_MFMA_I32_4X4X4_16B_I8:
    return Set(4, 4, 16, EType::I8);
  case Op::V_MFMA_I32_32X32X8I8:
    return Set(32, 8, 1, EType::I8);
  case Op::V_MFMA_I32_16X16X16I8:
    return Set(16, 16, 1, EType::I8);
  case Op::V_MFMA_I32_32X32X16_I8:
    return Set(32, 16, 1, EType::I8);
  case Op::V_MFMA_I32_16X16X32_I8:
    return Set(16, 32, 1, EType::I8);
  case Op::V_MFMA_I32_32X32X32_I8:
    return Set(32, 32, 1, EType::I8, true);
  case Op::V_MFMA_I32_16X16X64_I8:
    return Set(16, 64, 1, EType::I8, true);
  // f64
  case Op::V_MFMA_F64_16X16X4_F64:
    return Set(16, 4, 1, EType::F64);
  case Op::V_MFMA_F64_4X4X4_4B_F64:
    return Set(4, 4, 4, EType::F64);
  default:
    break;
  }
  // fp8 / bf8 (gfx940+): A type first, B type second in the mnemonic.
  auto f8 = [&](unsigned m, unsigned k, EType a, EType b) {
    Set(m, k, 1, a);
    s.B = b;
    return true;
  };
  switch (Op) {
  case Op::V_MFMA_F32_16X16X32_FP8_FP8:
    return f8(16, 32, EType::Fp8, EType::Fp8);
  case Op::V_MFMA_F32_16X16X32_FP8_BF8:
    return f8(16, 32, EType::Fp8, EType::Bf8);
  case Op::V_MFMA_F32_16X16X32_BF8_FP8:
    return f8(16, 32, EType::Bf8, EType::Fp8);
  case Op::V_MFMA_F32_16X16X32_BF8_BF8:
    return f8(16, 32, EType::Bf8, EType::Bf8);
  case Op::V_MFMA_F32_32X32X16_FP8_FP8:
    return f8(32, 16, EType::Fp8, EType::Fp8);
  case Op::V_MFMA_F32_32X32X16_FP8_BF8:
    return f8(32, 16, EType::Fp8, EType::Bf8);
  case Op::V_MFMA_F32_32X32X16_BF8_FP8:
    return f8(32, 16, EType::Bf8, EType::Fp8);
  case Op::V_MFMA_F32_32X32X16_BF8_BF8:
    return f8(32, 16, EType::Bf8, EType::Bf8);
  default:
    return false;
  }
}

unsigned bitsOf(EType t) {
  switch (t) {
  case EType::F32:
    return 32;
  case EType::F16:
  case EType::BF16:
    return 16;
  case EType::F64:
    return 64;
  default:
    return 8;
  }
}

// The one place f32 MFMA results pass through (denormal flushing / modes would go here).
inline float f32Result(float x) { return x; }
inline double f64Result(double x) { return x; }

// Lane of B's element for lane L under a BLGP pattern.
inline unsigned blgpLane(unsigned Blgp, unsigned L) {
  switch (Blgp) {
  case 1:
    return L % 32;
  case 2:
    return 32 + L % 32;
  case 3:
    return (L + 16) % 64;
  case 4:
    return L % 16;
  case 5:
    return 16 + L % 16;
  case 6:
    return 32 + L % 16;
  case 7:
    return 48 + L % 16;
  default:
    return L;
  }
}

[[noreturn]] void badOperand(const Inst &In, const char *What) {
  throw EmuError(EmuErrorKind::IllegalInst,
                 std::string(opName(In.Operation)) + ": " + What + " operand out of range");
}

// First unified register index of a vector operand spanning `regs` registers.
unsigned vectorBase(const Inst &In, uint16_t Code, unsigned Regs, const char *What) {
  if (Code < kVgprBase || Code >= kAgprBase + 256)
    badOperand(In, What);
  unsigned Base = vectorIndex(Code);
  if (Base + Regs > kNumVectorRegs)
    badOperand(In, What);
  return Base;
}

struct Layout {
  const Shape &S;
  unsigned Kpl; // elements per lane (single-block shapes)
  bool F64x4;   // v_mfma_f64_4x4x4_4b_f64
  // Lane and element index of A[i][k] (or B[k][j] with i := j) of block b.
  void pos(unsigned b, unsigned i, unsigned k, unsigned &Lane, unsigned &Item) const {
    if (F64x4) {
      Lane = 4 * b + 16 * k + i;
      Item = 0;
    } else if (S.Blocks > 1) {
      Lane = S.M * b + i;
      Item = k;
    } else {
      Lane = S.M * (k / Kpl) + i;
      Item = k % Kpl;
    }
  }
  // Register (offset) and lane of C/D[i][j] of block b; f64: offset of the register pair.
  void dpos(unsigned b, unsigned i, unsigned j, unsigned &Reg, unsigned &Lane) const {
    if (S.A == EType::F64) {
      if (S.M == 16) {
        Reg = 2 * (i / 4);
        Lane = 16 * (i % 4) + j;
      } else {
        Reg = 0;
        Lane = 16 * (i % 4) + 4 * b + j;
      }
      return;
    }
    switch (S.M) {
    case 32:
      Reg = 16 * b + 4 * (i / 8) + i % 4;
      Lane = 32 * ((i / 4) % 2) + j;
      break;
    case 16:
      Reg = 4 * b + i % 4;
      Lane = 16 * (i / 4) + j;
      break;
    default:
      Reg = i;
      Lane = 4 * b + j;
      break;
    }
  }
  unsigned dRegs() const {
    if (S.A == EType::F64)
      return S.M == 16 ? 8 : 2;
    return S.M == 32 ? 16u * S.Blocks : S.M == 16 ? 4u * S.Blocks : 4u;
  }
};

inline uint64_t rawElem(const WaveState &w, unsigned Base, unsigned Lane, unsigned Item,
                        unsigned Bits) {
  if (Bits == 64)
    return w.vrow(Base)[Lane] | (uint64_t(w.vrow(Base + 1)[Lane]) << 32);
  unsigned Bit = Item * Bits;
  uint32_t v = w.vrow(Base + Bit / 32)[Lane];
  if (Bits == 32)
    return v;
  return (v >> (Bit % 32)) & ((1u << Bits) - 1);
}

float toF32(EType t, uint32_t Raw, bool Ocp) {
  switch (t) {
  case EType::F32:
    return bitsToF32(Raw);
  case EType::F16:
    return f16ToF32(uint16_t(Raw));
  case EType::BF16:
    return bf16ToF32(uint16_t(Raw));
  case EType::Fp8:
    return smallToF32(Raw & 0xffu, fp8Format(Ocp));
  case EType::Bf8:
    return smallToF32(Raw & 0xffu, bf8Format(Ocp));
  default:
    return 0.0f;
  }
}

// out[i] = the value of raw element i as type t, for i < n: the type is decided once, and the
// loops vectorize.
void convertColumn(EType t, const uint32_t *Raw, unsigned n, float *Out, bool Ocp) {
  switch (t) {
  case EType::F32:
    for (unsigned i = 0; i < n; ++i)
      Out[i] = bitsToF32(Raw[i]);
    return;
  case EType::F16:
    for (unsigned i = 0; i < n; ++i)
      Out[i] = f16ToF32(uint16_t(Raw[i]));
    return;
  case EType::BF16:
    for (unsigned i = 0; i < n; ++i)
      Out[i] = bf16ToF32(uint16_t(Raw[i]));
    return;
  default:
    for (unsigned i = 0; i < n; ++i)
      Out[i] = toF32(t, Raw[i], Ocp);
    return;
  }
}

constexpr unsigned kMaxIn = 1024;  // blocks * M * K
constexpr unsigned kMaxOut = 2048; // blocks * M * N

} // namespace

// C as [block][i][j] bits in Cr: a register operand's rows (row i of C/D of a block is M
// consecutive lanes of one register, L.dpos: lane = first + j), or the constant everywhere.
// Mc, when not 0, is M known at compile time.
template <unsigned Mc>
[[gnu::always_inline]] inline void gatherC(const WaveState &w, const Layout &L, bool CIsVec,
                                           unsigned CBase, uint32_t CConst, uint32_t *Cr,
                                           unsigned NB, unsigned Mrun) {
  const unsigned M = Mc ? Mc : Mrun;
  for (unsigned b = 0; b < NB; ++b)
    for (unsigned i = 0; i < M; ++i) {
      unsigned Reg, Lane;
      L.dpos(b, i, 0, Reg, Lane);
      uint32_t *CRow = &Cr[(b * M + i) * M];
      if (CIsVec)
        std::memcpy(CRow, w.vrow(CBase + Reg) + Lane, M * sizeof(uint32_t));
      else
        for (unsigned j = 0; j < M; ++j)
          CRow[j] = CConst;
    }
}

#ifdef ASMEVO_MFMA_AVX2
// out[i] = the f16 in bits [sh+15:sh] of row[i], for i < n (a multiple of 8): F16C's
// conversion, exact like f16ToF32 (a signalling NaN comes out quiet, as every x86 arithmetic
// operation on it makes it anyway).
inline void f16ColumnAvx2(const uint32_t *Row, unsigned Sh, float *Out, unsigned n) {
  const __m128i Cnt = _mm_cvtsi32_si128(int(Sh));
  const __m256i Low16 = _mm256_set1_epi32(0xffff);
  for (unsigned i = 0; i < n; i += 8) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(Row + i));
    v = _mm256_and_si256(_mm256_srl_epi32(v, Cnt), Low16);
    // 16-bit halves: v0..v3 in qword 0, v4..v7 in qword 2; gather them into the low 128 bits.
    const __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi32(v, v), 0x08);
    _mm256_storeu_ps(Out + i, _mm256_cvtph_ps(_mm256_castsi256_si128(p)));
  }
}

// R rows of one block (i0 .. i0+R-1) of the f32 MFMA with M = Mc (16 or 32) on AVX2: the rows'
// accumulators stay in vector registers across k, each B row is loaded once for the R rows.
// Fma: one fused multiply-add per term, which is the ISA's rounding for f32 inputs and the same
// result as a product then a sum wherever the product is exact in f32 (f16, fp8 and bf8
// inputs); otherwise (bf16, whose products can leave f32's range) the product, then the sum.
template <unsigned Mc, unsigned R, bool Fma>
[[gnu::always_inline]] inline void mfmaRowsAvx2(const float *Af, const float *Bf, unsigned K,
                                                unsigned i0, __m256 (&Acc)[R][Mc / 8]) {
  for (unsigned k = 0; k < K; ++k) {
    const float *Br = Bf + k * Mc, *Ak = Af + k * Mc + i0;
    __m256 Bv[Mc / 8];
    for (unsigned v = 0; v < Mc / 8; ++v)
      Bv[v] = _mm256_loadu_ps(Br + 8 * v);
    for (unsigned r = 0; r < R; ++r) {
      const __m256 a = _mm256_broadcast_ss(Ak + r);
      for (unsigned v = 0; v < Mc / 8; ++v)
        Acc[r][v] = Fma ? _mm256_fmadd_ps(a, Bv[v], Acc[r][v])
                        : _mm256_add_ps(Acc[r][v], _mm256_mul_ps(a, Bv[v]));
    }
  }
}
#endif

// Every row of one block of the f32 MFMA with M = Mc (16 or 32) on AVX2, R rows at a time
// (mfmaRowsAvx2); DRows, CRows and CConst as mfmaBlockAvx512's.
template <unsigned Mc, bool Fma>
[[gnu::always_inline]] inline void mfmaBlockAvx2(const float *Af, const float *Bf, unsigned K,
                                                 uint32_t *const *DRows,
                                                 const uint32_t *const *CRows, uint32_t CConst) {
  constexpr unsigned R = Mc == 32 ? 2 : 4, V = Mc / 8;
  for (unsigned i0 = 0; i0 < Mc; i0 += R) {
    __m256 Acc[R][V];
    for (unsigned r = 0; r < R; ++r)
      for (unsigned v = 0; v < V; ++v)
        Acc[r][v] = CRows ? _mm256_loadu_ps(reinterpret_cast<const float *>(CRows[i0 + r] + 8 * v))
                          : _mm256_set1_ps(bitsToF32(CConst));
    mfmaRowsAvx2<Mc, R, Fma>(Af, Bf, K, i0, Acc);
    for (unsigned r = 0; r < R; ++r)
      for (unsigned v = 0; v < V; ++v)
        _mm256_storeu_ps(reinterpret_cast<float *>(DRows[i0 + r] + 8 * v), Acc[r][v]);
  }
}

#ifdef ASMEVO_MFMA_AVX512
// Every row of one block of the f32 MFMA with M = Mc (16 or 32) on AVX-512: Rows of 16
// accumulators (two 16-wide halves of a 32-wide row, or one of a 16-wide row) stay in vector
// registers across k; each B row is loaded once per pass. DRows[i] / CRows[i]: row i of D and C
// (CRows null: C is the constant CConst). A pass reads its rows of C before it writes them to D,
// and different passes touch different rows, so D may be C itself.
template <unsigned Mc, bool Fma>
[[gnu::target("avx512f")]] void mfmaBlockAvx512(const float *Af, const float *Bf, unsigned K,
                                                uint32_t *const *DRows,
                                                const uint32_t *const *CRows, uint32_t CConst) {
  constexpr unsigned V = Mc / 16, R = 16 / V;
  for (unsigned i0 = 0; i0 < Mc; i0 += R) {
    __m512 Acc[R][V];
    for (unsigned r = 0; r < R; ++r)
      for (unsigned v = 0; v < V; ++v)
        Acc[r][v] =
            CRows ? _mm512_loadu_ps(CRows[i0 + r] + 16 * v) : _mm512_set1_ps(bitsToF32(CConst));
    for (unsigned k = 0; k < K; ++k) {
      const float *Br = Bf + k * Mc, *Ak = Af + k * Mc + i0;
      __m512 Bv[V];
      for (unsigned v = 0; v < V; ++v)
        Bv[v] = _mm512_loadu_ps(Br + 16 * v);
      for (unsigned r = 0; r < R; ++r) {
        const __m512 a = _mm512_set1_ps(Ak[r]);
        for (unsigned v = 0; v < V; ++v)
          Acc[r][v] = Fma ? _mm512_fmadd_ps(a, Bv[v], Acc[r][v])
                          : _mm512_add_ps(Acc[r][v], _mm512_mul_ps(a, Bv[v]));
      }
    }
    for (unsigned r = 0; r < R; ++r)
      for (unsigned v = 0; v < V; ++v)
        _mm512_storeu_ps(DRows[i0 + r] + 16 * v, Acc[r][v]);
  }
}
#endif

// The f32 MFMA from gathered inputs: D[i][j] = C[i][j], then for k = 0..K-1 in order
// D[i][j] = D[i][j] + A[i][k] * B[k][j] (Fused: one fma; otherwise the product is exact, so the
// same single rounding). Af is [block][k][i], Bf [block][k][j]. Every row of C is read (into
// Cr) before the first row of D is written, since D may overlap C, unless C is D itself or
// does not overlap it (then row i of C is read right before row i of D is written). Mc, when not
// 0, is M known at compile time: the j loops then have a fixed count, the accumulators stay in
// vector registers across k, and the row copies are a few moves. Exact: the products are exact
// in f32 (f16, fp8, bf8 inputs), so a fused multiply-add gives the same result.
template <unsigned Mc, bool Fused, bool Exact>
void mfmaF32(WaveState &w, const Layout &L, bool CIsVec, unsigned CBase, uint32_t CConst,
             unsigned DBase, const float *Af, const float *Bf, uint32_t *Cr, unsigned NB,
             unsigned K, unsigned Mrun) {
  const unsigned M = Mc ? Mc : Mrun;
  const bool Direct =
      !CIsVec || CBase == DBase || CBase + L.dRegs() <= DBase || DBase + L.dRegs() <= CBase;
#ifdef ASMEVO_MFMA_AVX2
  if constexpr (Mc == 16 || Mc == 32) {
    if (Direct) {
      uint32_t *DRows[Mc];
      const uint32_t *CRows[Mc];
#ifdef ASMEVO_MFMA_AVX512
      const bool Avx512 = mfmaHostAvx512();
#endif
      for (unsigned b = 0; b < NB; ++b) {
        for (unsigned i = 0; i < Mc; ++i) {
          // L.dpos(b, i, 0) for M = Mc, with M known here.
          const unsigned Reg = Mc == 32 ? 16 * b + 4 * (i / 8) + i % 4 : 4 * b + i % 4;
          const unsigned Lane = Mc == 32 ? 32 * ((i / 4) % 2) : 16 * (i / 4);
          DRows[i] = w.vrow(DBase + Reg) + Lane;
          CRows[i] = CIsVec ? w.vrow(CBase + Reg) + Lane : nullptr;
        }
        const float *Ab = Af + b * K * Mc, *Bb = Bf + b * K * Mc;
        const uint32_t *const *C = CIsVec ? CRows : nullptr;
#ifdef ASMEVO_MFMA_AVX512
        if (Avx512) {
          mfmaBlockAvx512<Mc, Fused || Exact>(Ab, Bb, K, DRows, C, CConst);
          continue;
        }
#endif
        mfmaBlockAvx2<Mc, Fused || Exact>(Ab, Bb, K, DRows, C, CConst);
      }
      return;
    }
  }
#endif
  gatherC<Mc>(w, L, CIsVec, CBase, CConst, Cr, NB, M);
  for (unsigned b = 0; b < NB; ++b)
    for (unsigned i = 0; i < M; ++i) {
      const uint32_t *CRow = &Cr[(b * M + i) * M];
      float Accf[Mc ? Mc : 32];
      for (unsigned j = 0; j < M; ++j)
        Accf[j] = bitsToF32(CRow[j]);
      for (unsigned k = 0; k < K; ++k) {
        const float a = Af[(b * K + k) * M + i], *Br = &Bf[(b * K + k) * M];
        for (unsigned j = 0; j < M; ++j)
          Accf[j] = Fused ? std::fma(a, Br[j], Accf[j]) : Accf[j] + a * Br[j];
      }
      unsigned Reg, Lane;
      L.dpos(b, i, 0, Reg, Lane);
      uint32_t *d = w.vrow(DBase + Reg) + Lane;
      for (unsigned j = 0; j < M; ++j)
        d[j] = f32ToBits(f32Result(Accf[j]));
    }
}

bool execMfma(ExecCtx &c, const Inst &In) {
  Shape s;
  if (!shapeOf(In.Operation, s))
    return false;
  WaveState &w = c.W;
  const bool IsF64 = s.A == EType::F64;
  const bool IsInt = s.A == EType::I8;
  const bool Gfx94 = isGfx94Plus(c.Target);
  const unsigned M = s.M, K = s.K, NB = s.Blocks;

  // Which modifiers this instruction is documented to take; anything else is not guessed at.
  unsigned Blgp = In.Blgp & 7, Cbsz = In.Cbsz & 7, Abid = In.Abid & 15;
  bool NegA = false, NegB = false, NegC = false;
  if (IsF64) {
    if (Cbsz || Abid)
      return false;
    if (Blgp) {
      if (!Gfx94)
        return false;
      NegA = Blgp & 1;
      NegB = Blgp & 2;
      NegC = Blgp & 4;
      Blgp = 0;
    }
  } else if (NB > 1) {
    unsigned Log2b = NB == 2 ? 1 : NB == 4 ? 2 : 4;
    if (Cbsz > Log2b || Abid >= (1u << Cbsz))
      return false;
  } else {
    if (Cbsz || Abid)
      return false;
    if (Blgp && (s.Gfx950Shape || (Gfx94 && !s.BlgpOnGfx94)))
      return false;
  }

  Layout L{s, 0, IsF64 && M == 4};
  L.Kpl = NB > 1 ? K : (K * M) / 64;
  const unsigned ABits = bitsOf(s.A), BBits = bitsOf(s.B);
  const unsigned InRegs = IsF64 ? 2 : ((NB > 1 ? K : L.Kpl) * ABits + 31) / 32;
  const unsigned ABase = vectorBase(In, In.Src[0], InRegs, "A");
  const unsigned BBase = vectorBase(In, In.Src[1], InRegs, "B");
  const unsigned DRegs = L.dRegs();
  const unsigned DBase = vectorBase(In, In.Dst, DRegs, "D");
  const bool CIsVec = In.Src[2] >= kVgprBase;
  const unsigned CBase = CIsVec ? vectorBase(In, In.Src[2], DRegs, "C") : 0;
  const bool Ocp = c.Target == Gfx::Gfx950;
  const unsigned Grp = 1u << Cbsz;

  // Gather inputs: A as [block][i][k], B transposed as [block][j][k], C as [block][i][j].
  // Everything is read before D is written (D may overlap A, B or C).
  if (IsF64) {
    double A[64], B[64], C[256];
    for (unsigned b = 0; b < NB; ++b)
      for (unsigned i = 0; i < M; ++i)
        for (unsigned k = 0; k < K; ++k) {
          unsigned Lane, Item;
          L.pos(b, i, k, Lane, Item);
          double Av = bitsToF64(rawElem(w, ABase, Lane, 0, 64));
          double Bv = bitsToF64(rawElem(w, BBase, Lane, 0, 64));
          A[(b * M + i) * K + k] = NegA ? -Av : Av;
          B[(b * M + i) * K + k] = NegB ? -Bv : Bv; // B[k][j=i]
        }
    double CConst = CIsVec ? 0.0 : bitsToF64(readScalar64(w, In, In.Src[2], OpType::F64));
    for (unsigned b = 0; b < NB; ++b)
      for (unsigned i = 0; i < M; ++i)
        for (unsigned j = 0; j < M; ++j) {
          unsigned Reg, Lane;
          L.dpos(b, i, j, Reg, Lane);
          double Cv = CIsVec ? bitsToF64(rawElem(w, CBase + Reg, Lane, 0, 64)) : CConst;
          C[(b * M + i) * M + j] = NegC ? -Cv : Cv;
        }
    for (unsigned b = 0; b < NB; ++b)
      for (unsigned i = 0; i < M; ++i)
        for (unsigned j = 0; j < M; ++j) {
          double Acc = C[(b * M + i) * M + j];
          const double *Ar = &A[(b * M + i) * K], *Br = &B[(b * M + j) * K];
          for (unsigned k = 0; k < K; ++k)
            Acc = std::fma(Ar[k], Br[k], Acc);
          unsigned Reg, Lane;
          L.dpos(b, i, j, Reg, Lane);
          uint64_t Bits = f64ToBits(f64Result(Acc));
          w.vrow(DBase + Reg)[Lane] = uint32_t(Bits);
          w.vrow(DBase + Reg + 1)[Lane] = uint32_t(Bits >> 32);
        }
    return true;
  }

  // 32-bit accumulators (f32 or i32), stored as raw bits. A is kept as [block][k][i], B as
  // [block][k][j]: a column of either is contiguous, so its conversion vectorizes, and the sums
  // below run over j in the inner loop (vectorized), each D element still accumulating its k
  // terms in order: the same roundings as one element at a time.
  static thread_local float Af[kMaxIn], Bf[kMaxIn];
  static thread_local int32_t Ai[kMaxIn], Bi[kMaxIn];
  static thread_local uint32_t Cr[kMaxOut];
  static thread_local uint32_t RawA[64], RawB[64];
  // For one block and one k, A[i][k] and B[k][j = i] sit in consecutive lanes (L.pos: lane =
  // first + i), each at the same element of its lane: read a column of raw elements at a time,
  // then convert it with the operand type fixed.
  const unsigned AMask = ABits == 32 ? ~0u : (1u << ABits) - 1;
  const unsigned BMask = BBits == 32 ? ~0u : (1u << BBits) - 1;
  for (unsigned b = 0; b < NB; ++b) {
    unsigned Ab = NB > 1 ? (b / Grp) * Grp + Abid : b; // CBSZ/ABID broadcast of A blocks
    for (unsigned k = 0; k < K; ++k) {
      unsigned LaneA, ItemA, LaneB, ItemB;
      L.pos(Ab, 0, k, LaneA, ItemA);
      L.pos(b, 0, k, LaneB, ItemB);
      const uint32_t *RowA = w.vrow(ABase + ItemA * ABits / 32) + LaneA;
      const uint32_t *RowB = w.vrow(BBase + ItemB * BBits / 32);
      const unsigned ShA = ItemA * ABits % 32, ShB = ItemB * BBits % 32;
      float *ACol = &Af[(b * K + k) * M], *BCol = &Bf[(b * K + k) * M]; // A[i][k] at ACol[i]
      // f16 and bf16 columns convert straight from the registers (one loop that vectorizes).
      if (Blgp == 0 && s.A == s.B && (s.A == EType::F16 || s.A == EType::BF16)) {
        const uint32_t *Rb = RowB + LaneB;
#ifdef ASMEVO_MFMA_AVX2
        if (s.A == EType::F16 && M % 8 == 0) {
          f16ColumnAvx2(RowA, ShA, ACol, M);
          f16ColumnAvx2(Rb, ShB, BCol, M);
          continue;
        }
#endif
        if (s.A == EType::F16)
          for (unsigned i = 0; i < M; ++i) {
            ACol[i] = f16ToF32(uint16_t(RowA[i] >> ShA));
            BCol[i] = f16ToF32(uint16_t(Rb[i] >> ShB));
          }
        else
          for (unsigned i = 0; i < M; ++i) {
            ACol[i] = bf16ToF32(uint16_t(RowA[i] >> ShA));
            BCol[i] = bf16ToF32(uint16_t(Rb[i] >> ShB));
          }
        continue;
      }
      for (unsigned i = 0; i < M; ++i)
        RawA[i] = (RowA[i] >> ShA) & AMask;
      if (Blgp == 0) {
        for (unsigned i = 0; i < M; ++i)
          RawB[i] = (RowB[LaneB + i] >> ShB) & BMask;
      } else {
        for (unsigned i = 0; i < M; ++i)
          RawB[i] = (RowB[blgpLane(Blgp, LaneB + i)] >> ShB) & BMask;
      }
      int32_t *AiCol = &Ai[(b * K + k) * M], *BiCol = &Bi[(b * K + k) * M];
      if (IsInt) {
        for (unsigned i = 0; i < M; ++i) {
          AiCol[i] = int8_t(uint8_t(RawA[i]));
          BiCol[i] = int8_t(uint8_t(RawB[i]));
        }
      } else {
        convertColumn(s.A, RawA, M, ACol, Ocp);
        convertColumn(s.B, RawB, M, BCol, Ocp);
      }
    }
  }
  uint32_t CConst = CIsVec ? 0 : readScalar32(w, In, In.Src[2], IsInt ? OpType::B32 : OpType::F32);
  if (!IsInt) {
    // f32 inputs fuse (the ISA's rounding); f16, fp8 and bf8 products are exact in f32; bf16
    // products can leave f32's range, so they are rounded before the sum.
    const bool Fused = s.A == EType::F32;
    const bool Exact = !Fused && s.A != EType::BF16 && s.B != EType::BF16;
    auto Run = [&](auto Mc, auto FusedC, auto ExactC) {
      mfmaF32<decltype(Mc)::value, decltype(FusedC)::value, decltype(ExactC)::value>(
          w, L, CIsVec, CBase, CConst, DBase, Af, Bf, Cr, NB, K, M);
    };
    using T = std::true_type;
    using F = std::false_type;
    auto ForM = [&](auto Mc) {
      if (Fused)
        Run(Mc, T{}, F{});
      else if (Exact)
        Run(Mc, F{}, T{});
      else
        Run(Mc, F{}, F{});
    };
    if (M == 32)
      ForM(std::integral_constant<unsigned, 32>{});
    else if (M == 16)
      ForM(std::integral_constant<unsigned, 16>{});
    else
      ForM(std::integral_constant<unsigned, 0>{});
    return true;
  }
  // i8: wrapping 32-bit integer sums (exact in any order), C read whole before D is written.
  gatherC<0>(w, L, CIsVec, CBase, CConst, Cr, NB, M);
  for (unsigned b = 0; b < NB; ++b)
    for (unsigned i = 0; i < M; ++i) {
      uint32_t *Acc = &Cr[(b * M + i) * M]; // row i of block b: C in, D out
      for (unsigned k = 0; k < K; ++k) {
        const int32_t a = Ai[(b * K + k) * M + i], *Br = &Bi[(b * K + k) * M];
        for (unsigned j = 0; j < M; ++j)
          Acc[j] += uint32_t(a * Br[j]);
      }
    }
  for (unsigned b = 0; b < NB; ++b)
    for (unsigned i = 0; i < M; ++i) {
      unsigned Reg, Lane;
      L.dpos(b, i, 0, Reg, Lane);
      std::memcpy(w.vrow(DBase + Reg) + Lane, &Cr[(b * M + i) * M], M * sizeof(uint32_t));
    }
  return true;
}

} // namespace asmevo::emu
