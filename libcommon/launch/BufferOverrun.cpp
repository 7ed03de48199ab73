// Naming the spec buffer that K0 ran past.
#include "launch/BufferOverrun.h"

#include "launch/ElemType.h"
#include "support/Error.h"

#include <optional>

namespace asmevo::launch {

std::string elementsText(const ArgSpec &A) {
  uint64_t N = A.Elements.value_or(0);
  return std::to_string(N) + " " + elemTypeName(A.Type) + " element" + (N == 1 ? "" : "s");
}

namespace {
std::string accessVerb(llvm::StringRef Instruction) {
  if (Instruction.contains("atomic"))
    return "accesses";
  return Instruction.contains("store") || Instruction.contains("write") ? "writes" : "reads";
}
} // namespace

llvm::Error blameBufferOverrun(llvm::Error E, const std::vector<BufferExtent> &Buffers) {
  return llvm::handleErrors(std::move(E), [&](std::unique_ptr<MemoryFaultError> F) -> llvm::Error {
    std::optional<std::string> Why;
    uint64_t Best = 1ull << 30;
    for (const BufferExtent &B : Buffers) {
      uint64_t Dist;
      std::string Text;
      const std::string Name = "'" + B.Arg->Label + "' (" + elementsText(*B.Arg) + ")";
      if (F->Address >= B.End) {
        Dist = F->Address - B.End;
        Text = accessVerb(F->Instruction) + " past " + Name + ": " + F->Instruction +
               " at byte offset " + std::to_string(F->Address - B.Begin) + " of a buffer of " +
               std::to_string(B.End - B.Begin) + " bytes";
      } else if (F->Address < B.Begin) {
        Dist = B.Begin - F->Address;
        Text = accessVerb(F->Instruction) + " before the start of " + Name + ": " + F->Instruction +
               " " + std::to_string(B.Begin - F->Address) + " bytes below it";
      } else {
        continue;
      }
      if (Dist < Best) {
        Best = Dist;
        Why = Text;
      }
    }
    if (!Why)
      return llvm::Error(std::move(F));
    return makeError("K0 " + *Why + " faults (" + F->Message +
                     "): the spec gives it too few elements");
  });
}

llvm::Error checkTouchedBytes(const ArgSpec &A, int64_t Lo, int64_t Hi, uint64_t Bytes,
                              const std::string &Where) {
  if (Lo >= 0 && Hi >= Lo && uint64_t(Hi) <= Bytes)
    return llvm::Error::success();
  return makeError("K0 reads past '" + A.Label + "' (" + elementsText(A) + "): it touches bytes " +
                   std::to_string(Lo) + " to " + std::to_string(Hi) + " of a buffer of " +
                   std::to_string(Bytes) + " bytes" + Where +
                   ": the spec gives it too few elements");
}

} // namespace asmevo::launch
