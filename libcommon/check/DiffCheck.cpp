#include "check/DiffCheck.h"

#include "asm/AbiCheck.h"
#include "check/Compare.h"
#include "check/InputGen.h"
#include "codeobj/Input.h"
#include "device/Device.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstring>
#include <regex>
#include <set>

namespace asmevo::check {

namespace {

struct Failure {
  int Exit;
  std::string Verdict, Line;
};

// The message and kind of an error.
std::pair<std::string, ErrorKind> unpack(llvm::Error E) {
  std::string Msg;
  ErrorKind Kind = ErrorKind::Input;
  llvm::handleAllErrors(
      std::move(E),
      [&](const ToolError &T) {
        Msg = formatError(T);
        Kind = T.Kind;
      },
      [&](const llvm::ErrorInfoBase &B) { Msg = B.message(); });
  return {Msg, Kind};
}

DiffResult errorResult(llvm::Error E) {
  auto [Msg, Kind] = unpack(std::move(E));
  DiffResult R;
  R.Exit = Kind == ErrorKind::Runtime ? 3 : 2;
  R.Verdict = Kind == ErrorKind::Runtime ? "runtime_error" : "error";
  R.Line = Kind == ErrorKind::Runtime ? "runtime_error: K0: " + Msg : Msg;
  R.Json = {{"verdict", R.Verdict}, {"error", Msg}};
  return R;
}

std::string seedList(const std::vector<uint64_t> &S) {
  std::string R;
  for (uint64_t X : S)
    R += (R.empty() ? "" : ",") + std::to_string(X);
  return R;
}

std::string fileLabel(unsigned Index, const std::string &Label) {
  std::string S = std::to_string(Index) + "_";
  for (char C : Label)
    S +=
        (std::isalnum(static_cast<unsigned char>(C)) || C == '_' || C == '-' || C == '.') ? C : '_';
  return S;
}

// One kernel's run on one seed: each buffer's whole allocation (guard, data, guard) afterwards.
struct RunOut {
  std::vector<std::vector<uint8_t>> Alloc; // indexed like Spec.Args (empty for non-buffers)
  uint64_t WaveInstructions = 0;           // emu: what the dispatch executed
  double Seconds = 0;
  bool Checked = false; // the strict checks ran
  std::vector<device::SyncFinding> Findings;
  uint64_t FindingsTotal = 0;
};

// A finding's kind: its message without pcs, wave numbers, addresses and registers.
std::string findingKind(const std::string &Message) {
  static const std::regex Noise(
      " at pc 0x[0-9a-f]+| in wave [0-9]+| (bytes?) 0x[0-9a-f.x]+| [vsa]\\[?[0-9:]+\\]?");
  return std::regex_replace(Message, Noise, "");
}

// How a run is scheduled and checked.
struct RunMode {
  uint64_t Seed = 1;
  bool Vary = false;
  bool Strict = false;
  uint64_t MaxInstructions = 0; // 0: no limit
  double TimeoutSeconds = 0;
};

llvm::Expected<RunOut> runOne(device::Device &Dev, device::Module &Mod, const LaunchSpec &S,
                              const std::vector<std::vector<uint8_t>> &Init, RunMode Mode,
                              unsigned Threads, const char *Who) {
  RunOut R;
  R.Alloc.resize(S.Args.size());
  std::vector<uint64_t> Addr(S.Args.size(), 0), Bases;
  auto freeAll = [&] {
    for (uint64_t B : Bases)
      llvm::consumeError(Dev.free(B));
  };
  for (size_t I = 0; I < S.Args.size(); ++I) {
    const ArgSpec &A = S.Args[I];
    if (!A.Buffer || A.Null)
      continue;
    uint64_t Data = Init[I].size(), Size = 2 * kGuardBytes + Data;
    auto Base = Dev.alloc(Size, std::string(Who) + " buffer " + A.Label);
    if (!Base) {
      freeAll();
      return Base.takeError();
    }
    Bases.push_back(*Base);
    std::vector<uint8_t> Img(Size);
    fillCanary(Img.data(), kGuardBytes, unsigned(I));
    if (Data)
      std::memcpy(Img.data() + kGuardBytes, Init[I].data(), Data);
    fillCanary(Img.data() + kGuardBytes + Data, kGuardBytes, unsigned(I));
    if (llvm::Error E = Dev.write(*Base, Img.data(), Size)) {
      freeAll();
      return std::move(E);
    }
    Addr[I] = *Base + kGuardBytes;
  }
  device::LaunchParams P;
  P.Kernel = S.Kernel;
  P.GridItems = S.gridItems();
  P.Block = S.Block;
  P.DynamicLds = S.DynamicLds;
  P.Kernarg = S.kernarg(Addr);
  P.Seed = Mode.Seed;
  P.VarySchedule = Mode.Vary;
  P.Strict = Mode.Strict;
  P.Threads = Threads;
  if (!Dev.info().Hardware) {
    P.MaxInstructions = Mode.MaxInstructions;
    P.TimeoutSeconds = Mode.TimeoutSeconds;
  }
  auto St = Dev.launch(Mod, P);
  if (!St) {
    freeAll();
    return St.takeError();
  }
  R.Checked = St->Checked;
  R.WaveInstructions = St->WaveInstructions;
  R.Seconds = St->Seconds;
  R.Findings = St->Findings;
  R.FindingsTotal = St->FindingsTotal;
  for (size_t I = 0; I < S.Args.size(); ++I) {
    if (!Addr[I])
      continue;
    R.Alloc[I].resize(2 * kGuardBytes + Init[I].size());
    if (llvm::Error E = Dev.read(Addr[I] - kGuardBytes, R.Alloc[I].data(), R.Alloc[I].size())) {
      freeAll();
      return std::move(E);
    }
  }
  freeAll();
  return R;
}

} // namespace

DiffResult runDiffCheck(const DiffOptions &O) {
  auto K0 = openCodeObject(O.K0);
  if (!K0)
    return errorResult(K0.takeError());
  auto K1 = openCodeObject(O.K1);
  if (!K1)
    return errorResult(K1.takeError());
  auto Spec = readLaunchSpec(O.Spec);
  if (!Spec)
    return errorResult(Spec.takeError());
  LaunchSpec &S = *Spec;
  if (llvm::Error E = resolveLaunchSpec(S, (*K0)->C, O.Kernel))
    return errorResult(std::move(E));

  DiffResult R;
  nlohmann::json &J = R.Json;
  J["tool"] = "kernel-diffcheck";
  J["kernel"] = S.Kernel;
  J["k0"] = O.K0;
  J["k1"] = O.K1;
  J["seeds"] = O.Seeds;
  J["theta"] = O.Theta;
  J["tau"] = O.Tau;
  J["llvm"] = LLVM_VERSION_STRING;

  // 1. The static ABI check.
  auto V = checkFrozenAbi((*K0)->C, (*K1)->C);
  if (!V.empty()) {
    R.Exit = 1;
    R.Verdict = "abi_invalid";
    R.Line = "abi_invalid: " + (V[0].Kernel.empty() ? "" : "kernel " + V[0].Kernel + ": ") +
             V[0].Field + ": " + V[0].Detail;
    for (size_t I = 1; I < V.size(); ++I)
      R.Details.push_back("also " + V[I].text());
    J["verdict"] = R.Verdict;
    J["abi_violations"] = violationsJson(V);
    return R;
  }

  // 1b. Registers, LDS and scratch against what the descriptor allocates and the hardware
  // launches (K1 only where K0 does not already have the same finding: then it is K0's).
  {
    auto V0 = staticViolations((*K0)->C);
    if (!V0)
      return errorResult(V0.takeError());
    auto V1 = staticViolations((*K1)->C);
    if (!V1)
      return errorResult(V1.takeError());
    std::vector<AbiViolation> Inherited;
    std::vector<AbiViolation> New = violationsNotInK0(*V1, *V0, &Inherited);
    for (const AbiViolation &Y : Inherited)
      R.Details.push_back("K0 does this too (not refused): " + Y.what());
    if (!New.empty()) {
      R.Exit = 1;
      R.Verdict = "abi_invalid";
      R.Line = New[0].text();
      for (size_t I = 1; I < New.size(); ++I)
        R.Details.push_back("also " + New[I].text());
      J["verdict"] = R.Verdict;
      J["abi_violations"] = violationsJson(New);
      return R;
    }
  }

  // 2. Launch inference (on the emulator).
  InferOptions IO = O.Infer;
  IO.TimeoutSeconds = O.TimeoutSeconds;
  if (O.Progress && S.needsInference())
    O.Progress("launch inference: running K0 on the emulator");
  auto Inf = inferLaunch(S, (*K0)->C, IO);
  if (!Inf)
    return errorResult(Inf.takeError());
  for (const std::string &L : Inf->Lines)
    R.Details.push_back("spec: " + L);
  J["inferred"] = Inf->Json;
  J["spec"] = S.toJson();

  // 3. The device.
  auto Dev = device::openDevice(O.Backend, (*K0)->C.Target.Processor);
  if (!Dev)
    return errorResult(Dev.takeError());
  const device::DeviceInfo &DI = (*Dev)->info();
  J["backend"] = DI.Backend;
  J["device"] = DI.Name;
  auto M0 = (*Dev)->load((*K0)->C);
  if (!M0)
    return errorResult(M0.takeError());
  auto M1 = (*Dev)->load((*K1)->C);
  if (!M1) {
    auto [Msg, Kind] = unpack(M1.takeError());
    R.Exit = 3;
    R.Verdict = "runtime_error";
    R.Line = "runtime_error: K1: " + Msg;
    J["verdict"] = R.Verdict;
    J["error"] = R.Line;
    return R;
  }

  std::vector<size_t> Outputs;
  for (size_t I = 0; I < S.Args.size(); ++I)
    if (S.Args[I].Buffer && !S.Args[I].Null)
      Outputs.push_back(I);
  std::vector<nlohmann::json> BufJson(S.Args.size());
  for (size_t I : Outputs) {
    const ArgSpec &A = S.Args[I];
    BufJson[I] = {
        {"arg", A.Arg},          {"label", A.Label},        {"type", elemTypeName(A.Type)},
        {"role", roleName(A.R)}, {"elements", *A.Elements}, {"seeds", nlohmann::json::array()}};
  }
  nlohmann::json Findings = nlohmann::json::array();
  std::optional<Failure> First;
  unsigned NOut = 0;
  for (size_t I : Outputs)
    NOut += S.Args[I].R != Role::In;
  auto checksNothing = [&](const std::string &Why) {
    DiffResult E;
    E.Exit = 2;
    E.Verdict = "error";
    E.Line = "this launch checks nothing: " + Why;
    E.Json = J;
    E.Json["verdict"] = E.Verdict;
    E.Json["error"] = E.Line;
    return E;
  };
  if (NOut == 0)
    return checksNothing("kernel " + S.Kernel +
                         " has no output buffer in this spec (every "
                         "buffer is an input), so any K1 would agree with K0");
  bool K0Wrote = false; // some output byte differs from its initial contents on some seed

  // Each seed starts from the code objects' module-scope data as loaded (a kernel that writes
  // its globals must not see the previous seed's values), so both are loaded again per seed.
  std::unique_ptr<device::Module> Mod0 = std::move(*M0), Mod1 = std::move(*M1);
  // The strict checks run on the emulator only: hardware cannot report what its timing hid.
  const bool Strict = O.Strict && !DI.Hardware;
  const unsigned Schedules = std::max(1u, O.Schedules);
  J["strict"] = Strict;
  J["schedules"] = Schedules;
  // Findings, one per rule and instruction offset, with where they were first seen.
  std::vector<nlohmann::json> K0Unsafe, K1Unsafe;
  auto noteFinding = [](std::vector<nlohmann::json> &List, const device::SyncFinding &F,
                        uint64_t Seed, unsigned Sched) {
    for (const nlohmann::json &E : List)
      if (E["rule"] == F.Rule && E["offset"] == F.Offset)
        return;
    List.push_back({{"rule", F.Rule},
                    {"offset", F.Offset},
                    {"message", F.Message},
                    {"seed", Seed},
                    {"schedule", Sched}});
  };
  bool FirstSeed = true;
  for (uint64_t Seed : O.Seeds) {
    if (!FirstSeed) {
      auto L0 = (*Dev)->load((*K0)->C);
      if (!L0)
        return errorResult(L0.takeError());
      auto L1 = (*Dev)->load((*K1)->C);
      if (!L1)
        return errorResult(L1.takeError());
      Mod0 = std::move(*L0);
      Mod1 = std::move(*L1);
    }
    FirstSeed = false;
    std::vector<std::vector<uint8_t>> Init(S.Args.size());
    for (size_t I : Outputs) {
      auto C = initialContents(S.Args[I], Seed);
      if (!C)
        return errorResult(C.takeError());
      Init[I] = std::move(*C);
    }
    if (!O.DumpDir.empty()) {
      std::string Dir = O.DumpDir + "/seed" + std::to_string(Seed);
      if (std::error_code EC = llvm::sys::fs::create_directories(Dir))
        return errorResult(
            makeError("--dump-inputs: cannot create '" + Dir + "': " + EC.message()));
      for (size_t I : Outputs)
        if (llvm::Error E = writeFileAtomic(
                Dir + "/" + fileLabel(unsigned(I), S.Args[I].Label) + ".in.bin",
                llvm::StringRef(reinterpret_cast<const char *>(Init[I].data()), Init[I].size())))
          return errorResult(std::move(E));
    }
    auto R0 = runOne(**Dev, *Mod0, S, Init, RunMode{Seed, false, Strict, 0, O.TimeoutSeconds},
                     O.Threads, "K0");
    if (!R0) {
      auto [Msg, Kind] = unpack(R0.takeError());
      DiffResult E;
      E.Exit = Kind == ErrorKind::Runtime ? 3 : 2;
      E.Verdict = Kind == ErrorKind::Runtime ? "runtime_error" : "error";
      E.Line = Kind == ErrorKind::Runtime
                   ? "runtime_error: K0: " + Msg + " (seed " + std::to_string(Seed) + ")"
                   : "K0 cannot take the launch the spec gives: " + Msg;
      E.Json = J;
      E.Json["verdict"] = E.Verdict;
      E.Json["error"] = E.Line;
      return E;
    }
    for (size_t I : Outputs) {
      const ArgSpec &A = S.Args[I];
      if (auto G = checkGuards(R0->Alloc[I].data(), Init[I].size(), unsigned(I))) {
        DiffResult E;
        E.Exit = 2;
        E.Verdict = "error";
        E.Line = "K0 writes outside buffer '" + A.Label + "' (" + std::to_string(*A.Elements) +
                 " " + elemTypeName(A.Type) + " elements) on seed " + std::to_string(Seed) + ": " +
                 G->text() + ": the spec gives it too few elements";
        E.Json = J;
        E.Json["verdict"] = E.Verdict;
        E.Json["error"] = E.Line;
        return E;
      }
    }
    for (const device::SyncFinding &F : R0->Findings)
      noteFinding(K0Unsafe, F, Seed, 1);
    for (size_t I : Outputs)
      if (S.Args[I].R != Role::In && !Init[I].empty() &&
          std::memcmp(R0->Alloc[I].data() + kGuardBytes, Init[I].data(), Init[I].size()) != 0)
        K0Wrote = true;
    // K1's bound: a multiple of what K0 executed on this launch (emu), or the user's.
    uint64_t K1Limit = O.MaxInstructions
                           ? O.MaxInstructions
                           : R0->WaveInstructions * uint64_t(std::max(1u, O.InstructionFactor));
    if (O.Progress)
      O.Progress("seed " + std::to_string(Seed) + ": K0 ran " +
                 std::to_string(R0->WaveInstructions) + " wave-instructions in " +
                 llvm::formatv("{0:f3}", R0->Seconds).str() + " s" +
                 (K1Limit ? "; K1 may run " + std::to_string(K1Limit) : std::string()));
    for (unsigned Sched = 1; Sched <= Schedules; ++Sched) {
      if (Sched > 1) {
        auto L1 = (*Dev)->load((*K1)->C);
        if (!L1)
          return errorResult(L1.takeError());
        Mod1 = std::move(*L1);
      }
      // Schedule 1 is the default interleaving; the others are seeded, varied ones.
      RunMode M1{Sched == 1 ? Seed : Seed * 0x10001 + Sched, Sched > 1, Strict, K1Limit,
                 O.TimeoutSeconds};
      auto R1 = runOne(**Dev, *Mod1, S, Init, M1, O.Threads, "K1");
      if (!R1) {
        std::string Msg;
        llvm::handleAllErrors(
            R1.takeError(),
            [&](const LimitError &L) {
              if (L.Which == LimitError::Seconds)
                Msg = "K1 ran longer than " + secondsText(O.TimeoutSeconds) +
                      " s (--timeout): endless loop? (" + L.Message + ")";
              else if (O.MaxInstructions)
                Msg = "K1 ran more than " + std::to_string(K1Limit) +
                      " wave-instructions (--max-instructions): endless loop?";
              else
                Msg = "K1 ran " + std::to_string(O.InstructionFactor) +
                      "x K0's instructions: endless loop? (stopped past " +
                      std::to_string(K1Limit) + " wave-instructions; K0 ran " +
                      std::to_string(R0->WaveInstructions) + ")";
            },
            [&](const ToolError &T) { Msg = formatError(T); },
            [&](const llvm::ErrorInfoBase &B) { Msg = B.message(); });
        R.Exit = 3;
        R.Verdict = "runtime_error";
        R.Line = "runtime_error: K1: " + Msg + " (seed " + std::to_string(Seed) +
                 (Schedules > 1 ? ", schedule " + std::to_string(Sched) : "") + ")";
        J["verdict"] = R.Verdict;
        J["error"] = R.Line;
        return R;
      }
      if (O.Progress)
        O.Progress("seed " + std::to_string(Seed) +
                   (Schedules > 1 ? " schedule " + std::to_string(Sched) : std::string()) +
                   ": K1 ran " + std::to_string(R1->WaveInstructions) + " wave-instructions in " +
                   llvm::formatv("{0:f3}", R1->Seconds).str() + " s");
      for (const device::SyncFinding &F : R1->Findings)
        noteFinding(K1Unsafe, F, Seed, Sched);
      for (size_t I : Outputs) {
        const ArgSpec &A = S.Args[I];
        uint64_t DataBytes = Init[I].size();
        const uint8_t *D0 = R0->Alloc[I].data() + kGuardBytes,
                      *D1 = R1->Alloc[I].data() + kGuardBytes;
        std::string Head = "buffer '" + A.Label + "' (" + elemTypeName(A.Type) + ") on seed " +
                           std::to_string(Seed) +
                           (Schedules > 1 ? " schedule " + std::to_string(Sched) : "") + ": ";
        nlohmann::json SJ = {{"seed", Seed}};
        if (Schedules > 1)
          SJ["schedule"] = Sched;
        if (!O.DumpDir.empty()) {
          std::string Base =
              O.DumpDir + "/seed" + std::to_string(Seed) + "/" + fileLabel(unsigned(I), A.Label);
          llvm::consumeError(writeFileAtomic(
              Base + ".k0.bin", llvm::StringRef(reinterpret_cast<const char *>(D0), DataBytes)));
          llvm::consumeError(writeFileAtomic(
              Base + ".k1.bin", llvm::StringRef(reinterpret_cast<const char *>(D1), DataBytes)));
        }
        if (auto G = checkGuards(R1->Alloc[I].data(), DataBytes, unsigned(I))) {
          SJ["guard"] = G->text();
          Findings.push_back({{"seed", Seed},
                              {"arg", A.Arg},
                              {"kind", "guard_write"},
                              {"kernel", "K1"},
                              {"detail", G->text()}});
          if (!First)
            First = Failure{1, "divergent", "divergent: " + Head + G->text()};
        }
        if (A.R == Role::In) {
          bool K0Changed = DataBytes && std::memcmp(D0, Init[I].data(), DataBytes) != 0;
          if (K0Changed)
            Findings.push_back({{"seed", Seed},
                                {"arg", A.Arg},
                                {"kind", "input_written"},
                                {"kernel", "K0"},
                                {"detail", "K0 changes this input buffer"}});
          BufferMetrics M = compareBuffers(ElemType::Bytes, D0, D1, DataBytes, O.Theta, O.Tau);
          SJ["input_unchanged_as_k0"] = M.ok();
          if (!M.ok()) {
            Findings.push_back({{"seed", Seed},
                                {"arg", A.Arg},
                                {"kind", "input_changed"},
                                {"kernel", "K1"},
                                {"detail", M.Failure},
                                {"byte", M.FirstDiff}});
            if (!First)
              First = Failure{1, "divergent",
                              "divergent: " + Head + "input buffer changed: " + M.Failure +
                                  " at byte " + std::to_string(M.FirstDiff) + " (K0 " + M.K0Value +
                                  ", K1 " + M.K1Value + ")"};
          }
        } else {
          BufferMetrics M = compareBuffers(A.Type, D0, D1, *A.Elements, O.Theta, O.Tau);
          SJ.update(M.toJson());
          if (!M.ok() && !First)
            First = Failure{1, "divergent",
                            "divergent: " + Head + M.Failure + " at index " +
                                std::to_string(M.FirstDiff) + " (K0 " + M.K0Value + ", K1 " +
                                M.K1Value + ")"};
        }
        BufJson[I]["seeds"].push_back(SJ);
      }
    } // schedules
  }

  nlohmann::json Buffers = nlohmann::json::array();
  for (size_t I : Outputs)
    Buffers.push_back(BufJson[I]);
  J["buffers"] = Buffers;
  J["findings"] = Findings;
  J["unsafe"] = K1Unsafe;
  J["k0_unsafe"] = K0Unsafe;
  auto offsetText = [](const nlohmann::json &E) {
    char Buf[32];
    std::snprintf(Buf, sizeof Buf, "+0x%llx", (unsigned long long)E["offset"].get<uint64_t>());
    return std::string(Buf);
  };
  for (const nlohmann::json &E : K0Unsafe)
    R.Details.push_back("K0 itself is unsafe under the strict checks (outputs compared only): "
                        "kernel" +
                        offsetText(E) + ": " + E["message"].get<std::string>());
  // When K0 itself is unsafe, K1's findings of the same kind (same rule and instructions,
  // whatever the pcs, waves, bytes and registers) are K0's behaviour, not K1's: only new kinds
  // count against K1.
  std::set<std::string> K0Kinds;
  for (const nlohmann::json &E : K0Unsafe)
    K0Kinds.insert(findingKind(E["message"].get<std::string>()));
  std::vector<nlohmann::json> NewUnsafe;
  for (const nlohmann::json &E : K1Unsafe)
    if (!K0Kinds.count(findingKind(E["message"].get<std::string>())))
      NewUnsafe.push_back(E);
  if (!K0Unsafe.empty())
    J["unsafe_new_kinds"] = NewUnsafe;
  if (!First && !NewUnsafe.empty()) {
    K1Unsafe = NewUnsafe;
    const nlohmann::json &E = K1Unsafe.front();
    First =
        Failure{1, "unsafe",
                "unsafe: " + S.Kernel + offsetText(E) + ": " + E["message"].get<std::string>() +
                    " (seed " + std::to_string(E["seed"].get<uint64_t>()) +
                    (Schedules > 1 ? ", schedule " + std::to_string(E["schedule"].get<unsigned>())
                                   : std::string()) +
                    ")"};
    for (size_t I = 1; I < K1Unsafe.size(); ++I)
      R.Details.push_back("also unsafe: " + S.Kernel + offsetText(K1Unsafe[I]) + ": " +
                          K1Unsafe[I]["message"].get<std::string>());
  } else {
    for (const nlohmann::json &E : NewUnsafe)
      R.Details.push_back("also unsafe: " + S.Kernel + offsetText(E) + ": " +
                          E["message"].get<std::string>());
  }
  if (First) {
    R.Exit = First->Exit;
    R.Verdict = First->Verdict;
    R.Line = First->Line;
  } else if (!K0Wrote) {
    return checksNothing("K0 writes no byte of its output buffers on seeds " + seedList(O.Seeds) +
                         " (is a size argument 0 or negative, or an output's \"elements\" 0?), "
                         "so any K1 that also writes nothing would agree with it");
  } else {
    R.Exit = 0;
    R.Verdict = "ok";
    R.Line =
        "ok: " + S.Kernel + ", " + std::to_string(NOut) + " output buffer" +
        (NOut == 1 ? "" : "s") + " equal on seeds " + seedList(O.Seeds) +
        (Schedules > 1 ? " x " + std::to_string(Schedules) + " schedules" : "") +
        (Strict ? (K0Unsafe.empty() ? ", strict checks clean" : ", strict checks: K0 itself unsafe")
                : ", no strict checks") +
        " (backend " + DI.Backend + ", " + DI.Name + ")";
  }
  for (size_t I : Outputs) {
    const ArgSpec &A = S.Args[I];
    std::string L = "'" + A.Label + "' " + roleName(A.R) + " " + elemTypeName(A.Type) + " x" +
                    std::to_string(*A.Elements);
    if (A.R != Role::In && isFloatType(A.Type)) {
      double MinCos = 1, MaxD = 0;
      for (const auto &SJ : BufJson[I]["seeds"])
        if (SJ.contains("cosine")) {
          MinCos = std::min(MinCos, SJ["cosine"].get<double>());
          MaxD = std::max(MaxD, SJ["max_abs_diff"].get<double>());
        }
      char Buf[96];
      std::snprintf(Buf, sizeof Buf, ": min cosine %.9g, max |diff| %.6g", MinCos, MaxD);
      L += Buf;
    }
    R.Details.push_back(L);
  }
  J["verdict"] = R.Verdict;
  if (R.Verdict != "ok")
    J["message"] = R.Line;
  return R;
}

DiffResult runInferOnly(const std::string &K0Path, const std::string &SpecPath,
                        const std::string &Kernel, const std::string &Out, const InferOptions &IO) {
  auto K0 = openCodeObject(K0Path);
  if (!K0)
    return errorResult(K0.takeError());
  auto Spec = readLaunchSpec(SpecPath);
  if (!Spec)
    return errorResult(Spec.takeError());
  if (llvm::Error E = resolveLaunchSpec(*Spec, (*K0)->C, Kernel))
    return errorResult(std::move(E));
  auto Inf = inferLaunch(*Spec, (*K0)->C, IO);
  if (!Inf)
    return errorResult(Inf.takeError());
  if (llvm::Error E = writeFileAtomic(Out, Spec->toJson().dump(2) + "\n"))
    return errorResult(std::move(E));
  DiffResult R;
  R.Verdict = "ok";
  R.Line = "inferred: " + Spec->Kernel + ", " + std::to_string(Inf->Json.size()) +
           " buffers completed in " + std::to_string(Inf->Runs) + " emulator runs of K0" +
           (Out == "-" ? "" : "; wrote " + Out);
  for (const std::string &L : Inf->Lines)
    R.Details.push_back("spec: " + L);
  R.Json = {{"tool", "kernel-diffcheck"},
            {"kernel", Spec->Kernel},
            {"inferred", Inf->Json},
            {"runs", Inf->Runs},
            {"spec", Spec->toJson()}};
  return R;
}

} // namespace asmevo::check
