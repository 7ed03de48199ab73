// Resolution of user-named inputs to code objects.
#include "codeobj/Input.h"
#include "codeobj/Container.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/ADT/StringExtras.h"

#include <set>

namespace asmevo {

llvm::Expected<std::vector<LoadedCodeObject>> loadCodeObjects(llvm::StringRef Spec,
                                                              llvm::StringRef Arch) {
  CodeObjectUri Uri;
  auto IsUri = parseCodeObjectUri(Spec, Uri);
  if (!IsUri)
    return withFile(IsUri.takeError(), Spec);
  std::string Path = *IsUri ? Uri.Path : Spec.str();
  auto Buf = readFile(Path);
  if (!Buf)
    return Buf.takeError();
  std::shared_ptr<llvm::MemoryBuffer> File(std::move(*Buf));
  llvm::StringRef All = File->getBuffer();
  std::vector<LoadedCodeObject> Out;
  if (*IsUri) {
    if (Uri.Offset > All.size() || Uri.Size > All.size() - Uri.Offset)
      return fileError(Path, Uri.Offset,
                       "URI range extends past the end of the file (" + llvm::Twine(All.size()) +
                           " bytes)");
    llvm::StringRef B = All.substr(Uri.Offset, Uri.Size ? Uri.Size : All.size() - Uri.Offset);
    Out.push_back({Spec.str(), File, B});
    return Out;
  }
  auto Found = findCodeObjects(All, Path);
  if (!Found)
    return Found.takeError();
  if (Found->empty())
    return fileError(Path, 0,
                     "no AMDGPU code object found (not an AMDGPU ELF file, and no "
                     "offload bundle or embedded code object inside)");
  bool Whole =
      Found->size() == 1 && Found->front().Offset == 0 && Found->front().Size == All.size();
  std::set<std::string> Seen;
  for (const auto &E : *Found) {
    Seen.insert(E.Processor);
    if (Arch.empty() || E.Processor == Arch)
      Out.push_back({Whole ? Path : E.uri(Path), File, All.substr(E.Offset, E.Size)});
  }
  if (Out.empty()) // --arch filters a plain code object as it filters a container
    return fileError(Path, 0,
                     Whole ? "a code object for " + Found->front().Processor + ", not " + Arch.str()
                           : "no code object for " + Arch.str() + " among " +
                                 std::to_string(Found->size()) + " embedded code objects (" +
                                 llvm::join(Seen, ", ") + ")");
  return Out;
}

llvm::Expected<std::unique_ptr<OpenCodeObject>> openCodeObject(llvm::StringRef Spec) {
  auto Objs = loadCodeObjects(Spec, "");
  if (!Objs)
    return Objs.takeError();
  if (Objs->size() != 1)
    return llvm::make_error<ToolError>(
        std::to_string(Objs->size()) + " code objects inside; name one by its URI", Spec.str());
  auto C = CodeObject::read(Objs->front().Bytes, Objs->front().Name);
  if (!C)
    return C.takeError();
  return std::unique_ptr<OpenCodeObject>(
      new OpenCodeObject{std::move(Objs->front()), std::move(*C)});
}

} // namespace asmevo
