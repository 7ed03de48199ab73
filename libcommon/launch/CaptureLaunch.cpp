// Placing a captured dispatch on a device (launch/CaptureLaunch.h).
#include "launch/CaptureLaunch.h"

#include "launch/LaunchGeometry.h"
#include "support/Error.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace asmevo::launch {

namespace {
std::string hex(uint64_t V) { return hexText(V); }

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

llvm::Error mapCaptureRegions(device::Device &Dev, const CaptureBundle &B) {
  for (const CapturedRegion &R : B.Regions)
    if (llvm::Error E = Dev.allocAt(R.Base, R.size(), "region " + hex(R.Base)))
      return E;
  return llvm::Error::success();
}

llvm::Error writeCapturePreState(device::Device &Dev, device::Module &M, const CaptureBundle &B) {
  for (const CapturedRegion &R : B.Regions)
    if (llvm::Error E = Dev.write(R.Base, R.Pre.data(), R.size()))
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

llvm::Expected<device::LaunchParams> captureLaunchParams(const CaptureBundle &B) {
  auto Items = launchGridItems({B.GridWorkgroups[0], B.GridWorkgroups[1], B.GridWorkgroups[2]},
                               /*InWorkgroups=*/true, B.Block);
  if (!Items)
    return Items.takeError();
  device::LaunchParams P;
  P.Kernel = B.Kernel;
  P.GridItems = *Items;
  P.Block = B.Block;
  P.DynamicLds = B.DynamicLds;
  P.Kernarg = B.Kernarg;
  return P;
}

llvm::Expected<CaptureState> readCaptureState(device::Device &Dev, device::Module &M,
                                              const CaptureBundle &B) {
  CaptureState S;
  for (const CapturedRegion &R : B.Regions) {
    S.Regions.emplace_back(R.size());
    if (llvm::Error E = Dev.read(R.Base, S.Regions.back().data(), R.size()))
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
