// A captured dispatch (launch/CaptureBundle.h) placed on a device, for replay and timing: every
// region mapped at its recorded address, its pre-state written, the code object's global
// variables set, and the launch's parameters. The regions must be mapped before the code object
// is loaded, so that the load cannot take their addresses.
#pragma once

#include "codeobj/KernelArgs.h"
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

// The bundle's kernarg bytes against the kernel's signature (Sig, from K0): they must hold every
// explicit argument (a capture records the explicit part; the launcher fills hidden arguments)
// and no more than the kernarg segment. Input errors name BundlePath.
llvm::Error checkCaptureKernarg(const CaptureBundle &B, const KernelSignature &Sig,
                                llvm::StringRef BundlePath);

// K0's replay of the bundle at BundlePath stopped with E. K0 is the code object the bundle
// recorded and ran there, so a memory fault is memory the bundle does not hold (a region
// missing or cut short): an input error naming the bundle, the address, the nearest region and
// the kernarg pointer argument (Sig's) that reaches no region. An input error that names no
// file (a region the device cannot map, a geometry, LDS size or global variable the launch
// refuses) is the bundle's too and names it. Any other error: E.
llvm::Error blameCaptureFault(llvm::Error E, const CaptureBundle &B, const KernelSignature &Sig,
                              llvm::StringRef BundlePath);

// Where a replay put the bundle's regions on a device, and the kernargs that reach them.
struct CapturePlacement {
  std::vector<uint64_t> Bases;  // per region, in the bundle's order
  std::vector<uint8_t> Kernarg; // the recorded kernargs, pointers into moved regions rewritten
  unsigned Moved = 0;           // regions not at their recorded address
};

// Place every region (Device::place): at its recorded base on emu (an error when that cannot
// be); on hip where the runtime grants it. A region placed elsewhere is usable only when
// nothing in device memory points into it: every 8-byte kernarg word pointing into it is
// rewritten by the move, but a pointer stored in another region (a pointer table) cannot be,
// and is an error that says so, naming both regions.
llvm::Expected<CapturePlacement> placeCaptureRegions(device::Device &Dev, const CaptureBundle &B);

// Write every region's and global's pre-state (the regions mapped, M loaded). Errors: a global
// M does not have, or of another size.
llvm::Error writeCapturePreState(device::Device &Dev, device::Module &M, const CaptureBundle &B,
                                 const CapturePlacement &P);

// The launch the bundle recorded: its kernel, geometry, dynamic LDS and kernarg bytes (P's).
llvm::Expected<device::LaunchParams> captureLaunchParams(const CaptureBundle &B,
                                                         const CapturePlacement &P);

// What a run left, in the bundle's order: each region's bytes, then each global's.
struct CaptureState {
  std::vector<std::vector<uint8_t>> Regions, Globals;
};
llvm::Expected<CaptureState> readCaptureState(device::Device &Dev, device::Module &M,
                                              const CaptureBundle &B, const CapturePlacement &P);

} // namespace asmevo::launch
