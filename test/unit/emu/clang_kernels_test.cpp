// The compiled clang corpus (test/corpus/clang/src, built by corpus.build-clang into
// ${ASMEVO_CORPUS_DIR}/clang) on the emulator: every kernel of every source, on gfx90a, gfx942
// and gfx950 (lds_reduce and ocl_kernels also in their target-id variants), over several
// shapes and the seeds of testSeeds(), against CPU references computed here from the kernel
// sources' semantics (not from the emulator's helpers: f16 / fp8 values are decoded and rounded
// by the functions below).
//
// Shapes: kernels without a bounds check run with partial last workgroups (runItems); kernels
// with an `if (i < n)` guard run both with whole workgroups past n and with partial
// workgroups; kernels whose code needs whole workgroups (a reduction over the whole block,
// blockDim-relative LDS indexing) run with whole workgroups and several sizes. Output buffers
// are poisoned (0xff bytes) first and every element the kernel must not write is checked to
// keep the poison. Every launch runs under two wave-interleaving seeds, and what is
// deterministic (everything but float atomics and exchange/CAS winners, and reads racing with
// writes of other waves in apply_table / private_histogram) must come out identical.
#include "EmuHarness.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <set>

using namespace asmevo;
using namespace asmevo::emu;
using namespace asmevo::emu::test;
namespace fs = std::filesystem;

namespace {

const std::string kCorpus = std::string(ASMEVO_CORPUS_DIR) + "/clang";

uint32_t roundUp(uint32_t A, uint32_t B) { return cdiv(A, B) * B; }
constexpr uint32_t kPoison = 0xffffffffu;

// ---- independent number formats -------------------------------------------------------------

float asF32(uint32_t B) {
  float F;
  std::memcpy(&F, &B, 4);
  return F;
}
uint32_t bitsF32(float F) {
  uint32_t B;
  std::memcpy(&B, &F, 4);
  return B;
}
double asF64(uint64_t B) {
  double D;
  std::memcpy(&D, &B, 8);
  return D;
}

// IEEE binary16 value of H.
double halfValue(uint16_t H) {
  int S = H >> 15, E = (H >> 10) & 31, M = H & 1023;
  double V = E == 0    ? std::ldexp(double(M), -24)
             : E == 31 ? (M ? NAN : INFINITY)
                       : std::ldexp(double(1024 + M), E - 25);
  return S ? -V : V;
}
// X rounded to binary16, nearest even, overflow to infinity (X finite).
long double roundHalf(long double X) {
  if (X == 0)
    return X;
  long double A = std::fabs(X);
  int E = std::max(std::ilogb(A), -14);
  long double Ulp = std::ldexp(1.0L, E - 10);
  long double Q = std::nearbyint(A / Ulp) * Ulp; // default rounding mode: ties to even
  if (Q > 65504)
    Q = INFINITY;
  return X < 0 ? -Q : Q;
}
// Encoding of a value representable in binary16.
uint16_t halfBits(double V) {
  uint16_t S = std::signbit(V) ? 0x8000 : 0;
  double A = std::fabs(V);
  if (std::isinf(A))
    return S | 0x7c00;
  if (A < 0x1p-14)
    return S | uint16_t(A * 0x1p24);
  int E = std::ilogb(A);
  return S | uint16_t((E + 15) << 10) | uint16_t(std::ldexp(A, 10 - E) - 1024);
}
uint16_t randomHalf(std::mt19937_64 &R, float Lo, float Hi) {
  std::uniform_real_distribution<float> D(Lo, Hi);
  return halfBits(double(roundHalf(D(R))));
}
// bfloat16: the top half of a binary32.
double bf16Value(uint16_t H) { return asF32(uint32_t(H) << 16); }
uint16_t randomBf16(std::mt19937_64 &R, float Lo, float Hi) {
  std::uniform_real_distribution<float> D(Lo, Hi);
  return uint16_t(bitsF32(D(R)) >> 16); // truncation: any bf16 is a valid input
}
// 8-bit floats: E exponent bits, M mantissa bits, bias. FNUZ (gfx942): E4M3 bias 8, E5M2 bias
// 16, 0x80 NaN. OCP (gfx950): E4M3FN bias 7 (S.1111.111 NaN), E5M2 bias 15 (IEEE inf/NaN).
double f8Value(uint8_t V, int E, int M, int Bias) {
  int S = V >> 7, Ex = (V >> M) & ((1 << E) - 1), Mn = V & ((1 << M) - 1);
  double Mag = Ex == 0 ? std::ldexp(double(Mn), 1 - Bias - M)
                       : std::ldexp(double((1 << M) + Mn), Ex - Bias - M);
  return S ? -Mag : Mag;
}

// The product fused or not: the compiler may contract a*b+c into an fma (HIP's default
// -ffp-contract=fast-honor-pragmas), so a result is right when it is one of the two.
float mulRounded(float A, float B) {
  volatile float P = A * B;
  return P;
}
bool fusedOrNot(float Got, float A, float B, float C) {
  volatile float Unfused = mulRounded(A, B) + C;
  return bitsF32(Got) == bitsF32(std::fma(A, B, C)) || bitsF32(Got) == bitsF32(Unfused);
}

// ---- launching --------------------------------------------------------------------------------

std::string objectPath(const std::string &Dir, const std::string &File) {
  return kCorpus + "/" + Dir + "/" + File + ".hsaco";
}
// The symbol of kernel Plain: itself (OpenCL) or its Itanium mangling _Z<len><name>...
std::string kernelSymbol(const std::string &Path, const std::string &Plain) {
  auto O = openCodeObject(Path);
  if (!O) {
    llvm::consumeError(O.takeError());
    return Plain;
  }
  std::string Pre = "_Z" + std::to_string(Plain.size()) + Plain;
  for (const KernelInfo &K : (*O)->C.Kernels)
    if (K.Name == Plain || K.Name.rfind(Pre, 0) == 0)
      return K.Name;
  return Plain;
}
std::unique_ptr<Harness> openKernel(const std::string &Dir, const std::string &File,
                                    const std::string &Plain) {
  std::string Path = objectPath(Dir, File);
  return std::make_unique<Harness>(Path, kernelSymbol(Path, Plain));
}
bool hasKernel(const std::string &Dir, const std::string &File, const std::string &Plain) {
  std::string Path = objectPath(Dir, File);
  auto O = openCodeObject(Path);
  if (!O) {
    llvm::consumeError(O.takeError());
    return false;
  }
  return (*O)->C.kernel(kernelSymbol(Path, Plain)) != nullptr;
}

#define OPEN(H, Dir, File, Name)                                                                   \
  auto H##Ptr = openKernel(Dir, File, Name);                                                       \
  ASSERT_TRUE(H##Ptr->ok()) << H##Ptr->Error;                                                      \
  Harness &H = *H##Ptr

#define RUN_ITEMS(H, ...)                                                                          \
  do {                                                                                             \
    auto St_ = (H).runItems(__VA_ARGS__);                                                          \
    ASSERT_TRUE(bool(St_)) << llvm::toString(St_.takeError());                                     \
  } while (0)
#define RUN_GROUPS(H, ...)                                                                         \
  do {                                                                                             \
    auto St_ = (H).run(__VA_ARGS__);                                                               \
    ASSERT_TRUE(bool(St_)) << llvm::toString(St_.takeError());                                     \
  } while (0)

// A buffer of V's bytes followed by GuardBytes of poison.
template <typename T> uint64_t guarded(Harness &H, const std::vector<T> &V, size_t GuardBytes) {
  size_t N = V.size() * sizeof(T);
  uint64_t A = H.buffer(nullptr, N + GuardBytes);
  llvm::cantFail(H.Mem.write(A, V.data(), N));
  return A;
}

// The results a launch must reproduce under another wave interleaving.
using Snap = std::vector<uint8_t>;
template <typename T> void snap(Snap &S, const std::vector<T> &V) {
  const uint8_t *P = reinterpret_cast<const uint8_t *>(V.data());
  S.insert(S.end(), P, P + V.size() * sizeof(T));
}
template <typename T> void snap(Snap &S, T V) { snap(S, std::vector<T>{V}); }

constexpr uint64_t kWaveSeeds[2] = {1, 0x5eed5eedull};
// Once(waveSeed, snapshot) sets up, runs, checks against the reference and records what must
// not depend on the interleaving; it runs under both wave seeds.
template <typename F> void bothInterleavings(F &&Once) {
  Snap S[2];
  for (int I = 0; I < 2; ++I) {
    SCOPED_TRACE("wave seed " + std::to_string(kWaveSeeds[I]));
    Once(kWaveSeeds[I], S[I]);
    if (::testing::Test::HasFatalFailure())
      return;
  }
  EXPECT_TRUE(S[0] == S[1]) << "results differ between the two wave interleavings";
}
#define BOTH_INTERLEAVINGS(...)                                                                    \
  do {                                                                                             \
    bothInterleavings(__VA_ARGS__);                                                                \
    if (::testing::Test::HasFatalFailure())                                                        \
      return;                                                                                      \
  } while (0)

std::string trace(uint64_t Seed, const std::string &Shape) {
  return "seed " + std::to_string(Seed) + " " + Shape;
}
// n: the kernel's bound; Items: grid in work-items (a multiple of Block = whole workgroups).
struct Guarded {
  uint32_t N, Items, Block;
  std::string str() const {
    return "n " + std::to_string(N) + " items " + std::to_string(Items) + " block " +
           std::to_string(Block);
  }
};
// Guarded shapes: whole workgroups past n (guarded tail) and partial last workgroups.
const std::vector<Guarded> kGuardedShapes = {
    {1, 64, 64}, {1000, 1024, 256}, {1000, 1000, 256}, {777, 800, 128}, {300, 300, 64}};
// Unguarded kernels: the grid is exactly the data; partial last workgroups included.
const std::vector<std::pair<uint32_t, uint32_t>> kItemShapes = {
    {64, 64}, {1000, 256}, {1024, 256}, {333, 128}};

class ClangKernels : public ::testing::TestWithParam<const char *> {
protected:
  void SetUp() override {
    ASSERT_TRUE(fs::is_directory(kCorpus))
        << "the compiled corpus " << kCorpus
        << " is missing: run the corpus.build-clang test first (ctest -R corpus.build-clang, or "
           "bash test/corpus/clang/build.sh "
        << kCorpus << ")";
  }
  std::string dir() const { return GetParam(); }
  std::string arch() const { return dir().substr(0, 6); }
};
// lds_reduce and ocl_kernels are also built for target-id variants (other e_flags).
class ClangVariants : public ClangKernels {};

// ---- atomics.hip ------------------------------------------------------------------------------

TEST_P(ClangKernels, AtomicsGlobalInt) {
  for (uint64_t Seed : testSeeds())
    for (auto [N, B] : kItemShapes) {
      SCOPED_TRACE(trace(Seed, "items " + std::to_string(N) + " block " + std::to_string(B)));
      std::mt19937_64 R(Seed * 1000 + N);
      std::uniform_int_distribution<int32_t> D(-(1 << 20), 1 << 20);
      std::vector<int32_t> In(N);
      for (auto &V : In)
        V = D(R);
      int32_t Sum0 = D(R);
      uint64_t Sum64_0 = R();
      uint32_t Bits0 = 1u << 7;
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, dir(), "atomics", "global_int_atomics");
        uint64_t PI = H.buffer(In), PS = guarded(H, std::vector<int32_t>{Sum0}, 4),
                 PM = guarded(H, std::vector<int32_t>{INT32_MIN, INT32_MAX}, 4),
                 PB = guarded(H, std::vector<uint32_t>{Bits0}, 4),
                 PL = guarded(H, std::vector<int32_t>{INT32_MIN}, 4),
                 P64 = guarded(H, std::vector<uint64_t>{Sum64_0}, 8);
        H.arg(0, PI);
        H.arg(1, PS);
        H.arg(2, PM);
        H.arg(3, PB);
        H.arg(4, PL);
        H.arg(5, P64);
        RUN_ITEMS(H, {N, 1, 1}, {B, 1, 1}, 0, WS);
        uint32_t Sum = uint32_t(Sum0), Bits = Bits0;
        uint64_t Sum64 = Sum64_0;
        int32_t Mx = INT32_MIN, Mn = INT32_MAX;
        for (int32_t V : In) {
          Sum += uint32_t(V);
          Mx = std::max(Mx, V);
          Mn = std::min(Mn, V);
          Bits |= 1u << (V & 31);
          Sum64 += uint64_t(int64_t(V));
        }
        auto GS = H.read<uint32_t>(PS, 2), GM = H.read<uint32_t>(PM, 3),
             GB = H.read<uint32_t>(PB, 2), GL = H.read<uint32_t>(PL, 2);
        auto G64 = H.read<uint64_t>(P64, 2);
        EXPECT_EQ(GS[0], Sum);
        EXPECT_EQ(int32_t(GM[0]), Mx);
        EXPECT_EQ(int32_t(GM[1]), Mn);
        EXPECT_EQ(GB[0], Bits);
        EXPECT_EQ(G64[0], Sum64);
        EXPECT_NE(std::find(In.begin(), In.end(), int32_t(GL[0])), In.end())
            << "atomicExch result " << int32_t(GL[0]) << " is none of the inputs";
        EXPECT_EQ(GS[1], kPoison);
        EXPECT_EQ(GM[2], kPoison);
        EXPECT_EQ(GB[1], kPoison);
        EXPECT_EQ(GL[1], kPoison);
        EXPECT_EQ(G64[1], ~0ull);
        snap(S, GS);
        snap(S, GM);
        snap(S, GB);
        snap(S, G64); // not `last`: any input may win
      });
    }
}

TEST_P(ClangKernels, AtomicsFloatAndCas) {
  struct Shape {
    uint32_t N, B;
    bool Exact;
  };
  for (uint64_t Seed : testSeeds())
    for (auto [N, B, Exact] : {Shape{64, 64, true},
                               {1000, 256, true},
                               {333, 128, true},
                               {1024, 256, false},
                               {500, 64, false}}) {
      SCOPED_TRACE(trace(Seed, "items " + std::to_string(N) + " block " + std::to_string(B) +
                                   (Exact ? " exact inputs" : " random floats")));
      std::mt19937_64 R(Seed * 1000 + N);
      std::vector<float> In(N);
      // Exact inputs: k/16 with |k| <= 1024, so every partial sum (|s| <= 2^16) is a multiple
      // of 2^-4 below 2^24 * 2^-4: exact in f32 in any order, and the sum is exact.
      std::uniform_int_distribution<int> K(-1024, 1024);
      for (auto &V : In)
        V = Exact ? float(K(R)) / 16 : std::uniform_real_distribution<float>(-10, 10)(R);
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, dir(), "atomics", "float_and_cas");
        uint32_t Padded = roundUp(N, B);
        uint64_t PI = H.buffer(In), PF = guarded(H, std::vector<float>{0.0f}, 4),
                 PG = guarded(H, std::vector<int32_t>{0}, 4), PO = H.buffer(nullptr, Padded * 4);
        H.arg(0, PI);
        H.arg(1, PF);
        H.arg(2, PG);
        H.arg(3, PO);
        RUN_ITEMS(H, {N, 1, 1}, {B, 1, 1}, 0, WS);
        auto GF = H.read<uint32_t>(PF, 2), GG = H.read<uint32_t>(PG, 2);
        auto Old = H.read<uint32_t>(PO, Padded);
        long double Ref = 0, Abs = 0;
        for (float V : In) {
          Ref += V;
          Abs += std::fabs(V);
        }
        if (Exact) {
          EXPECT_EQ(asF32(GF[0]), float(Ref));
          snap(S, GF);
        } else {
          // N-1 f32 additions in some order: |error| <= (N-1) * 2^-24 * sum|x| (recursive
          // summation bound, each addition rounds to nearest).
          EXPECT_NEAR(asF32(GF[0]), double(Ref), double((N - 1) * 0x1p-24L * Abs * 1.001L));
        }
        EXPECT_EQ(GF[1], kPoison);
        EXPECT_EQ(GG[1], kPoison);
        // atomicCAS(flag, 0, tid+1): exactly one work-item sees 0 and stores its tid+1; every
        // other one sees that value.
        std::vector<uint32_t> Winners;
        for (uint32_t I = 0; I < N; ++I)
          if (Old[I] == 0)
            Winners.push_back(I);
        ASSERT_EQ(Winners.size(), 1u) << "work-items that saw flag == 0";
        EXPECT_EQ(GG[0], Winners[0] % B + 1);
        for (uint32_t I = 0; I < N; ++I)
          if (I != Winners[0]) {
            ASSERT_EQ(Old[I], GG[0]) << "old value seen by item " << I;
          }
        for (uint32_t I = N; I < Padded; ++I)
          ASSERT_EQ(Old[I], kPoison) << "item " << I << " does not exist";
      });
    }
}

TEST_P(ClangKernels, AtomicsLdsHistogram) {
  for (uint64_t Seed : testSeeds())
    for (auto [N, Groups] : {std::pair{100u, 1u}, {768u, 3u}, {1000u, 2u}, {5000u, 4u}}) {
      SCOPED_TRACE(trace(Seed, "n " + std::to_string(N) + " groups " + std::to_string(Groups)));
      std::mt19937_64 R(Seed * 1000 + N);
      std::vector<uint8_t> In(N);
      for (auto &V : In)
        V = uint8_t(R() % (R() % 2 ? 256 : 7)); // skewed: some bins get many hits
      std::vector<uint32_t> Hist0(256);
      for (auto &V : Hist0)
        V = uint32_t(R() % 1000);
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, dir(), "atomics", "lds_histogram");
        uint64_t PI = H.buffer(In), PH = guarded(H, Hist0, 64);
        H.arg(0, PI);
        H.arg(1, PH);
        H.arg(2, int32_t(N));
        RUN_GROUPS(H, {Groups, 1, 1}, {256, 1, 1}, 0, WS); // the block is the 256 bins
        auto Got = H.read<uint32_t>(PH, 256 + 16);
        std::vector<uint32_t> Ref = Hist0;
        for (uint8_t V : In)
          ++Ref[V];
        for (uint32_t I = 0; I < 256; ++I)
          ASSERT_EQ(Got[I], Ref[I]) << "bin " << I;
        for (uint32_t I = 256; I < 272; ++I)
          ASSERT_EQ(Got[I], kPoison) << "past the histogram: " << I;
        snap(S, Got);
      });
    }
}

// ---- calls.hip --------------------------------------------------------------------------------

TEST_P(ClangKernels, CallsDirect) {
  for (uint64_t Seed : testSeeds())
    for (auto [N, B] : kItemShapes) {
      SCOPED_TRACE(trace(Seed, "items " + std::to_string(N) + " block " + std::to_string(B)));
      std::mt19937_64 R(Seed * 1000 + N);
      auto In = randomFloats(R, N, -2, 2);
      float A = std::uniform_real_distribution<float>(-3, 3)(R);
      float Bc = std::uniform_real_distribution<float>(-3, 3)(R);
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, dir(), "calls", "direct_call");
        uint32_t Padded = roundUp(N, B);
        uint64_t PI = H.buffer(In), PO = H.buffer(nullptr, Padded * 4);
        H.arg(0, PI);
        H.arg(1, PO);
        H.arg(2, A);
        H.arg(3, Bc);
        RUN_ITEMS(H, {N, 1, 1}, {B, 1, 1}, 0, WS);
        auto Out = H.read<uint32_t>(PO, Padded);
        // poly(x, a, b): r = 0; r = r*x + (a + i*b) for i = 0..3, evaluated here in long
        // double. Error bound of the f32 evaluation, fused or not: each of the (at most three)
        // roundings of a step is <= 2^-24 of a value bounded by Mag (the same recurrence on
        // absolute values), and the error carried from the previous step is scaled by |x|.
        auto poly = [](long double X, long double A, long double B, long double &Err) {
          long double Rv = 0, Mag = 0;
          Err = 0;
          for (int I = 0; I < 4; ++I) {
            Rv = Rv * X + (A + I * B);
            Mag = Mag * std::fabs(X) + std::fabs(A) + I * std::fabs(B);
            Err = Err * std::fabs(X) + 3 * 0x1p-24L * Mag;
          }
          return Rv;
        };
        for (uint32_t I = 0; I < N; ++I) {
          long double E1, E2;
          long double P1 = poly(In[I], A, Bc, E1), P2 = poly(2.0L * In[I], Bc, A, E2);
          long double Ref = P1 + P2;
          long double Tol = 1.01L * (E1 + E2 + 0x1p-24L * (std::fabs(P1) + std::fabs(P2)));
          ASSERT_NEAR(asF32(Out[I]), double(Ref), double(Tol)) << "element " << I;
        }
        for (uint32_t I = N; I < Padded; ++I)
          ASSERT_EQ(Out[I], kPoison) << "item " << I << " does not exist";
        snap(S, Out);
      });
    }
}

TEST_P(ClangKernels, CallsIndirect) {
  for (uint64_t Seed : testSeeds())
    for (int Which : {0, 1, 2, 7})
      for (auto [N, B] : {std::pair{1000u, 256u}, {64u, 64u}}) {
        SCOPED_TRACE(trace(Seed, "which " + std::to_string(Which) + " items " + std::to_string(N) +
                                     " block " + std::to_string(B)));
        std::mt19937_64 R(Seed * 1000 + N + Which);
        auto In = randomFloats(R, N, -100, 100);
        BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
          OPEN(H, dir(), "calls", "indirect_call");
          uint32_t Padded = roundUp(N, B);
          uint64_t PI = H.buffer(In), PO = H.buffer(nullptr, Padded * 4);
          H.arg(0, PI);
          H.arg(1, PO);
          H.arg(2, int32_t(Which));
          RUN_ITEMS(H, {N, 1, 1}, {B, 1, 1}, 0, WS);
          auto Out = H.read<uint32_t>(PO, Padded);
          for (uint32_t I = 0; I < N; ++I) {
            float X = In[I];
            float Ref = Which == 0 ? X * X : Which == 1 ? -X : X * 0.5f; // one rounding each
            ASSERT_EQ(Out[I], bitsF32(Ref)) << "element " << I;
          }
          for (uint32_t I = N; I < Padded; ++I)
            ASSERT_EQ(Out[I], kPoison) << "item " << I << " does not exist";
          snap(S, Out);
        });
      }
}

// ---- dpp_reduce.hip ---------------------------------------------------------------------------
// Cross-lane reads from inactive lanes are not what these kernels are about: grids are whole
// waves (multiples of 64 items), with partial last workgroups.
const std::vector<std::pair<uint32_t, uint32_t>> kWaveShapes = {
    {64, 64}, {320, 256}, {1024, 256}, {192, 128}};

TEST_P(ClangKernels, DppShflSum) {
  for (uint64_t Seed : testSeeds())
    for (auto [N, B] : kWaveShapes) {
      SCOPED_TRACE(trace(Seed, "items " + std::to_string(N) + " block " + std::to_string(B)));
      std::mt19937_64 R(Seed * 1000 + N);
      auto In = randomFloats(R, N, -100, 100);
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, dir(), "dpp_reduce", "wave_sum_shfl");
        uint32_t Waves = N / 64;
        uint64_t PI = H.buffer(In), PO = H.buffer(nullptr, (Waves + 4) * 4);
        H.arg(0, PI);
        H.arg(1, PO);
        RUN_ITEMS(H, {N, 1, 1}, {B, 1, 1}, 0, WS);
        auto Out = H.read<uint32_t>(PO, Waves + 4);
        for (uint32_t W = 0; W < Waves; ++W) {
          // v += shfl_xor(v, m), m = 32..1: the same f32 butterfly (each lane's pairwise sums
          // are commutative, so every lane ends with this value).
          std::vector<float> V(In.begin() + W * 64, In.begin() + W * 64 + 64), Nv(64);
          for (int M = 32; M > 0; M >>= 1) {
            for (int L = 0; L < 64; ++L)
              Nv[L] = V[L] + V[L ^ M];
            V = Nv;
          }
          ASSERT_EQ(Out[W], bitsF32(V[0])) << "wave " << W;
        }
        for (uint32_t W = Waves; W < Waves + 4; ++W)
          ASSERT_EQ(Out[W], kPoison) << "past the waves: " << W;
        snap(S, Out);
      });
    }
}

TEST_P(ClangKernels, DppRowSum) {
  for (uint64_t Seed : testSeeds())
    for (auto [N, B] : kWaveShapes) {
      SCOPED_TRACE(trace(Seed, "items " + std::to_string(N) + " block " + std::to_string(B)));
      std::mt19937_64 R(Seed * 1000 + N);
      std::vector<int32_t> In(N);
      for (auto &V : In)
        V = int32_t(R());
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, dir(), "dpp_reduce", "wave_sum_dpp");
        uint32_t Waves = N / 64;
        uint64_t PI = H.buffer(In), PO = H.buffer(nullptr, (Waves + 4) * 4);
        H.arg(0, PI);
        H.arg(1, PO);
        RUN_ITEMS(H, {N, 1, 1}, {B, 1, 1}, 0, WS);
        auto Out = H.read<uint32_t>(PO, Waves + 4);
        // quad_perm [1,0,3,2] and [2,3,0,1] give every lane its quad's sum; row_shr:4 into
        // banks 1-3 and row_shr:8 into banks 2-3 make lane 15 of each row the row's sum;
        // row_bcast:15 into rows 1, 3 and row_bcast:31 into rows 2, 3 make lane 63 the wave's
        // sum (wrapping 32-bit).
        for (uint32_t W = 0; W < Waves; ++W) {
          uint32_t Sum = 0;
          for (uint32_t L = 0; L < 64; ++L)
            Sum += uint32_t(In[W * 64 + L]);
          ASSERT_EQ(Out[W], Sum) << "wave " << W;
        }
        for (uint32_t W = Waves; W < Waves + 4; ++W)
          ASSERT_EQ(Out[W], kPoison) << "past the waves: " << W;
        snap(S, Out);
      });
    }
}

TEST_P(ClangKernels, DppSwizzleSum) {
  for (uint64_t Seed : testSeeds())
    for (auto [N, B] : kWaveShapes) {
      SCOPED_TRACE(trace(Seed, "items " + std::to_string(N) + " block " + std::to_string(B)));
      std::mt19937_64 R(Seed * 1000 + N);
      std::vector<int32_t> In(N);
      for (auto &V : In)
        V = int32_t(R());
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, dir(), "dpp_reduce", "swizzle_sum");
        uint32_t Padded = roundUp(N, B);
        uint64_t PI = H.buffer(In), PO = H.buffer(nullptr, Padded * 4 + 64);
        H.arg(0, PI);
        H.arg(1, PO);
        RUN_ITEMS(H, {N, 1, 1}, {B, 1, 1}, 0, WS);
        auto Out = H.read<uint32_t>(PO, Padded + 16);
        // Bit-mask swizzles with and_mask 0x1f, xor_mask 1, 2, 4, 8, 16: a butterfly within
        // each group of 32 lanes; every lane ends with its group's sum.
        for (uint32_t I = 0; I < N; ++I) {
          uint32_t Sum = 0;
          for (uint32_t L = I & ~31u; L < (I & ~31u) + 32; ++L)
            Sum += uint32_t(In[L]);
          ASSERT_EQ(Out[I], Sum) << "element " << I;
        }
        for (uint32_t I = N; I < Padded + 16; ++I)
          ASSERT_EQ(Out[I], kPoison) << "item " << I << " does not exist";
        snap(S, Out);
      });
    }
}

// ---- fp64.hip ---------------------------------------------------------------------------------

TEST_P(ClangKernels, Fp64) {
  for (uint64_t Seed : testSeeds())
    for (const Guarded &G : kGuardedShapes) {
      SCOPED_TRACE(trace(Seed, G.str()));
      std::mt19937_64 R(Seed * 1000 + G.N);
      std::uniform_real_distribution<double> DX(-4, 4), DY(0, 3), DA(-2, 2);
      std::vector<double> X(G.N), Y(G.N);
      for (uint32_t I = 0; I < G.N; ++I) {
        X[I] = DX(R);
        Y[I] = DY(R);
      }
      double Alpha = DA(R);
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, dir(), "fp64", "dp_kernel");
        uint32_t Len = std::max(G.N, G.Items) + 8;
        uint64_t PX = H.buffer(X), PY = H.buffer(Y), PO = H.buffer(nullptr, Len * 8);
        H.arg(0, PX);
        H.arg(1, PY);
        H.arg(2, PO);
        H.arg(3, Alpha);
        H.arg(4, int32_t(G.N));
        RUN_ITEMS(H, {G.Items, 1, 1}, {G.Block, 1, 1}, 0, WS);
        auto Out = H.read<uint64_t>(PO, Len);
        const long double U = 0x1p-52L; // each f64 operation within 1 ulp (2^-52 relative)
        for (uint32_t I = 0; I < std::min(G.N, G.Items); ++I) {
          long double A = X[I], B = Y[I];
          long double T = std::fma((long double)Alpha, A, B);
          long double Num = T * A + I, Den = B + 1.5L, Rr = Num / Den;
          long double Sq = std::sqrt(std::fabs(Rr)), Ref = Sq + std::floor(A);
          // Forward error bound: fma, mul, add (<= 3 roundings of values <= Mn), the division
          // (its own rounding and the denominator's), the sqrt (an error e in r moves sqrt|r|
          // by at most min(e / sqrt|r|, sqrt e)) and the final add.
          long double Mn = std::fabs(T) * std::fabs(A) + I;
          long double Er = 3 * U * Mn / Den + 2 * U * std::fabs(Rr);
          long double Es = (Sq > 0 ? std::min(Er / Sq, std::sqrt(Er)) : std::sqrt(Er)) + U * Sq;
          long double Tol = 1.01L * (Es + U * std::fabs(Ref)) + 1e-300L;
          ASSERT_NEAR(asF64(Out[I]), double(Ref), double(Tol)) << "element " << I;
        }
        for (uint32_t I = std::min(G.N, G.Items); I < Len; ++I)
          ASSERT_EQ(Out[I], ~0ull) << "element " << I << " was written";
        snap(S, Out);
      });
    }
}

// ---- globals.hip ------------------------------------------------------------------------------

TEST_P(ClangKernels, GlobalsApplyTable) {
  const int32_t LutInit[8] = {3, 1, 4, 1, 5, 9, 2, 6}; // from globals.hip
  // One-wave shapes: all of a wave's lut loads come before its stores, so every read sees the
  // initial table. With several waves another wave's `lut[i & 7] = i` may land first: the
  // value read is then the initial one or any index j < n with j & 7 == the slot.
  for (uint64_t Seed : testSeeds())
    for (const Guarded &G :
         {Guarded{5, 64, 64}, {50, 50, 64}, {64, 64, 64}, {300, 512, 256}, {1000, 1000, 128}}) {
      SCOPED_TRACE(trace(Seed, G.str()));
      bool OneWave = G.Items <= 64;
      std::mt19937_64 R(Seed * 1000 + G.N);
      auto In = randomFloats(R, G.N, -20, 20);
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, dir(), "globals", "apply_table");
        uint32_t Len = std::max(G.N, G.Items) + 8;
        uint64_t PI = H.buffer(In), PO = H.buffer(nullptr, Len * 4);
        H.arg(0, PI);
        H.arg(1, PO);
        H.arg(2, int32_t(G.N));
        RUN_ITEMS(H, {G.Items, 1, 1}, {G.Block, 1, 1}, 0, WS);
        auto Out = H.read<uint32_t>(PO, Len);
        uint32_t Ran = std::min(G.N, G.Items);
        for (uint32_t I = 0; I < Ran; ++I) {
          float V = In[I], C = float((I & 15) + 1); // coeffs[k] = k + 1
          int Slot = int(V) & 7;
          std::vector<int32_t> Cand = {LutInit[Slot]};
          if (!OneWave)
            for (uint32_t J = Slot; J < Ran; J += 8)
              Cand.push_back(int32_t(J));
          bool Ok = false;
          for (int32_t L : Cand)
            Ok |= fusedOrNot(asF32(Out[I]), C, V, float(L));
          ASSERT_TRUE(Ok) << "element " << I << ": " << asF32(Out[I]) << " for in " << V << " slot "
                          << Slot;
        }
        for (uint32_t I = Ran; I < Len; ++I)
          ASSERT_EQ(Out[I], kPoison) << "element " << I << " was written";
        // The module's variables: lut (.data) and counter (.bss), at load base + symbol value.
        uint64_t Lut = 0, Counter = 0;
        for (const ElfSymbol &Sym : H.Obj->C.Symbols) {
          if (Sym.Name == "lut")
            Lut = H.Emu->loadBase() + Sym.Value;
          if (Sym.Name == "counter")
            Counter = H.Emu->loadBase() + Sym.Value;
        }
        ASSERT_TRUE(Lut && Counter) << "no lut / counter symbols";
        auto GotLut = H.read<int32_t>(Lut, 8);
        auto GotCounter = H.read<uint32_t>(Counter, 1);
        EXPECT_EQ(GotCounter[0], Ran) << "atomicAdd(&counter, 1) per work-item";
        for (int K = 0; K < 8; ++K) {
          if (uint32_t(K) >= Ran) {
            EXPECT_EQ(GotLut[K], LutInit[K]) << "lut[" << K << "] was written";
            continue;
          }
          EXPECT_TRUE(GotLut[K] >= 0 && uint32_t(GotLut[K]) < Ran && (GotLut[K] & 7) == K)
              << "lut[" << K << "] = " << GotLut[K];
        }
        snap(S, GotCounter);
        if (OneWave)
          snap(S, Out);
      });
    }
}

// ---- kernarg_preload.hip ----------------------------------------------------------------------

TEST_P(ClangKernels, PreloadAxpy) {
  struct Shape {
    Guarded G;
    int32_t Stride, Offset, Flags;
  };
  for (uint64_t Seed : testSeeds())
    for (const Shape &Sh : {Shape{{1000, 1024, 256}, 1, 0, 0},
                            {{1000, 1000, 256}, 1, 0, 1},
                            {{700, 256, 64}, 3, 2, 1},
                            {{500, 300, 128}, 2, 5, 2},
                            {{64, 64, 64}, 1, 0, 3}}) {
      const Guarded &G = Sh.G;
      SCOPED_TRACE(trace(Seed, G.str() + " stride " + std::to_string(Sh.Stride) + " offset " +
                                   std::to_string(Sh.Offset) + " flags " +
                                   std::to_string(Sh.Flags)));
      std::mt19937_64 R(Seed * 1000 + G.N);
      auto X = randomFloats(R, G.N, -10, 10), Y0 = randomFloats(R, G.N, -10, 10);
      float A = std::uniform_real_distribution<float>(-3, 3)(R);
      float B = std::uniform_real_distribution<float>(-3, 3)(R);
      bool Acc = Sh.Flags & 1;
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, dir(), "kernarg_preload", "preload_axpy");
        // y is read only when flags & 1; otherwise it starts poisoned.
        uint64_t PY = Acc ? guarded(H, Y0, 64) : H.buffer(nullptr, G.N * 4 + 64), PX = H.buffer(X);
        H.arg(0, PY);
        H.arg(1, PX);
        H.arg(2, A);
        H.arg(3, B);
        H.arg(4, int32_t(G.N));
        H.arg(5, Sh.Stride);
        H.arg(6, Sh.Offset);
        H.arg(7, Sh.Flags);
        RUN_ITEMS(H, {G.Items, 1, 1}, {G.Block, 1, 1}, 0, WS);
        auto Y = H.read<uint32_t>(PY, G.N + 16);
        std::vector<bool> Hit(G.N + 16);
        for (uint32_t T = 0; T < G.Items; ++T) {
          int64_t I = int64_t(T) * Sh.Stride + Sh.Offset;
          if (I < G.N)
            Hit[I] = true;
        }
        for (uint32_t I = 0; I < G.N + 16; ++I) {
          uint32_t Before = Acc && I < G.N ? bitsF32(Y0[I]) : kPoison;
          if (!Hit[I]) {
            ASSERT_EQ(Y[I], Before) << "element " << I << " was written";
            continue;
          }
          // v = a*x + b (fused or not); y = v + y or v.
          float Vf = std::fma(A, X[I], B), Vu = mulRounded(A, X[I]) + B;
          bool Ok = Acc ? (Y[I] == bitsF32(Vf + Y0[I]) || Y[I] == bitsF32(Vu + Y0[I]))
                        : (Y[I] == bitsF32(Vf) || Y[I] == bitsF32(Vu));
          ASSERT_TRUE(Ok) << "element " << I << ": " << asF32(Y[I]);
        }
        snap(S, Y);
      });
    }
}

TEST_P(ClangKernels, PreloadSmall) {
  for (uint64_t Seed : testSeeds())
    for (auto [N, B] : kItemShapes) {
      SCOPED_TRACE(trace(Seed, "items " + std::to_string(N) + " block " + std::to_string(B)));
      std::mt19937_64 R(Seed * 1000 + N);
      int32_t V = int32_t(R());
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, dir(), "kernarg_preload", "preload_small");
        uint32_t Padded = roundUp(N, B) + 16;
        uint64_t PO = H.buffer(nullptr, Padded * 4);
        H.arg(0, PO);
        H.arg(1, V);
        RUN_ITEMS(H, {N, 1, 1}, {B, 1, 1}, 0, WS);
        auto Out = H.read<uint32_t>(PO, Padded);
        for (uint32_t I = 0; I < Padded; ++I)
          ASSERT_EQ(Out[I], I < N ? uint32_t(V) : kPoison) << "element " << I;
        snap(S, Out);
      });
    }
}

// ---- lds_reduce.hip (also target-id variants) -------------------------------------------------

// BLOCK = 256 is compiled in: whole workgroups, the tail zero-filled by the kernel's guard.
void checkBlockSum(const std::string &Dir) {
  for (uint64_t Seed : testSeeds())
    for (auto [N, Groups] : {std::pair{1u, 1u}, {256u, 1u}, {1000u, 4u}, {2100u, 9u}}) {
      SCOPED_TRACE(trace(Seed, "n " + std::to_string(N) + " groups " + std::to_string(Groups)));
      std::mt19937_64 R(Seed * 1000 + N);
      auto In = randomFloats(R, N, -100, 100);
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, Dir, "lds_reduce", "block_sum");
        uint64_t PI = H.buffer(In), PO = H.buffer(nullptr, (Groups + 4) * 4);
        H.arg(0, PI);
        H.arg(1, PO);
        H.arg(2, int32_t(N));
        RUN_GROUPS(H, {Groups, 1, 1}, {256, 1, 1}, 0, WS);
        auto Out = H.read<uint32_t>(PO, Groups + 4);
        for (uint32_t G = 0; G < Groups; ++G) {
          float Buf[256]; // the kernel's tree: buf[t] += buf[t + s], s = 128..1, in f32
          for (uint32_t T = 0; T < 256; ++T)
            Buf[T] = G * 256 + T < N ? In[G * 256 + T] : 0.0f;
          for (uint32_t St = 128; St > 0; St >>= 1)
            for (uint32_t T = 0; T < St; ++T)
              Buf[T] += Buf[T + St];
          ASSERT_EQ(Out[G], bitsF32(Buf[0])) << "block " << G;
        }
        for (uint32_t G = Groups; G < Groups + 4; ++G)
          ASSERT_EQ(Out[G], kPoison) << "block " << G << " does not exist";
        snap(S, Out);
      });
    }
}

// Block 32x8. Whole workgroups (guards x < w, y + j < h), and partial workgroups in x (grid
// exactly w wide): there the last column of blocks lacks threads tx >= w % 32, which in the
// store phase write the output columns x = by*32 + tx; so out[Y][X] is written exactly when
// X % 32 < min(32, w - (Y / 32) * 32) (the tile entries those stores read were all loaded).
void checkTranspose(const std::string &Dir) {
  for (uint64_t Seed : testSeeds())
    for (auto [W, Hh] : {std::pair{32u, 32u}, {50u, 70u}, {100u, 33u}, {1u, 40u}})
      for (bool Partial : {false, true}) {
        SCOPED_TRACE(trace(Seed, std::to_string(W) + "x" + std::to_string(Hh) +
                                     (Partial ? " partial workgroups" : " whole workgroups")));
        std::mt19937_64 R(Seed * 1000 + W * 7 + Hh);
        auto In = randomFloats(R, W * Hh, -100, 100);
        BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
          OPEN(H, Dir, "lds_reduce", "transpose");
          uint64_t PI = H.buffer(In), PO = H.buffer(nullptr, W * Hh * 4 + 64);
          H.arg(0, PI);
          H.arg(1, PO);
          H.arg(2, int32_t(W));
          H.arg(3, int32_t(Hh));
          if (Partial)
            RUN_ITEMS(H, {W, 8 * cdiv(Hh, 32), 1}, {32, 8, 1}, 0, WS);
          else
            RUN_GROUPS(H, {cdiv(W, 32), cdiv(Hh, 32), 1}, {32, 8, 1}, 0, WS);
          auto Out = H.read<uint32_t>(PO, W * Hh + 16);
          for (uint32_t Y = 0; Y < W; ++Y)
            for (uint32_t X = 0; X < Hh; ++X) {
              bool Written = !Partial || X % 32 < std::min(32u, W - (Y / 32) * 32);
              ASSERT_EQ(Out[Y * Hh + X], Written ? bitsF32(In[X * W + Y]) : kPoison)
                  << "out[" << Y << "][" << X << "]";
            }
          for (uint32_t I = W * Hh; I < W * Hh + 16; ++I)
            ASSERT_EQ(Out[I], kPoison) << "past the output: " << I;
          snap(S, Out);
        });
      }
}

TEST_P(ClangKernels, LdsBlockSum) { checkBlockSum(dir()); }
TEST_P(ClangKernels, LdsTranspose) { checkTranspose(dir()); }
TEST_P(ClangVariants, LdsBlockSum) { checkBlockSum(dir()); }
TEST_P(ClangVariants, LdsTranspose) { checkTranspose(dir()); }

// ---- loop_branch.hip --------------------------------------------------------------------------

TEST_P(ClangKernels, Collatz) {
  struct Shape {
    uint32_t N, B;
    int32_t Rounds, Limit;
  };
  for (uint64_t Seed : testSeeds())
    for (const Shape &Sh :
         {Shape{64, 64, 3, 200}, {1000, 256, 4, 100}, {333, 128, 1, 50}, {256, 256, 0, 10}}) {
      SCOPED_TRACE(trace(Seed, "items " + std::to_string(Sh.N) + " block " + std::to_string(Sh.B) +
                                   " rounds " + std::to_string(Sh.Rounds) + " limit " +
                                   std::to_string(Sh.Limit)));
      std::mt19937_64 R(Seed * 1000 + Sh.N);
      std::vector<uint32_t> In(Sh.N);
      for (auto &V : In) {
        uint64_t K = R() % 16;
        V = K == 0   ? 0
            : K == 1 ? 1
            : K == 2 ? 0xfffffff0u + uint32_t(R() % 16) // wraps
                     : uint32_t(R() % 3000);
      }
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, dir(), "loop_branch", "collatz");
        uint32_t Padded = roundUp(Sh.N, Sh.B) + 8;
        uint64_t PI = H.buffer(In), PO = H.buffer(nullptr, Padded * 4);
        H.arg(0, PI);
        H.arg(1, PO);
        H.arg(2, Sh.Rounds);
        H.arg(3, Sh.Limit);
        RUN_ITEMS(H, {Sh.N, 1, 1}, {Sh.B, 1, 1}, 0, WS);
        auto Out = H.read<uint32_t>(PO, Padded);
        for (uint32_t I = 0; I < Sh.N; ++I) {
          uint32_t Total = 0;
          for (int32_t Rd = 0; Rd < Sh.Rounds; ++Rd) {
            uint32_t X = In[I] + uint32_t(Rd);
            int32_t Steps = 0;
            while (X != 1 && Steps < Sh.Limit) {
              X = (X & 1) ? 3 * X + 1 : X >> 1;
              ++Steps;
            }
            if (Steps == Sh.Limit)
              break;
            Total += uint32_t(Steps);
          }
          ASSERT_EQ(Out[I], Total) << "element " << I << " (in " << In[I] << ")";
        }
        for (uint32_t I = Sh.N; I < Padded; ++I)
          ASSERT_EQ(Out[I], kPoison) << "item " << I << " does not exist";
        snap(S, Out);
      });
    }
}

// ---- mfma.hip ---------------------------------------------------------------------------------
// One wave computes D = C + A*B per MFMA. Operand layouts (AMD matrix instruction calculator,
// CDNA2/CDNA3; the gfx950 16x16x32 shapes with 8 K-contiguous elements per lane):
//   single-block M x N x K, kpl = K*M/64 elements per lane: A[i][k] is element k % kpl of lane
//   M*(k / kpl) + i (B[k][j] likewise with j), elements packed little-endian;
//   D[i][j] (32-bit): M = 32: register 4*(i/8) + i%4 of lane 32*((i/4)%2) + j;
//                     M = 16: register i%4 of lane 16*(i/4) + j;
//   f64 16x16x4 D[i][j]: register pair i/4 of lane 16*(i%4) + j.
// The hardware's summation order is not documented: with n = K + 1 terms (C and the K
// products, exact in f32/f64 for these inputs) any order of n-1 rounded additions is within
// (n-1) * u * (|C| + sum |a*b|) (u = 2^-24 for f32, 2^-53 for f64); for the chained 4-step
// kernel the K of all steps count.

struct MfmaRef {
  uint32_t M, K; // K per instruction
  // value of A[i][k] / B[k][j] of step s
  std::function<double(uint32_t S, uint32_t I, uint32_t K)> A, B;
  uint32_t Steps = 1;
  bool F64 = false;
};
// Position of D[i][j]: register index within the lane's result vector, and the lane.
void dPos(uint32_t M, bool F64, uint32_t I, uint32_t J, uint32_t &Reg, uint32_t &Lane) {
  if (F64) {
    Reg = I / 4;
    Lane = 16 * (I % 4) + J;
  } else if (M == 32) {
    Reg = 4 * (I / 8) + I % 4;
    Lane = 32 * ((I / 4) % 2) + J;
  } else {
    Reg = I % 4;
    Lane = 16 * (I / 4) + J;
  }
}
// Check D (lane-major, Regs values per lane) against C (same layout) + sum over steps of A*B.
template <typename CT>
void checkMfma(const MfmaRef &Ref, const std::vector<CT> &C, const std::vector<CT> &D,
               uint32_t Regs, const char *What) {
  double U = Ref.F64 ? 0x1p-53 : 0x1p-24;
  double N = Ref.K * Ref.Steps + 1;
  for (uint32_t I = 0; I < Ref.M; ++I)
    for (uint32_t J = 0; J < Ref.M; ++J) {
      uint32_t Reg, Lane;
      dPos(Ref.M, Ref.F64, I, J, Reg, Lane);
      long double Cv = C[Lane * Regs + Reg], Sum = Cv, Abs = std::fabs(Cv);
      for (uint32_t St = 0; St < Ref.Steps; ++St)
        for (uint32_t K = 0; K < Ref.K; ++K) {
          long double P = (long double)Ref.A(St, I, K) * Ref.B(St, K, J);
          Sum += P;
          Abs += std::fabs(P);
        }
      double Tol = double((N - 1) * U * Abs * 1.001L);
      ASSERT_NEAR(double(D[Lane * Regs + Reg]), double(Sum), Tol)
          << What << " D[" << I << "][" << J << "] (lane " << Lane << " register " << Reg << ")";
    }
}
// Lane of A[i][k] (single block) and the element within the lane.
uint32_t inLane(uint32_t M, uint32_t K, uint32_t I, uint32_t Kk) {
  return M * (Kk / (K * M / 64)) + I;
}
uint32_t inElem(uint32_t M, uint32_t K, uint32_t Kk) { return Kk % (K * M / 64); }

template <typename T> std::vector<uint32_t> asWords(const std::vector<T> &V) {
  std::vector<uint32_t> W(V.size() * sizeof(T) / 4);
  std::memcpy(W.data(), V.data(), W.size() * 4);
  return W;
}
// A buffer with N floats of C, 64 bytes of poison after; checks the poison afterwards.
#define CHECK_TAIL(H, Addr, Bytes)                                                                 \
  do {                                                                                             \
    auto Tail_ = (H).read<uint32_t>((Addr) + (Bytes), 16);                                         \
    for (uint32_t T_ = 0; T_ < 16; ++T_)                                                           \
      ASSERT_EQ(Tail_[T_], kPoison) << "written past the output";                                  \
  } while (0)

// Input ranges: [-1, 1] and [-8, 8] (C always in [-4, 4]).
const float kMfmaScales[] = {1.0f, 8.0f};

TEST_P(ClangKernels, MfmaF16_32x32x8) {
  for (uint64_t Seed : testSeeds())
    for (float Sc : kMfmaScales) {
      SCOPED_TRACE(trace(Seed, "scale " + std::to_string(Sc)));
      std::mt19937_64 R(Seed);
      std::vector<uint16_t> A(256 * 4), B(256 * 4);
      for (auto &V : A)
        V = randomHalf(R, -Sc, Sc);
      for (auto &V : B)
        V = randomHalf(R, -Sc, Sc);
      auto C = randomFloats(R, 64 * 16, -4, 4);
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, dir(), "mfma", "mfma_f32_32x32x8f16");
        uint64_t PA = H.buffer(A), PB = H.buffer(B), PC = guarded(H, C, 64);
        H.arg(0, PA);
        H.arg(1, PB);
        H.arg(2, PC);
        RUN_GROUPS(H, {1, 1, 1}, {64, 1, 1}, 0, WS);
        auto D = H.read<float>(PC, 64 * 16);
        CHECK_TAIL(H, PC, 64 * 16 * 4);
        MfmaRef Ref{32, 8, {}, {}, 4};
        // step s reads a[l + 64 s] (4 halves per lane)
        Ref.A = [&](uint32_t St, uint32_t I, uint32_t K) {
          return halfValue(A[(inLane(32, 8, I, K) + 64 * St) * 4 + inElem(32, 8, K)]);
        };
        Ref.B = [&](uint32_t St, uint32_t K, uint32_t J) {
          return halfValue(B[(inLane(32, 8, J, K) + 64 * St) * 4 + inElem(32, 8, K)]);
        };
        checkMfma(Ref, C, D, 16, "32x32x8f16");
        snap(S, D);
      });
    }
}

TEST_P(ClangKernels, MfmaF16_16x16x16) {
  for (uint64_t Seed : testSeeds())
    for (float Sc : kMfmaScales) {
      SCOPED_TRACE(trace(Seed, "scale " + std::to_string(Sc)));
      std::mt19937_64 R(Seed);
      std::vector<uint16_t> A(64 * 4), B(64 * 4);
      for (auto &V : A)
        V = randomHalf(R, -Sc, Sc);
      for (auto &V : B)
        V = randomHalf(R, -Sc, Sc);
      auto C = randomFloats(R, 64 * 4, -4, 4);
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, dir(), "mfma", "mfma_f32_16x16x16f16");
        uint64_t PA = H.buffer(A), PB = H.buffer(B), PC = guarded(H, C, 64);
        H.arg(0, PA);
        H.arg(1, PB);
        H.arg(2, PC);
        RUN_GROUPS(H, {1, 1, 1}, {64, 1, 1}, 0, WS);
        auto D = H.read<float>(PC, 64 * 4);
        CHECK_TAIL(H, PC, 64 * 4 * 4);
        MfmaRef Ref{16, 16, {}, {}};
        Ref.A = [&](uint32_t, uint32_t I, uint32_t K) {
          return halfValue(A[inLane(16, 16, I, K) * 4 + inElem(16, 16, K)]);
        };
        Ref.B = [&](uint32_t, uint32_t K, uint32_t J) {
          return halfValue(B[inLane(16, 16, J, K) * 4 + inElem(16, 16, K)]);
        };
        checkMfma(Ref, C, D, 4, "16x16x16f16");
        snap(S, D);
      });
    }
}

TEST_P(ClangKernels, MfmaBf16) {
  for (uint64_t Seed : testSeeds())
    for (float Sc : kMfmaScales) {
      SCOPED_TRACE(trace(Seed, "scale " + std::to_string(Sc)));
      std::mt19937_64 R(Seed);
      std::vector<uint16_t> A(64 * 4), B(64 * 4);
      for (auto &V : A)
        V = randomBf16(R, -Sc, Sc);
      for (auto &V : B)
        V = randomBf16(R, -Sc, Sc);
      auto C = randomFloats(R, 64 * 4, -4, 4), Dd = randomFloats(R, 64 * 16, -4, 4);
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, dir(), "mfma", "mfma_bf16");
        uint64_t PA = H.buffer(A), PB = H.buffer(B), PC = guarded(H, C, 64),
                 PD = guarded(H, Dd, 64);
        H.arg(0, PA);
        H.arg(1, PB);
        H.arg(2, PC);
        H.arg(3, PD);
        RUN_GROUPS(H, {1, 1, 1}, {64, 1, 1}, 0, WS);
        auto Gc = H.read<float>(PC, 64 * 4), Gd = H.read<float>(PD, 64 * 16);
        CHECK_TAIL(H, PC, 64 * 4 * 4);
        CHECK_TAIL(H, PD, 64 * 16 * 4);
        for (uint32_t M : {16u, 32u}) {
          uint32_t K = M == 16 ? 16 : 8;
          MfmaRef Ref{M, K, {}, {}};
          Ref.A = [&](uint32_t, uint32_t I, uint32_t Kk) {
            return bf16Value(A[inLane(M, K, I, Kk) * 4 + inElem(M, K, Kk)]);
          };
          Ref.B = [&](uint32_t, uint32_t Kk, uint32_t J) {
            return bf16Value(B[inLane(M, K, J, Kk) * 4 + inElem(M, K, Kk)]);
          };
          if (M == 16)
            checkMfma(Ref, C, Gc, 4, "16x16x16bf16_1k");
          else
            checkMfma(Ref, Dd, Gd, 16, "32x32x8bf16_1k");
          if (::testing::Test::HasFatalFailure())
            return;
        }
        snap(S, Gc);
        snap(S, Gd);
      });
    }
}

TEST_P(ClangKernels, MfmaF64) {
  for (uint64_t Seed : testSeeds())
    for (float Sc : kMfmaScales) {
      SCOPED_TRACE(trace(Seed, "scale " + std::to_string(Sc)));
      std::mt19937_64 R(Seed);
      std::uniform_real_distribution<double> D(-Sc, Sc), DC(-4, 4);
      std::vector<double> A(64), B(64), C(64 * 4);
      for (auto &V : A)
        V = D(R);
      for (auto &V : B)
        V = D(R);
      for (auto &V : C)
        V = DC(R);
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, dir(), "mfma", "mfma_f64");
        uint64_t PA = H.buffer(A), PB = H.buffer(B), PC = guarded(H, C, 64);
        H.arg(0, PA);
        H.arg(1, PB);
        H.arg(2, PC);
        RUN_GROUPS(H, {1, 1, 1}, {64, 1, 1}, 0, WS);
        auto Gd = H.read<double>(PC, 64 * 4);
        CHECK_TAIL(H, PC, 64 * 4 * 8);
        MfmaRef Ref{16, 4, {}, {}};
        Ref.F64 = true;
        Ref.A = [&](uint32_t, uint32_t I, uint32_t K) { return A[16 * K + I]; };
        Ref.B = [&](uint32_t, uint32_t K, uint32_t J) { return B[16 * K + J]; };
        checkMfma(Ref, C, Gd, 4, "f64_16x16x4");
        snap(S, Gd);
      });
    }
}

TEST_P(ClangKernels, MfmaFp8) {
  if (arch() == "gfx90a") {
    EXPECT_FALSE(hasKernel(dir(), "mfma", "mfma_fp8")) << "fp8 MFMA is gfx942/gfx950 only";
    return;
  }
  bool Ocp = arch() == "gfx950"; // gfx950: OCP formats; gfx942: FNUZ
  auto fp8 = [&](uint8_t V) { return Ocp ? f8Value(V, 4, 3, 7) : f8Value(V, 4, 3, 8); };
  auto bf8 = [&](uint8_t V) { return Ocp ? f8Value(V, 5, 2, 15) : f8Value(V, 5, 2, 16); };
  // Bytes valid (finite, not NaN) as E4M3 and, for A, as E5M2 too.
  auto valid = [&](uint8_t V, bool AlsoBf8) {
    if (!Ocp)
      return V != 0x80;
    return (V & 0x7f) != 0x7f && (!AlsoBf8 || (V & 0x7c) != 0x7c);
  };
  for (uint64_t Seed : testSeeds())
    for (int Range : {0, 1}) {
      SCOPED_TRACE(trace(Seed, Range ? "all finite codes" : "small exponents"));
      std::mt19937_64 R(Seed);
      auto draw = [&](bool AlsoBf8) {
        for (;;) {
          uint8_t V = uint8_t(R());
          if (!Range)
            V &= 0xbf; // exponent msb clear: moderate magnitudes
          if (valid(V, AlsoBf8))
            return V;
        }
      };
      std::vector<uint8_t> A(64 * 8), B(64 * 8);
      for (auto &V : A)
        V = draw(true);
      for (auto &V : B)
        V = draw(false);
      auto C = randomFloats(R, 128 * 4, -4, 4);
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, dir(), "mfma", "mfma_fp8");
        uint64_t PA = H.buffer(A), PB = H.buffer(B), PC = guarded(H, C, 64);
        H.arg(0, PA);
        H.arg(1, PB);
        H.arg(2, PC);
        RUN_GROUPS(H, {1, 1, 1}, {64, 1, 1}, 0, WS);
        auto D = H.read<float>(PC, 128 * 4);
        CHECK_TAIL(H, PC, 128 * 4 * 4);
        for (bool ABf8 : {false, true}) {
          // c[l] = fp8 x fp8, c[l + 64] = bf8 (A) x fp8 (B); 8 bytes per lane, kpl = 8.
          MfmaRef Ref{16, 32, {}, {}};
          Ref.A = [&](uint32_t, uint32_t I, uint32_t K) {
            uint8_t V = A[inLane(16, 32, I, K) * 8 + inElem(16, 32, K)];
            return ABf8 ? bf8(V) : fp8(V);
          };
          Ref.B = [&](uint32_t, uint32_t K, uint32_t J) {
            return fp8(B[inLane(16, 32, J, K) * 8 + inElem(16, 32, K)]);
          };
          std::vector<float> Ch(C.begin() + (ABf8 ? 256 : 0), C.begin() + (ABf8 ? 512 : 256)),
              Dh(D.begin() + (ABf8 ? 256 : 0), D.begin() + (ABf8 ? 512 : 256));
          checkMfma(Ref, Ch, Dh, 4, ABf8 ? "16x16x32_bf8_fp8" : "16x16x32_fp8_fp8");
          if (::testing::Test::HasFatalFailure())
            return;
        }
        snap(S, D);
      });
    }
}

TEST_P(ClangKernels, MfmaGfx950) {
  if (arch() != "gfx950") {
    EXPECT_FALSE(hasKernel(dir(), "mfma", "mfma_gfx950")) << "gfx950-only kernel";
    return;
  }
  for (uint64_t Seed : testSeeds())
    for (float Sc : kMfmaScales) {
      SCOPED_TRACE(trace(Seed, "scale " + std::to_string(Sc)));
      std::mt19937_64 R(Seed);
      std::vector<uint16_t> A(64 * 8), B(64 * 8), X(128 * 8);
      for (auto &V : A)
        V = randomHalf(R, -Sc, Sc);
      for (auto &V : B)
        V = randomHalf(R, -Sc, Sc);
      for (auto &V : X)
        V = randomBf16(R, -Sc, Sc);
      auto C = randomFloats(R, 128 * 4, -4, 4);
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, dir(), "mfma", "mfma_gfx950");
        uint64_t PA = H.buffer(A), PB = H.buffer(B), PX = H.buffer(X), PC = guarded(H, C, 64);
        H.arg(0, PA);
        H.arg(1, PB);
        H.arg(2, PX);
        H.arg(3, PC);
        RUN_GROUPS(H, {1, 1, 1}, {64, 1, 1}, 0, WS);
        auto D = H.read<float>(PC, 128 * 4);
        CHECK_TAIL(H, PC, 128 * 4 * 4);
        // c[l] = 16x16x32 f16 (a, b); c[l + 64] = 16x16x32 bf16 (x[l], x[l + 64]); kpl = 8.
        for (bool Bf : {false, true}) {
          MfmaRef Ref{16, 32, {}, {}};
          Ref.A = [&](uint32_t, uint32_t I, uint32_t K) {
            uint32_t E = inLane(16, 32, I, K) * 8 + inElem(16, 32, K);
            return Bf ? bf16Value(X[E]) : halfValue(A[E]);
          };
          Ref.B = [&](uint32_t, uint32_t K, uint32_t J) {
            uint32_t E = inLane(16, 32, J, K) * 8 + inElem(16, 32, K);
            return Bf ? bf16Value(X[64 * 8 + E]) : halfValue(B[E]);
          };
          std::vector<float> Ch(C.begin() + (Bf ? 256 : 0), C.begin() + (Bf ? 512 : 256)),
              Dh(D.begin() + (Bf ? 256 : 0), D.begin() + (Bf ? 512 : 256));
          checkMfma(Ref, Ch, Dh, 4, Bf ? "16x16x32_bf16" : "16x16x32_f16");
          if (::testing::Test::HasFatalFailure())
            return;
        }
        snap(S, D);
      });
    }
}

// ---- multi_kernel.hip -------------------------------------------------------------------------

TEST_P(ClangKernels, MultiFill) {
  for (uint64_t Seed : testSeeds())
    for (const Guarded &G : kGuardedShapes) {
      SCOPED_TRACE(trace(Seed, G.str()));
      int32_t V = int32_t(std::mt19937_64(Seed * 1000 + G.N)());
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, dir(), "multi_kernel", "fill");
        uint32_t Len = std::max(G.N, G.Items) + 8;
        uint64_t PO = H.buffer(nullptr, Len * 4);
        H.arg(0, PO);
        H.arg(1, V);
        H.arg(2, int32_t(G.N));
        RUN_ITEMS(H, {G.Items, 1, 1}, {G.Block, 1, 1}, 0, WS);
        auto Out = H.read<uint32_t>(PO, Len);
        for (uint32_t I = 0; I < Len; ++I)
          ASSERT_EQ(Out[I], I < std::min(G.N, G.Items) ? uint32_t(V) : kPoison) << "element " << I;
        snap(S, Out);
      });
    }
}

TEST_P(ClangKernels, MultiSaxpy) {
  std::vector<Guarded> Shapes = kGuardedShapes;
  Shapes.push_back({3000, 3072, 1024}); // launch bounds 1024
  Shapes.push_back({2500, 2500, 1024});
  for (uint64_t Seed : testSeeds())
    for (const Guarded &G : Shapes) {
      SCOPED_TRACE(trace(Seed, G.str()));
      std::mt19937_64 R(Seed * 1000 + G.N);
      auto X = randomFloats(R, G.N, -10, 10), Y0 = randomFloats(R, G.N, -10, 10);
      float A = std::uniform_real_distribution<float>(-3, 3)(R);
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, dir(), "multi_kernel", "saxpy");
        uint64_t PX = H.buffer(X), PY = guarded(H, Y0, 64);
        H.arg(0, A);
        H.arg(1, PX);
        H.arg(2, PY);
        H.arg(3, int32_t(G.N));
        RUN_ITEMS(H, {G.Items, 1, 1}, {G.Block, 1, 1}, 0, WS);
        auto Y = H.read<uint32_t>(PY, G.N + 16);
        for (uint32_t I = 0; I < G.N; ++I) {
          if (I >= G.Items) {
            ASSERT_EQ(Y[I], bitsF32(Y0[I])) << "element " << I << " was written";
            continue;
          }
          ASSERT_TRUE(fusedOrNot(asF32(Y[I]), A, X[I], Y0[I]))
              << "element " << I << ": " << asF32(Y[I]);
        }
        for (uint32_t I = G.N; I < G.N + 16; ++I)
          ASSERT_EQ(Y[I], kPoison) << "element " << I << " was written";
        snap(S, Y);
      });
    }
}

TEST_P(ClangKernels, MultiCopy3d) {
  struct Shape {
    uint32_t Nx, Ny, Nz;
    std::array<uint32_t, 3> Block;
  };
  for (uint64_t Seed : testSeeds())
    for (const Shape &Sh : {Shape{16, 8, 4, {16, 4, 4}},
                            {37, 11, 5, {8, 4, 2}},
                            {5, 3, 19, {4, 2, 8}},
                            {70, 2, 3, {64, 1, 2}}})
      for (bool Partial : {false, true}) {
        SCOPED_TRACE(trace(Seed, std::to_string(Sh.Nx) + "x" + std::to_string(Sh.Ny) + "x" +
                                     std::to_string(Sh.Nz) +
                                     (Partial ? " partial workgroups" : " whole workgroups")));
        uint32_t Total = Sh.Nx * Sh.Ny * Sh.Nz;
        std::mt19937_64 R(Seed * 1000 + Total);
        // One more z plane than the kernel is told about: it must stay poisoned.
        std::vector<uint32_t> In(Total + Sh.Nx * Sh.Ny);
        for (auto &V : In)
          V = uint32_t(R());
        BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
          OPEN(H, dir(), "multi_kernel", "copy3d");
          uint64_t PI = H.buffer(In), PO = H.buffer(nullptr, In.size() * 4);
          H.arg(0, PI);
          H.arg(1, PO);
          H.arg(2, int32_t(Sh.Nx));
          H.arg(3, int32_t(Sh.Ny));
          H.arg(4, int32_t(Sh.Nz));
          if (Partial)
            RUN_ITEMS(H, {Sh.Nx, Sh.Ny, Sh.Nz}, Sh.Block, 0, WS);
          else
            RUN_GROUPS(
                H, {cdiv(Sh.Nx, Sh.Block[0]), cdiv(Sh.Ny, Sh.Block[1]), cdiv(Sh.Nz, Sh.Block[2])},
                Sh.Block, 0, WS);
          auto Out = H.read<uint32_t>(PO, In.size());
          for (uint32_t I = 0; I < In.size(); ++I)
            ASSERT_EQ(Out[I], I < Total ? In[I] : kPoison) << "element " << I;
          snap(S, Out);
        });
      }
}

// s[t] = in[g*B + t]; barrier; out[g*B + t] = s[B - 1 - t]: B comes from the launch, so whole
// workgroups (a partial one would read LDS its missing threads never wrote).
TEST_P(ClangKernels, MultiReverseDynamicLds) {
  for (uint64_t Seed : testSeeds())
    for (auto [B, Groups] : {std::pair{64u, 1u}, {256u, 3u}, {1024u, 2u}, {96u, 2u}}) {
      SCOPED_TRACE(trace(Seed, "block " + std::to_string(B) + " groups " + std::to_string(Groups)));
      std::mt19937_64 R(Seed * 1000 + B);
      std::vector<int32_t> In(B * Groups);
      for (auto &V : In)
        V = int32_t(R());
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, dir(), "multi_kernel", "reverse_dynamic_lds");
        uint64_t PI = H.buffer(In), PO = H.buffer(nullptr, In.size() * 4 + 64);
        H.arg(0, PI);
        H.arg(1, PO);
        RUN_GROUPS(H, {Groups, 1, 1}, {B, 1, 1}, B * 4, WS);
        auto Out = H.read<uint32_t>(PO, In.size() + 16);
        for (uint32_t G = 0; G < Groups; ++G)
          for (uint32_t T = 0; T < B; ++T)
            ASSERT_EQ(Out[G * B + T], uint32_t(In[G * B + B - 1 - T]))
                << "group " << G << " t " << T;
        for (uint32_t I = In.size(); I < In.size() + 16; ++I)
          ASSERT_EQ(Out[I], kPoison) << "element " << I << " was written";
        snap(S, Out);
      });
    }
}

// ---- ocl_kernels.cl (also target-id variants) -------------------------------------------------

// reqd_work_group_size(128): whole workgroups. `buf` is a __local argument: a
// dynamic_shared_pointer whose value is the LDS offset of the dynamic area, which starts after
// the kernel's static group segment.
void checkOclReduce(const std::string &Dir) {
  for (uint64_t Seed : testSeeds())
    for (uint32_t Groups : {1u, 3u, 8u}) {
      SCOPED_TRACE(trace(Seed, "groups " + std::to_string(Groups)));
      std::mt19937_64 R(Seed * 1000 + Groups);
      auto In = randomFloats(R, Groups * 128, -100, 100);
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, Dir, "ocl_kernels", "ocl_reduce");
        const KernelInfo *K = H.Obj->C.kernel(H.Config.Kernel);
        ASSERT_TRUE(K);
        ASSERT_EQ(H.Sig.explicitArgs().at(2)->ValueKind, "dynamic_shared_pointer");
        uint64_t PI = H.buffer(In), PO = H.buffer(nullptr, (Groups + 4) * 4);
        H.arg(0, PI);
        H.arg(1, PO);
        H.arg(2, uint32_t(roundUp(K->Kd.GroupSegmentFixedSize, 16)));
        RUN_GROUPS(H, {Groups, 1, 1}, {128, 1, 1}, 128 * 4, WS);
        auto Out = H.read<uint32_t>(PO, Groups + 4);
        for (uint32_t G = 0; G < Groups; ++G) {
          float Buf[128]; // buf[l] += buf[l + s], s = 64..1, in f32
          for (uint32_t T = 0; T < 128; ++T)
            Buf[T] = In[G * 128 + T];
          for (uint32_t St = 64; St > 0; St >>= 1)
            for (uint32_t T = 0; T < St; ++T)
              Buf[T] += Buf[T + St];
          ASSERT_EQ(Out[G], bitsF32(Buf[0])) << "group " << G;
        }
        for (uint32_t G = Groups; G < Groups + 4; ++G)
          ASSERT_EQ(Out[G], kPoison) << "group " << G << " does not exist";
        snap(S, Out);
      });
    }
}

void checkOclVadd4(const std::string &Dir) {
  for (uint64_t Seed : testSeeds())
    for (const Guarded &G : kGuardedShapes) {
      SCOPED_TRACE(trace(Seed, G.str()));
      std::mt19937_64 R(Seed * 1000 + G.N);
      auto A = randomFloats(R, G.N * 4, -100, 100), B = randomFloats(R, G.N * 4, -100, 100);
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, Dir, "ocl_kernels", "ocl_vadd4");
        uint32_t Len = (std::max(G.N, G.Items) + 4) * 4;
        uint64_t PA = H.buffer(A), PB = H.buffer(B), PC = H.buffer(nullptr, Len * 4);
        H.arg(0, PA);
        H.arg(1, PB);
        H.arg(2, PC);
        H.arg(3, G.N);
        RUN_ITEMS(H, {G.Items, 1, 1}, {G.Block, 1, 1}, 0, WS);
        auto Out = H.read<uint32_t>(PC, Len);
        uint32_t Ran = std::min(G.N, G.Items) * 4;
        for (uint32_t I = 0; I < Len; ++I)
          ASSERT_EQ(Out[I], I < Ran ? bitsF32(A[I] + B[I]) : kPoison) << "float " << I;
        snap(S, Out);
      });
    }
}

TEST_P(ClangKernels, OclReduce) { checkOclReduce(dir()); }
TEST_P(ClangKernels, OclVadd4) { checkOclVadd4(dir()); }
TEST_P(ClangVariants, OclReduce) { checkOclReduce(dir()); }
TEST_P(ClangVariants, OclVadd4) { checkOclVadd4(dir()); }

// ---- packed_math.hip --------------------------------------------------------------------------

TEST_P(ClangKernels, PackedHalf2) {
  for (uint64_t Seed : testSeeds())
    for (const Guarded &G : kGuardedShapes) {
      SCOPED_TRACE(trace(Seed, G.str()));
      std::mt19937_64 R(Seed * 1000 + G.N);
      std::vector<uint16_t> X(G.N * 2), Y(G.N * 2);
      for (auto &V : X)
        V = randomHalf(R, -8, 8);
      for (auto &V : Y)
        V = randomHalf(R, -8, 8);
      uint16_t A[2] = {randomHalf(R, -4, 4), randomHalf(R, -4, 4)};
      uint16_t B[2] = {randomHalf(R, -4, 4), randomHalf(R, -4, 4)};
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, dir(), "packed_math", "half2_ops");
        uint32_t Len = (2 * std::max(G.N, G.Items) + 4) * 2; // halves
        uint64_t PX = H.buffer(X), PY = H.buffer(Y), PO = H.buffer(nullptr, Len * 2);
        H.arg(0, PX);
        H.arg(1, PY);
        H.arg(2, PO);
        H.arg(3, uint32_t(A[0] | A[1] << 16));
        H.arg(4, uint32_t(B[0] | B[1] << 16));
        H.arg(5, int32_t(G.N));
        RUN_ITEMS(H, {G.Items, 1, 1}, {G.Block, 1, 1}, 0, WS);
        auto Out = H.read<uint16_t>(PO, Len);
        uint32_t Ran = std::min(G.N, G.Items);
        // Each f16 operation rounds its exact result once (products of halves are exact in
        // long double, and so is b*p + s).
        for (uint32_t I = 0; I < Ran; ++I)
          for (uint32_t C = 0; C < 2; ++C) {
            long double Xv = halfValue(X[2 * I + C]), Yv = halfValue(Y[2 * I + C]);
            long double P = roundHalf(halfValue(A[C]) * Xv), Sm = roundHalf(Xv + Yv);
            long double Fma = roundHalf(halfValue(B[C]) * P + Sm), Prod = roundHalf(P * Sm);
            ASSERT_EQ(Out[4 * I + C], halfBits(double(Fma))) << "fma of element " << I << "." << C;
            ASSERT_EQ(Out[4 * I + 2 + C], halfBits(double(Prod)))
                << "product of element " << I << "." << C;
          }
        for (uint32_t I = 4 * Ran; I < Len; ++I)
          ASSERT_EQ(Out[I], 0xffff) << "half " << I << " was written";
        snap(S, Out);
      });
    }
}

TEST_P(ClangKernels, PackedFloat2) {
  for (uint64_t Seed : testSeeds())
    for (const Guarded &G : kGuardedShapes) {
      SCOPED_TRACE(trace(Seed, G.str()));
      std::mt19937_64 R(Seed * 1000 + G.N);
      auto X = randomFloats(R, G.N * 2, -10, 10), Y = randomFloats(R, G.N * 2, -10, 10);
      auto A = randomFloats(R, 2, -3, 3);
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, dir(), "packed_math", "float2_fma");
        uint32_t Len = (2 * std::max(G.N, G.Items) + 4) * 2; // floats
        uint64_t PX = H.buffer(X), PY = H.buffer(Y), PO = H.buffer(nullptr, Len * 4);
        H.arg(0, PX);
        H.arg(1, PY);
        H.arg(2, PO);
        H.arg(3, uint64_t(bitsF32(A[0])) | uint64_t(bitsF32(A[1])) << 32);
        H.arg(4, int32_t(G.N));
        RUN_ITEMS(H, {G.Items, 1, 1}, {G.Block, 1, 1}, 0, WS);
        auto Out = H.read<uint32_t>(PO, Len);
        uint32_t Ran = std::min(G.N, G.Items);
        for (uint32_t I = 0; I < Ran; ++I)
          for (uint32_t C = 0; C < 2; ++C) {
            float W = Y[2 * I + C], V = std::fma(X[2 * I + C], A[C], W); // one rounding each
            ASSERT_EQ(Out[4 * I + C], bitsF32(V * W)) << "v*w of element " << I << "." << C;
            ASSERT_EQ(Out[4 * I + 2 + C], bitsF32(V + A[C])) << "v+a of element " << I << "." << C;
          }
        for (uint32_t I = 4 * Ran; I < Len; ++I)
          ASSERT_EQ(Out[I], kPoison) << "float " << I << " was written";
        snap(S, Out);
      });
    }
}

// ---- scratch.hip ------------------------------------------------------------------------------

// Thread t of every block builds the same private histogram of keys i = t, t + B, ... < n and
// writes hist[idx % 96] + hist[(idx * 7) % 96] with idx = out[t]. Block 0 reads its own slot
// before writing it; a later block reads out[t] either before or after block 0 wrote it.
TEST_P(ClangKernels, ScratchPrivateHistogram) {
  struct Shape {
    uint32_t Items, B, N;
  };
  for (uint64_t Seed : testSeeds())
    for (const Shape &Sh :
         {Shape{64, 64, 500}, {256, 256, 1000}, {200, 256, 700}, {640, 128, 300}, {300, 128, 90}}) {
      SCOPED_TRACE(trace(Seed, "items " + std::to_string(Sh.Items) + " block " +
                                   std::to_string(Sh.B) + " n " + std::to_string(Sh.N)));
      std::mt19937_64 R(Seed * 1000 + Sh.Items + Sh.N);
      std::vector<int32_t> Keys(Sh.N), Out0(roundUp(Sh.Items, Sh.B) + 16);
      for (auto &K : Keys)
        K = int32_t(R() % 2 ? R() : R() % 200);
      for (uint32_t I = 0; I < Out0.size(); ++I)
        Out0[I] = I < Sh.B ? int32_t(R()) : int32_t(kPoison); // only out[0..B) is read
      BOTH_INTERLEAVINGS([&](uint64_t WS, Snap &S) {
        OPEN(H, dir(), "scratch", "private_histogram");
        uint64_t PK = H.buffer(Keys), PO = H.buffer(Out0);
        H.arg(0, PK);
        H.arg(1, PO);
        H.arg(2, int32_t(Sh.N));
        RUN_ITEMS(H, {Sh.Items, 1, 1}, {Sh.B, 1, 1}, 0, WS);
        auto Out = H.read<int32_t>(PO, Out0.size());
        auto f = [&](uint32_t T, int32_t Idx) {
          int32_t Hist[96] = {};
          for (uint32_t I = T; I < Sh.N; I += Sh.B)
            Hist[uint32_t(Keys[I]) % 96] += Keys[I] & 7;
          return Hist[uint32_t(Idx) % 96] + Hist[(uint32_t(Idx) * 7u) % 96];
        };
        for (uint32_t I = 0; I < Out0.size(); ++I) {
          uint32_t T = I % Sh.B;
          if (I >= Sh.Items) {
            ASSERT_EQ(Out[I], Out0[I]) << "item " << I << " does not exist";
          } else if (I < Sh.B) {
            ASSERT_EQ(Out[I], f(T, Out0[T])) << "element " << I;
          } else {
            int32_t First = f(T, Out0[T]);
            ASSERT_TRUE(Out[I] == First || Out[I] == f(T, First))
                << "element " << I << ": " << Out[I];
          }
        }
        snap(S, std::vector<int32_t>(Out.begin(), Out.begin() + std::min(Sh.B, Sh.Items)));
      });
    }
}

INSTANTIATE_TEST_SUITE_P(Corpus, ClangKernels, ::testing::Values("gfx90a", "gfx942", "gfx950"),
                         [](const auto &I) { return std::string(I.param); });
INSTANTIATE_TEST_SUITE_P(Corpus, ClangVariants,
                         ::testing::Values("gfx90a-xnack+", "gfx90a-sramecc--xnack-",
                                           "gfx942-xnack-", "gfx942-sramecc+-xnack+",
                                           "gfx950-xnack-"),
                         [](const auto &I) {
                           std::string S = I.param;
                           for (char &C : S)
                             if (!isalnum(static_cast<unsigned char>(C)))
                               C = '_';
                           return S;
                         });

} // namespace
