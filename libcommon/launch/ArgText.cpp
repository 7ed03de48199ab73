#include "launch/ArgText.h"

#include "launch/ArgBinding.h"
#include "launch/LaunchSpec.h"
#include "launch/ScalarValue.h"
#include "support/Error.h"
#include "support/FileIO.h"
#include "support/ParseNumber.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>

namespace asmevo::launch {

namespace {

// "[TYPE:]NUMBER" or "hex:BYTES" into the argument's bytes.
llvm::Expected<std::vector<uint8_t>> encodeText(const std::string &Text, uint32_t Size) {
  std::string Type, Num = Text;
  auto Colon = Text.find(':');
  if (Colon != std::string::npos && Text.rfind("hex:", 0) != 0) {
    Type = Text.substr(0, Colon);
    Num = Text.substr(Colon + 1);
  }
  return encodeScalar(nlohmann::json(Num), Type, Size);
}
} // namespace

llvm::Expected<ArgText> parseArgText(const std::string &Text) {
  ArgText A;
  auto Eq = Text.find('=');
  if (Eq == std::string::npos) {
    A.Value = Text;
  } else {
    A.Name = Text.substr(0, Eq);
    A.Value = Text.substr(Eq + 1);
  }
  if (Eq == 0)
    return makeError("--arg '" + Text + "': empty name before '=' (give NAME=VALUE or VALUE)");
  if (A.Value.empty())
    return makeError("--arg '" + Text + "': empty value");
  return A;
}

const BufferArg *BoundArgs::buffer(const KernelSignature &Sig, const std::string &Name) const {
  // "NAME[I]": entry I of pointer table NAME.
  auto [Base, Slot] = splitTableEntryName(Name);
  if (Base != Name && Slot < 0)
    return nullptr; // "NAME[x]"
  const KernelArg *A = Sig.find(Base);
  for (const BufferArg &B : Buffers)
    if (A && B.Arg == A && (Slot < 0 ? B.TableOf < 0 : B.TableOf >= 0 && int(B.Slot) == Slot))
      return &B;
  return nullptr;
}

namespace {
// One buffer's value, @FILE or zeros:BYTES, into Buf (Label names it in errors).
llvm::Error parseBufferValue(const std::string &Value, const std::string &Label, BufferArg &Buf) {
  if (!Value.empty() && Value[0] == '@') {
    if (Value.size() == 1)
      return makeError("argument '" + Label + "': '@' needs a file name (@FILE)");
    auto F = readFile(Value.substr(1));
    if (!F)
      return makeError("argument '" + Label + "': " + llvm::toString(F.takeError()));
    Buf.Contents = (*F)->getBuffer().str();
    Buf.Size = Buf.Contents.size();
    if (Buf.Size == 0)
      return makeError("argument '" + Label + "': file '" + Value.substr(1) + "' is empty");
    return llvm::Error::success();
  }
  if (Value.rfind("zeros:", 0) == 0) {
    if (!parseU64(Value.substr(6), Buf.Size) || Buf.Size == 0)
      return makeError("argument '" + Label + "': '" + Value +
                       "': zeros: needs a positive byte count");
    if (Buf.Size > kMaxSpecBytes)
      return makeError("argument '" + Label + "': '" + Value + "': more than the " +
                       std::to_string(kMaxSpecBytes >> 30) + " GiB a buffer may hold");
    return llvm::Error::success();
  }
  return makeError("argument '" + Label +
                   "' is a pointer: give @FILE, zeros:BYTES, table:BUF+BUF..., null or "
                   "addr:ADDRESS, not '" +
                   Value + "'");
}
} // namespace

llvm::Expected<BoundArgs> bindArgTexts(const KernelSignature &Sig, const std::string &Kernel,
                                       const std::vector<ArgText> &Args) {
  BoundArgs R;
  R.Kernarg.assign(explicitArgsEnd(Sig), 0);
  auto Explicit = Sig.explicitArgs();
  std::vector<bool> Assigned(Explicit.size(), false);
  size_t NextPositional = 0;
  uint64_t Total = 0; // bytes of all buffers
  for (const ArgText &S : Args) {
    int Idx;
    if (S.Name.empty()) {
      while (NextPositional < Explicit.size() && Assigned[NextPositional])
        ++NextPositional;
      if (NextPositional >= Explicit.size())
        return makeError("more --arg values than kernel '" + Kernel + "' has explicit arguments (" +
                         std::to_string(Explicit.size()) + ")");
      Idx = int(NextPositional);
    } else if ((Idx = findExplicitArg(Explicit, S.Name)) < 0) {
      return makeError(noSuchArgument(Sig, S.Name));
    }
    const KernelArg *A = Explicit[Idx];
    std::string Label = argLabel(Explicit, size_t(Idx));
    if (Assigned[Idx])
      return makeError("argument '" + Label + "' is given twice");
    Assigned[Idx] = true;
    if (!A->isGlobalBuffer()) {
      auto B = encodeText(S.Value, A->Size);
      if (!B)
        return makeError("argument '" + Label + "': " + llvm::toString(B.takeError()));
      std::memcpy(&R.Kernarg[A->Offset], B->data(), B->size());
      continue;
    }
    uint64_t Addr = 0;
    if (S.Value == "null")
      continue;
    if (S.Value.rfind("addr:", 0) == 0 && parseU64(S.Value.substr(5), Addr)) {
      for (unsigned I = 0; I < 8 && I < A->Size; ++I)
        R.Kernarg[A->Offset + I] = uint8_t(Addr >> (8 * I));
      continue;
    }
    BufferArg Buf;
    Buf.Arg = A;
    Buf.Label = Label;
    if (S.Value.rfind("table:", 0) == 0) {
      // A pointer table: a buffer of one 8-byte address per entry, each entry a buffer.
      std::vector<BufferArg> Entries;
      std::string Items = S.Value.substr(6);
      for (size_t P = 0, K = 0;; ++K) {
        size_t Plus = Items.find('+', P);
        BufferArg E;
        E.Arg = A;
        E.Label = tableEntryName(Label, K);
        E.TableOf = int(R.Buffers.size());
        E.Slot = unsigned(K);
        if (llvm::Error Err = parseBufferValue(Items.substr(P, Plus - P), E.Label, E))
          return std::move(Err);
        Total += E.Size;
        Entries.push_back(std::move(E));
        if (Plus == std::string::npos)
          break;
        P = Plus + 1;
      }
      Buf.Size = 8 * Entries.size();
      Total += Buf.Size;
      if (Total > kMaxSpecBytes)
        return makeError("argument '" + Label + "': the buffers together are more than the " +
                         std::to_string(kMaxSpecBytes >> 30) + " GiB a launch may hold");
      R.Buffers.push_back(std::move(Buf));
      for (BufferArg &E : Entries)
        R.Buffers.push_back(std::move(E));
      continue;
    }
    if (llvm::Error Err = parseBufferValue(S.Value, Label, Buf))
      return std::move(Err);
    Total += Buf.Size;
    if (Total > kMaxSpecBytes)
      return makeError("argument '" + Label + "': the buffers together are more than the " +
                       std::to_string(kMaxSpecBytes >> 30) + " GiB a launch may hold");
    R.Buffers.push_back(std::move(Buf));
  }
  for (size_t I = 0; I < Explicit.size(); ++I)
    if (!Assigned[I]) {
      std::string L = argLabel(Explicit, I);
      return makeError("argument '" + L + "' (" + Explicit[I]->ValueKind + ", offset " +
                       std::to_string(Explicit[I]->Offset) + ") has no value: add --arg " + L +
                       "=...");
    }
  return R;
}

llvm::Error placeBuffers(device::Device &Dev, BoundArgs &B) {
  for (BufferArg &Buf : B.Buffers) {
    auto Addr = Dev.alloc(Buf.Size, "argument " + Buf.Label);
    if (!Addr)
      return Addr.takeError();
    Buf.Address = *Addr;
    if (!Buf.Contents.empty())
      if (llvm::Error E = Dev.write(*Addr, Buf.Contents.data(), Buf.Contents.size()))
        return E;
    if (Buf.TableOf >= 0) // a table's entry: its address goes in the table
      continue;
    for (unsigned I = 0; I < 8 && I < Buf.Arg->Size; ++I)
      B.Kernarg[Buf.Arg->Offset + I] = uint8_t(*Addr >> (8 * I));
  }
  for (const BufferArg &E : B.Buffers)
    if (E.TableOf >= 0) {
      uint64_t A = E.Address;
      if (llvm::Error Err = Dev.write(B.Buffers[size_t(E.TableOf)].Address + 8ull * E.Slot, &A, 8))
        return Err;
    }
  return llvm::Error::success();
}

} // namespace asmevo::launch
