// Cross-check of the emulator's decoder and printer against LLVM's AMDGPU disassembler: every
// instruction of every function of every corpus code object (the committed Triton objects and
// the clang corpus built by corpus.build-clang) is decoded by both; the mnemonics, the printed
// texts and the sizes must agree. Words LLVM cannot decode are counted and skipped.
#include "asm/Disassembler.h"
#include "asm/McTarget.h"
#include "codeobj/CodeObject.h"
#include "codeobj/Input.h"
#include "emu/Decoder.h"

#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace asmevo;

namespace {

std::vector<fs::path> corpusFiles(const fs::path &Dir) {
  std::vector<fs::path> Out;
  if (!fs::is_directory(Dir))
    return Out;
  for (auto &E : fs::recursive_directory_iterator(Dir))
    if (E.is_regular_file() && E.path().extension() == ".hsaco")
      Out.push_back(E.path());
  std::sort(Out.begin(), Out.end());
  return Out;
}

std::string hexBytes(llvm::StringRef B) {
  std::string S;
  for (unsigned char C : B) {
    char T[4];
    std::snprintf(T, sizeof T, "%02x", C);
    if (!S.empty())
      S += ' ';
    S += T;
  }
  return S;
}

// "v_mfma_ld_scale_b32 S0, S1[ op_sel:[a,b]][ op_sel_hi:[c,d]]" and "v_mfma_X D, A, B, C[ mods]"
// as LLVM prints the one instruction: "v_mfma_scale_X D, A, B, C, S0, S1[ op_sel:[a,b,0]]
// op_sel_hi:[c,d,0][ cbsz..]" (op_sel_hi's default is all ones, so with a third 0 it always
// prints).
std::string scaledMfmaText(const std::string &Prefix, const std::string &Mfma) {
  auto split = [](const std::string &S, const std::string &At) {
    size_t P = S.find(At);
    return P == std::string::npos ? std::make_pair(S, std::string())
                                  : std::make_pair(S.substr(0, P), S.substr(P));
  };
  std::string PrefixOps = Prefix.substr(Prefix.find(' ') + 1);
  auto [ScaleOps, Mods] = split(PrefixOps, " op_sel");
  std::string OpSel = "[0,0,0]", OpSelHi = "[1,1,0]";
  if (auto [_, T] = split(Mods, " op_sel:"); !T.empty())
    OpSel = T.substr(8, 5).substr(0, 4) + ",0]";
  if (auto [_, T] = split(Mods, " op_sel_hi:"); !T.empty())
    OpSelHi = T.substr(11, 5).substr(0, 4) + ",0]";
  std::string Mn = Mfma.substr(0, Mfma.find(' '));
  size_t ModAt = Mfma.find(" cbsz:");
  for (const char *M : {" abid:", " blgp:"})
    ModAt = std::min(ModAt, Mfma.find(M));
  std::string Ops = Mfma.substr(Mn.size() + 1, ModAt == std::string::npos ? std::string::npos
                                                                          : ModAt - Mn.size() - 1);
  std::string Tail = ModAt == std::string::npos ? "" : Mfma.substr(ModAt);
  // The MFMA half of the pair encodes abid = 1, which the one instruction does not print.
  if (size_t A = Tail.find(" abid:1"); A != std::string::npos)
    Tail.erase(A, 7);
  std::string S = "v_mfma_scale_" + Mn.substr(7) + " " + Ops + ", " + ScaleOps;
  if (OpSel != "[0,0,0]")
    S += " op_sel:" + OpSel;
  S += " op_sel_hi:" + OpSelHi + Tail;
  return S;
}

struct Totals {
  unsigned Objects = 0;
  uint64_t Insns = 0, Agreed = 0, LlvmSkipped = 0, Mismatches = 0;
  std::vector<std::string> First;
  size_t MaxShown = 20; // ASMEVO_DECODER_MISMATCHES=N shows more
};

void checkBytes(llvm::StringRef Bytes, const fs::path &P, Totals &T) {
  auto C = CodeObject::read(Bytes, P.string());
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  emu::Gfx G;
  ASSERT_TRUE(emu::parseGfx(C->Target.Processor.c_str(), G)) << P << ": " << C->Target.Processor;
  auto MOr = McTarget::get(C->Target);
  ASSERT_TRUE(bool(MOr)) << llvm::toString(MOr.takeError());
  McTarget &M = **MOr;
  ++T.Objects;
  for (const FunctionExtent &F : C->Functions) {
    llvm::StringRef Code = C->code(F);
    auto Insns = decodeRange(M, Code, F.Begin);
    for (const auto &D : Insns) {
      if (!D.Valid) {
        ++T.LlvmSkipped;
        continue;
      }
      ++T.Insns;
      uint64_t Off = D.Addr - F.Begin;
      emu::Inst In;
      std::string Why, Ours, OurMn;
      bool Ok = emu::decodeInst(reinterpret_cast<const uint8_t *>(Code.data()) + Off,
                                Code.size() - Off, G, In, &Why);
      std::string Theirs = printInsn(M, D);
      std::string TheirMn = Theirs.substr(0, Theirs.find(' '));
      if (Ok) {
        OurMn = emu::mnemonic(In, G);
        Ours = emu::printInst(In, G, D.Addr);
      } else {
        Ours = "<decode error: " + Why + ">";
      }
      // LLVM reads gfx950's scaled MFMA (VOP3PX2, 16 bytes) as one instruction; this decoder
      // reads it as the prefix v_mfma_ld_scale_b32 and the MFMA after it, and the emulator runs
      // the two as one. Compare the pair with LLVM's text, rebuilt in LLVM's operand order.
      if (Ok && OurMn == "v_mfma_ld_scale_b32" && D.Size == 16 && In.Size == 8) {
        emu::Inst Next;
        if (emu::decodeInst(reinterpret_cast<const uint8_t *>(Code.data()) + Off + 8,
                            Code.size() - Off - 8, G, Next, &Why) &&
            Next.Size == 8) {
          Ours = scaledMfmaText(emu::printInst(In, G, D.Addr), emu::printInst(Next, G, D.Addr + 8));
          OurMn = Ours.substr(0, Ours.find(' '));
          In.Size = 16;
        }
      }
      if (Ok && In.Size == D.Size && OurMn == TheirMn && Ours == Theirs) {
        ++T.Agreed;
        continue;
      }
      ++T.Mismatches;
      if (T.First.size() < T.MaxShown) {
        char A[32];
        std::snprintf(A, sizeof A, "0x%llx", (unsigned long long)D.Addr);
        std::string Msg = P.filename().string() + " (" + C->Target.Processor + ") " + A + " [" +
                          hexBytes(D.Bytes) + "]\n    llvm: " + Theirs + "  (" + TheirMn + ", " +
                          std::to_string(D.Size) + " bytes)\n    ours: " + Ours;
        if (Ok)
          Msg += "  (" + OurMn + ", " + std::to_string(In.Size) + " bytes)";
        T.First.push_back(Msg);
      }
    }
  }
}

void checkObject(const fs::path &P, Totals &T) {
  auto Buf = llvm::MemoryBuffer::getFile(P.string());
  ASSERT_TRUE(bool(Buf)) << "cannot read " << P;
  checkBytes((*Buf)->getBuffer(), P, T);
}

void report(const Totals &T) {
  for (auto &M : T.First)
    std::printf("MISMATCH %s\n", M.c_str());
  std::printf("decoder cross-check: %u objects, %llu instructions, %llu agreed, %llu mismatched, "
              "%llu words LLVM cannot decode (skipped)\n",
              T.Objects, (unsigned long long)T.Insns, (unsigned long long)T.Agreed,
              (unsigned long long)T.Mismatches, (unsigned long long)T.LlvmSkipped);
  EXPECT_EQ(T.Mismatches, 0u);
  EXPECT_EQ(T.Agreed, T.Insns);
}

} // namespace

// Opt-in long run: ASMEVO_DECODER_EXTRA="spec,spec,..." (files, libraries with embedded code
// objects, or file:// URIs); every code object for a target the emulator runs is checked.
TEST(DecoderCrossCheck, ExtraInputs) {
  const char *E = std::getenv("ASMEVO_DECODER_EXTRA");
  if (!E || !*E)
    GTEST_SKIP() << "set ASMEVO_DECODER_EXTRA to cross-check more code objects";
  Totals T;
  if (const char *N = std::getenv("ASMEVO_DECODER_MISMATCHES"))
    T.MaxShown = std::strtoul(N, nullptr, 10);
  std::string All = E;
  for (size_t Pos = 0; Pos <= All.size();) {
    size_t Comma = All.find(',', Pos);
    std::string Spec =
        All.substr(Pos, Comma == std::string::npos ? std::string::npos : Comma - Pos);
    Pos = Comma == std::string::npos ? All.size() + 1 : Comma + 1;
    if (Spec.empty())
      continue;
    auto Objs = loadCodeObjects(Spec, "");
    ASSERT_TRUE(bool(Objs)) << llvm::toString(Objs.takeError());
    for (const LoadedCodeObject &L : *Objs) {
      if (L.Bytes.size() < 64)
        continue;
      uint32_t EFlags;
      std::memcpy(&EFlags, L.Bytes.data() + 48, 4);
      emu::Gfx G;
      if (!emu::parseGfx(processorForMach(EFlags & 0xff).c_str(), G))
        continue;
      checkBytes(L.Bytes, L.Name, T);
    }
  }
  report(T);
}

TEST(DecoderCrossCheck, CorpusAgreesWithLlvm) {
  const fs::path Src(ASMEVO_SOURCE_DIR), Corpus(ASMEVO_CORPUS_DIR);
  const fs::path Clang = Corpus / "clang";
  ASSERT_TRUE(fs::is_directory(Clang))
      << "clang corpus not found at " << Clang
      << ": run the corpus.build-clang test (ctest -R corpus.build-clang) first";
  std::vector<fs::path> Files;
  for (const char *A : {"gfx90a", "gfx942", "gfx950"})
    for (auto &F : corpusFiles(Src / "test/corpus/triton" / A))
      Files.push_back(F);
  size_t NTriton = Files.size();
  for (auto &F : corpusFiles(Clang))
    Files.push_back(F);
  ASSERT_GT(NTriton, 0u) << "no Triton corpus objects";
  ASSERT_GT(Files.size(), NTriton)
      << "clang corpus directory " << Clang << " holds no code objects: run corpus.build-clang";
  Totals T;
  if (const char *E = std::getenv("ASMEVO_DECODER_MISMATCHES"))
    T.MaxShown = std::strtoul(E, nullptr, 10);
  for (auto &F : Files)
    checkObject(F, T);
  report(T);
}
