// The in-process assembler: LLVM's MC layer driven the way llvm-mc drives it.
#include "asm/Assembler.h"
#include "asm/McTarget.h"
#include "asm/MetadataYaml.h"
#include "support/Error.h"

#include "llvm/MC/MCAsmBackend.h"
#include "llvm/MC/MCCodeEmitter.h"
#include "llvm/MC/MCObjectWriter.h"
#include "llvm/MC/MCParser/MCAsmParser.h"
#include "llvm/MC/MCParser/MCTargetAsmParser.h"
#include "llvm/MC/MCStreamer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace asmevo {

llvm::Expected<std::string> assembleObject(llvm::StringRef Source, llvm::StringRef SourceName,
                                           const TargetId &Target) {
  initializeAmdgpuTarget();
  auto MOr = McTarget::get(Target);
  if (!MOr)
    return MOr.takeError();
  McTarget &M = **MOr;
  // LLVM's metadata parser would print a YAML error itself, numbered from the block's start.
  if (llvm::Error E = checkMetadataYaml(Source, SourceName))
    return std::move(E);

  llvm::SourceMgr SrcMgr;
  // The lexer needs a NUL after the text: a file mapped at a page boundary has none.
  SrcMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(Source, SourceName),
                            llvm::SMLoc());
  // The first error, with its line, becomes the result; nothing is printed.
  struct DiagState {
    std::string First;
    unsigned Line = 0, Errors = 0;
    void add(const llvm::SMDiagnostic &D) {
      if (D.getKind() != llvm::SourceMgr::DK_Error)
        return;
      if (Errors++ == 0) {
        First = D.getMessage().str();
        if (!D.getLineContents().empty())
          First += ": '" + llvm::StringRef(D.getLineContents()).trim().str() + "'";
        Line = unsigned(D.getLineNo());
      }
    }
  } Diags;
  SrcMgr.setDiagHandler(
      [](const llvm::SMDiagnostic &D, void *Ctx) { static_cast<DiagState *>(Ctx)->add(D); },
      &Diags);

  llvm::MCContext Ctx(M.TheTriple, M.MAI.get(), M.MRI.get(), M.STI.get(), &SrcMgr, &M.Options);
  std::unique_ptr<llvm::MCObjectFileInfo> MOFI(
      M.TheTarget->createMCObjectFileInfo(Ctx, /*PIC=*/true));
  Ctx.setObjectFileInfo(MOFI.get());
  Ctx.setDiagnosticHandler([&Diags](const llvm::SMDiagnostic &D, bool, const llvm::SourceMgr &,
                                    std::vector<const llvm::MDNode *> &) { Diags.add(D); });

  llvm::SmallString<0> ObjBuf;
  llvm::raw_svector_ostream OS(ObjBuf);
  std::unique_ptr<llvm::MCAsmBackend> MAB(
      M.TheTarget->createMCAsmBackend(*M.STI, *M.MRI, M.Options));
  std::unique_ptr<llvm::MCCodeEmitter> CE(M.TheTarget->createMCCodeEmitter(*M.MII, Ctx));
  if (!MAB || !CE)
    return makeError("cannot create LLVM's AMDGPU assembler backend");
  auto OW = MAB->createObjectWriter(OS);
  std::unique_ptr<llvm::MCStreamer> Str(M.TheTarget->createMCObjectStreamer(
      M.TheTriple, Ctx, std::move(MAB), std::move(OW), std::move(CE), *M.STI));
  std::unique_ptr<llvm::MCAsmParser> Parser(llvm::createMCAsmParser(SrcMgr, Ctx, *Str, *M.MAI));
  std::unique_ptr<llvm::MCTargetAsmParser> TAP(
      M.TheTarget->createMCAsmParser(*M.STI, *Parser, *M.MII, M.Options));
  if (!TAP)
    return makeError("cannot create LLVM's AMDGPU assembly parser");
  Parser->setTargetParser(*TAP);
  bool Failed = Parser->Run(/*NoInitialTextSection=*/false);
  // The parsers refer to the streamer: they go first.
  TAP.reset();
  Parser.reset();
  if (Failed || Diags.Errors || Ctx.hadError()) {
    if (Diags.First.empty())
      Diags.First = "the assembler failed";
    if (Diags.Line)
      return lineError(SourceName, Diags.Line, Diags.First);
    return llvm::make_error<ToolError>(Diags.First, SourceName.str());
  }
  Str.reset();
  return std::string(ObjBuf.str());
}

} // namespace asmevo
