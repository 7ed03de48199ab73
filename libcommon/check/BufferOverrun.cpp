// Naming the spec buffer that K0 ran past.
#include "check/BufferOverrun.h"

#include "launch/ElemType.h"
#include "support/Error.h"

#include <cstring>
#include <optional>

namespace asmevo::check {

std::string elementsText(const launch::ArgSpec &A) {
  uint64_t N = A.Elements.value_or(0);
  return std::to_string(N) + " " + launch::elemTypeName(A.Type) + " element" + (N == 1 ? "" : "s");
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

std::optional<std::pair<uint64_t, uint64_t>> wordBelow(const std::vector<uint8_t> &Data,
                                                       uint64_t Address, uint64_t MinWord) {
  constexpr uint64_t kNear = 1ull << 20;
  std::optional<std::pair<uint64_t, uint64_t>> Best;
  for (uint64_t Off = 0; Off + 8 <= Data.size(); Off += 8) {
    uint64_t W;
    std::memcpy(&W, Data.data() + Off, 8);
    if (W >= MinWord && Address >= W && Address - W < kNear && (!Best || Address - W < Best->first))
      Best = std::pair(Address - W, Off);
  }
  return Best;
}

llvm::Error pointerTableError(const std::string &Lead, const launch::ArgSpec &A,
                              const MemoryFaultError &Fault, const std::vector<uint8_t> &Data,
                              std::pair<uint64_t, uint64_t> Word, const std::string &Whence,
                              const std::string &SpecPath) {
  uint64_t W;
  std::memcpy(&W, Data.data() + Word.second, 8);
  return withFile(
      makeError(Lead + "K0 faults at an address it loaded from buffer '" + A.Label +
                "': " + Fault.Instruction + " at " + hexText(Fault.Address) + ", " +
                std::to_string(Word.first) + " bytes past the value " + hexText(W) + " " + Whence +
                " (" + Fault.Message +
                "). A kernel that loads addresses from a buffer (a pointer table) cannot be "
                "described by a launch spec: record a real dispatch with dispatch-capture and "
                "check it with kernel-diffcheck --capture"),
      SpecPath);
}

} // namespace asmevo::check
