#include "check/LaunchInference.h"

#include "check/PointerTable.h"
#include "device/Device.h"
#include "launch/BufferOverrun.h"
#include "launch/InputGen.h"
#include "support/Error.h"

#include <cstring>
#include <memory>
#include <optional>

namespace asmevo::check {

using namespace asmevo::launch;

namespace {

constexpr uint64_t kProbeLead = 1ull << 20;
constexpr uint64_t kTileBytes = 64ull << 10;

// Re-raise E with Prefix in front of its message, keeping its kind.
llvm::Error prefixed(llvm::Error E, const std::string &Prefix) {
  std::string Msg;
  ErrorKind Kind = ErrorKind::Input;
  llvm::handleAllErrors(
      std::move(E),
      [&](const ToolError &T) {
        Msg = formatError(T);
        Kind = T.Kind;
      },
      [&](const llvm::ErrorInfoBase &B) { Msg = B.message(); });
  if (Kind == ErrorKind::Runtime)
    return runtimeError(Prefix + Msg);
  if (Kind == ErrorKind::Interrupted)
    return interruptedError(Prefix + Msg);
  return makeError(Prefix + Msg);
}

struct Buf {
  unsigned Arg = 0;
  bool Probe = false; // elements unknown: a large probe allocation
  bool RoleWanted = false;
  bool Fixed = false;                      // initial contents fixed by the spec (file, zero fill)
  uint64_t Base = 0, DataOff = 0, Cap = 0; // data at Base + DataOff, Cap bytes
  // Initial contents: variants 0 and 1 random, 2 and 3 every element the type's highest and
  // lowest value (role probes only). Non-probe: the data; probe: a tile.
  std::vector<uint8_t> Init[4];
  // The allocation's bytes on the host (written before a run, read after it); a probe's only
  // as far as a run touched it, so the rest is never initialised.
  std::unique_ptr<uint8_t[]> Image;
  uint64_t ImageSize = 0;
  uint8_t *Host = nullptr; // Image.get()
  uint64_t MaxHi = 0;      // probe: highest touched data byte + 1 over all runs
  bool Written = false;
  std::vector<uint8_t> InitA, FinalA; // run A snapshot of the data region
};

uint8_t initialByte(const Buf &B, int V, uint64_t Off) {
  const auto &I = B.Init[V];
  if (B.Probe)
    return I.empty() ? 0 : I[Off % I.size()];
  return I[Off];
}

// One element of T holding its highest (High) or lowest value: the integer limits, the
// largest finite float of either sign; bytes 0xff / 0x00.
std::vector<uint8_t> extremeElement(ElemType T, bool High) {
  unsigned N = elemSize(T);
  std::vector<uint8_t> E(N, High ? 0xff : 0x00);
  auto put = [&](uint64_t V) { std::memcpy(E.data(), &V, N); };
  switch (T) {
  case ElemType::I8:
  case ElemType::I16:
  case ElemType::I32:
  case ElemType::I64: {
    uint64_t Sign = 1ull << (8 * N - 1);
    put(High ? Sign - 1 : Sign);
    break;
  }
  case ElemType::F16:
    put(High ? 0x7bff : 0xfbff);
    break;
  case ElemType::BF16:
    put(High ? 0x7f7f : 0xff7f);
    break;
  case ElemType::F32:
    put(High ? 0x7f7fffffull : 0xff7fffffull);
    break;
  case ElemType::F64:
    put(High ? 0x7fefffffffffffffull : 0xffefffffffffffffull);
    break;
  default:
    break; // unsigned and bytes: all ones / zero
  }
  return E;
}

std::vector<uint8_t> repeated(const std::vector<uint8_t> &E, uint64_t Bytes) {
  std::vector<uint8_t> R(Bytes);
  for (uint64_t I = 0; I < Bytes; ++I)
    R[I] = E[I % E.size()];
  return R;
}

// One inference, in named steps: place the buffers, run A and B (extents, written buffers),
// find the roles of written buffers, complete the spec.
class Inference {
public:
  Inference(LaunchSpec &S, const CodeObject &K0, device::Device &Dev, const InferOptions &O)
      : S(S), K0(K0), Dev(Dev), O(O) {
    Rep.Json = nlohmann::json::array();
  }

  llvm::Expected<InferenceReport> run() {
    if (llvm::Error E = placeBuffers())
      return std::move(E);
    if (llvm::Error E = runAB())
      return std::move(E);
    if (llvm::Error E = findRoles())
      return std::move(E);
    if (llvm::Error E = complete())
      return std::move(E);
    return std::move(Rep);
  }

private:
  LaunchSpec &S;
  const CodeObject &K0;
  device::Device &Dev;
  const InferOptions &O;
  InferenceReport Rep;
  std::vector<Buf> Bufs;
  device::LaunchParams L;
  uint64_t RunAInstructions = 0;
  std::vector<bool> InOut;

  llvm::Error placeBuffers();
  llvm::Error fill(Buf &B, int V);
  llvm::Expected<device::LaunchResult> launchWith(const std::vector<int> &Var,
                                                  uint64_t MaxInstructions);
  llvm::Error runOnce(const std::vector<int> &Var, bool Extreme = false);
  llvm::Error blameLoadedAddress(llvm::Error E, const std::vector<int> &Var);
  llvm::Error checkFootprints(const device::LaunchResult &St);
  uint64_t dataLen(const Buf &B) const { return B.Probe ? B.MaxHi : B.Cap; }
  bool changed(const Buf &B, int V) const;
  llvm::Error runAB();
  llvm::Error findRoles();
  llvm::Error complete();
};

// Every buffer the spec leaves open, in its own allocation: a large probe (elements unknown)
// or the given size between guards; its four initial variants; the launch they make.
llvm::Error Inference::placeBuffers() {
  std::vector<uint64_t> Addr(S.Args.size(), 0);
  for (unsigned I = 0; I < S.Args.size(); ++I) {
    ArgSpec &A = S.Args[I];
    if (!A.Buffer || A.Null)
      continue;
    Buf B;
    B.Arg = I;
    B.Probe = !A.Elements;
    B.RoleWanted = A.R == Role::Unset;
    B.Fixed = !A.FilePath.empty() || A.Fill == "zero";
    unsigned ES = elemSize(A.Type);
    uint64_t Size;
    if (B.Probe) {
      B.DataOff = kProbeLead;
      B.Cap = O.ProbeBytes;
      Size = kProbeLead + O.ProbeBytes;
      for (int V = 0; V < 2; ++V) {
        ArgSpec T = A;
        T.Elements = kTileBytes / ES;
        if (A.Fill == "zero") {
          B.Init[V].assign(kTileBytes, 0);
        } else if (A.R == Role::Out) {
          B.Init[V].assign(kTileBytes, 0);
          fillPoison(A.Type, B.Init[V].data(), kTileBytes);
        } else {
          B.Init[V] = generateValues(T, kTileBytes / ES, 0x1f0 + V, 0);
        }
      }
      for (int V = 2; V < 4; ++V)
        B.Init[V] = repeated(extremeElement(A.Type, V == 2), kTileBytes);
    } else {
      B.DataOff = kGuardBytes;
      B.Cap = A.bytes();
      Size = 2 * kGuardBytes + B.Cap;
      for (int V = 0; V < 2; ++V) {
        if (B.Fixed || A.R == Role::Out) {
          auto C = initialContents(A, 1);
          if (!C)
            return C.takeError();
          B.Init[V] = std::move(*C);
        } else {
          B.Init[V] = generateValues(A, *A.Elements, 0x1f0 + V, 0);
        }
      }
      for (int V = 2; V < 4; ++V)
        B.Init[V] = repeated(extremeElement(A.Type, V == 2), B.Cap);
    }
    auto Base = Dev.alloc(Size, "inference buffer " + A.Label);
    if (!Base)
      return makeError("launch inference: no room for a " + std::to_string(Size) +
                       "-byte buffer for '" + A.Label + "'");
    B.Base = *Base;
    B.Image.reset(new uint8_t[Size]);
    B.ImageSize = Size;
    B.Host = B.Image.get();
    Addr[I] = B.Base + B.DataOff;
    Bufs.push_back(std::move(B));
  }
  // A pointer table holds its entries' addresses in every variant (it is an input of fixed
  // contents: only what it points to varies).
  for (Buf &B : Bufs)
    if (!S.Args[B.Arg].Table.empty()) {
      std::vector<uint8_t> T = S.tableContents(B.Arg, Addr);
      T.resize(B.Cap, 0);
      for (int V = 0; V < 4; ++V)
        B.Init[V] = T;
      B.Fixed = true;
    }

  L.Kernel = S.Kernel;
  L.GridItems = S.gridItems();
  L.Block = S.Block;
  L.DynamicLds = S.DynamicLds;
  L.Kernarg = S.kernarg(Addr);
  L.Threads = O.Threads;
  L.Seed = 1;
  L.TimeoutSeconds = O.TimeoutSeconds;
  L.TrackFootprint = true;
  return llvm::Error::success();
}

// Buffer B's initial contents, variant V, on the device: a probe is its tile repeated over the
// whole probe; a given size is its data between two guards.
llvm::Error Inference::fill(Buf &B, int V) {
  if (B.Probe) {
    for (uint64_t Off = 0; Off < B.Cap; Off += kTileBytes)
      if (llvm::Error E = Dev.write(B.Base + B.DataOff + Off, B.Init[V].data(),
                                    std::min<uint64_t>(kTileBytes, B.Cap - Off)))
        return E;
    return llvm::Error::success();
  }
  fillCanary(B.Host, kGuardBytes, B.Arg);
  if (B.Cap)
    std::memcpy(B.Host + B.DataOff, B.Init[V].data(), B.Cap);
  fillCanary(B.Host + B.DataOff + B.Cap, kGuardBytes, B.Arg);
  return Dev.write(B.Base, B.Host, B.ImageSize);
}

bool Inference::changed(const Buf &B, int V) const {
  uint64_t N = dataLen(B);
  for (uint64_t Off = 0; Off < N; ++Off)
    if (B.Host[B.DataOff + Off] != initialByte(B, V, Off))
      return true;
  return false;
}

// Every buffer K in its variant Var[K], K0 loaded afresh and launched.
llvm::Expected<device::LaunchResult> Inference::launchWith(const std::vector<int> &Var,
                                                           uint64_t MaxInstructions) {
  for (size_t K = 0; K < Bufs.size(); ++K)
    if (llvm::Error E = fill(Bufs[K], Var[K]))
      return std::move(E);
  // Every run loads K0 afresh: a kernel that writes its module globals sees the same state
  // in each run (not the previous run's writes).
  auto Mod = Dev.load(K0);
  if (!Mod)
    return Mod.takeError();
  device::LaunchParams LR = L;
  LR.MaxInstructions = MaxInstructions;
  ++Rep.Runs;
  return Dev.launch(**Mod, LR);
}

// K0 faulted at an address it loaded from a buffer's contents: one of the 8-byte words of
// buffer X's initial contents lies at most 1 MiB below the address (a pointer plus an offset).
// Where inference chose the contents (random values), the evidence is that with X's other
// random contents alone the fault moves or goes, so the address came from X, not from a null
// argument or a bad index elsewhere; where the spec fixes them (a "file"), a word of at least
// 64 KiB (no small integer) is taken as the pointer. That is a pointer table, which no launch
// spec describes: an input error that says to capture a real dispatch. Otherwise E.
llvm::Error Inference::blameLoadedAddress(llvm::Error E, const std::vector<int> &Var) {
  return llvm::handleErrors(std::move(E), [&](std::unique_ptr<MemoryFaultError> F) -> llvm::Error {
    for (size_t X = 0; X < Bufs.size(); ++X) {
      const Buf &B = Bufs[X];
      if (Var[X] > 1)
        continue;
      const std::vector<uint8_t> &Data = B.Init[Var[X]];
      bool Varies = B.Init[0] != B.Init[1];
      if (!Varies && !B.Fixed)
        continue; // poison: the same in every run, and not the user's
      auto Word = wordBelow(Data, F->Address, Varies ? 0 : 1ull << 16);
      if (!Word)
        continue;
      if (Varies) {
        // Moved: the run with X's other contents ends, or faults elsewhere. A run stopped at
        // its bound (other values may loop) or by another error tells nothing.
        std::vector<int> Other = Var;
        Other[X] ^= 1;
        auto Again = launchWith(Other, std::max<uint64_t>(64 * RunAInstructions, 1ull << 24));
        if (!faultMoved(Again ? llvm::Error::success() : Again.takeError(), F->Address))
          continue;
      }
      std::string At = "at byte " + std::to_string(Word->second);
      return pointerTableError("launch inference: ", S.Args[B.Arg], *F, Data, *Word,
                               Varies ? "that inference wrote " + At +
                                            " of it, and other contents move the fault"
                                      : At + " of its \"file\"",
                               S.Path);
    }
    return llvm::Error(std::move(F));
  });
}

// One run of K0 with buffer K in its variant Var[K]. Extreme: a role probe with a type-extreme
// fill; K0 may loop on such values, so its run is bounded by a multiple of run A's instruction
// count, and its failure is only reported.
llvm::Error Inference::runOnce(const std::vector<int> &Var, bool Extreme) {
  auto St = launchWith(Var, Extreme ? std::max<uint64_t>(64 * RunAInstructions, 1ull << 20) : 0);
  if (!St) {
    if (Extreme)
      return St.takeError();
    // Past a buffer whose size the spec gives: the spec's mistake (input_error); an address
    // loaded from a buffer: a kernel no spec describes (input_error).
    std::vector<BufferExtent> Given;
    for (const Buf &B : Bufs)
      if (!B.Probe)
        Given.push_back({&S.Args[B.Arg], B.Base + B.DataOff, B.Base + B.DataOff + B.Cap});
    llvm::Error E = blameBufferOverrun(St.takeError(), Given);
    if (E.isA<MemoryFaultError>()) {
      E = blameLoadedAddress(std::move(E), Var);
      if (!E.isA<MemoryFaultError>())
        return E; // names the spec already
    }
    return prefixed(std::move(E), "during launch inference: ");
  }
  if (!RunAInstructions)
    RunAInstructions = St->WaveInstructions;
  // Given sizes whole (their guards are checked); probes only as far as any run touched them.
  for (Buf &B : Bufs)
    if (!B.Probe)
      if (llvm::Error E = Dev.read(B.Base, B.Host, B.ImageSize))
        return E;
  if (llvm::Error E = checkFootprints(*St))
    return E;
  for (Buf &B : Bufs)
    if (B.Probe && B.MaxHi)
      if (llvm::Error E = Dev.read(B.Base + B.DataOff, B.Host + B.DataOff, B.MaxHi))
        return E;
  return llvm::Error::success();
}

// Probes: the highest byte touched, and no access below the pointer; given sizes: the guards.
llvm::Error Inference::checkFootprints(const device::LaunchResult &St) {
  auto footprint = [&](uint64_t Base) {
    for (const device::Footprint &F : St.Footprints)
      if (F.Base == Base)
        return F;
    return device::Footprint{Base, false, 0, 0};
  };
  for (Buf &B : Bufs) {
    const ArgSpec &A = S.Args[B.Arg];
    device::Footprint F = footprint(B.Base);
    uint64_t Lo = F.Lo, Hi = F.Hi;
    if (B.Probe) {
      if (F.Touched && Lo < kProbeLead)
        return makeError("launch inference: K0 accesses '" + A.Label + "' at byte offset -" +
                         std::to_string(kProbeLead - Lo) +
                         " (below the pointer): give its \"elements\" and \"file\"");
      if (F.Touched)
        B.MaxHi = std::max(B.MaxHi, Hi - kProbeLead);
    } else {
      if (auto G = firstCanaryDiff(B.Host, kGuardBytes, B.Arg); G >= 0)
        return makeError("launch inference: K0 writes before buffer '" + A.Label +
                         "' (byte offset " + std::to_string(G - int64_t(kGuardBytes)) +
                         "): the spec gives it too little room");
      if (auto G = firstCanaryDiff(B.Host + B.DataOff + B.Cap, kGuardBytes, B.Arg); G >= 0)
        return makeError("launch inference: K0 writes past the end of buffer '" + A.Label + "' (" +
                         std::to_string(*A.Elements) + " " + elemTypeName(A.Type) +
                         " elements; byte offset " + std::to_string(B.Cap + G) +
                         "): the spec gives it too few elements");
    }
  }
  return llvm::Error::success();
}

// Run A and B: extents, written buffers.
llvm::Error Inference::runAB() {
  std::vector<int> VarA(Bufs.size(), 0), VarB(Bufs.size(), 1);
  if (llvm::Error E = runOnce(VarA))
    return E;
  for (Buf &B : Bufs) {
    B.Written = changed(B, 0);
    uint64_t N = dataLen(B);
    B.FinalA.assign(B.Host + B.DataOff, B.Host + B.DataOff + N);
    B.InitA.resize(N);
    for (uint64_t Off = 0; Off < N; ++Off)
      B.InitA[Off] = initialByte(B, 0, Off);
  }
  if (llvm::Error E = runOnce(VarB))
    return E;
  for (Buf &B : Bufs)
    B.Written = B.Written || changed(B, 1);

  return llvm::Error::success();
}

// Roles of written buffers: does changing only their initial contents change the outputs?
llvm::Error Inference::findRoles() {
  InOut.assign(Bufs.size(), false);
  for (size_t X = 0; X < Bufs.size(); ++X) {
    Buf &BX = Bufs[X];
    if (!BX.RoleWanted || !BX.Written)
      continue;
    if (BX.Fixed) {
      InOut[X] = true;
      continue;
    }
    // Variant 1 (other random values), then every element the type's highest and lowest
    // value: a max/min/or/and accumulator ignores small random initial values but not these.
    for (int V = 1; V < 4 && !InOut[X]; ++V) {
      std::vector<int> VarC(Bufs.size(), 0);
      VarC[X] = V;
      if (llvm::Error E = runOnce(VarC, V >= 2)) {
        if (V == 1)
          return E;
        llvm::consumeError(std::move(E)); // K0 cannot take extreme values here: no evidence
        continue;
      }
      for (size_t Y = 0; Y < Bufs.size() && !InOut[X]; ++Y) {
        const Buf &BY = Bufs[Y];
        if (!BY.Written)
          continue;
        uint64_t N = BY.FinalA.size();
        for (uint64_t Off = 0; Off < N; ++Off) {
          if (Y == X && BY.FinalA[Off] == BY.InitA[Off])
            continue; // a byte run A did not write
          if (BY.Host[BY.DataOff + Off] != BY.FinalA[Off]) {
            InOut[X] = true;
            break;
          }
        }
      }
    }
  }

  return llvm::Error::success();
}

// The spec completed, with one line and one JSON entry per buffer.
llvm::Error Inference::complete() {
  for (size_t K = 0; K < Bufs.size(); ++K) {
    const Buf &B = Bufs[K];
    ArgSpec &A = S.Args[B.Arg];
    unsigned ES = elemSize(A.Type);
    nlohmann::json J = {{"arg", A.Arg}, {"label", A.Label}, {"type", elemTypeName(A.Type)}};
    nlohmann::json What = nlohmann::json::array();
    if (B.Probe) {
      A.Elements = (B.MaxHi + ES - 1) / ES;
      A.ElementsInferred = true;
      What.push_back("elements");
      if (B.MaxHi >= B.Cap)
        return makeError("launch inference: K0 touches all of the " + std::to_string(B.Cap) +
                         "-byte probe for '" + A.Label + "': give its \"elements\"");
    }
    if (B.RoleWanted) {
      A.R = !B.Written ? Role::In : InOut[K] ? Role::InOut : Role::Out;
      A.RoleInferred = true;
      What.push_back("role");
    }
    J["elements"] = *A.Elements;
    J["role"] = roleName(A.R);
    J["inferred"] = What;
    Rep.Json.push_back(J);
    std::string Line = "'" + A.Label + "'" + (A.Label == A.Arg ? "" : " (" + A.Arg + ")") + ": " +
                       std::to_string(*A.Elements) + " " + elemTypeName(A.Type) + " elements" +
                       (B.Probe ? " (inferred)" : "") + ", role " + roleName(A.R) +
                       (B.RoleWanted ? " (inferred)" : "");
    if (B.Probe && *A.Elements == 0)
      Line += "; K0 does not access it";
    Rep.Lines.push_back(Line);
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<InferenceReport> inferLaunch(LaunchSpec &S, const CodeObject &K0,
                                            device::Device &Dev, const InferOptions &O) {
  if (!S.needsInference())
    return InferenceReport{{}, nlohmann::json::array(), 0};
  if (!Dev.info().TracksFootprint)
    return makeError("launch inference needs a backend that records which bytes a kernel "
                     "touches (emu), not " +
                     Dev.info().Backend + ": give every buffer's \"elements\" and \"role\"");
  return Inference(S, K0, Dev, O).run();
}

llvm::Expected<InferenceReport> inferLaunch(LaunchSpec &S, const CodeObject &K0,
                                            const InferOptions &O) {
  if (!S.needsInference())
    return InferenceReport{{}, nlohmann::json::array(), 0};
  auto Dev = device::openDevice("emu", K0.Target.Processor);
  if (!Dev)
    return Dev.takeError();
  return inferLaunch(S, K0, **Dev, O);
}

} // namespace asmevo::check
