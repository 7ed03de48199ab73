// Placing a captured dispatch on a device (launch/CaptureLaunch.h).
#include "launch/CaptureLaunch.h"

#include "launch/ArgBinding.h"
#include "launch/LaunchGeometry.h"
#include "support/Error.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

namespace asmevo::launch {

namespace {
// Where M placed the bundle's global variable G, checked against the recorded size.
llvm::Expected<device::GlobalSymbol> globalOf(device::Module &M, const CapturedGlobal &G) {
  auto S = M.global(G.Name);
  if (!S)
    return S.takeError();
  if (S->Size != G.Pre.size())
    return makeError("global variable '" + G.Name + "' has " + llvm::Twine(S->Size) +
                     " bytes in '" + M.codeObject().Path + "', " + llvm::Twine(G.Pre.size()) +
                     " in the capture");
  return S;
}
} // namespace

llvm::Error checkCapturedK0(const CaptureBundle &B, llvm::StringRef K0Bytes, llvm::StringRef K0Path,
                            llvm::StringRef BundlePath) {
  llvm::StringRef Recorded(reinterpret_cast<const char *>(B.CodeObject.data()),
                           B.CodeObject.size());
  if (K0Bytes == Recorded)
    return llvm::Error::success();
  return makeError("'" + K0Path + "' is not the code object the capture recorded ('" + BundlePath +
                   "' holds " + llvm::Twine(Recorded.size()) +
                   " bytes of another; the bundle itself can be K0: " +
                   "give BUNDLE as K0 with --capture BUNDLE)");
}

llvm::Error checkCaptureKernarg(const CaptureBundle &B, const KernelSignature &Sig,
                                llvm::StringRef BundlePath) {
  uint32_t Need = explicitArgsEnd(Sig);
  uint32_t Segment = Sig.KernargSize;
  auto Explicit = Sig.explicitArgs();
  if (B.Kernarg.size() < Need) {
    // The first argument the bytes do not hold.
    size_t I = 0;
    while (I < Explicit.size() && Explicit[I]->Offset + Explicit[I]->Size <= B.Kernarg.size())
      ++I;
    return withFile(makeError("the capture's kernarg is " + llvm::Twine(B.Kernarg.size()) +
                              " bytes, but kernel '" + B.Kernel + "' takes " + llvm::Twine(Need) +
                              " bytes of explicit arguments: it ends before the end of "
                              "argument " +
                              argLabel(Explicit, I) + " (offset " +
                              llvm::Twine(Explicit[I]->Offset) + ", " +
                              llvm::Twine(Explicit[I]->Size) +
                              " bytes); the bundle is cut short or not this kernel's"),
                    BundlePath);
  }
  if (Segment && B.Kernarg.size() > Segment)
    return withFile(makeError("the capture's kernarg is " + llvm::Twine(B.Kernarg.size()) +
                              " bytes, more than kernel '" + B.Kernel + "''s " +
                              llvm::Twine(Segment) + "-byte kernarg segment"),
                    BundlePath);
  return llvm::Error::success();
}

llvm::Error blameCaptureFault(llvm::Error E, const CaptureBundle &B, const KernelSignature &Sig,
                              llvm::StringRef BundlePath) {
  E = llvm::handleErrors(std::move(E), [&](std::unique_ptr<ToolError> T) -> llvm::Error {
    if (T->isA(MemoryFaultError::classID()) || T->Kind != ErrorKind::Input || !T->File.empty())
      return llvm::Error(std::move(T));
    return withFile(llvm::Error(std::move(T)), BundlePath);
  });
  return llvm::handleErrors(std::move(E), [&](std::unique_ptr<MemoryFaultError> F) -> llvm::Error {
    std::string Why;
    // The region that ends nearest below the address: one cut short, or the neighbour of a
    // missing one.
    const CapturedRegion *Below = nullptr;
    for (const CapturedRegion &R : B.Regions)
      if (R.Base + R.size() <= F->Address)
        Below = &R;
    // A pointer argument whose value lies at most 1 GiB below the address, in no region.
    auto Explicit = Sig.explicitArgs();
    std::string Arg;
    uint64_t Best = 1ull << 30;
    for (size_t I = 0; I < Explicit.size(); ++I) {
      const KernelArg &A = *Explicit[I];
      if (!A.isGlobalBuffer() || A.Size != 8 || uint64_t(A.Offset) + 8 > B.Kernarg.size())
        continue;
      uint64_t V;
      std::memcpy(&V, B.Kernarg.data() + A.Offset, 8);
      if (V && V <= F->Address && F->Address - V < Best && !B.regionAt(V)) {
        Best = F->Address - V;
        Arg = "argument " + argLabel(Explicit, I) + " (kernarg+" + hexText(A.Offset) +
              ") points to " + hexText(V) + ", which no region holds";
      }
    }
    if (!Arg.empty())
      Why = Arg;
    else if (Below && F->Address - (Below->Base + Below->size()) < (1ull << 30))
      Why = "it lies " + std::to_string(F->Address - Below->Base - Below->size()) +
            " bytes past the end of region " + hexText(Below->Base) + " (reached from " +
            Below->ReachedFrom + ", " + std::to_string(Below->size()) +
            " bytes), which is cut short or lacks a neighbour";
    else
      Why = "no region holds it";
    return withFile(makeError("K0, the code object the capture recorded, faults on memory the "
                              "bundle does not hold (" +
                              F->Instruction + " at " + hexText(F->Address) + "): " + Why +
                              "; capture the dispatch again"),
                    BundlePath);
  });
}

llvm::Expected<CapturePlacement> placeCaptureRegions(device::Device &Dev, const CaptureBundle &B) {
  std::vector<device::Device::Placement> Ps;
  for (const CapturedRegion &R : B.Regions)
    Ps.push_back({R.Base, R.size(), "region " + hexText(R.Base), 0});
  if (llvm::Error E = Dev.place(Ps))
    return std::move(E);
  CapturePlacement P;
  P.Kernarg = B.Kernarg;
  for (const device::Device::Placement &X : Ps) {
    P.Bases.push_back(X.Got);
    P.Moved += X.Got != X.Want;
  }
  if (!P.Moved)
    return P;
  auto load = [](const uint8_t *Q) {
    uint64_t V;
    std::memcpy(&V, Q, 8);
    return V;
  };
  // A pointer into a moved region stored in device memory: refused.
  for (const CapturedRegion &From : B.Regions)
    for (uint64_t Off = 0; Off + 8 <= From.size(); Off += 8) {
      const CapturedRegion *To = B.regionAt(load(From.Pre.data() + Off));
      if (!To)
        continue;
      size_t I = size_t(To - B.Regions.data());
      if (P.Bases[I] != To->Base)
        return makeError("the runtime placed region " + hexText(To->Base) + " (reached from " +
                         To->ReachedFrom + ") at " + hexText(P.Bases[I]) +
                         ", not at its recorded address, and region " + hexText(From.Base) +
                         " holds a pointer to it at byte " + llvm::Twine(Off) +
                         ": a pointer stored in device memory cannot be rewritten (only "
                         "kernarg pointers are), so this capture replays only where every "
                         "region it points into keeps its recorded address");
    }
  for (size_t Off = 0; Off + 8 <= P.Kernarg.size(); Off += 8) {
    uint64_t V = load(P.Kernarg.data() + Off);
    if (const CapturedRegion *To = B.regionAt(V)) {
      uint64_t New = P.Bases[size_t(To - B.Regions.data())] + (V - To->Base);
      std::memcpy(P.Kernarg.data() + Off, &New, 8);
    }
  }
  return P;
}

llvm::Error writeCapturePreState(device::Device &Dev, device::Module &M, const CaptureBundle &B,
                                 const CapturePlacement &P) {
  for (size_t I = 0; I < B.Regions.size(); ++I)
    if (llvm::Error E = Dev.write(P.Bases[I], B.Regions[I].Pre.data(), B.Regions[I].size()))
      return E;
  for (const CapturedGlobal &G : B.Globals) {
    auto S = globalOf(M, G);
    if (!S)
      return S.takeError();
    if (llvm::Error E = Dev.write(S->Addr, G.Pre.data(), G.Pre.size()))
      return E;
  }
  return llvm::Error::success();
}

llvm::Expected<device::LaunchParams> captureLaunchParams(const CaptureBundle &B,
                                                         const CapturePlacement &Placed) {
  auto Items = launchGridItems({B.GridWorkgroups[0], B.GridWorkgroups[1], B.GridWorkgroups[2]},
                               /*InWorkgroups=*/true, B.Block);
  if (!Items)
    return Items.takeError();
  device::LaunchParams P;
  P.Kernel = B.Kernel;
  P.GridItems = *Items;
  P.Block = B.Block;
  P.DynamicLds = B.DynamicLds;
  P.Kernarg = Placed.Kernarg;
  return P;
}

llvm::Expected<CaptureState> readCaptureState(device::Device &Dev, device::Module &M,
                                              const CaptureBundle &B, const CapturePlacement &P) {
  CaptureState S;
  for (size_t I = 0; I < B.Regions.size(); ++I) {
    S.Regions.emplace_back(B.Regions[I].size());
    if (llvm::Error E = Dev.read(P.Bases[I], S.Regions.back().data(), B.Regions[I].size()))
      return std::move(E);
  }
  for (const CapturedGlobal &G : B.Globals) {
    auto Sym = globalOf(M, G);
    if (!Sym)
      return Sym.takeError();
    S.Globals.emplace_back(G.Pre.size());
    if (llvm::Error E = Dev.read(Sym->Addr, S.Globals.back().data(), G.Pre.size()))
      return std::move(E);
  }
  return S;
}

} // namespace asmevo::launch
