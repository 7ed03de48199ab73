// Reading and editing an AMDGPU assembly file at the level the rebuild needs: its target
// (`.amdgcn_target`, `.amdhsa_code_object_version`), its `.amdhsa_kernel` blocks and their
// directive values, and its `.amdgpu_metadata` block. Everything else is left as written.
#pragma once

#include "codeobj/TargetId.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace asmevo {

class AsmSource {
public:
  static llvm::Expected<AsmSource> parse(llvm::StringRef Text, llvm::StringRef Name);

  const std::string &name() const { return Name; }
  const TargetId &target() const { return Target; }
  std::string text() const;

  // Kernels that have an `.amdhsa_kernel` block, in order.
  std::vector<std::string> kernels() const;
  std::optional<uint64_t> directive(llvm::StringRef Kernel, llvm::StringRef Directive) const;
  // Set a directive of a kernel's block (added at the end of the block if absent).
  void setDirective(llvm::StringRef Kernel, llvm::StringRef Directive, uint64_t Value);
  // Replace the lines between `.amdgpu_metadata` and `.end_amdgpu_metadata`.
  void setMetadataYaml(llvm::StringRef Yaml);

private:
  struct Block {
    std::string Kernel;
    size_t Begin = 0, End = 0; // line indices of .amdhsa_kernel / .end_amdhsa_kernel
  };
  std::string Name;
  TargetId Target;
  std::vector<std::string> Lines;
  std::vector<Block> Blocks;
  size_t MetaBegin = 0, MetaEnd = 0;
  const Block *block(llvm::StringRef Kernel) const;
  void reindex();
};

} // namespace asmevo
