// Typed spans of a captured dispatch, and the comparison of two of its states
// (check/CaptureCompare.h).
#include "check/CaptureCompare.h"

#include "launch/ArgBinding.h"
#include "support/Error.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace asmevo::check {

namespace {

uint64_t loadU64(const uint8_t *P) {
  uint64_t V;
  std::memcpy(&V, P, 8);
  return V;
}

// The argument ARG selects (a name or "#N"), as the label "#N" or its name.
llvm::Expected<const KernelArg *> pointerArg(const KernelSignature &Sig, const std::string &Arg,
                                             const launch::CaptureBundle &B) {
  const KernelArg *A = Sig.find(Arg);
  if (!A || A->isHidden())
    return makeError("--types: " + launch::noSuchArgument(Sig, Arg));
  if (A->Size != 8 || (!A->isGlobalBuffer() && A->ValueKind != "by_value"))
    return makeError("--types: argument '" + Arg + "' of " + Sig.Symbol + " is not a pointer (" +
                     A->ValueKind + ", " + std::to_string(A->Size) + " bytes)");
  if (uint64_t(A->Offset) + 8 > B.Kernarg.size())
    return makeError("--types: argument '" + Arg + "' lies past the captured kernarg bytes");
  return A;
}

} // namespace

llvm::Expected<std::vector<TypedSpan>> captureTypedSpans(const launch::CaptureBundle &B,
                                                         const KernelSignature &Sig,
                                                         llvm::StringRef Types) {
  // (region, offset) -> span; a span's end is set once all are known.
  std::map<std::pair<size_t, uint64_t>, TypedSpan> Starts;
  auto add = [&](uint64_t Address, ElemType T, const std::string &Label) -> llvm::Error {
    const launch::CapturedRegion *R = B.regionAt(Address);
    if (!R)
      return makeError("--types: '" + Label + "' points to " + hexText(Address) +
                       ", which is in no captured region");
    size_t I = size_t(R - B.Regions.data());
    TypedSpan S{I, Address - R->Base, 0, T, Label};
    auto [It, New] = Starts.emplace(std::make_pair(I, S.Offset), S);
    if (!New && It->second.Type != T)
      return makeError("--types: address " + hexText(Address) + " is given two types ('" +
                       It->second.Label + "' " + elemTypeName(It->second.Type) + ", '" + Label +
                       "' " + elemTypeName(T) + ")");
    return llvm::Error::success();
  };
  llvm::SmallVector<llvm::StringRef, 8> Items;
  Types.split(Items, ',', -1, false);
  if (Items.empty())
    return makeError("--types: give ARG=TYPE[,ARG=TYPE...]");
  for (llvm::StringRef Item : Items) {
    auto [Lhs, Rhs] = Item.trim().split('=');
    std::string Arg = Lhs.trim().str(), TypeName = Rhs.trim().str();
    bool Table = llvm::StringRef(Arg).ends_with("[]");
    if (Table)
      Arg.resize(Arg.size() - 2);
    ElemType T;
    if (Arg.empty() || TypeName.empty())
      return makeError("--types: '" + Item.str() + "' is not ARG=TYPE");
    if (!parseElemType(TypeName, T))
      return makeError("--types: unknown element type '" + TypeName + "' (" +
                       std::string(launch::kTypeList) + ")");
    auto A = pointerArg(Sig, Arg, B);
    if (!A)
      return A.takeError();
    uint64_t Ptr = loadU64(B.Kernarg.data() + (*A)->Offset);
    if (!Table) {
      if (llvm::Error E = add(Ptr, T, Arg))
        return std::move(E);
      continue;
    }
    const launch::CapturedRegion *R = B.regionAt(Ptr);
    if (!R)
      return makeError("--types: '" + Arg + "' points to " + hexText(Ptr) +
                       ", which is in no captured region");
    unsigned Found = 0;
    for (uint64_t Off = Ptr - R->Base, K = 0; Off + 8 <= R->size(); Off += 8, ++K) {
      uint64_t Word = loadU64(R->Pre.data() + Off);
      if (!B.regionAt(Word))
        continue;
      if (llvm::Error E = add(Word, T, Arg + "[" + std::to_string(K) + "]"))
        return std::move(E);
      ++Found;
    }
    if (!Found)
      return makeError("--types: no pointer word of the region '" + Arg +
                       "' points to reaches a captured region");
  }
  std::vector<TypedSpan> Out;
  for (auto &[Key, S] : Starts)
    Out.push_back(S);
  for (size_t I = 0; I < Out.size(); ++I) {
    uint64_t End = B.Regions[Out[I].Region].size();
    if (I + 1 < Out.size() && Out[I + 1].Region == Out[I].Region)
      End = Out[I + 1].Offset;
    uint64_t Size = elemSize(Out[I].Type);
    Out[I].Bytes = (End - Out[I].Offset) / Size * Size;
  }
  return Out;
}

std::string firstCaptureDifference(const launch::CaptureBundle &B,
                                   const std::vector<TypedSpan> &Spans,
                                   const launch::CaptureState &Want,
                                   const launch::CaptureState &Got, const std::string &WantName,
                                   const std::string &GotName, double Theta, double Tau,
                                   nlohmann::json *Metrics) {
  std::string First;
  auto byteDiff = [&](size_t I, uint64_t From, uint64_t To) {
    const std::vector<uint8_t> &W = Want.Regions[I], &G = Got.Regions[I];
    for (uint64_t J = From; J < To; ++J)
      if (W[J] != G[J])
        return "region " + hexText(B.Regions[I].Base) + " (reached from " +
               B.Regions[I].ReachedFrom + ") byte " + std::to_string(J) + " (address " +
               hexText(B.Regions[I].Base + J) + "): " + hexText(G[J]) + " where " + WantName +
               " has " + hexText(W[J]);
    return std::string();
  };
  if (Metrics)
    *Metrics = nlohmann::json::array();
  size_t S = 0;
  for (size_t I = 0; I < B.Regions.size(); ++I) {
    uint64_t At = 0;
    for (; S < Spans.size() && Spans[S].Region == I; ++S) {
      const TypedSpan &T = Spans[S];
      if (First.empty())
        First = byteDiff(I, At, T.Offset);
      uint64_t N = T.Bytes / elemSize(T.Type);
      BufferMetrics M = compareBuffers(T.Type, Want.Regions[I].data() + T.Offset,
                                       Got.Regions[I].data() + T.Offset, N, Theta, Tau);
      if (Metrics) {
        nlohmann::json J = M.toJson();
        J["region"] = hexText(B.Regions[I].Base);
        J["offset"] = T.Offset;
        J["arg"] = T.Label;
        J["type"] = elemTypeName(T.Type);
        Metrics->push_back(J);
      }
      if (First.empty() && !M.ok())
        First = "region " + hexText(B.Regions[I].Base) + " ('" + T.Label + "', " +
                elemTypeName(T.Type) + ", from byte " + std::to_string(T.Offset) +
                "): " + M.Failure + " at index " + std::to_string(M.FirstDiff) + " (" + WantName +
                " " + M.K0Value + ", " + GotName + " " + M.K1Value + ")";
      At = T.Offset + T.Bytes;
    }
    if (First.empty())
      First = byteDiff(I, At, Want.Regions[I].size());
  }
  for (size_t I = 0; I < B.Globals.size() && First.empty(); ++I)
    for (size_t J = 0; J < Want.Globals[I].size(); ++J)
      if (Want.Globals[I][J] != Got.Globals[I][J]) {
        First = "global variable '" + B.Globals[I].Name + "' byte " + std::to_string(J) + ": " +
                hexText(Got.Globals[I][J]) + " where " + WantName + " has " +
                hexText(Want.Globals[I][J]);
        break;
      }
  return First;
}

} // namespace asmevo::check
