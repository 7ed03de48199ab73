// In-place patching (`hsaco-patch`), the conservative fallback to rebuilding: a window of one
// function's instructions is replaced by an assembled snippet of at most the same size, padded
// with s_nop 0; descriptors, metadata and every other byte stay as they are. A patch that could
// change what the rest of the code object relies on (a branch into the window, a split
// PC-relative address computation, more registers) is refused.
#pragma once

#include "codeobj/CodeObject.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace asmevo {

// Version of the extracted-window format (first line: "; asmevo-patch-window v1").
constexpr unsigned PatchWindowVersion = 1;

// A negative verdict: the patch (or the extraction) is refused (outcome "refused", exit 1:
// "<tool>: refused: '<file>'[@0xOFFSET]: <reason>", nothing written).
class PatchRefusal : public llvm::ErrorInfo<PatchRefusal> {
public:
  static char ID;
  PatchRefusal(std::string Message, std::string File, std::optional<uint64_t> Offset = {})
      : Message(std::move(Message)), File(std::move(File)), Offset(Offset) {}
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override;

  std::string Message;
  std::string File;
  std::optional<uint64_t> Offset; // file offset
};

// KERNEL:START-END or KERNEL:START+LENGTH, byte offsets from the symbol (0x... or decimal),
// END exclusive.
struct PatchWindow {
  std::string Function;
  uint64_t Start = 0, End = 0;
};
llvm::Expected<PatchWindow> parsePatchWindow(llvm::StringRef Spec);

struct PatchResult {
  std::string Bytes; // the patched code object
  uint64_t Addr = 0; // virtual address of the window
  uint64_t FileOffset = 0;
  unsigned WindowSize = 0, ReplacementSize = 0, Nops = 0;
};

// Replace window W of C with Snippet (assembly text named SnippetName in diagnostics).
// Input errors (window, assembler) are ToolErrors; refusals are PatchRefusals.
llvm::Expected<PatchResult> patchWindow(const CodeObject &C, const PatchWindow &W,
                                        llvm::StringRef Snippet, llvm::StringRef SnippetName);

// The window's instructions as a snippet that patchWindow accepts and that reassembles to the
// same bytes (branches inside the window as local labels). SourceHash goes into the header.
llvm::Expected<std::string> extractWindow(const CodeObject &C, const PatchWindow &W,
                                          llvm::StringRef SourceHash);

} // namespace asmevo
