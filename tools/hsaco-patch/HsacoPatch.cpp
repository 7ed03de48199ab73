#include "HsacoPatch.h"

#include "codeobj/Input.h"
#include "support/Error.h"
#include "support/FileIO.h"
#include "support/Plural.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

namespace asmevo {

namespace {

std::string hex(uint64_t V) { return "0x" + llvm::utohexstr(V); }

// A refusal is outcome "refused" ("<tool>: refused: ..."); everything else is an error.
int fail(const Cli &C, Report &Rep, llvm::Error E) {
  bool Refused = false;
  E = llvm::handleErrors(std::move(E), [&](const PatchRefusal &R) {
    Refused = true;
    Rep.Result = Outcome::Refused;
    Rep.Message = formatError(ToolError(R.Message, R.File, R.Offset));
  });
  if (E)
    return C.fail(Rep, std::move(E));
  llvm::errs() << C.tool() << ": refused: " << Rep.Message << "\n";
  if (C.common().Json)
    C.printJson(Rep);
  return Rep.exitCode();
}

} // namespace

int runHsacoPatch(const Cli &C, const PatchConfig &Cfg) {
  Report Rep = C.report();
  auto Objs = loadCodeObjects(Cfg.Input, "");
  if (!Objs)
    return fail(C, Rep, Objs.takeError());
  if (Objs->size() != 1)
    return C.fail(Rep, Outcome::InputError,
                  "'" + Cfg.Input + "': " + countOf(Objs->size(), "code object") +
                      " inside; choose one with a URI from hsaco-recover --list");
  const auto &O = Objs->front();
  if (Cfg.InPlace && (O.Name != Cfg.Input || O.Bytes.size() != O.File->getBufferSize()))
    return C.fail(Rep, Outcome::InputError,
                  "'" + O.Name + "': --in-place needs a code-object file, not a container or URI");
  Rep.Inputs.push_back(reportInput("object", O.Name, O.Bytes));
  auto CO = CodeObject::read(O.Bytes, O.Name);
  if (!CO)
    return fail(C, Rep, CO.takeError());
  Rep.Body["window"] = Cfg.WindowSpec;

  if (Cfg.Extract) {
    auto T = extractWindow(*CO, Cfg.Window, sha256Hex(O.Bytes));
    if (!T)
      return fail(C, Rep, T.takeError());
    if (auto E = writeFileAtomic(Cfg.Output, *T))
      return fail(C, Rep, std::move(E));
    Rep.Message = "extracted window " + Cfg.WindowSpec + " to " + Cfg.Output;
    Rep.Body["output"] = Cfg.Output;
    return C.common().Json ? C.printJson(Rep) : Rep.exitCode();
  }

  auto Snip = readFile(Cfg.With);
  if (!Snip)
    return fail(C, Rep, Snip.takeError());
  Rep.Inputs.push_back(reportInput("snippet", Cfg.With, (*Snip)->getBuffer()));
  auto R = patchWindow(*CO, Cfg.Window, (*Snip)->getBuffer(), Cfg.With);
  if (!R)
    return fail(C, Rep, R.takeError());
  std::string What = "window " + Cfg.WindowSpec + " (" + hex(R->Addr) + "-" +
                     hex(R->Addr + R->WindowSize) + ", " + std::to_string(R->WindowSize) +
                     " bytes): replacement " + std::to_string(R->ReplacementSize) + " bytes, " +
                     std::to_string(R->Nops) + " s_nop 0 of padding";
  if (auto P = C.progress())
    P(O.Name + ": " + What);
  std::string Dest = Cfg.InPlace ? Cfg.Input : Cfg.Output;
  llvm::sys::fs::file_status St;
  bool KeepMode = Cfg.InPlace && !llvm::sys::fs::status(Dest, St);
  if (auto E = writeFileAtomic(Dest, R->Bytes))
    return fail(C, Rep, std::move(E));
  if (KeepMode) // the atomic write made a new file: give it the old one's permissions
    (void)llvm::sys::fs::setPermissions(Dest, St.permissions());
  Rep.Message = "patched " + What;
  Rep.Body.update({{"output", Dest},
                   {"address", R->Addr},
                   {"file_offset", R->FileOffset},
                   {"window_bytes", R->WindowSize},
                   {"replacement_bytes", R->ReplacementSize},
                   {"nops", R->Nops}});
  return C.common().Json ? C.printJson(Rep) : Rep.exitCode();
}

} // namespace asmevo
