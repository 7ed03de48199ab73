// libFuzzer target for the code-object reader: arbitrary bytes -> CodeObject::read (and, when it
// accepts them, recoverAssembly), plus the container scan (findCodeObjects) and a read of every
// code object it reports. None of these may crash, hang or trip a sanitizer on any input; errors
// are llvm::Error values and are consumed here.
#include "asm/Recover.h"
#include "codeobj/CodeObject.h"
#include "codeobj/Container.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace asmevo;

namespace {

// Read one code object and, if it is accepted, recover its assembly. Errors are expected.
void readAndRecover(llvm::StringRef Bytes, llvm::StringRef Name) {
  auto C = CodeObject::read(Bytes, Name);
  if (!C) {
    llvm::consumeError(C.takeError());
    return;
  }
  auto R =
      recoverAssembly(*C, Name, "0000000000000000000000000000000000000000000000000000000000000000");
  if (!R) {
    llvm::consumeError(R.takeError());
    return;
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Bytes(reinterpret_cast<const char *>(Data), Size);

  // The input as one code object.
  readAndRecover(Bytes, "fuzz.hsaco");

  // The input as a container (offload bundles, host binaries, embedded ELF images).
  auto Found = findCodeObjects(Bytes, "fuzz.bin");
  if (!Found) {
    llvm::consumeError(Found.takeError());
    return 0;
  }
  for (const auto &E : *Found) {
    // Contract: every reported range lies inside the container. A violation is a bug in
    // findCodeObjects (StringRef::substr would silently clamp it), so make it a finding.
    if (E.Offset > Size || E.Size > Size - E.Offset) {
      std::fprintf(stderr, "findCodeObjects: range offset=%llu size=%llu past the end (%zu)\n",
                   (unsigned long long)E.Offset, (unsigned long long)E.Size, Size);
      std::abort();
    }
    (void)E.uri("fuzz.bin");
    // The whole input was already read above.
    if (E.Offset == 0 && E.Size == Size)
      continue;
    readAndRecover(Bytes.substr(E.Offset, E.Size), "fuzz.bin#embedded");
  }
  return 0;
}
