// Test support: a hand-written kernel body, assembled and linked in-process for a target, run
// on the emulator over one buffer. The kernel gets the buffer's address in s[2:3], v0 = the
// work-item id and v1 = 4 * v0; its LDS is LdsBytes. The buffer holds BufferDwords dwords,
// dword i = i (or Init), and is read back after the run.
#pragma once

#include "AsmKernelSource.h"
#include "EmuHarness.h"

#include "asm/Assembler.h"
#include "codeobj/TargetId.h"
#include "support/FileIO.h"

#include <algorithm>
#include <string>
#include <vector>

namespace asmevo::emu::test {

struct AsmRun {
  std::string Error; // assembly, load or run error ("" when it ran)
  RunStats Stats;
  std::vector<uint32_t> Buffer;
  bool hasRule(const std::string &R) const {
    return std::any_of(Stats.Findings.begin(), Stats.Findings.end(),
                       [&](const UnsafeFinding &F) { return F.Rule == R; });
  }
  std::string findings() const {
    std::string S;
    for (const UnsafeFinding &F : Stats.Findings)
      S += F.Message + "\n";
    return S;
  }
};

inline AsmRun runAsmKernel(const std::string &Body, const AsmKernel &K = AsmKernel()) {
  AsmRun R;
  auto Dir = llvm::cantFail(TempDir::create("asmevo-asmkernel"));
  auto T = parseTargetId("amdgcn-amd-amdhsa--" + K.Target, 5);
  auto Obj = assembleAndLink(asmKernelSource(Body, K), "k.s", *T);
  if (!Obj) {
    R.Error = llvm::toString(Obj.takeError());
    return R;
  }
  std::string Path = Dir.file("k.hsaco");
  llvm::cantFail(writeFileAtomic(Path, *Obj));
  auto O = openCodeObject(Path);
  if (!O) {
    R.Error = llvm::toString(O.takeError());
    return R;
  }
  DeviceMemory Mem;
  auto E = Emulator::load((*O)->C, Mem);
  if (!E) {
    R.Error = llvm::toString(E.takeError());
    return R;
  }
  const size_t Bytes = size_t(K.BufferDwords) * 4;
  uint64_t Buf = Mem.allocate(Bytes, 256, "buffer");
  std::vector<uint32_t> Init(K.BufferDwords);
  for (uint32_t I = 0; I < K.BufferDwords; ++I)
    Init[I] = I < K.Init.size() ? K.Init[I] : I;
  llvm::cantFail(Mem.write(Buf, Init.data(), Bytes));
  LaunchConfig L;
  L.Kernel = "k";
  L.GridItems = {K.BlockItems, 1, 1};
  L.Block = {K.BlockItems, 1, 1};
  L.Kernarg.resize(8);
  std::memcpy(L.Kernarg.data(), &Buf, 8);
  L.Strict = K.Strict;
  L.Threads = 1;
  auto S = (*E)->run(L);
  if (!S) {
    R.Error = llvm::toString(S.takeError());
    return R;
  }
  R.Stats = std::move(*S);
  R.Buffer.resize(K.BufferDwords);
  llvm::cantFail(Mem.read(Buf, R.Buffer.data(), Bytes));
  return R;
}

} // namespace asmevo::emu::test
