#include "timing/TimeRun.h"

#include "codeobj/Input.h"
#include "codeobj/TargetLimits.h"
#include "device/Device.h"
#include "launch/BufferOverrun.h"
#include "launch/CaptureBundle.h"
#include "launch/CaptureLaunch.h"
#include "launch/InputGen.h"
#include "launch/LaunchSpec.h"
#include "launch/PlacedLaunch.h"
#include "support/Error.h"
#include "support/FileIO.h"
#include "support/Format.h"
#include "timing/Annotate.h"
#include "timing/AttImport.h"
#include "timing/Ensemble.h"
#include "timing/HotWindows.h"
#include "timing/Measure.h"
#include "timing/Model.h"
#include "timing/ModelAgreement.h"
#include "timing/TargetParams.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <optional>
#include <thread>

namespace asmevo::timing {

namespace {

std::string percent(double Part, double Whole) {
  return Whole > 0 ? fixed(100.0 * Part / Whole, 1) + "%" : "0%";
}

class TimeRunner {
public:
  explicit TimeRunner(const TimeOptions &O) : O(O) {}

  TimeResult run() {
    if (!O.AttDir.empty())
      imported();
    else if (open() && openDevice())
      Dev->info().Hardware ? measured() : modeled();
    Fields.Result = R.Result;
    Fields.Message = R.Message;
    Fields.Backend = R.Backend;
    Fields.Kind = R.Body.is_object() ? R.Body.value("kind", "") : "";
    if (Fields.Result != Outcome::Ok) {
      Fields.Kernels.clear();
      Fields.Ratio = 0;
      Fields.SpeedupPerMember.clear();
    }
    Fields.Rep = std::move(R);
    return std::move(Fields);
  }

private:
  const TimeOptions &O;
  Report R;
  TimeResult Fields;                               // R's figures as fields
  std::vector<std::unique_ptr<OpenCodeObject>> Ks; // K0, then K1
  std::vector<std::string> Roles;
  launch::LaunchSpec S;                         // S.Kernel only, with --capture
  std::optional<launch::CaptureBundle> Capture; // --capture
  launch::CapturePlacement CapturePlaced;       // where its regions live on Dev
  KernelSignature CaptureSig;                   // the captured kernel's, from K0
  std::unique_ptr<device::Device> Dev;

  bool fail(llvm::Error E) {
    R.fail(std::move(E));
    return false;
  }
  nlohmann::json &body() { return R.Body; }
  void progress(const std::string &Line) {
    if (O.Progress)
      O.Progress(Line);
  }

  bool open() {
    std::vector<std::string> Paths{O.K0};
    if (!O.K1.empty())
      Paths.push_back(O.K1);
    for (size_t I = 0; I < Paths.size(); ++I) {
      auto L = openCodeObject(Paths[I]);
      if (!L)
        return fail(L.takeError());
      Ks.push_back(std::move(*L));
      Roles.push_back(I == 0 ? "K0" : "K1");
      R.Inputs.push_back(reportInput(I == 0 ? "k0" : "k1", Paths[I], Ks.back()->C.Bytes));
    }
    if (!O.Capture.empty())
      return openCapture();
    auto Spec = launch::readLaunchSpec(O.Spec);
    if (!Spec)
      return fail(Spec.takeError());
    S = std::move(*Spec);
    if (llvm::Error E = launch::resolveLaunchSpec(S, Ks[0]->C, O.Kernel))
      return fail(std::move(E));
    R.Inputs.push_back(reportInput("spec", O.Spec, S.Text));
    if (S.needsInference())
      return fail(makeError("'" + O.Spec +
                            "' leaves buffer sizes or roles open; complete it first with "
                            "kernel-diffcheck --infer K0 --spec " +
                            O.Spec + " -o FULL.json"));
    for (size_t I = 1; I < Ks.size(); ++I) {
      const CodeObject &C = Ks[I]->C;
      if (C.Target.Processor != Ks[0]->C.Target.Processor)
        return fail(makeError("'" + O.K1 + "' is for " + C.Target.Processor + ", K0 for " +
                              Ks[0]->C.Target.Processor));
      if (!C.kernel(S.Kernel))
        return fail(makeError("'" + O.K1 + "': no kernel named '" + S.Kernel + "' (K0's)"));
    }
    R.Seeds = {O.Seed};
    body()["kernel"] = S.Kernel;
    body()["target"] = Ks[0]->C.Target.Processor;
    return true;
  }

  // --capture: the bundle instead of the spec; K0 must be its code object.
  bool openCapture() {
    auto Bytes = readFile(O.Capture);
    if (!Bytes)
      return fail(Bytes.takeError());
    auto B = launch::decodeCaptureBundle((*Bytes)->getBuffer(), O.Capture);
    if (!B)
      return fail(B.takeError());
    Capture = std::move(*B);
    R.Inputs.push_back(reportInput("capture", O.Capture, (*Bytes)->getBuffer()));
    if (llvm::Error E = launch::checkCapturedK0(*Capture, Ks[0]->C.Bytes, O.K0, O.Capture))
      return fail(std::move(E));
    // K0 is the bundle's own code object: what it lacks for the recorded kernel is the
    // bundle's fault.
    const KernelInfo *KI = Ks[0]->C.kernel(Capture->Kernel);
    if (!KI)
      return fail(withFile(
          makeError("the capture's kernel '" + Capture->Kernel + "' is not in its code object"),
          O.Capture));
    auto Sig = kernelSignature(Ks[0]->C, *KI);
    if (!Sig)
      return fail(Sig.takeError());
    CaptureSig = std::move(*Sig);
    if (llvm::Error E = launch::checkCaptureKernarg(*Capture, CaptureSig, O.Capture))
      return fail(std::move(E));
    for (size_t I = 1; I < Ks.size(); ++I)
      if (!Ks[I]->C.kernel(Capture->Kernel))
        return fail(makeError("'" + O.K1 + "': no kernel named '" + Capture->Kernel +
                              "' (the captured one)"));
    S.Kernel = Capture->Kernel;
    R.Seeds = {};
    body()["kernel"] = S.Kernel;
    body()["target"] = Ks[0]->C.Target.Processor;
    body()["capture"] = {{"runtime", Capture->Runtime}, {"device", Capture->Device}};
    return true;
  }

  bool openDevice() {
    auto D = device::openDevice(O.Backend, Ks[0]->C.Target.Processor);
    if (!D)
      return fail(D.takeError());
    Dev = std::move(*D);
    R.Backend = Dev->info().Backend;
    if (Capture) {
      auto P = launch::placeCaptureRegions(*Dev, *Capture);
      if (!P) // a region the device cannot map: the bundle's
        return fail(launch::blameCaptureFault(P.takeError(), *Capture, CaptureSig, O.Capture));
      CapturePlaced = std::move(*P);
    }
    body()["device"] = Dev->info().Name;
    return true;
  }

  // What a modeled kernel contributes to the report: its JSON, its figures per parameter set
  // (the first: the nominal set) and its notes.
  struct ModeledKernel {
    nlohmann::json Json;
    std::vector<double> Cycles, Us;
    std::vector<std::string> Notes;
  };

  // The key an earlier run's K0 figures must match to be reused (modeledReference).
  nlohmann::json referenceKey(const TargetParams &TP) const {
    std::string K0Sha, SpecSha, CaptureSha;
    for (const ReportInput &In : R.Inputs) {
      if (In.Role == "k0")
        K0Sha = In.Sha256;
      if (In.Role == "spec")
        SpecSha = In.Sha256;
      if (In.Role == "capture")
        CaptureSha = In.Sha256;
    }
    nlohmann::json Key = {{"k0_sha256", K0Sha},
                          {"spec_sha256", SpecSha},
                          {"params_sha256", TP.Sha256},
                          {"seed", O.Seed},
                          {"ensemble", std::max(1u, O.Ensemble)},
                          {"ensemble_seed", O.EnsembleSeed},
                          {"max_groups", O.MaxSimulatedGroups}};
    if (!CaptureSha.empty()) // a key without it is a spec's: never reused for a capture
      Key["capture_sha256"] = CaptureSha;
    return Key;
  }

  // K0's figures from O.K0Reference if it was made under Key with N parameter sets, every field
  // of the expected type (it may come from another process: a worker's options); else none, and
  // K0 is modeled as always.
  std::optional<ModeledKernel> reusedK0(const nlohmann::json &Key, unsigned N) const {
    const nlohmann::json &Ref = O.K0Reference;
    if (!Ref.is_object() || !Ref.contains("key") || Ref["key"] != Key || !Ref.contains("kernel") ||
        !Ref["kernel"].is_object())
      return std::nullopt;
    const nlohmann::json &RK = Ref["kernel"];
    auto Numbers = [&](const nlohmann::json &E, const char *Name, std::vector<double> &Out) {
      if (!E.contains(Name) || !E[Name].is_array() || E[Name].size() != N)
        return false;
      for (const nlohmann::json &X : E[Name]) {
        if (!X.is_number() || !std::isfinite(X.get<double>()) || X.get<double>() <= 0)
          return false;
        Out.push_back(X.get<double>());
      }
      return true;
    };
    for (const char *F : {"kernel_us", "clock_mhz", "kernel_fixed_us", "launch_overhead_us"})
      if (!RK.contains(F) || !RK[F].is_number() || !std::isfinite(RK[F].get<double>()))
        return std::nullopt;
    ModeledKernel M;
    if (!RK.contains("ensemble") || !RK["ensemble"].is_object() ||
        !Numbers(RK["ensemble"], "cycles_per_member", M.Cycles) ||
        !Numbers(RK["ensemble"], "microseconds_per_member", M.Us))
      return std::nullopt;
    if (Ref.contains("notes") && Ref["notes"].is_array())
      for (const nlohmann::json &X : Ref["notes"])
        if (X.is_string())
          M.Notes.push_back(X.get<std::string>());
    M.Json = RK;
    M.Json["reused"] = true;
    return M;
  }

  // The model: each kernel on the same inputs (seed O.Seed), emulated once and simulated under
  // every parameter set.
  void modeled() {
    body()["kind"] = "modeled";
    body()["label"] = "modeled, not measured";
    if (O.FlushBytes)
      if (llvm::Error E = Dev->flushCaches(O.FlushBytes))
        return (void)fail(std::move(E));
    if (llvm::Error E = checkGridBound())
      return (void)fail(std::move(E));
    auto TP = O.ParamsFile.empty() ? loadTargetParams(Ks[0]->C.Target.Processor)
                                   : readTargetParams(O.ParamsFile);
    if (!TP)
      return (void)fail(TP.takeError());
    R.Inputs.push_back(ReportInput{"params", TP->Path, TP->Sha256});
    body()["params"] = TP->Path;
    body()["model_device"] = TP->Device;
    // How far the model is to be believed on this GPU (ModelAgreement.h): said in every modeled
    // report, after its other notes.
    auto Agreement = agreementFor(*TP);
    if (!Agreement)
      return (void)fail(Agreement.takeError());
    body()["model_agreement"] = Agreement->Json;
    std::vector<std::vector<uint8_t>> Init(S.Args.size());
    for (size_t I = 0; I < S.Args.size() && !Capture; ++I) {
      if (!S.Args[I].Buffer || S.Args[I].Null)
        continue;
      auto C = launch::initialContents(S.Args[I], O.Seed);
      if (!C)
        return (void)fail(C.takeError());
      Init[I] = std::move(*C);
    }
    // The parameter sets: the nominal one first (Ensemble.h).
    const unsigned N = std::max(1u, O.Ensemble);
    std::vector<TargetParams> Sets = drawParameterSets(*TP, N, O.EnsembleSeed);
    std::vector<ModeledKernel> Mk;
    for (size_t K = 0; K < Ks.size(); ++K) {
      // K0's figures from an earlier run of the same options: not modeled again.
      if (K == 0 && Ks.size() == 2 && !O.Profile && O.AnnotatePath.empty())
        if (std::optional<ModeledKernel> M = reusedK0(referenceKey(*TP), N)) {
          // A capture's kernels share Dev: K0's code is loaded where it would be, so that K1's
          // lies where it lay when K0 ran first.
          if (Capture)
            if (auto L = Dev->load(Ks[0]->C); !L)
              return (void)fail(L.takeError());
          Mk.push_back(std::move(*M));
          continue;
        }
      progress("modeling " + Roles[K] +
               (N > 1 ? " under " + std::to_string(N) + " parameter sets" : std::string()) +
               " ...");
      // Each kernel of a spec on a device of its own, so that its buffers lie where K0's lay
      // (and its figures do not depend on what ran before it); a capture's regions are placed
      // once, on Dev.
      std::unique_ptr<device::Device> Own;
      if (K > 0 && !Capture && Dev->info().Backend == "emu")
        Own = device::createEmuDevice(Ks[0]->C.Target.Processor);
      device::Device &KDev = Own ? *Own : *Dev;
      auto M = KDev.load(Ks[K]->C);
      if (!M)
        return (void)fail(M.takeError());
      // The spec's buffers placed afresh, or the captured state written again.
      std::optional<launch::PlacedLaunch> Placed;
      device::LaunchParams Params;
      // K0 ran the captured dispatch: what it cannot take is the bundle's fault.
      auto blame = [&](llvm::Error E) {
        return Capture && K == 0
                   ? launch::blameCaptureFault(std::move(E), *Capture, CaptureSig, O.Capture)
                   : std::move(E);
      };
      if (Capture) {
        if (llvm::Error E = launch::writeCapturePreState(KDev, **M, *Capture, CapturePlaced))
          return (void)fail(blame(std::move(E)));
        auto P = launch::captureLaunchParams(*Capture, CapturePlaced);
        if (!P)
          return (void)fail(blame(P.takeError()));
        Params = std::move(*P);
      } else {
        auto P = launch::placeLaunch(KDev, S, Init, Roles[K]);
        if (!P)
          return (void)fail(P.takeError());
        Placed = std::move(*P);
        Params = Placed->Params;
      }
      Params.Seed = 1;
      Params.Threads = O.Threads;
      Params.TimeoutSeconds = O.TimeoutSeconds;
      // K0's accesses are recorded, so that a spec whose buffers are too small for it is said
      // to be (K1 running past a buffer K0 stays in is K1's fault).
      Params.TrackFootprint = K == 0 && Placed && KDev.info().TracksFootprint;
      ModelOptions MO;
      MO.MaxSimulatedGroups = O.MaxSimulatedGroups;
      MO.Profile = O.Profile || !O.AnnotatePath.empty();
      MO.Threads = O.Threads;
      MO.RunSampleOnly = true; // nothing reads the results
      // Emulated once; simulated under the nominal set here, under the others below.
      auto TL = traceLaunch(KDev, **M, Params, *TP, MO);
      llvm::Expected<ModelResult> MR = TL ? simulateLaunch(*TL, Sets[0], MO.Profile)
                                          : llvm::Expected<ModelResult>(TL.takeError());
      llvm::Error Err = MR ? llvm::Error::success() : MR.takeError();
      bool SpecError = false; // K0 ran past one of the spec's buffers
      if (Placed && K == 0)
        Err = Err ? blameOverrun(*Placed, Init, std::move(Err), SpecError)
                  : checkFootprints(*Placed, Init, MR->Launch, SpecError);
      if (Placed)
        launch::freeLaunch(KDev, *Placed);
      if (Err) {
        R.fail(blame(std::move(Err)));
        // An error about the spec or the bundle names it, not the kernel that ran it.
        if (!SpecError && !(Capture && K == 0 && R.Result == Outcome::InputError))
          R.Message = Roles[K] + ": " + R.Message;
        return;
      }
      ModeledKernel X;
      X.Cycles = {MR->Cycles};
      X.Us = {MR->Microseconds};
      // The other sets, on O.Threads host threads (each simulation reads the traces only).
      std::vector<std::optional<llvm::Expected<ModelResult>>> Ys(N);
      {
        unsigned Host = O.Threads ? O.Threads : std::max(1u, std::thread::hardware_concurrency());
        unsigned Workers = std::max(1u, std::min(Host, N > 1 ? N - 1 : 1u));
        std::atomic<unsigned> Next{1};
        auto Work = [&] {
          for (unsigned I = Next++; I < N; I = Next++)
            Ys[I].emplace(simulateLaunch(*TL, Sets[I]));
        };
        std::vector<std::thread> Pool;
        for (unsigned T = 1; T < Workers; ++T)
          Pool.emplace_back(Work);
        Work();
        for (std::thread &T : Pool)
          T.join();
      }
      for (unsigned I = 1; I < N; ++I) {
        llvm::Expected<ModelResult> &Y = *Ys[I];
        if (!Y) {
          R.fail(Y.takeError());
          for (unsigned J = I + 1; J < N; ++J)
            if (!*Ys[J])
              llvm::consumeError(Ys[J]->takeError());
          R.Message = Roles[K] + ": parameter set " + std::to_string(I) + ": " + R.Message;
          return;
        }
        X.Cycles.push_back(Y->Cycles);
        X.Us.push_back(Y->Microseconds);
      }
      if (K == 0 && !O.AnnotatePath.empty()) {
        auto A = annotatedAssembly(Ks[0]->C, O.K0, O.AnnotatePath, S.Kernel, MR->Insts);
        if (!A)
          return (void)fail(A.takeError());
        if (llvm::Error E = writeFileAtomic(O.AnnotatePath, *A))
          return (void)fail(std::move(E));
        body()["annotated"] = O.AnnotatePath;
      }
      X.Json = kernelJson(Roles[K], *MR, X.Cycles, X.Us);
      X.Notes = notes(Roles[K], *MR);
      Mk.push_back(std::move(X));
    }
    nlohmann::json Kernels = nlohmann::json::array();
    for (size_t K = 0; K < Mk.size(); ++K) {
      Kernels.push_back(Mk[K].Json);
      Fields.Kernels.push_back({Roles[K], Mk[K].Us.empty() ? 0 : Mk[K].Us[0], 0, Mk[K].Us});
    }
    body()["kernels"] = Kernels;
    std::vector<std::string> Ranged = rangedFigures(*TP);
    body()["ensemble"] = {{"members", N},
                          {"seed", O.EnsembleSeed},
                          {"method", kEnsembleMethod},
                          {"ranged_figures", Ranged}};
    body()["reference_key"] = referenceKey(*TP);
    // K0's figures at the nominal set (reusedK0 checks that a reused K0's JSON has them).
    const nlohmann::json &J0 = Mk[0].Json;
    double C0 = Mk[0].Cycles[0], U0 = Mk[0].Us[0];
    R.Message = Roles[0] + " " + fixed(U0, 3) + " us (kernel " +
                fixed(J0["kernel_us"].get<double>(), 3) + " us: " + fixed(C0, 0) + " cycles at " +
                fixed(J0["clock_mhz"].get<double>(), 0) + " MHz and a fixed " +
                fixed(J0["kernel_fixed_us"].get<double>(), 3) + " us; launch overhead " +
                fixed(J0["launch_overhead_us"].get<double>(), 3) + " us) on " + TP->Device +
                ", modeled, not measured";
    if (N > 1) {
      Interval T0 = summarizeEnsemble(Mk[0].Us);
      R.Notes.push_back("ensemble: " + std::to_string(N) + " parameter sets (seed " +
                        std::to_string(O.EnsembleSeed) + "; the nominal one and " +
                        std::to_string(N - 1) + " drawn over " + std::to_string(Ranged.size()) +
                        " ranged figures): K0 " + fixed(T0.Min, 3) + " to " + fixed(T0.Max, 3) +
                        " us, median " + fixed(T0.Median, 3));
      if (Ranged.empty())
        R.Notes.push_back("ensemble: the parameter file gives every figure exactly, so every "
                          "parameter set is the nominal one");
    }
    if (Mk.size() == 2) {
      // Times, not cycles: the two kernels' clocks differ with their MFMA load.
      SpeedupInterval Sp = pairedSpeedups(Mk[0].Us, Mk[1].Us);
      double Ratio = Mk[1].Us[0] / U0;
      Fields.Ratio = Ratio;
      Fields.SpeedupPerMember = Sp.Speedups;
      std::vector<double> Ratios;
      for (double X : Sp.Speedups)
        Ratios.push_back(X > 0 ? 1 / X : 0);
      Interval Q = summarizeEnsemble(Ratios);
      std::string Over = N > 1 ? "over " + std::to_string(N) +
                                     " parameter sets drawn from the parameter file's ranges, "
                                     "the same for K0 and K1 (member 0: the nominal figures)"
                               : "a point: the nominal figures only (--ensemble N draws N "
                                 "parameter sets from the ranges)";
      body()["ratio"] = {{"value", Ratio},
                         {"low", Q.Min},
                         {"high", Q.Max},
                         {"median", Q.Median},
                         {"basis", "modeled time of K1 / K0, each one launch of a back-to-back "
                                   "sequence (kernel and launch overhead)"},
                         {"interval", Over}};
      body()["speedup"] = {{"value", Sp.Value},
                           {"min", Sp.Min},
                           {"max", Sp.Max},
                           {"median", Sp.Median},
                           {"cv", Sp.Cv},
                           {"members", Sp.Members},
                           {"faster_members", Sp.Faster},
                           {"faster_fraction", Sp.fasterFraction()},
                           {"per_member", Sp.Speedups},
                           {"basis", "modeled time of K0 / K1 (kernel and launch overhead), per "
                                     "parameter set"},
                           {"interval", Over}};
      R.Message +=
          "; K1 " + fixed(Mk[1].Us[0], 3) + " us, t(K1)/t(K0) = " + fixed(Ratio, 4) + " (modeled";
      if (N > 1)
        R.Message += "); speedup " + fixed(Sp.Value, 4) + " [min " + fixed(Sp.Min, 4) +
                     ", median " + fixed(Sp.Median, 4) + ", max " + fixed(Sp.Max, 4) +
                     "], K1 faster under " + std::to_string(Sp.Faster) + " of " +
                     std::to_string(N) + " parameter sets";
      else
        R.Message += " at the nominal figures only; --ensemble N gives its interval)";
    }
    for (const ModeledKernel &X : Mk)
      R.Notes.insert(R.Notes.end(), X.Notes.begin(), X.Notes.end());
    R.Notes.insert(R.Notes.end(), Agreement->Notes.begin(), Agreement->Notes.end());
  }

  // A modeled launch of more than O.MaxWorkgroups workgroups is refused before anything runs.
  llvm::Error checkGridBound() {
    std::array<uint32_t, 3> Block = Capture ? Capture->Block : S.Block;
    std::array<uint64_t, 3> N;
    for (unsigned D = 0; D < 3; ++D)
      N[D] = Capture ? Capture->GridWorkgroups[D]
                     : (uint64_t(S.gridItems()[D]) + Block[D] - 1) / std::max(1u, Block[D]);
    uint64_t Groups = 1;
    bool Over = false;
    for (uint64_t X : N) {
      Over |= X && Groups > ~0ull / X;
      Groups *= X;
    }
    if (!Over && Groups <= O.MaxWorkgroups)
      return llvm::Error::success();
    return llvm::make_error<ToolError>(
        "a launch of " + (Over ? std::string("more than 2^64") : std::to_string(Groups)) +
            " workgroups (" + llvm::formatv("{0} x {1} x {2}", N[0], N[1], N[2]).str() +
            " workgroups of " +
            llvm::formatv("{0} x {1} x {2}", Block[0], Block[1], Block[2]).str() +
            " work-items) is more than the model's bound of " + std::to_string(O.MaxWorkgroups) +
            " workgroups (--max-workgroups N raises it)",
        Capture ? O.Capture : O.Spec);
  }

  // Where each of the spec's buffers lay for K0's run.
  std::vector<launch::BufferExtent> extents(const launch::PlacedLaunch &P,
                                            const std::vector<std::vector<uint8_t>> &Init) {
    std::vector<launch::BufferExtent> X;
    for (size_t I = 0; I < S.Args.size(); ++I)
      if (P.Addr[I])
        X.push_back({&S.Args[I], P.Addr[I], P.Addr[I] + Init[I].size()});
    return X;
  }
  // K0's run faulted beside one of the spec's buffers: the spec's error, not K0's.
  llvm::Error blameOverrun(const launch::PlacedLaunch &P,
                           const std::vector<std::vector<uint8_t>> &Init, llvm::Error E,
                           bool &SpecError) {
    if (!E.isA<MemoryFaultError>())
      return E;
    E = launch::blameBufferOverrun(std::move(E), extents(P, Init));
    if (E.isA<MemoryFaultError>())
      return E;
    SpecError = true;
    return llvm::make_error<ToolError>(llvm::toString(std::move(E)), O.Spec);
  }
  // K0 touched bytes beside one of the spec's buffers without faulting (in its guards).
  llvm::Error checkFootprints(const launch::PlacedLaunch &P,
                              const std::vector<std::vector<uint8_t>> &Init,
                              const device::LaunchResult &L, bool &SpecError) {
    for (const device::Footprint &F : L.Footprints)
      for (size_t I = 0; I < S.Args.size(); ++I)
        if (P.Addr[I] && F.Base == P.Addr[I] - launch::kGuardBytes && F.Touched)
          if (llvm::Error E = launch::checkTouchedBytes(
                  S.Args[I], int64_t(F.Lo) - int64_t(launch::kGuardBytes),
                  int64_t(F.Hi) - int64_t(launch::kGuardBytes), Init[I].size(), "")) {
            SpecError = true;
            return llvm::make_error<ToolError>(llvm::toString(std::move(E)), O.Spec);
          }
    return llvm::Error::success();
  }

  // Role's figures under the nominal set (M), and over every set (Cycles, Us: per set).
  nlohmann::json kernelJson(const std::string &Role, const ModelResult &M,
                            const std::vector<double> &Cycles, const std::vector<double> &Us) {
    Interval C = summarizeEnsemble(Cycles), T = summarizeEnsemble(Us);
    nlohmann::json J = {{"role", Role},
                        {"cycles", M.Cycles},
                        {"microseconds", M.Microseconds},
                        {"kernel_us", M.KernelMicroseconds},
                        {"kernel_fixed_us", M.KernelFixedMicroseconds},
                        {"launch_overhead_us", M.LaunchOverheadMicroseconds},
                        {"clock_mhz", M.ClockMHz},
                        {"mfma_load", M.MfmaLoad},
                        // the ensemble's relative spread of the cycles (0: one set)
                        {"spread", M.Cycles > 0 ? (C.Max - C.Min) / M.Cycles : 0},
                        {"ensemble",
                         {{"members", C.Members},
                          {"cycles", {{"min", C.Min}, {"median", C.Median}, {"max", C.Max}}},
                          {"microseconds", {{"min", T.Min}, {"median", T.Median}, {"max", T.Max}}},
                          {"cycles_per_member", Cycles},
                          {"microseconds_per_member", Us}}},
                        {"occupancy",
                         {{"waves_per_simd", M.WavesPerSimd},
                          {"workgroups_per_cu", M.GroupsPerCu},
                          {"waves_per_workgroup", M.WavesPerGroup},
                          {"limited_by", M.OccupancyLimit},
                          {"vgprs", M.Vgprs},
                          {"vgpr_headroom", M.VgprHeadroom}}},
                        {"sampling",
                         {{"workgroups", M.Groups},
                          {"simulated_workgroups", M.SimulatedGroups},
                          {"cus_used", M.UsedCus},
                          {"cus_simulated", M.SimulatedCus}}},
                        {"wave_cycles", breakdownJson(M.Total)},
                        {"emulated",
                         {{"workgroups", M.EmulatedGroups},
                          {"wave_instructions", M.Launch.WaveInstructions},
                          {"host_seconds", M.Launch.Seconds}}}};
    if (O.Profile)
      J.update(profileJson(M.Insts, O.MaxWindows, M.VgprHeadroom));
    return J;
  }

  std::vector<std::string> notes(const std::string &Role, const ModelResult &M) {
    const Breakdown &B = M.Total;
    double T = totalCycles(B);
    std::vector<std::string> Out;
    Out.push_back(Role + ": " + std::to_string(M.WavesPerSimd) + " waves/SIMD (limited by " +
                  M.OccupancyLimit + "), " + std::to_string(M.GroupsPerCu) +
                  " workgroups/CU; simulated " + std::to_string(M.SimulatedGroups) + " of " +
                  std::to_string(M.Groups) + " workgroups on " + std::to_string(M.SimulatedCus) +
                  " of " + std::to_string(M.UsedCus) + " CUs in use");
    Out.push_back(Role + ": wave-cycles: issue " + percent(B.Issue, T) + ", s_nop/latency " +
                  percent(B.Dependency, T) + ", unit busy " + percent(B.UnitBusy, T) + ", vmcnt " +
                  percent(B.WaitVm, T) + ", lgkmcnt " + percent(B.WaitLgkm, T) + ", barrier " +
                  percent(B.Barrier, T) + ", arbitration " + percent(B.Arbitration, T) +
                  "; LDS bank conflicts " + fixed(B.LdsConflict, 0) + " cycles");
    if (O.Profile)
      for (const HotWindow &W : hotWindows(M.Insts, std::min(O.MaxWindows, 5u)))
        Out.push_back(windowNote(Role, W, "wave-cycles"));
    return Out;
  }

  // "K0: hot window +0x100..+0x210 (50 instructions, 100.0% of wave-cycles, waits on vmcnt)"
  static std::string windowNote(const std::string &Role, const HotWindow &W, const char *Of) {
    return Role + ": hot window +0x" + llvm::utohexstr(uint64_t(W.Begin)) + "..+0x" +
           llvm::utohexstr(uint64_t(W.End)) + " (" + std::to_string(W.Instructions) +
           " instructions, " + percent(W.Share, 1) + " of " + Of +
           (W.WaitsOn.empty() ? "" : ", waits on " + llvm::join(W.WaitsOn, ", ")) + ")";
  }

  // A GPU: repeated event-timed launches (Measure.h).
  void measured();

  // A thread trace recorded on a GPU: K0's profile and hot windows (AttImport.h).
  void imported() {
    auto L = openCodeObject(O.K0);
    if (!L)
      return (void)fail(L.takeError());
    const CodeObject &C = (*L)->C;
    R.Inputs.push_back(reportInput("k0", O.K0, C.Bytes));
    std::string Kernel = O.Kernel;
    if (Kernel.empty() && C.Kernels.size() == 1)
      Kernel = C.Kernels[0].Name;
    if (Kernel.empty())
      return (void)fail(makeError("'" + O.K0 + "' has several kernels: name one (--kernel)"));
    auto P = importAttStats(O.AttDir, C, Kernel);
    if (!P)
      return (void)fail(P.takeError());
    R.Inputs.push_back(ReportInput{"att", P->File, P->Sha256});
    body()["kind"] = "measured";
    body()["label"] = "measured: rocprofv3 thread trace, imported";
    body()["kernel"] = Kernel;
    body()["target"] = C.Target.Processor;
    body()["codeobj"] = P->Codeobj;
    nlohmann::json K = {{"role", "K0"}};
    K.update(profileJson(P->Insts, O.MaxWindows, 0));
    body()["kernels"] = nlohmann::json::array({K});
    R.Message = "K0 '" + Kernel + "': " + std::to_string(P->Insts.size()) +
                " instructions profiled from " + std::to_string(P->Rows) +
                " thread-trace rows (measured, rocprofv3, imported)";
    for (const HotWindow &W : hotWindows(P->Insts, std::min(O.MaxWindows, 5u)))
      R.Notes.push_back(windowNote("K0", W, "traced cycles"));
  }
};

void TimeRunner::measured() {
  body()["kind"] = "measured";
  body()["label"] = "measured on " + Dev->info().Name;
  if (O.Ensemble > 1)
    R.Notes.push_back("the parameter sets of --ensemble are the model's: measured times have "
                      "none (their interval is the bootstrap's)");
  if (O.Profile || !O.AnnotatePath.empty())
    return (void)fail(makeError("on a GPU the hot windows come from a thread trace: record one "
                                "with rocprofv3 --att -d DIR and import it with --att DIR"));
  std::vector<std::unique_ptr<device::Module>> Mods;
  std::vector<MeasuredKernel> MK;
  for (size_t K = 0; K < Ks.size(); ++K) {
    auto M = Dev->load(Ks[K]->C);
    if (!M)
      return (void)fail(M.takeError());
    Mods.push_back(std::move(*M));
    MK.push_back(MeasuredKernel{Roles[K], Mods.back().get()});
  }
  MeasureOptions MO;
  MO.Warmup = O.Warmup;
  MO.Reps = O.Reps;
  MO.Rotate = O.Rotate;
  MO.FlushBytes = O.FlushBytes;
  MO.Seed = O.Seed;
  progress("timing " + std::to_string(O.Reps) + " rounds ...");
  // A capture: every launch from the recorded pre-state, written again before it (untimed).
  auto MR = Capture ? measurePrepared(
                          *Dev, MK,
                          [&](size_t K, unsigned) -> llvm::Expected<device::LaunchParams> {
                            if (llvm::Error E = launch::writeCapturePreState(
                                    *Dev, *Mods[K], *Capture, CapturePlaced))
                              return std::move(E);
                            return launch::captureLaunchParams(*Capture, CapturePlaced);
                          },
                          MO)
                    : measureLaunches(*Dev, MK, S, MO);
  if (Capture && CapturePlaced.Moved)
    R.Notes.push_back(std::to_string(CapturePlaced.Moved) +
                      " captured region(s) could not be placed at their recorded addresses: "
                      "the kernarg pointers into them were rewritten");
  if (!MR)
    return (void)fail(MR.takeError());
  body()["arch"] = MR->Arch;
  body()["clock_mhz"] = MR->ClockMHz;
  body()["protocol"] = {{"warmup", O.Warmup},
                        {"reps", O.Reps},
                        {"rotate", Capture ? 1u : O.Rotate},
                        {"flush_bytes", O.FlushBytes},
                        {"interleaved", Ks.size() == 2}};
  nlohmann::json Kernels = nlohmann::json::array();
  for (const KernelTiming &T : MR->Kernels) {
    const SampleStats &St = T.Stats;
    Fields.Kernels.push_back({T.Role, St.Median * 1e6, St.Cv, {}});
    Kernels.push_back({{"role", T.Role},
                       {"microseconds", St.Median * 1e6},
                       {"median_us", St.Median * 1e6},
                       {"mean_us", St.Mean * 1e6},
                       {"min_us", St.Min * 1e6},
                       {"p10_us", St.P10 * 1e6},
                       {"p90_us", St.P90 * 1e6},
                       {"cv", St.Cv},
                       {"samples_us", [&] {
                          nlohmann::json A = nlohmann::json::array();
                          for (double X : T.Seconds)
                            A.push_back(X * 1e6);
                          return A;
                        }()}});
    R.Notes.push_back(T.Role + ": median " + fixed(St.Median * 1e6, 3) + " us, mean " +
                      fixed(St.Mean * 1e6, 3) + ", min " + fixed(St.Min * 1e6, 3) + ", p10 " +
                      fixed(St.P10 * 1e6, 3) + ", p90 " + fixed(St.P90 * 1e6, 3) + ", cv " +
                      fixed(St.Cv, 4) + " over " + std::to_string(St.Count) + " launches");
  }
  body()["kernels"] = Kernels;
  const SampleStats &S0 = MR->Kernels[0].Stats;
  R.Message =
      "K0 " + fixed(S0.Median * 1e6, 3) + " us median on " + Dev->info().Name + ", measured";
  if (MR->Ratio) {
    const RatioInterval &Q = *MR->Ratio;
    Fields.Ratio = Q.Ratio;
    body()["ratio"] = {
        {"value", Q.Ratio},
        {"low", Q.Lo},
        {"high", Q.Hi},
        {"level", Q.Level},
        {"basis", "median of K1 / median of K0, interleaved rounds"},
        {"interval", "bootstrap over rounds, " + std::to_string(Q.Resamples) + " resamples"}};
    R.Message += "; t(K1)/t(K0) = " + fixed(Q.Ratio, 4) + " [" + fixed(Q.Lo, 4) + ", " +
                 fixed(Q.Hi, 4) + "] (" + fixed(100 * Q.Level, 0) + "% bootstrap interval)";
  }
}

} // namespace

TimeResult timeKernels(const TimeOptions &O) { return TimeRunner(O).run(); }

Report runKernelTime(const TimeOptions &O) { return TimeRunner(O).run().Rep; }

nlohmann::json modeledReference(const Report &R) {
  if (R.Result != Outcome::Ok || R.Body.value("kind", "") != "modeled" ||
      !R.Body.contains("reference_key") || !R.Body.contains("kernels") ||
      !R.Body["kernels"].is_array() || R.Body["kernels"].empty())
    return nullptr;
  std::vector<std::string> Notes;
  for (const std::string &N : R.Notes)
    if (llvm::StringRef(N).starts_with("K0: "))
      Notes.push_back(N);
  return {{"key", R.Body["reference_key"]}, {"kernel", R.Body["kernels"][0]}, {"notes", Notes}};
}

} // namespace asmevo::timing
