// A launch spec's buffers placed on a device for one run, and the launch that uses them: each
// buffer in one allocation with canary guards before and after its data (InputGen.h), the
// kernarg segment pointing at the data. kernel-diffcheck runs K0 and K1 from these; kernel-time
// rotates several of them between timed launches.
#pragma once

#include "device/Device.h"
#include "launch/LaunchSpec.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace asmevo::launch {

struct PlacedLaunch {
  std::vector<uint64_t> Addr;  // per S.Args: its data's device address (0: not a buffer, null)
  std::vector<uint64_t> Bases; // the allocations, to free
  device::LaunchParams Params; // kernel, geometry, dynamic LDS and kernarg; the rest default
};

// Allocate and fill S's buffers (Init: their contents, indexed like S.Args) on Dev, a pointer
// table with its entries' addresses (not its Init). Who names the allocations ("K0 buffer x").
// On error nothing stays allocated.
llvm::Expected<PlacedLaunch> placeLaunch(device::Device &Dev, const LaunchSpec &S,
                                         const std::vector<std::vector<uint8_t>> &Init,
                                         const std::string &Who);
// Free what placeLaunch allocated (errors ignored: the device is being torn down or reused).
void freeLaunch(device::Device &Dev, PlacedLaunch &P);

} // namespace asmevo::launch
