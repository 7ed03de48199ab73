// The in-process linker: lld's ELF driver, run as `ld.lld -shared` on temporary files (lld reads
// and writes paths). lld keeps global state, so calls are serialized.
#include "asm/Assembler.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include "lld/Common/Driver.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

LLD_HAS_DRIVER(elf)

namespace asmevo {

llvm::Expected<std::string> linkCodeObject(llvm::StringRef Object) {
  static std::mutex LldMutex;
  std::lock_guard<std::mutex> Lock(LldMutex);
  auto Dir = TempDir::create("asmevo-link");
  if (!Dir)
    return Dir.takeError();
  std::string In = Dir->file("k.o"), Out = Dir->file("k.hsaco");
  if (auto E = writeFileAtomic(In, Object))
    return std::move(E);
  std::string Diag;
  llvm::raw_string_ostream DiagOS(Diag);
  const char *Args[] = {"ld.lld", "-shared", In.c_str(), "-o", Out.c_str()};
  lld::Result Res = lld::lldMain(Args, llvm::nulls(), DiagOS, {{lld::Gnu, &lld::elf::link}});
  DiagOS.flush();
  if (Res.retCode != 0) {
    llvm::StringRef First = llvm::StringRef(Diag).split('\n').first;
    return makeError(
        "lld failed: " +
        (First.empty() ? llvm::StringRef("exit code " + std::to_string(Res.retCode)) : First));
  }
  if (!Res.canRunAgain)
    return runtimeError("lld cannot be run again in this process");
  auto Buf = readFile(Out);
  if (!Buf)
    return Buf.takeError();
  return (*Buf)->getBuffer().str();
}

llvm::Expected<std::string> assembleAndLink(llvm::StringRef Source, llvm::StringRef SourceName,
                                            const TargetId &Target) {
  auto Obj = assembleObject(Source, SourceName, Target);
  if (!Obj)
    return Obj.takeError();
  return linkCodeObject(*Obj);
}

} // namespace asmevo
