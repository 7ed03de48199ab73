// Loading the code objects a user names: a code-object file, a file:// URI into a container,
// or a container (host library, offload bundle) filtered by processor.
#pragma once

#include "codeobj/CodeObject.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>
#include <vector>

namespace asmevo {

struct LoadedCodeObject {
  std::string Name; // the path, or the URI for an embedded object
  std::shared_ptr<llvm::MemoryBuffer> File;
  llvm::StringRef Bytes; // within File
};

// Exactly one code object, read: Spec must name one (a code-object file or a URI).
struct OpenCodeObject {
  LoadedCodeObject Source; // keeps the bytes alive
  CodeObject C;
};
llvm::Expected<std::unique_ptr<OpenCodeObject>> openCodeObject(llvm::StringRef Spec);

// Every code object Spec names, restricted to processor Arch if not empty.
llvm::Expected<std::vector<LoadedCodeObject>> loadCodeObjects(llvm::StringRef Spec,
                                                              llvm::StringRef Arch);

} // namespace asmevo
