// Every instruction of the corpus (Triton objects for three targets, the compiled corpus built
// by corpus.build-clang) decodes and is implemented by the emulator, with one documented
// exception: gfx950's ds_read_b64_tr_b16 (see triton_kernels_test.cpp). And what the coverage
// probe calls implemented, the executor runs: every distinct encoding it accepts is run with all
// 64 lanes active, and no run may be refused (the agreement test; ASMEVO_AITER_HSA, a directory
// of AITer's hsa/ objects, adds those, opt-in).
#include "AsmKernel.h"
#include "emu/Coverage.h"
#include "emu/Decoder.h"
#include "emu/Dispatch.h"
#include "emu/EmuError.h"
#include "emu/Refusal.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <set>

using namespace asmevo::emu;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> objectsUnder(const std::string &Dir, const std::string &Ext) {
  std::vector<std::string> R;
  if (!fs::exists(Dir))
    return R;
  for (const auto &E : fs::recursive_directory_iterator(Dir))
    if (E.is_regular_file() && E.path().extension() == Ext)
      R.push_back(E.path().string());
  std::sort(R.begin(), R.end());
  return R;
}

void expectCovered(const std::vector<std::string> &Objs, const std::set<std::string> &Allowed,
                   uint64_t MinInstructions) {
  auto R = scanCoverage(Objs);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Undecodable, 0u);
  EXPECT_GE(R->Instructions, MinInstructions);
  for (const auto &[M, C] : R->Ops) {
    if (!C.implemented()) {
      EXPECT_TRUE(Allowed.count(M))
          << M << " (" << C.Count << "x, first at " << C.FirstSeen << ") is not implemented";
    }
  }
  std::printf("coverage: %llu objects, %llu instructions, %llu/%zu mnemonics implemented\n",
              (unsigned long long)R->Objects, (unsigned long long)R->Instructions,
              (unsigned long long)R->implementedOps(), R->Ops.size());
}

TEST(Coverage, TritonCorpus) {
  std::string Dir = std::string(ASMEVO_SOURCE_DIR) + "/test/corpus/triton";
  expectCovered(objectsUnder(Dir + "/gfx90a", ".hsaco"), {}, 4000);
  expectCovered(objectsUnder(Dir + "/gfx942", ".hsaco"), {}, 4000);
  expectCovered(objectsUnder(Dir + "/gfx950", ".hsaco"), {"ds_read_b64_tr_b16"}, 4000);
}

TEST(Coverage, CompiledCorpus) {
  auto Objs = objectsUnder(std::string(ASMEVO_CORPUS_DIR) + "/clang", ".hsaco");
  ASSERT_FALSE(Objs.empty()) << "no compiled corpus under " << ASMEVO_CORPUS_DIR
                             << "/clang: run the corpus.build-clang test first";
  expectCovered(Objs, {}, 5000);
}

// Run In on W (its registers as the caller left them) with every lane active, 64 KiB of LDS and
// no device memory, marked by the form predicate as a run marks it. Ran: it completed; Refused:
// it stopped as unsupported or illegal, with the message in Why. Any other stop (a memory or
// register fault, a trap) is neither: the data's doing.
struct LaneRun {
  bool Ran = false, Refused = false;
  std::string Why;
};

LaneRun runAllLanes(WaveState &W, Inst In, Gfx G) {
  W.Scc = false;
  W.Done = W.AtBarrier = false;
  W.Pc = 0x1000;
  W.setExec(~0ull);
  markRefusal(In, G);
  DeviceMemory Mem;
  Workgroup WG;
  WG.Lds.assign(65536, 0);
  WG.NumWaves = 1;
  ExecCtx C{W, WG, Mem, G, 0x1000, 0, 0};
  LaneRun R;
  try {
    R.Ran = executeInst(C, In);
    R.Refused = !R.Ran;
    if (R.Refused)
      R.Why = "no executor runs it";
  } catch (const EmuError &E) {
    R.Refused = E.Kind == EmuErrorKind::Unsupported || E.Kind == EmuErrorKind::IllegalInst;
    if (R.Refused)
      R.Why = E.what();
  }
  return R;
}

// An accepted encoding on a wave whose VGPRs hold small, 16-byte-aligned values (LDS addresses
// in range, small shift counts) and whose SGPRs are 0; one that follows a v_mfma_ld_scale_b32
// gets scales of 1 from it. A refusal is a disagreement with the probe: its message, or "".
std::string refusalWithAllLanes(const ProbedInst &P) {
  static thread_local std::unique_ptr<WaveState> W;
  if (!W)
    W = std::make_unique<WaveState>();
  std::memset(W->S, 0, sizeof(W->S));
  for (unsigned R = 0; R < kNumVectorRegs; ++R)
    for (unsigned L = 0; L < kWaveSize; ++L)
      W->vrow(R)[L] = 16 * ((L + R) % 64);
  W->Mode = 0;
  W->MfmaScalePending = P.AfterScalePrefix;
  W->MfmaScalePc = 0x1000 - 8;
  if (P.AfterScalePrefix) { // v_mfma_ld_scale_b32 s0, s1: E8M0 scales of 1
    W->MfmaScale = Inst();
    W->MfmaScale.Operation = Op::V_MFMA_LD_SCALE_B32;
    W->MfmaScale.Encoding = Enc::VOP3P;
    W->MfmaScale.Src[0] = 0;
    W->MfmaScale.Src[1] = 1;
    W->S[0] = W->S[1] = 127u << 23;
  }
  return runAllLanes(*W, P.In, P.Target).Why;
}

void expectAgreement(const std::vector<std::string> &Objs, size_t MinEncodings) {
  std::vector<ProbedInst> Accepted;
  auto R = scanCoverage(Objs, &Accepted);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_GE(Accepted.size(), MinEncodings);
  unsigned Refused = 0;
  for (const ProbedInst &P : Accepted) {
    std::string Why = refusalWithAllLanes(P);
    if (!Why.empty() && ++Refused <= 20)
      ADD_FAILURE() << "the probe calls " << printInst(P.In, P.Target, 0x1000)
                    << " implemented, and with all lanes active the executor refuses it: " << Why
                    << " (first in " << P.Where << ")";
  }
  EXPECT_EQ(Refused, 0u);
  std::printf("agreement: %zu distinct encodings accepted by the probe, %u refused with all "
              "lanes active\n",
              Accepted.size(), Refused);
}

TEST(CoverageAgreement, TritonCorpus) {
  std::string Dir = std::string(ASMEVO_SOURCE_DIR) + "/test/corpus/triton";
  for (const char *A : {"gfx90a", "gfx942", "gfx950"})
    expectAgreement(objectsUnder(Dir + "/" + A, ".hsaco"), 500);
}

TEST(CoverageAgreement, CompiledCorpus) {
  auto Objs = objectsUnder(std::string(ASMEVO_CORPUS_DIR) + "/clang", ".hsaco");
  ASSERT_FALSE(Objs.empty()) << "no compiled corpus under " << ASMEVO_CORPUS_DIR << "/clang";
  expectAgreement(Objs, 500);
}

// Opt-in: ASMEVO_AITER_HSA=/path/to/aiter/hsa (AITer's shipped objects are not committed).
TEST(CoverageAgreement, AiterObjects) {
  const char *Dir = std::getenv("ASMEVO_AITER_HSA");
  if (!Dir)
    GTEST_SKIP() << "ASMEVO_AITER_HSA is not set";
  for (const char *A : {"gfx942", "gfx950"})
    expectAgreement(objectsUnder(std::string(Dir) + "/" + A, ".co"), 1000);
}

// An executor that accepts an encoding must not ignore a modifier it carries: for every accepted
// VALU/MFMA encoding of the corpora (AITer's with ASMEVO_AITER_HSA) that carries abs, neg,
// neg_hi, op_sel, clamp or omod, run it on random register contents with and without each one;
// removing it must change some register. One exception, by construction: the op_sel of
// v_mfma_ld_scale_b32 selects the scale bytes the following F8F6F4 MFMA reads, so the prefix
// alone changes nothing with or without it (mfma_f8f6f4_test checks those selects).
// In on W with the registers of From and every lane active; true when it completed.
bool ranFrom(WaveState &W, const WaveState &From, const Inst &In, Gfx G) {
  std::memcpy(W.V, From.V, sizeof(W.V));
  std::memcpy(W.S, From.S, sizeof(W.S));
  W.Mode = From.Mode;
  W.MfmaScalePending = false;
  return runAllLanes(W, In, G).Ran;
}

// One instruction per modifier kind, assembled by LLVM for gfx942, so that the check has every
// kind even where the committed corpora lack one.
const char *const kModifierKinds = R"(
	v_add_f32_e64 v2, v3, v4 clamp
	v_add_f32_e64 v2, v3, v4 mul:2
	v_add_f32_e64 v2, |v3|, -v4
	v_fma_f16 v2, v3, v4, v5 op_sel:[1,0,1,0]
	v_pk_fma_f16 v2, v3, v4, v5 neg_lo:[1,0,0] neg_hi:[0,1,0]
	v_pk_add_f16 v2, v3, v4 op_sel:[1,0] op_sel_hi:[0,1]
	v_add_u32_e64 v2, v3, v4 clamp
	v_max_f32_e64 v2, -v3, |v4|
	v_cvt_f32_f16_e64 v2, -v3 clamp
	v_fma_f64 v[2:3], v[4:5], -v[6:7], v[8:9] mul:4
	s_endpgm
)";

TEST(CoverageAgreement, NoModifierIgnored) {
  std::vector<std::string> Objs;
  auto Tmp = llvm::cantFail(asmevo::TempDir::create("asmevo-modifiers"));
  {
    asmevo::emu::test::AsmKernel K;
    auto T = asmevo::parseTargetId("amdgcn-amd-amdhsa--gfx942", 5);
    auto Obj =
        asmevo::assembleAndLink(asmevo::emu::test::asmKernelSource(kModifierKinds, K), "m.s", *T);
    ASSERT_TRUE(bool(Obj)) << llvm::toString(Obj.takeError());
    Objs.push_back(Tmp.file("modifiers.hsaco"));
    llvm::cantFail(asmevo::writeFileAtomic(Objs.back(), *Obj));
  }
  std::string Dir = std::string(ASMEVO_SOURCE_DIR) + "/test/corpus/triton";
  for (const char *A : {"gfx90a", "gfx942", "gfx950"})
    for (auto &O : objectsUnder(Dir + "/" + A, ".hsaco"))
      Objs.push_back(O);
  for (auto &O : objectsUnder(std::string(ASMEVO_CORPUS_DIR) + "/clang", ".hsaco"))
    Objs.push_back(O);
  if (const char *H = std::getenv("ASMEVO_AITER_HSA"))
    for (const char *A : {"gfx942", "gfx950"})
      for (auto &O : objectsUnder(std::string(H) + "/" + A, ".co"))
        Objs.push_back(O);
  std::vector<ProbedInst> Accepted;
  auto R = scanCoverage(Objs, &Accepted);
  ASSERT_TRUE(bool(R));
  auto Base = std::make_unique<WaveState>(), A = std::make_unique<WaveState>(),
       B = std::make_unique<WaveState>();
  std::mt19937 Rng(7);
  for (unsigned I = 0; I < kNumVectorRegs * kWaveSize; ++I)
    Base->V[I] = Rng();
  for (unsigned I = 0; I < 102; ++I)
    Base->S[I] = Rng();
  Base->Mode = 0x3f0;
  std::map<std::string, unsigned> Ignored;
  std::map<std::string, std::string> Example;
  for (const ProbedInst &P : Accepted) {
    const Inst &In = P.In;
    if (In.Encoding != Enc::VOP1 && In.Encoding != Enc::VOP2 && In.Encoding != Enc::VOPC &&
        In.Encoding != Enc::VOP3 && In.Encoding != Enc::VOP3P)
      continue;
    struct Mod {
      const char *Name;
      bool Set;
      void (*Clear)(Inst &);
    };
    const Mod Mods[] = {
        {"abs", In.Abs != 0, [](Inst &I) { I.Abs = 0; }},
        {"neg", In.Neg != 0, [](Inst &I) { I.Neg = 0; }},
        {"neg_hi", In.NegHi != 0, [](Inst &I) { I.NegHi = 0; }},
        {"op_sel", In.Opsel != 0, [](Inst &I) { I.Opsel = 0; }},
        {"clamp", In.Clamp, [](Inst &I) { I.Clamp = false; }},
        {"omod", In.Omod != 0, [](Inst &I) { I.Omod = 0; }},
    };
    for (const Mod &M : Mods) {
      if (!M.Set)
        continue;
      Inst Without = In;
      M.Clear(Without);
      if (!ranFrom(*A, *Base, In, P.Target) || !ranFrom(*B, *Base, Without, P.Target))
        continue;
      if (std::memcmp(A->V, B->V, sizeof(A->V)) == 0 &&
          std::memcmp(A->S, B->S, sizeof(A->S)) == 0 && A->Scc == B->Scc) {
        std::string K = std::string(opNameLower(In.Operation)) + " " + M.Name;
        if (Ignored[K]++ == 0)
          Example[K] = printInst(In, P.Target, 0x1000) + " (" + P.Where + ")";
      }
    }
  }
  unsigned Checked = 0;
  for (const auto &[K, N] : Ignored) {
    if (K == "v_mfma_ld_scale_b32 op_sel")
      continue;
    ADD_FAILURE() << K << " is ignored by the executor (" << N << " encodings, e.g. " << Example[K]
                  << ")";
  }
  for (const ProbedInst &P : Accepted)
    Checked += P.In.Abs || P.In.Neg || P.In.NegHi || P.In.Opsel || P.In.Clamp || P.In.Omod;
  EXPECT_GE(Checked, 100u);
  std::printf("modifiers: %u accepted encodings carry one, %zu ignored\n", Checked, Ignored.size());
}

} // namespace
