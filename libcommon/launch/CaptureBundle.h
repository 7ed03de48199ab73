// The capture bundle: one recorded dispatch, as dispatch-capture writes it and replay reads it
// (share/asmevo/capture-bundle.md documents the format). A msgpack map holding the code object,
// the kernel, its launch geometry, the raw kernarg bytes and every device region the kernargs
// reach, with the bytes before the launch (pre) and after it completed (post), at their original
// addresses; plus the HIP runtime and device it came from. Version 1.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace asmevo::launch {

inline constexpr const char *kCaptureFormat = "asmevo-capture-bundle";
inline constexpr unsigned kCaptureFormatVersion = 1;

// One device allocation a kernarg word reaches (directly or through pointer words inside other
// captured regions): its base address, and its bytes before and after the dispatch.
struct CapturedRegion {
  uint64_t Base = 0;
  std::string ReachedFrom; // how the capture found it: "kernarg+0x8", "0x7f00001000+0x40"
  std::vector<uint8_t> Pre, Post;
  uint64_t size() const { return Pre.size(); }
  bool contains(uint64_t A) const { return A >= Base && A - Base < Pre.size(); }
};

// A global variable of the code object (a __device__ or __constant__ variable: an exported
// OBJECT symbol other than a kernel descriptor), by name: the kernel may read or write it, and
// replay loads the code object afresh, so its contents are part of the dispatch's state.
struct CapturedGlobal {
  std::string Name;
  std::vector<uint8_t> Pre, Post;
};

struct CaptureBundle {
  std::string Runtime; // the HIP runtime it ran on ("libamdhip64.so.6 60443483", ...)
  std::string Device;  // the device's name and gcnArchName ("AMD Instinct MI300X gfx942:...")
  std::vector<uint8_t> CodeObject;
  std::string Kernel; // the kernel's symbol name
  uint64_t Nth = 0;   // which dispatch of that kernel this was, from 0
  std::array<uint32_t, 3> GridWorkgroups{1, 1, 1}, Block{1, 1, 1};
  uint32_t DynamicLds = 0;
  uint64_t Stream = 0; // the stream handle as the application passed it (0: the null stream)
  std::vector<uint8_t> Kernarg;
  std::vector<CapturedRegion> Regions; // sorted by base, disjoint
  std::vector<CapturedGlobal> Globals; // by name, unique

  // The region holding address A, or null.
  const CapturedRegion *regionAt(uint64_t A) const;
};

// The bundle's bytes. Fails (input error) on a bundle that would not read back: regions that
// overlap or wrap the address space, pre and post of different sizes, an empty kernel name or
// code object, or a geometry the hardware refuses.
llvm::Expected<std::string> encodeCaptureBundle(const CaptureBundle &B);

// Parses and validates a bundle; errors name File and, for bytes that are not a bundle, the
// offset where reading stopped: a truncated or corrupt file, another format, another version,
// a missing or mistyped field (named by its path, "regions[2].post").
llvm::Expected<CaptureBundle> decodeCaptureBundle(llvm::StringRef Bytes, llvm::StringRef File);

// Reads a bundle file, and writes one atomically with mode 0600 (a capture holds the
// application's data).
llvm::Expected<CaptureBundle> readCaptureBundle(llvm::StringRef Path);
llvm::Error writeCaptureBundle(const CaptureBundle &B, llvm::StringRef Path);

} // namespace asmevo::launch
