#include "check/PointerTable.h"

#include <cstring>

namespace asmevo::check {

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

bool faultMoved(llvm::Error E, uint64_t Address) {
  bool Moved = !E;
  llvm::handleAllErrors(
      std::move(E), [&](const MemoryFaultError &G) { Moved = G.Address != Address; },
      [](const llvm::ErrorInfoBase &) {});
  return Moved;
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
                "). A kernel that loads addresses from a buffer (a pointer table) needs that "
                "buffer described as one: {\"arg\": \"" +
                A.Arg +
                "\", \"table\": [{\"type\": ...}, ...]} in the spec, one entry per address; "
                "or record a real dispatch with dispatch-capture and check it with "
                "kernel-diffcheck --capture"),
      SpecPath);
}

} // namespace asmevo::check
