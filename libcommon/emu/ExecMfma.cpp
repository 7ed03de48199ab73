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

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#include <immintrin.h>
#define ASMEVO_MFMA_AVX2 1
#endif

namespace asmevo::emu {
namespace {

enum class EType : uint8_t { F32, F16, BF16, I8, Fp8, Bf8, F64 };

struct Shape {
  uint8_t M = 0, K = 0, Blocks = 1;
  EType A = EType::F32, B = EType::F32;
  bool Gfx950Shape = false; // not documented for modifiers: require CBSZ/ABID/BLGP == 0
  bool BlgpOnGfx94 = false; // CDNA3 documents BLGP lane patterns for this single-block shape
};

bool shapeOf(Op op, Shape &s) {
  auto set = [&](unsigned m, unsigned k, unsigned blocks, EType t, bool g950 = false) {
    s.M = uint8_t(m);
    s.K = uint8_t(k);
    s.Blocks = uint8_t(blocks);
    s.A = s.B = t;
    s.Gfx950Shape = g950;
    return true;
  };
  switch (op) {
  // f32
  case Op::V_MFMA_F32_32X32X1_2B_F32:
    return set(32, 1, 2, EType::F32);
  case Op::V_MFMA_F32_16X16X1_4B_F32:
    return set(16, 1, 4, EType::F32);
  case Op::V_MFMA_F32_4X4X1_16B_F32:
    return set(4, 1, 16, EType::F32);
  case Op::V_MFMA_F32_32X32X2_F32:
    set(32, 2, 1, EType::F32);
    s.BlgpOnGfx94 = true;
    return true;
  case Op::V_MFMA_F32_16X16X4_F32:
    set(16, 4, 1, EType::F32);
    s.BlgpOnGfx94 = true;
    return true;
  case Op::V_MFMA_F32_32X32X4_XF32:
    return set(32, 4, 1, EType::F32);
  case Op::V_MFMA_F32_16X16X8_XF32:
    return set(16, 8, 1, EType::F32);
  // f16
  case Op::V_MFMA_F32_32X32X4_2B_F16:
    return set(32, 4, 2, EType::F16);
  case Op::V_MFMA_F32_16X16X4_4B_F16:
    return set(16, 4, 4, EType::F16);
  case Op::V_MFMA_F32_4X4X4_16B_F16:
    return set(4, 4, 16, EType::F16);
  case Op::V_MFMA_F32_32X32X8_F16:
    return set(32, 8, 1, EType::F16);
  case Op::V_MFMA_F32_16X16X16_F16:
    return set(16, 16, 1, EType::F16);
  case Op::V_MFMA_F32_32X32X16_F16:
    return set(32, 16, 1, EType::F16, true);
  case Op::V_MFMA_F32_16X16X32_F16:
    return set(16, 32, 1, EType::F16, true);
  // bf16 (gfx90a *_1k and gfx940+ names)
  case Op::V_MFMA_F32_32X32X4_2B_BF16:
    return set(32, 4, 2, EType::BF16);
  case Op::V_MFMA_F32_16X16X4_4B_BF16:
    return set(16, 4, 4, EType::BF16);
  case Op::V_MFMA_F32_4X4X4_16B_BF16:
    return set(4, 4, 16, EType::BF16);
  case Op::V_MFMA_F32_32X32X8_BF16:
    return set(32, 8, 1, EType::BF16);
  case Op::V_MFMA_F32_16X16X16_BF16:
    return set(16, 16, 1, EType::BF16);
  case Op::V_MFMA_F32_32X32X16_BF16:
    return set(32, 16, 1, EType::BF16, true);
  case Op::V_MFMA_F32_16X16X32_BF16:
    return set(16, 32, 1, EType::BF16, true);
  // gfx90a's original bf16 shapes (two bf16 per lane)
  case Op::V_MFMA_F32_32X32X2BF16:
    return set(32, 2, 2, EType::BF16);
  case Op::V_MFMA_F32_16X16X2BF16:
    return set(16, 2, 4, EType::BF16);
  case Op::V_MFMA_F32_4X4X2BF16:
    return set(4, 2, 16, EType::BF16);
  case Op::V_MFMA_F32_32X32X4BF16:
    return set(32, 4, 1, EType::BF16);
  case Op::V_MFMA_F32_16X16X8BF16:
    return set(16, 8, 1, EType::BF16);
  // i8
  case Op::V_MFMA_I32_32X32X4_2B_I8:
    return set(32, 4, 2, EType::I8);
  case Op::V_MFMA_I32_16X16X4_4B_I8:
    return set(16, 4, 4, EType::I8);
  case Op::V_MFMA_I32_4X4X4_16B_I8:
    return set(4, 4, 16, EType::I8);
  case Op::V_MFMA_I32_32X32X8I8:
    return set(32, 8, 1, EType::I8);
  case Op::V_MFMA_I32_16X16X16I8:
    return set(16, 16, 1, EType::I8);
  case Op::V_MFMA_I32_32X32X16_I8:
    return set(32, 16, 1, EType::I8);
  case Op::V_MFMA_I32_16X16X32_I8:
    return set(16, 32, 1, EType::I8);
  case Op::V_MFMA_I32_32X32X32_I8:
    return set(32, 32, 1, EType::I8, true);
  case Op::V_MFMA_I32_16X16X64_I8:
    return set(16, 64, 1, EType::I8, true);
  // f64
  case Op::V_MFMA_F64_16X16X4_F64:
    return set(16, 4, 1, EType::F64);
  case Op::V_MFMA_F64_4X4X4_4B_F64:
    return set(4, 4, 4, EType::F64);
  default:
    break;
  }
  // fp8 / bf8 (gfx940+): A type first, B type second in the mnemonic.
  auto f8 = [&](unsigned m, unsigned k, EType a, EType b) {
    set(m, k, 1, a);
    s.B = b;
    return true;
  };
  switch (op) {
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
inline unsigned blgpLane(unsigned blgp, unsigned L) {
  switch (blgp) {
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

[[noreturn]] void badOperand(const Inst &in, const char *what) {
  throw EmuError(EmuErrorKind::IllegalInst,
                 std::string(opName(in.Operation)) + ": " + what + " operand out of range");
}

// First unified register index of a vector operand spanning `regs` registers.
unsigned vectorBase(const Inst &in, uint16_t code, unsigned regs, const char *what) {
  if (code < kVgprBase || code >= kAgprBase + 256)
    badOperand(in, what);
  unsigned base = vectorIndex(code);
  if (base + regs > kNumVectorRegs)
    badOperand(in, what);
  return base;
}

struct Layout {
  const Shape &S;
  unsigned Kpl; // elements per lane (single-block shapes)
  bool F64x4;   // v_mfma_f64_4x4x4_4b_f64
  // Lane and element index of A[i][k] (or B[k][j] with i := j) of block b.
  void pos(unsigned b, unsigned i, unsigned k, unsigned &lane, unsigned &item) const {
    if (F64x4) {
      lane = 4 * b + 16 * k + i;
      item = 0;
    } else if (S.Blocks > 1) {
      lane = S.M * b + i;
      item = k;
    } else {
      lane = S.M * (k / Kpl) + i;
      item = k % Kpl;
    }
  }
  // Register (offset) and lane of C/D[i][j] of block b; f64: offset of the register pair.
  void dpos(unsigned b, unsigned i, unsigned j, unsigned &reg, unsigned &lane) const {
    if (S.A == EType::F64) {
      if (S.M == 16) {
        reg = 2 * (i / 4);
        lane = 16 * (i % 4) + j;
      } else {
        reg = 0;
        lane = 16 * (i % 4) + 4 * b + j;
      }
      return;
    }
    switch (S.M) {
    case 32:
      reg = 16 * b + 4 * (i / 8) + i % 4;
      lane = 32 * ((i / 4) % 2) + j;
      break;
    case 16:
      reg = 4 * b + i % 4;
      lane = 16 * (i / 4) + j;
      break;
    default:
      reg = i;
      lane = 4 * b + j;
      break;
    }
  }
  unsigned dRegs() const {
    if (S.A == EType::F64)
      return S.M == 16 ? 8 : 2;
    return S.M == 32 ? 16u * S.Blocks : S.M == 16 ? 4u * S.Blocks : 4u;
  }
};

inline uint64_t rawElem(const WaveState &w, unsigned base, unsigned lane, unsigned item,
                        unsigned bits) {
  if (bits == 64)
    return w.vrow(base)[lane] | (uint64_t(w.vrow(base + 1)[lane]) << 32);
  unsigned bit = item * bits;
  uint32_t v = w.vrow(base + bit / 32)[lane];
  if (bits == 32)
    return v;
  return (v >> (bit % 32)) & ((1u << bits) - 1);
}

float toF32(EType t, uint32_t raw, bool ocp) {
  switch (t) {
  case EType::F32:
    return bitsToF32(raw);
  case EType::F16:
    return f16ToF32(uint16_t(raw));
  case EType::BF16:
    return bf16ToF32(uint16_t(raw));
  case EType::Fp8:
    return smallToF32(raw & 0xffu, fp8Format(ocp));
  case EType::Bf8:
    return smallToF32(raw & 0xffu, bf8Format(ocp));
  default:
    return 0.0f;
  }
}

// out[i] = the value of raw element i as type t, for i < n: the type is decided once, and the
// loops vectorize.
void convertColumn(EType t, const uint32_t *raw, unsigned n, float *out, bool ocp) {
  switch (t) {
  case EType::F32:
    for (unsigned i = 0; i < n; ++i)
      out[i] = bitsToF32(raw[i]);
    return;
  case EType::F16:
    for (unsigned i = 0; i < n; ++i)
      out[i] = f16ToF32(uint16_t(raw[i]));
    return;
  case EType::BF16:
    for (unsigned i = 0; i < n; ++i)
      out[i] = bf16ToF32(uint16_t(raw[i]));
    return;
  default:
    for (unsigned i = 0; i < n; ++i)
      out[i] = toF32(t, raw[i], ocp);
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
[[gnu::always_inline]] inline void gatherC(const WaveState &w, const Layout &L, bool cIsVec,
                                           unsigned cBase, uint32_t cConst, uint32_t *Cr,
                                           unsigned NB, unsigned Mrun) {
  const unsigned M = Mc ? Mc : Mrun;
  for (unsigned b = 0; b < NB; ++b)
    for (unsigned i = 0; i < M; ++i) {
      unsigned reg, lane;
      L.dpos(b, i, 0, reg, lane);
      uint32_t *cr = &Cr[(b * M + i) * M];
      if (cIsVec)
        std::memcpy(cr, w.vrow(cBase + reg) + lane, M * sizeof(uint32_t));
      else
        for (unsigned j = 0; j < M; ++j)
          cr[j] = cConst;
    }
}

#ifdef ASMEVO_MFMA_AVX2
// out[i] = the f16 in bits [sh+15:sh] of row[i], for i < n (a multiple of 8): F16C's
// conversion, exact like f16ToF32 (a signalling NaN comes out quiet, as every x86 arithmetic
// operation on it makes it anyway).
inline void f16ColumnAvx2(const uint32_t *row, unsigned sh, float *out, unsigned n) {
  const __m128i cnt = _mm_cvtsi32_si128(int(sh));
  const __m256i low16 = _mm256_set1_epi32(0xffff);
  for (unsigned i = 0; i < n; i += 8) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(row + i));
    v = _mm256_and_si256(_mm256_srl_epi32(v, cnt), low16);
    // 16-bit halves: v0..v3 in qword 0, v4..v7 in qword 2; gather them into the low 128 bits.
    const __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi32(v, v), 0x08);
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm256_castsi256_si128(p)));
  }
}

// R rows of one block (i0 .. i0+R-1) of the f32 MFMA with M = Mc (16 or 32) on AVX2: the rows'
// accumulators stay in vector registers across k, each B row is loaded once for the R rows.
// Fma: one fused multiply-add per term, which is the ISA's rounding for f32 inputs and the same
// result as a product then a sum wherever the product is exact in f32 (f16, fp8 and bf8
// inputs); otherwise (bf16, whose products can leave f32's range) the product, then the sum.
template <unsigned Mc, unsigned R, bool Fma>
[[gnu::always_inline]] inline void mfmaRowsAvx2(const float *Af, const float *Bf, unsigned K,
                                                unsigned i0, __m256 (&acc)[R][Mc / 8]) {
  for (unsigned k = 0; k < K; ++k) {
    const float *br = Bf + k * Mc, *ak = Af + k * Mc + i0;
    __m256 bv[Mc / 8];
    for (unsigned v = 0; v < Mc / 8; ++v)
      bv[v] = _mm256_loadu_ps(br + 8 * v);
    for (unsigned r = 0; r < R; ++r) {
      const __m256 a = _mm256_broadcast_ss(ak + r);
      for (unsigned v = 0; v < Mc / 8; ++v)
        acc[r][v] = Fma ? _mm256_fmadd_ps(a, bv[v], acc[r][v])
                        : _mm256_add_ps(acc[r][v], _mm256_mul_ps(a, bv[v]));
    }
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
void mfmaF32(WaveState &w, const Layout &L, bool cIsVec, unsigned cBase, uint32_t cConst,
             unsigned dBase, const float *Af, const float *Bf, uint32_t *Cr, unsigned NB,
             unsigned K, unsigned Mrun) {
  const unsigned M = Mc ? Mc : Mrun;
  const bool direct =
      !cIsVec || cBase == dBase || cBase + L.dRegs() <= dBase || dBase + L.dRegs() <= cBase;
#ifdef ASMEVO_MFMA_AVX2
  if constexpr (Mc == 16 || Mc == 32) {
    constexpr unsigned R = Mc == 32 ? 2 : 4, V = Mc / 8;
    if (direct) {
      for (unsigned b = 0; b < NB; ++b)
        for (unsigned i0 = 0; i0 < Mc; i0 += R) {
          __m256 acc[R][V];
          uint32_t *rows[R];
          for (unsigned r = 0; r < R; ++r) {
            unsigned reg, lane;
            L.dpos(b, i0 + r, 0, reg, lane);
            rows[r] = w.vrow(dBase + reg) + lane;
            const uint32_t *cr = cIsVec ? w.vrow(cBase + reg) + lane : nullptr;
            for (unsigned v = 0; v < V; ++v)
              acc[r][v] = cr ? _mm256_loadu_ps(reinterpret_cast<const float *>(cr + 8 * v))
                             : _mm256_set1_ps(bitsToF32(cConst));
          }
          mfmaRowsAvx2<Mc, R, Fused || Exact>(Af + b * K * Mc, Bf + b * K * Mc, K, i0, acc);
          for (unsigned r = 0; r < R; ++r)
            for (unsigned v = 0; v < V; ++v)
              _mm256_storeu_ps(reinterpret_cast<float *>(rows[r] + 8 * v), acc[r][v]);
        }
      return;
    }
  }
#endif
  gatherC<Mc>(w, L, cIsVec, cBase, cConst, Cr, NB, M);
  for (unsigned b = 0; b < NB; ++b)
    for (unsigned i = 0; i < M; ++i) {
      const uint32_t *cr = &Cr[(b * M + i) * M];
      float accf[Mc ? Mc : 32];
      for (unsigned j = 0; j < M; ++j)
        accf[j] = bitsToF32(cr[j]);
      for (unsigned k = 0; k < K; ++k) {
        const float a = Af[(b * K + k) * M + i], *br = &Bf[(b * K + k) * M];
        for (unsigned j = 0; j < M; ++j)
          accf[j] = Fused ? std::fma(a, br[j], accf[j]) : accf[j] + a * br[j];
      }
      unsigned reg, lane;
      L.dpos(b, i, 0, reg, lane);
      uint32_t *d = w.vrow(dBase + reg) + lane;
      for (unsigned j = 0; j < M; ++j)
        d[j] = f32ToBits(f32Result(accf[j]));
    }
}

bool execMfma(ExecCtx &c, const Inst &in) {
  Shape s;
  if (!shapeOf(in.Operation, s))
    return false;
  WaveState &w = c.W;
  const bool isF64 = s.A == EType::F64;
  const bool isInt = s.A == EType::I8;
  const bool gfx94 = isGfx94Plus(c.Target);
  const unsigned M = s.M, K = s.K, NB = s.Blocks;

  // Which modifiers this instruction is documented to take; anything else is not guessed at.
  unsigned blgp = in.Blgp & 7, cbsz = in.Cbsz & 7, abid = in.Abid & 15;
  bool negA = false, negB = false, negC = false;
  if (isF64) {
    if (cbsz || abid)
      return false;
    if (blgp) {
      if (!gfx94)
        return false;
      negA = blgp & 1;
      negB = blgp & 2;
      negC = blgp & 4;
      blgp = 0;
    }
  } else if (NB > 1) {
    unsigned log2b = NB == 2 ? 1 : NB == 4 ? 2 : 4;
    if (cbsz > log2b || abid >= (1u << cbsz))
      return false;
  } else {
    if (cbsz || abid)
      return false;
    if (blgp && (s.Gfx950Shape || (gfx94 && !s.BlgpOnGfx94)))
      return false;
  }

  Layout L{s, 0, isF64 && M == 4};
  L.Kpl = NB > 1 ? K : (K * M) / 64;
  const unsigned aBits = bitsOf(s.A), bBits = bitsOf(s.B);
  const unsigned inRegs = isF64 ? 2 : ((NB > 1 ? K : L.Kpl) * aBits + 31) / 32;
  const unsigned aBase = vectorBase(in, in.Src[0], inRegs, "A");
  const unsigned bBase = vectorBase(in, in.Src[1], inRegs, "B");
  const unsigned dRegs = L.dRegs();
  const unsigned dBase = vectorBase(in, in.Dst, dRegs, "D");
  const bool cIsVec = in.Src[2] >= kVgprBase;
  const unsigned cBase = cIsVec ? vectorBase(in, in.Src[2], dRegs, "C") : 0;
  const bool ocp = c.Target == Gfx::Gfx950;
  const unsigned grp = 1u << cbsz;

  // Gather inputs: A as [block][i][k], B transposed as [block][j][k], C as [block][i][j].
  // Everything is read before D is written (D may overlap A, B or C).
  if (isF64) {
    double A[64], B[64], C[256];
    for (unsigned b = 0; b < NB; ++b)
      for (unsigned i = 0; i < M; ++i)
        for (unsigned k = 0; k < K; ++k) {
          unsigned lane, item;
          L.pos(b, i, k, lane, item);
          double av = bitsToF64(rawElem(w, aBase, lane, 0, 64));
          double bv = bitsToF64(rawElem(w, bBase, lane, 0, 64));
          A[(b * M + i) * K + k] = negA ? -av : av;
          B[(b * M + i) * K + k] = negB ? -bv : bv; // B[k][j=i]
        }
    double cConst = cIsVec ? 0.0 : bitsToF64(readScalar64(w, in, in.Src[2], OpType::F64));
    for (unsigned b = 0; b < NB; ++b)
      for (unsigned i = 0; i < M; ++i)
        for (unsigned j = 0; j < M; ++j) {
          unsigned reg, lane;
          L.dpos(b, i, j, reg, lane);
          double cv = cIsVec ? bitsToF64(rawElem(w, cBase + reg, lane, 0, 64)) : cConst;
          C[(b * M + i) * M + j] = negC ? -cv : cv;
        }
    for (unsigned b = 0; b < NB; ++b)
      for (unsigned i = 0; i < M; ++i)
        for (unsigned j = 0; j < M; ++j) {
          double acc = C[(b * M + i) * M + j];
          const double *ar = &A[(b * M + i) * K], *br = &B[(b * M + j) * K];
          for (unsigned k = 0; k < K; ++k)
            acc = std::fma(ar[k], br[k], acc);
          unsigned reg, lane;
          L.dpos(b, i, j, reg, lane);
          uint64_t bits = f64ToBits(f64Result(acc));
          w.vrow(dBase + reg)[lane] = uint32_t(bits);
          w.vrow(dBase + reg + 1)[lane] = uint32_t(bits >> 32);
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
  static thread_local uint32_t rawA[64], rawB[64];
  // For one block and one k, A[i][k] and B[k][j = i] sit in consecutive lanes (L.pos: lane =
  // first + i), each at the same element of its lane: read a column of raw elements at a time,
  // then convert it with the operand type fixed.
  const unsigned aMask = aBits == 32 ? ~0u : (1u << aBits) - 1;
  const unsigned bMask = bBits == 32 ? ~0u : (1u << bBits) - 1;
  for (unsigned b = 0; b < NB; ++b) {
    unsigned ab = NB > 1 ? (b / grp) * grp + abid : b; // CBSZ/ABID broadcast of A blocks
    for (unsigned k = 0; k < K; ++k) {
      unsigned laneA, itemA, laneB, itemB;
      L.pos(ab, 0, k, laneA, itemA);
      L.pos(b, 0, k, laneB, itemB);
      const uint32_t *rowA = w.vrow(aBase + itemA * aBits / 32) + laneA;
      const uint32_t *rowB = w.vrow(bBase + itemB * bBits / 32);
      const unsigned shA = itemA * aBits % 32, shB = itemB * bBits % 32;
      float *af = &Af[(b * K + k) * M], *bf = &Bf[(b * K + k) * M]; // A[i][k] at af[i]
      // f16 and bf16 columns convert straight from the registers (one loop that vectorizes).
      if (blgp == 0 && s.A == s.B && (s.A == EType::F16 || s.A == EType::BF16)) {
        const uint32_t *rb = rowB + laneB;
#ifdef ASMEVO_MFMA_AVX2
        if (s.A == EType::F16 && M % 8 == 0) {
          f16ColumnAvx2(rowA, shA, af, M);
          f16ColumnAvx2(rb, shB, bf, M);
          continue;
        }
#endif
        if (s.A == EType::F16)
          for (unsigned i = 0; i < M; ++i) {
            af[i] = f16ToF32(uint16_t(rowA[i] >> shA));
            bf[i] = f16ToF32(uint16_t(rb[i] >> shB));
          }
        else
          for (unsigned i = 0; i < M; ++i) {
            af[i] = bf16ToF32(uint16_t(rowA[i] >> shA));
            bf[i] = bf16ToF32(uint16_t(rb[i] >> shB));
          }
        continue;
      }
      for (unsigned i = 0; i < M; ++i)
        rawA[i] = (rowA[i] >> shA) & aMask;
      if (blgp == 0) {
        for (unsigned i = 0; i < M; ++i)
          rawB[i] = (rowB[laneB + i] >> shB) & bMask;
      } else {
        for (unsigned i = 0; i < M; ++i)
          rawB[i] = (rowB[blgpLane(blgp, laneB + i)] >> shB) & bMask;
      }
      int32_t *ai = &Ai[(b * K + k) * M], *bi = &Bi[(b * K + k) * M];
      if (isInt) {
        for (unsigned i = 0; i < M; ++i) {
          ai[i] = int8_t(uint8_t(rawA[i]));
          bi[i] = int8_t(uint8_t(rawB[i]));
        }
      } else {
        convertColumn(s.A, rawA, M, af, ocp);
        convertColumn(s.B, rawB, M, bf, ocp);
      }
    }
  }
  uint32_t cConst = cIsVec ? 0 : readScalar32(w, in, in.Src[2], isInt ? OpType::B32 : OpType::F32);
  if (!isInt) {
    // f32 inputs fuse (the ISA's rounding); f16, fp8 and bf8 products are exact in f32; bf16
    // products can leave f32's range, so they are rounded before the sum.
    const bool fused = s.A == EType::F32;
    const bool exact = !fused && s.A != EType::BF16 && s.B != EType::BF16;
    auto run = [&](auto mc, auto fusedC, auto exactC) {
      mfmaF32<decltype(mc)::value, decltype(fusedC)::value, decltype(exactC)::value>(
          w, L, cIsVec, cBase, cConst, dBase, Af, Bf, Cr, NB, K, M);
    };
    using T = std::true_type;
    using F = std::false_type;
    auto forM = [&](auto mc) {
      if (fused)
        run(mc, T{}, F{});
      else if (exact)
        run(mc, F{}, T{});
      else
        run(mc, F{}, F{});
    };
    if (M == 32)
      forM(std::integral_constant<unsigned, 32>{});
    else if (M == 16)
      forM(std::integral_constant<unsigned, 16>{});
    else
      forM(std::integral_constant<unsigned, 0>{});
    return true;
  }
  // i8: wrapping 32-bit integer sums (exact in any order), C read whole before D is written.
  gatherC<0>(w, L, cIsVec, cBase, cConst, Cr, NB, M);
  for (unsigned b = 0; b < NB; ++b)
    for (unsigned i = 0; i < M; ++i) {
      uint32_t *acc = &Cr[(b * M + i) * M]; // row i of block b: C in, D out
      for (unsigned k = 0; k < K; ++k) {
        const int32_t a = Ai[(b * K + k) * M + i], *br = &Bi[(b * K + k) * M];
        for (unsigned j = 0; j < M; ++j)
          acc[j] += uint32_t(a * br[j]);
      }
    }
  for (unsigned b = 0; b < NB; ++b)
    for (unsigned i = 0; i < M; ++i) {
      unsigned reg, lane;
      L.dpos(b, i, 0, reg, lane);
      std::memcpy(w.vrow(dBase + reg) + lane, &Cr[(b * M + i) * M], M * sizeof(uint32_t));
    }
  return true;
}

} // namespace asmevo::emu
