#include "emu/Coverage.h"

#include "codeobj/CodeObject.h"
#include "codeobj/Input.h"
#include "emu/Decoder.h"
#include "emu/EmuError.h"
#include "emu/Exec.h"

#include <cstdio>
#include <cstring>
#include <memory>

namespace asmevo::emu {

uint64_t CoverageReport::implementedOps() const {
  uint64_t N = 0;
  for (const auto &[M, C] : Ops)
    N += C.Implemented;
  return N;
}

uint64_t CoverageReport::implementedInstructions() const {
  uint64_t N = 0;
  for (const auto &[M, C] : Ops)
    N += C.Implemented ? C.Count : 0;
  return N;
}

namespace {

bool probe(const Inst &In, Gfx G) {
  static thread_local std::unique_ptr<WaveState> W;
  if (!W)
    W = std::make_unique<WaveState>();
  std::memset(W->s, 0, sizeof(W->s));
  W->scc = false;
  W->done = W->atBarrier = false;
  W->pc = 0x1000;
  W->setExec(0);
  DeviceMemory Mem;
  Workgroup WG;
  ExecCtx C{*W, WG, Mem, G, 0x1000, 0, 0};
  try {
    return executeInst(C, In);
  } catch (const EmuError &E) {
    return E.Kind != EmuErrorKind::Unsupported;
  }
}

} // namespace

llvm::Expected<CoverageReport> scanCoverage(const std::vector<std::string> &Inputs,
                                            std::vector<std::string> *Skipped) {
  CoverageReport R;
  for (const std::string &In : Inputs) {
    auto Objs = loadCodeObjects(In, "");
    if (!Objs)
      return Objs.takeError();
    for (const LoadedCodeObject &L : *Objs) {
      // Objects for other processors (gfx10+, gfx8, ...) are skipped, named, before the
      // reader (which only reads gfx9) would refuse them.
      if (L.Bytes.size() >= 64) {
        uint32_t EFlags;
        std::memcpy(&EFlags, L.Bytes.data() + 48, 4);
        Gfx G;
        std::string P = processorForMach(EFlags & 0xff);
        if (!parseGfx(P.c_str(), G)) {
          if (Skipped)
            Skipped->push_back(L.Name + " (" + (P.empty() ? "unknown processor" : P) + ")");
          continue;
        }
      }
      auto CO = CodeObject::read(L.Bytes, L.Name);
      if (!CO)
        return CO.takeError();
      Gfx G;
      if (!parseGfx(CO->Target.Processor.c_str(), G)) {
        if (Skipped)
          Skipped->push_back(L.Name + " (" + CO->Target.Processor + ")");
        continue;
      }
      ++R.Objects;
      for (unsigned SI : CO->functionSymbols()) {
        const ElfSymbol &S = CO->Symbols[SI];
        llvm::StringRef Code = CO->bytesAt(S.Value, S.Size);
        if (Code.empty())
          continue;
        ++R.Functions;
        const uint8_t *P = reinterpret_cast<const uint8_t *>(Code.data());
        size_t Off = 0;
        while (Off + 4 <= Code.size()) {
          Inst I;
          std::string Why;
          if (!decodeInst(P + Off, Code.size() - Off, G, I, &Why)) {
            ++R.Undecodable;
            Off += 4;
            continue;
          }
          ++R.Instructions;
          std::string M = mnemonic(I, G);
          OpCoverage &C = R.Ops[M];
          if (C.Count++ == 0) {
            C.Implemented = probe(I, G);
            char Buf[32];
            std::snprintf(Buf, sizeof(Buf), "+0x%zx", Off);
            C.FirstSeen = L.Name + ": " + S.Name + Buf;
          }
          Off += I.size;
        }
      }
    }
  }
  return R;
}

} // namespace asmevo::emu
