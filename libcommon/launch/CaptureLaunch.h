// A captured dispatch (launch/CaptureBundle.h) placed on a device, for replay and timing: every
// region mapped at its recorded address, its pre-state written, the code object's global
// variables set, and the launch's parameters. The regions must be mapped before the code object
// is loaded, so that the load cannot take their addresses.
#pragma once

#include "device/Device.h"
#include "launch/CaptureBundle.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace asmevo::launch {

// K0 (its bytes, read from K0Path) must be the code object the bundle at BundlePath recorded:
// an input error otherwise, saying that the bundle itself can stand for K0.
llvm::Error checkCapturedK0(const CaptureBundle &B, llvm::StringRef K0Bytes, llvm::StringRef K0Path,
                            llvm::StringRef BundlePath);

// Map every region at its recorded base (Device::allocAt: emu; a backend that cannot place
// memory says so).
llvm::Error mapCaptureRegions(device::Device &Dev, const CaptureBundle &B);

// Write every region's and global's pre-state (the regions mapped, M loaded). Errors: a global
// M does not have, or of another size.
llvm::Error writeCapturePreState(device::Device &Dev, device::Module &M, const CaptureBundle &B);

// The launch the bundle recorded: its kernel, geometry, dynamic LDS and kernarg bytes.
llvm::Expected<device::LaunchParams> captureLaunchParams(const CaptureBundle &B);

// What a run left, in the bundle's order: each region's bytes, then each global's.
struct CaptureState {
  std::vector<std::vector<uint8_t>> Regions, Globals;
};
llvm::Expected<CaptureState> readCaptureState(device::Device &Dev, device::Module &M,
                                              const CaptureBundle &B);

} // namespace asmevo::launch
