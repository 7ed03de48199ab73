// Finding code objects inside containers, and naming them with ROCm's code-object URIs
// (file://PATH#offset=N&size=M): a plain code object, clang offload bundles (also many
// concatenated ones, as in a .hip_fatbin section), host shared libraries that embed bundles,
// and plain AMDGPU ELF images embedded in another file's data (as the HSA runtime does).
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace asmevo {

struct EmbeddedCodeObject {
  uint64_t Offset = 0, Size = 0; // within the container file
  std::string Triple;            // bundle entry id ("hipv4-amdgcn-amd-amdhsa--gfx90a") or ""
  std::string Processor;         // "gfx90a" (from the ELF header)
  std::string uri(llvm::StringRef Path) const;
};

// All AMDGPU code objects in Bytes (the whole file is one if it is an AMDGPU ELF itself).
llvm::Expected<std::vector<EmbeddedCodeObject>> findCodeObjects(llvm::StringRef Bytes,
                                                                llvm::StringRef Path);

// The size of the code object or clang offload bundle that starts at P, read from its own
// headers (the ELF header and section table; the bundle's entry table), for the runtime entry
// points that take a pointer and no size (hipModuleLoadData, __hipRegisterFatBinary). P must
// point at readable memory holding the whole headers. Errors (the image is neither, or its
// headers are implausible) name Where.
llvm::Expected<uint64_t> imageSizeInMemory(const char *P, llvm::StringRef Where);

// Parse "file://PATH#offset=N&size=M" (also "file://PATH" alone). Returns false if Spec is not
// a URI.
struct CodeObjectUri {
  std::string Path;
  uint64_t Offset = 0, Size = 0; // Size 0: to the end of the file
};
llvm::Expected<bool> parseCodeObjectUri(llvm::StringRef Spec, CodeObjectUri &Out);

} // namespace asmevo
