#include "check/LaunchInference.h"

#include "check/InputGen.h"
#include "emu/Emulator.h"
#include "support/Error.h"

#include <cstring>

namespace asmevo::check {

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
  uint8_t *Host = nullptr;
  uint64_t MaxHi = 0; // probe: highest touched data byte + 1 over all runs
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

} // namespace

llvm::Expected<InferenceReport> inferLaunch(LaunchSpec &S, const CodeObject &K0,
                                            const InferOptions &O) {
  InferenceReport Rep;
  Rep.Json = nlohmann::json::array();
  if (!S.needsInference())
    return Rep;
  emu::DeviceMemory Mem;
  auto Emu = emu::Emulator::load(K0, Mem);
  if (!Emu)
    return Emu.takeError();

  std::vector<Buf> Bufs;
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
    B.Base = Mem.allocate(Size, 4096, "inference buffer " + A.Label);
    if (!B.Base)
      return makeError("launch inference: no room for a " + std::to_string(Size) +
                       "-byte buffer for '" + A.Label + "'");
    B.Host = Mem.translate(B.Base, Size);
    Addr[I] = B.Base + B.DataOff;
    Bufs.push_back(std::move(B));
  }

  // K0's module image (its globals) as loaded: every run starts from it, so that a kernel that
  // writes module globals sees the same state in each run (not the previous run's writes).
  const emu::Allocation *Image = Mem.find((*Emu)->loadBase());
  std::vector<uint8_t> ImageInit(Image->Bytes.get(), Image->Bytes.get() + Image->Size);

  emu::LaunchConfig L;
  L.Kernel = S.Kernel;
  L.GridItems = S.gridItems();
  L.Block = S.Block;
  L.DynamicLds = S.DynamicLds;
  L.Kernarg = S.kernarg(Addr);
  L.Threads = O.Threads;
  L.Seed = 1;
  L.TimeoutSeconds = O.TimeoutSeconds;

  auto fill = [&](Buf &B, int V) {
    if (B.Probe) {
      for (uint64_t Off = 0; Off < B.Cap; Off += kTileBytes)
        std::memcpy(B.Host + B.DataOff + Off, B.Init[V].data(),
                    std::min<uint64_t>(kTileBytes, B.Cap - Off));
    } else {
      fillCanary(B.Host, kGuardBytes, B.Arg);
      if (B.Cap)
        std::memcpy(B.Host + B.DataOff, B.Init[V].data(), B.Cap);
      fillCanary(B.Host + B.DataOff + B.Cap, kGuardBytes, B.Arg);
    }
  };
  uint64_t RunAInstructions = 0;
  // Extreme: a role probe with a type-extreme fill; K0 may loop on such values, so its run is
  // bounded by a multiple of run A's instruction count, and its failure is only reported.
  auto run = [&](const std::vector<int> &Var, bool Extreme = false) -> llvm::Error {
    for (size_t K = 0; K < Bufs.size(); ++K)
      fill(Bufs[K], Var[K]);
    std::memcpy(Image->Bytes.get(), ImageInit.data(), ImageInit.size());
    Mem.resetTouched();
    Mem.setTracking(true);
    emu::LaunchConfig LR = L;
    if (Extreme)
      LR.MaxInstructions = std::max<uint64_t>(64 * RunAInstructions, 1ull << 20);
    auto St = (*Emu)->run(LR);
    Mem.setTracking(false);
    ++Rep.Runs;
    if (!St)
      return prefixed(St.takeError(), "K0 stopped during launch inference: ");
    if (!RunAInstructions)
      RunAInstructions = St->WaveInstructions;
    for (Buf &B : Bufs) {
      const ArgSpec &A = S.Args[B.Arg];
      const emu::Allocation *Al = Mem.find(B.Base);
      uint64_t Lo = Al->TouchLo, Hi = Al->TouchHi;
      if (B.Probe) {
        if (Lo <= Hi && Lo < kProbeLead)
          return makeError("launch inference: K0 accesses '" + A.Label + "' at byte offset -" +
                           std::to_string(kProbeLead - Lo) +
                           " (below the pointer): give its \"elements\" and \"file\"");
        if (Lo <= Hi)
          B.MaxHi = std::max(B.MaxHi, Hi - kProbeLead);
      } else {
        if (auto G = firstCanaryDiff(B.Host, kGuardBytes, B.Arg); G >= 0)
          return makeError("launch inference: K0 writes before buffer '" + A.Label +
                           "' (byte offset " + std::to_string(G - int64_t(kGuardBytes)) +
                           "): the spec gives it too little room");
        if (auto G = firstCanaryDiff(B.Host + B.DataOff + B.Cap, kGuardBytes, B.Arg); G >= 0)
          return makeError("launch inference: K0 writes past the end of buffer '" + A.Label +
                           "' (" + std::to_string(*A.Elements) + " " + elemTypeName(A.Type) +
                           " elements; byte offset " + std::to_string(B.Cap + G) +
                           "): the spec gives it too few elements");
      }
    }
    return llvm::Error::success();
  };
  auto dataLen = [&](const Buf &B) { return B.Probe ? B.MaxHi : B.Cap; };
  auto changed = [&](const Buf &B, int V) {
    uint64_t N = dataLen(B);
    for (uint64_t Off = 0; Off < N; ++Off)
      if (B.Host[B.DataOff + Off] != initialByte(B, V, Off))
        return true;
    return false;
  };

  // Run A and B: extents, written buffers.
  std::vector<int> VarA(Bufs.size(), 0), VarB(Bufs.size(), 1);
  if (llvm::Error E = run(VarA))
    return std::move(E);
  for (Buf &B : Bufs) {
    B.Written = changed(B, 0);
    uint64_t N = dataLen(B);
    B.FinalA.assign(B.Host + B.DataOff, B.Host + B.DataOff + N);
    B.InitA.resize(N);
    for (uint64_t Off = 0; Off < N; ++Off)
      B.InitA[Off] = initialByte(B, 0, Off);
  }
  if (llvm::Error E = run(VarB))
    return std::move(E);
  for (Buf &B : Bufs)
    B.Written = B.Written || changed(B, 1);

  // Roles of written buffers: does changing only their initial contents change the outputs?
  std::vector<bool> InOut(Bufs.size(), false);
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
      if (llvm::Error E = run(VarC, V >= 2)) {
        if (V == 1)
          return std::move(E);
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
  return Rep;
}

} // namespace asmevo::check
