#include "emu/Coverage.h"

#include "codeobj/CodeObject.h"
#include "codeobj/Input.h"
#include "emu/Decoder.h"
#include "emu/Dispatch.h"
#include "emu/EmuError.h"
#include "emu/Refusal.h"
#include "support/Error.h"

#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <unordered_map>

namespace asmevo::emu {

uint64_t CoverageReport::implementedOps() const {
  uint64_t N = 0;
  for (const auto &[M, C] : Ops)
    N += C.implemented();
  return N;
}

uint64_t CoverageReport::implementedInstructions() const {
  uint64_t N = 0;
  for (const auto &[M, C] : Ops)
    N += C.Implemented;
  return N;
}

namespace {

// Why the executor refuses In on a scratch wave with no active lanes ("" when it runs it).
// AfterScalePrefix: In follows a v_mfma_ld_scale_b32 (the two are one scaled MFMA). A refused
// form (Refusal.h) stops it, as it stops a run; so does an encoding an executor calls illegal.
// Any other error on the dummy state (a memory fault, a register fault) means implemented.
std::string probe(Inst In, Gfx G, bool AfterScalePrefix) {
  static thread_local std::unique_ptr<WaveState> W;
  if (!W)
    W = std::make_unique<WaveState>();
  std::memset(W->S, 0, sizeof(W->S));
  W->Scc = false;
  W->Done = W->AtBarrier = false;
  W->Pc = 0x1000;
  W->setExec(0);
  W->MfmaScalePending = AfterScalePrefix;
  W->MfmaScalePc = 0x1000 - 8;
  markRefusal(In, G);
  DeviceMemory Mem;
  Workgroup WG;
  ExecCtx C{*W, WG, Mem, G, 0x1000, 0, 0};
  try {
    return executeInst(C, In) ? "" : "no executor runs it";
  } catch (const EmuError &E) {
    if (E.Kind != EmuErrorKind::Unsupported && E.Kind != EmuErrorKind::IllegalInst)
      return "";
    // The probe's pc is its own, not the instance's (whose place the report gives).
    std::string Why = E.what();
    const std::string AtPc = " at pc " + hexText(0x1000);
    if (size_t At = Why.find(AtPc); At != std::string::npos)
      Why.erase(At, AtPc.size());
    return Why;
  }
}

std::string opKey(const Inst &I, Gfx G) {
  std::string M = mnemonic(I, G);
  if (I.Lds && M.find("_lds") == std::string::npos) // not global_load_lds_*, whose name says it
    M += " lds";
  if (I.Gds)
    M += " gds";
  return M;
}

} // namespace

llvm::Expected<CoverageReport> scanCoverage(const std::vector<std::string> &Inputs,
                                            std::vector<ProbedInst> *Accepted) {
  CoverageReport R;
  // By target and encoding: why the probe refused it, "" when it runs.
  std::unordered_map<std::string, std::string> Probed;
  for (const std::string &In : Inputs) {
    auto Objs = loadCodeObjects(In, "");
    if (!Objs)
      return Objs.takeError();
    for (const LoadedCodeObject &L : *Objs) {
      // A well-formed AMDGPU ELF for a known processor the emulator does not run (gfx10+,
      // gfx8, ...) is skipped, named, before the reader (which reads gfx9 only) would refuse it;
      // anything else goes to the reader, whose error every tool gives (exit 2).
      if (L.Bytes.size() >= 64 && looksLikeAmdgpuElf(L.Bytes)) {
        uint32_t EFlags;
        std::memcpy(&EFlags, L.Bytes.data() + 48, 4);
        Gfx G;
        std::string P = processorForMach(EFlags & 0xff);
        if (!P.empty() && !parseGfx(P.c_str(), G)) {
          R.Skipped.push_back(L.Name + " (" + P + ")");
          continue;
        }
      }
      auto CO = CodeObject::read(L.Bytes, L.Name);
      if (!CO)
        return CO.takeError();
      Gfx G;
      if (!parseGfx(CO->Target.Processor.c_str(), G)) {
        R.Skipped.push_back(L.Name + " (" + CO->Target.Processor + ")");
        continue;
      }
      ++R.Objects;
      bool Full = true;
      uint64_t Decoded = 0;
      std::set<std::string> Used;
      for (const FunctionExtent &S : CO->Functions) {
        llvm::StringRef Code = CO->code(S);
        if (Code.empty())
          continue;
        ++R.Functions;
        const uint8_t *P = reinterpret_cast<const uint8_t *>(Code.data());
        size_t Off = 0;
        bool AfterScalePrefix = false;
        while (Off + 4 <= Code.size()) {
          Inst I;
          std::string Why;
          if (!decodeInst(P + Off, Code.size() - Off, G, I, &Why)) {
            ++R.Undecodable;
            Off += 4;
            AfterScalePrefix = false;
            continue;
          }
          ++R.Instructions;
          ++Decoded;
          std::string Key = opKey(I, G);
          OpCoverage &C = R.Ops[Key];
          std::string Enc(char(G), 1);
          Enc += AfterScalePrefix ? 'S' : '-';
          Enc.append(reinterpret_cast<const char *>(P + Off), I.Size);
          auto [It, New] = Probed.emplace(Enc, std::string());
          if (New) {
            It->second = probe(I, G, AfterScalePrefix);
            if (It->second.empty() && Accepted)
              Accepted->push_back(ProbedInst{I, G, AfterScalePrefix, L.Name + ": " + S.Name});
          }
          AfterScalePrefix = I.Operation == Op::V_MFMA_LD_SCALE_B32;
          char Buf[32];
          std::snprintf(Buf, sizeof(Buf), "+0x%zx", Off);
          if (C.Count++ == 0)
            C.FirstSeen = L.Name + ": " + S.Name + Buf;
          if (Used.insert(Key).second)
            ++C.Objects;
          if (It->second.empty()) {
            ++C.Implemented;
          } else {
            Full = false;
            if (C.FirstMissing.empty())
              C.FirstMissing = L.Name + ": " + S.Name + Buf + ": " +
                               printInst(I, G, S.Begin + Off) + " (" + It->second + ")";
          }
          Off += I.Size;
        }
      }
      if (!CO->Kernels.empty() && Decoded == 0) {
        const FunctionExtent *F = CO->kernelCode(CO->Kernels.front());
        uint64_t Off =
            F ? CO->Sections[F->Section].Offset + (F->Begin - CO->Sections[F->Section].Addr) : 0;
        return fileError(L.Name, Off,
                         std::to_string(CO->Kernels.size()) +
                             " kernel(s) but no instruction of their code decodes");
      }
      R.ObjectsFullyCovered += Full;
    }
  }
  return R;
}

} // namespace asmevo::emu
