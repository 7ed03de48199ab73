// YAML syntax of the metadata blocks, located in the file.
#include "asm/MetadataYaml.h"

#include "support/Error.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"

#include <optional>

namespace asmevo {

namespace {

struct FirstError {
  std::optional<llvm::SMDiagnostic> D;
};

// The first YAML syntax error of Text, if any.
std::optional<llvm::SMDiagnostic> yamlError(llvm::StringRef Text) {
  llvm::SourceMgr SM;
  FirstError F;
  SM.setDiagHandler(
      [](const llvm::SMDiagnostic &D, void *Ctx) {
        auto &FE = *static_cast<FirstError *>(Ctx);
        if (!FE.D && D.getKind() == llvm::SourceMgr::DK_Error)
          FE.D = D;
      },
      &F);
  llvm::yaml::Stream S(Text, SM);
  for (llvm::yaml::Document &Doc : S) {
    if (llvm::yaml::Node *Root = Doc.getRoot())
      Root->skip();
    if (F.D)
      break;
  }
  return F.D;
}

} // namespace

llvm::Error checkMetadataYaml(llvm::StringRef Source, llvm::StringRef SourceName) {
  unsigned LineNo = 0, BlockLine = 0;
  size_t BlockStart = llvm::StringRef::npos;
  llvm::StringRef Rest = Source;
  while (!Rest.empty()) {
    auto [Line, Tail] = Rest.split('\n');
    size_t LineOffset = Source.size() - Rest.size();
    Rest = Tail;
    ++LineNo;
    llvm::StringRef T = Line.trim();
    if (BlockStart == llvm::StringRef::npos) {
      if (T == ".amdgpu_metadata") {
        BlockStart = LineOffset + Line.size() + 1;
        BlockLine = LineNo;
      }
      continue;
    }
    if (T != ".end_amdgpu_metadata")
      continue;
    llvm::StringRef Yaml = Source.substr(BlockStart, LineOffset - BlockStart);
    BlockStart = llvm::StringRef::npos;
    if (auto D = yamlError(Yaml)) {
      unsigned At = BlockLine + unsigned(D->getLineNo());
      return lineError(SourceName, At,
                       "metadata YAML: " + D->getMessage() + " (column " +
                           llvm::Twine(D->getColumnNo() + 1) + "): '" +
                           llvm::StringRef(D->getLineContents()).trim() + "'");
    }
  }
  return llvm::Error::success();
}

} // namespace asmevo
