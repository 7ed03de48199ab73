#include "check/DiffCheck.h"

#include "asm/AbiCheck.h"
#include "check/Compare.h"
#include "check/K0RunCache.h"
#include "check/PointerTable.h"
#include "codeobj/Input.h"
#include "device/Device.h"
#include "device/StaticHazards.h"
#include "launch/BufferOverrun.h"
#include "launch/EdgeShape.h"
#include "launch/InputGen.h"
#include "launch/PlacedLaunch.h"
#include "support/Error.h"
#include "support/FileIO.h"
#include "support/Interrupt.h"
#include "support/Plural.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <set>

namespace asmevo::check {

using namespace asmevo::launch;

namespace {

struct Failure {
  Outcome O;
  std::string Line;
};

} // namespace

bool checkCandidateAbi(const CodeObject &K0, const CodeObject &K1, Report &R) {
  auto V = checkFrozenAbi(K0, K1);
  if (!V.empty()) {
    R.Result = Outcome::AbiInvalid;
    R.Message = "abi_invalid: " + (V[0].Kernel.empty() ? "" : "kernel " + V[0].Kernel + ": ") +
                V[0].Field + ": " + V[0].Detail;
    for (size_t I = 1; I < V.size(); ++I)
      R.Notes.push_back("also " + V[I].text());
    R.Body["abi_violations"] = violationsJson(V);
    return false;
  }
  auto V0 = staticViolations(K0);
  if (!V0) {
    R.fail(V0.takeError());
    return false;
  }
  auto V1 = staticViolations(K1);
  if (!V1) {
    R.fail(V1.takeError());
    return false;
  }
  std::vector<AbiViolation> Inherited;
  std::vector<AbiViolation> New = violationsNotInK0(*V1, *V0, &Inherited);
  for (const AbiViolation &Y : Inherited)
    R.Notes.push_back("K0 does this too (not refused): " + Y.what());
  if (New.empty())
    return true;
  R.Result = Outcome::AbiInvalid;
  R.Message = New[0].text();
  for (size_t I = 1; I < New.size(); ++I)
    R.Notes.push_back("also " + New[I].text());
  R.Body["abi_violations"] = violationsJson(New);
  return false;
}

bool checkCandidateWaitStates(const CodeObject &K0, const CodeObject &K1, Report &R) {
  auto H0 = device::staticHazards(K0);
  auto H1 = H0 ? device::staticHazards(K1)
               : llvm::Expected<std::vector<device::StaticHazard>>(H0.takeError());
  if (!H1) {
    R.Notes.push_back("no static wait-state scan: " + llvm::toString(H1.takeError()));
    return true;
  }
  std::set<std::string> K0Kinds;
  for (const device::StaticHazard &H : *H0)
    K0Kinds.insert(H.kind());
  std::vector<const device::StaticHazard *> New;
  for (const device::StaticHazard &H : *H1)
    if (!K0Kinds.count(H.kind()))
      New.push_back(&H);
  auto Where = [](const device::StaticHazard &H) {
    return H.Function + llvm::formatv("+{0:x}", H.Offset).str() + ": " + H.Why;
  };
  // New ones as a run's findings are written ("unsafe"), where a run's come from.
  nlohmann::json J = nlohmann::json::array();
  for (const device::StaticHazard *H : New)
    J.push_back({{"rule", H->Rule},
                 {"kernel", H->Function},
                 {"offset", H->Offset},
                 {"instructions", {H->Consumer, H->Producer}},
                 {"message", H->Why},
                 {"at", "static scan"}});
  R.Body["static_hazards"] = {{"k0", H0->size()}, {"k1_new", J.size()}};
  if (!J.empty())
    R.Body["unsafe"] = J;
  if (!H0->empty())
    R.Notes.push_back(
        "K0's code has " + countOf(H0->size(), "wait-state hazard") +
        " of its own by the static scan (not refused); the first: " + Where(H0->front()));
  if (New.empty())
    return true;
  R.Result = Outcome::Unsafe;
  R.Message = "unsafe: " + Where(*New.front()) +
              " (static scan of K1's code, on a straight-line path whether or not a launch takes "
              "it; K0's code has no hazard of this kind)";
  for (size_t I = 1; I < New.size(); ++I)
    R.Notes.push_back("also unsafe: " + Where(*New[I]));
  return false;
}

namespace {

// An error before or while K0 runs: input_error, or runtime_error ("runtime_error: K0: ...").
Report errorResult(llvm::Error E) {
  Report R;
  R.fail(std::move(E));
  if (R.Result == Outcome::RuntimeError)
    R.Message = "runtime_error: K0: " + R.Message;
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

// A finding's kind: its rule and the instructions involved (not where: pcs, waves, bytes and
// registers differ between K0 and K1 for the same behaviour).
std::string findingKind(const nlohmann::json &F) {
  std::string K = F["rule"].get<std::string>();
  for (const auto &I : F["instructions"])
    K += " " + I.get<std::string>();
  return K;
}

// How a run is scheduled and checked.
struct RunMode {
  uint64_t Seed = 1;
  bool Vary = false;
  bool Strict = false;
  uint64_t MaxInstructions = 0; // 0: no limit
  double TimeoutSeconds = 0;
  bool Footprint = false; // record what each buffer's allocation had touched (K0, emu)
  uint32_t Fill = 0;      // every VGPR/AGPR at wave start (emu)
};

// The registers' value at wave start on seed Seed, the same for K0 and K1: not zero (hardware
// leaves registers undefined, the emulator would otherwise zero them), so a candidate that reads
// a register it no longer writes computes something else than K0. A NaN as f32, odd as integer.
uint32_t registerFill(uint64_t Seed) {
  return 0x7fa00001u | uint32_t((Seed * 0x9e3779b97f4a7c15ull) >> 44);
}

// The data of each buffer placed for a run, for blameBufferOverrun.
std::vector<BufferExtent> extents(const LaunchSpec &S, const std::vector<uint64_t> &Addr,
                                  const std::vector<std::vector<uint8_t>> &Init) {
  std::vector<BufferExtent> X;
  for (size_t I = 0; I < S.Args.size(); ++I)
    if (Addr[I])
      X.push_back({&S.Args[I], Addr[I], Addr[I] + Init[I].size()});
  return X;
}

llvm::Expected<RunOut> runOne(device::Device &Dev, device::Module &Mod, const LaunchSpec &S,
                              const std::vector<std::vector<uint8_t>> &Init, RunMode Mode,
                              unsigned Threads, const char *Who) {
  RunOut R;
  R.Alloc.resize(S.Args.size());
  R.Touched.resize(S.Args.size());
  auto Placed = placeLaunch(Dev, S, Init, Who);
  if (!Placed)
    return Placed.takeError();
  const std::vector<uint64_t> &Addr = Placed->Addr;
  auto freeAll = [&] { freeLaunch(Dev, *Placed); };
  device::LaunchParams &P = Placed->Params;
  P.Seed = Mode.Seed;
  P.VarySchedule = Mode.Vary;
  P.Strict = Mode.Strict;
  P.RegisterFill = Mode.Fill;
  P.Threads = Threads;
  if (Dev.info().Emulator) {
    P.MaxInstructions = Mode.MaxInstructions;
    P.TimeoutSeconds = Mode.TimeoutSeconds;
  }
  P.TrackFootprint = Mode.Footprint && Dev.info().TracksFootprint;
  auto St = Dev.launch(Mod, P);
  if (!St) {
    freeAll();
    return std::string(Who) == "K0" ? blameBufferOverrun(St.takeError(), extents(S, Addr, Init))
                                    : St.takeError();
  }
  for (const device::Footprint &F : St->Footprints)
    for (size_t I = 0; I < S.Args.size(); ++I)
      if (Addr[I] && F.Base == Addr[I] - kGuardBytes && F.Touched)
        R.Touched[I] = std::pair(F.Lo, F.Hi);
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
    // A pointer table reads back as its Init (zeros) where it still holds the addresses placed
    // for this run: K0's and K1's runs, placed apart, compare equal unless one wrote it.
    if (!S.Args[I].Table.empty())
      S.neutralizeTable(I, Addr, R.Alloc[I].data() + kGuardBytes, Init[I].size());
  }
  freeAll();
  return R;
}

} // namespace

std::shared_ptr<K0RunCache> makeK0RunCache(const std::string &Dir, bool ReadOnly) {
  return std::make_shared<K0RunCache>(Dir, ReadOnly);
}

std::pair<uint64_t, uint64_t> k0RunCacheCounts(const K0RunCache &C) { return C.counts(); }

namespace {

// One differential check, in named steps. A step returns false when the report is final.
class DiffRun {
public:
  explicit DiffRun(const DiffOptions &O) : O(O) {}

  Report run() {
    if (open() && staticChecks() && staticHazardChecks() && infer() && openDevice() &&
        planOutputs() && runSeeds() && runEdgeShapes())
      conclude();
    return std::move(R);
  }

private:
  const DiffOptions &O;
  std::unique_ptr<OpenCodeObject> K0, K1;
  LaunchSpec S;
  Report R;
  std::unique_ptr<device::Device> Dev;
  std::unique_ptr<device::Module> Mod0, Mod1;
  std::vector<size_t> Outputs;         // buffers compared (indices into S.Args)
  std::vector<nlohmann::json> BufJson; // per buffer, its per-seed metrics
  nlohmann::json Findings = nlohmann::json::array();
  std::optional<Failure> First; // the first failure seen: the verdict
  unsigned NOut = 0;            // output (not input-only) buffers
  bool K0Wrote = false;         // some output byte differs from its initial contents on some seed
  // K0's outputs say something: a non-float output, or a finite value in a float one, on some
  // seed. A float output that is all NaN (random bytes fed to an fp8 GEMM, say) matches any K1
  // whose output is NaN too.
  bool K0Informative = false;
  std::vector<uint64_t> K0NonFinite, K0Elements; // per argument, over the seeds
  bool Strict = false;
  unsigned Schedules = 1;
  // Findings, one per rule and instruction offset, with where they were first seen.
  std::vector<nlohmann::json> K0Unsafe, K1Unsafe;
  // The edge shape being run (null: the spec's own launch), and the ones checked.
  const EdgeShape *Shape = nullptr;
  std::vector<std::string> ShapesChecked;
  std::string ShapeSkip;           // why the shape being run is left out ("": it is not)
  uint64_t K0MostInstructions = 0; // K0's largest run on the spec's launch (bounds the shapes')

  // Where a run is, for messages: "seed 3", or "edge shape 'tail-1' ('#3' 3000 -> 2999), seed 3".
  std::string at(uint64_t Seed) const {
    return Shape ? "edge shape '" + Shape->Name + "' (" + Shape->Change + "), seed " +
                       std::to_string(Seed)
                 : "seed " + std::to_string(Seed);
  }
  // A finding's or metric's JSON, with the edge shape it was seen on.
  nlohmann::json tagged(nlohmann::json J) const {
    if (Shape)
      J["shape"] = Shape->Name;
    return J;
  }
  // Host threads of a run. An edge shape runs its workgroups on one thread, in order, K0's and
  // K1's alike: a shrunk stride can make workgroups write the same bytes (a race across
  // workgroups, which the strict checks do not see), and with several threads which one writes
  // last would change from run to run, K0 against itself included.
  unsigned threads() const { return Shape ? 1 : O.Threads; }
  std::string dumpDir(uint64_t Seed) const {
    return O.DumpDir + "/" + (Shape ? Shape->Name + "-" : std::string()) + "seed" +
           std::to_string(Seed);
  }
  // K0 cannot be the reference on the edge shape being run: it is left out, with why.
  bool skipShape(const std::string &Why) {
    ShapeSkip = Why;
    return true;
  }

  nlohmann::json &body() { return R.Body; }
  // An error: the report keeps its inputs and what it has so far.
  bool fail(llvm::Error E) {
    Report Err = errorResult(std::move(E));
    R.Result = Err.Result;
    R.Message = std::move(Err.Message);
    if (R.Result == Outcome::RuntimeError) // errorResult's "runtime_error: K0: ..."
      body()["failed"] = "K0";
    return false;
  }
  // An input error that keeps what the report has so far.
  bool inputError(const std::string &Line) {
    R.Result = Outcome::InputError;
    R.Message = Line;
    return false;
  }
  bool checksNothing(const std::string &Why) {
    return inputError("this launch checks nothing: " + Why);
  }

  bool open();
  bool staticChecks();
  bool staticHazardChecks();
  bool infer();
  bool openDevice();
  bool planOutputs();
  bool runSeeds();
  bool runEdgeShapes();
  void noteK0Values(const RunOut &R0, const std::vector<std::vector<uint8_t>> &Init);
  bool runSeed(uint64_t Seed, bool Reload);
  bool k0Failed(llvm::Error Err, uint64_t Seed, const std::vector<std::vector<uint8_t>> &Init);
  bool afterK0(uint64_t Seed, const RunOut &R0, bool Cached,
               const std::vector<std::vector<uint8_t>> &Init);
  llvm::Error blamePointerTable(llvm::Error E, uint64_t Seed,
                                const std::vector<std::vector<uint8_t>> &Init);
  bool dumpInputs(uint64_t Seed, const std::vector<std::vector<uint8_t>> &Init);
  bool runK1(uint64_t Seed, unsigned Sched, const RunOut &R0,
             const std::vector<std::vector<uint8_t>> &Init, uint64_t K1Limit);
  void compareOutputs(uint64_t Seed, unsigned Sched, const RunOut &R0, const RunOut &R1,
                      const std::vector<std::vector<uint8_t>> &Init);
  void noteFinding(std::vector<nlohmann::json> &List, const device::UnsafeFinding &F, uint64_t Seed,
                   unsigned Sched);
  void judgeUnsafe();
  void conclude();
  // " and on edge shapes tail-1, ..., one-workgroup (seed 3)", or "" when none was checked.
  std::string shapesText() const {
    std::string T;
    for (const std::string &N : ShapesChecked)
      T += (T.empty() ? "" : ", ") + N;
    return T.empty() ? T
                     : " and on edge shape" + std::string(ShapesChecked.size() > 1 ? "s " : " ") +
                           T + " (seed " + std::to_string(O.Seeds.back()) + ")";
  }
};

// K0, K1 and the spec bound to K0.
bool DiffRun::open() {
  auto L0 = openCodeObject(O.K0);
  if (!L0)
    return fail(L0.takeError());
  K0 = std::move(*L0);
  auto L1 = openCodeObject(O.K1);
  if (!L1)
    return fail(L1.takeError());
  K1 = std::move(*L1);
  auto Spec = readLaunchSpec(O.Spec);
  if (!Spec)
    return fail(Spec.takeError());
  S = std::move(*Spec);
  if (llvm::Error E = resolveLaunchSpec(S, K0->C, O.Kernel))
    return fail(std::move(E));
  R.Inputs = {reportInput("k0", O.K0, K0->C.Bytes), reportInput("k1", O.K1, K1->C.Bytes),
              reportInput("spec", O.Spec, S.Text)};
  R.Seeds = O.Seeds;
  body()["kernel"] = S.Kernel;
  body()["theta"] = O.Theta;
  body()["tau"] = O.Tau;
  return true;
}

// The frozen ABI; then registers, LDS and scratch against what the descriptor allocates and the
// hardware launches (K1 only where K0 does not already have the same finding: then it is K0's).
bool DiffRun::staticChecks() { return checkCandidateAbi(K0->C, K1->C, R); }

// The wait-state hazards of K1's code found without running it, with the strict checks.
bool DiffRun::staticHazardChecks() {
  return !O.Strict || checkCandidateWaitStates(K0->C, K1->C, R);
}

// Launch inference completes the spec (on the emulator).
bool DiffRun::infer() {
  InferOptions IO = O.Infer;
  IO.TimeoutSeconds = O.TimeoutSeconds;
  if (O.Progress && S.needsInference())
    O.Progress("launch inference: running K0 on the emulator");
  auto Inf = inferLaunch(S, K0->C, IO);
  if (!Inf)
    return fail(Inf.takeError());
  for (const std::string &L : Inf->Lines)
    R.Notes.push_back("spec: " + L);
  body()["inferred"] = Inf->Json;
  body()["spec"] = S.toJson();
  return true;
}

// The backend, and K0 and K1 loaded on it (K1 failing to load is K1's runtime_error).
bool DiffRun::openDevice() {
  auto D = device::openDevice(O.Backend, K0->C.Target.Processor);
  if (!D)
    return fail(D.takeError());
  Dev = std::move(*D);
  const device::DeviceInfo &DI = Dev->info();
  R.Backend = DI.Backend;
  body()["device"] = DI.Name;
  auto M0 = Dev->load(K0->C);
  if (!M0)
    return fail(M0.takeError());
  Mod0 = std::move(*M0);
  auto M1 = Dev->load(K1->C);
  if (!M1) {
    R.Result = Outcome::RuntimeError;
    R.Message = "runtime_error: K1: " + errorOutcome(M1.takeError()).Message;
    return false;
  }
  Mod1 = std::move(*M1);
  // The strict checks run on the emulator only: hardware cannot report what its timing hid.
  Strict = O.Strict && DI.Emulator;
  Schedules = std::max(1u, O.Schedules);
  body()["strict"] = Strict;
  body()["schedules"] = Schedules;
  return true;
}

// The buffers compared; a launch with no output buffer checks nothing.
bool DiffRun::planOutputs() {
  for (size_t I = 0; I < S.Args.size(); ++I)
    if (S.Args[I].Buffer && !S.Args[I].Null)
      Outputs.push_back(I);
  BufJson.resize(S.Args.size());
  for (size_t I : Outputs) {
    const ArgSpec &A = S.Args[I];
    BufJson[I] = {
        {"arg", A.Arg},          {"label", A.Label},        {"type", elemTypeName(A.Type)},
        {"role", roleName(A.R)}, {"elements", *A.Elements}, {"seeds", nlohmann::json::array()}};
    NOut += A.R != Role::In;
  }
  if (NOut == 0)
    return checksNothing("kernel " + S.Kernel +
                         " has no output buffer in this spec (every "
                         "buffer is an input), so any K1 would agree with K0");
  return true;
}

bool DiffRun::runSeeds() {
  bool Reload = false;
  for (uint64_t Seed : O.Seeds) {
    if (!runSeed(Seed, Reload))
      return false;
    Reload = true;
  }
  return true;
}

// The edge shapes (launch/EdgeShape.h), each on the last seed, once the spec's own launch found
// no failure. A shape on which K0 fails, runs past four times its instructions on the spec's
// launch, touches bytes outside a buffer, or has a strict finding the spec's launch did not show
// (a stride shrunk past its rows' width makes them overlap) is left out with a note: K0 is the
// reference only where it is a kernel working within its contract.
bool DiffRun::runEdgeShapes() {
  if (!O.EdgeShapes || First || O.Seeds.empty())
    return true;
  std::vector<EdgeShape> Shapes = edgeShapes(S);
  const LaunchSpec Main = S;
  const uint64_t Seed = O.Seeds.back();
  nlohmann::json ShapeJson = nlohmann::json::array(); // what each shape did
  bool Go = true;
  for (const EdgeShape &E : Shapes) {
    S = E.Spec;
    Shape = &E;
    ShapeSkip.clear();
    if (O.Progress)
      O.Progress(at(Seed) + ": running");
    Go = runSeed(Seed, true);
    nlohmann::json J = {{"name", E.Name}, {"change", E.Change}, {"seed", Seed}};
    if (!ShapeSkip.empty()) {
      J["checked"] = false;
      J["why"] = ShapeSkip;
      R.Notes.push_back("edge shape '" + E.Name + "' (" + E.Change + ") not checked: " + ShapeSkip);
    } else {
      J["checked"] = true;
      if (Go)
        ShapesChecked.push_back(E.Name);
    }
    ShapeJson.push_back(J);
    if (!Go || First)
      break;
  }
  S = Main;
  Shape = nullptr;
  body()["edge_shapes"] = ShapeJson;
  return Go;
}

void DiffRun::noteFinding(std::vector<nlohmann::json> &List, const device::UnsafeFinding &F,
                          uint64_t Seed, unsigned Sched) {
  for (const nlohmann::json &E : List)
    if (E["rule"] == F.Rule && E["offset"] == F.Offset)
      return;
  List.push_back({{"rule", F.Rule},
                  {"kernel", S.Kernel},
                  {"offset", F.Offset},
                  {"instructions", F.Instructions},
                  {"message", F.Message},
                  {"seed", Seed},
                  {"schedule", Sched},
                  {"at", at(Seed)}});
}

bool DiffRun::dumpInputs(uint64_t Seed, const std::vector<std::vector<uint8_t>> &Init) {
  std::string Dir = dumpDir(Seed);
  if (std::error_code EC = llvm::sys::fs::create_directories(Dir))
    return fail(makeError("--dump-inputs: cannot create '" + Dir + "': " + EC.message()));
  for (size_t I : Outputs)
    if (llvm::Error E = writeFileAtomic(
            Dir + "/" + fileLabel(unsigned(I), S.Args[I].Label) + ".in.bin",
            llvm::StringRef(reinterpret_cast<const char *>(Init[I].data()), Init[I].size())))
      return fail(std::move(E));
  return true;
}

// K0 faulted on seed Seed at an address it loaded from a buffer (a pointer table, which no spec
// describes: BufferOverrun.h): a word of the buffer's values lies just below the address, and
// K0 run once more with that buffer's values of another seed faults elsewhere or not at all
// (a run stopped at its bound tells nothing); a "file" needs no run (a word of at least 64 KiB).
llvm::Error DiffRun::blamePointerTable(llvm::Error E, uint64_t Seed,
                                       const std::vector<std::vector<uint8_t>> &Init) {
  return llvm::handleErrors(std::move(E), [&](std::unique_ptr<MemoryFaultError> F) -> llvm::Error {
    for (size_t I : Outputs) {
      const ArgSpec &A = S.Args[I];
      bool File = !A.FilePath.empty();
      bool Random = !File && A.Fill != "zero" && (A.R != Role::Out || A.Fill == "random");
      if (!File && !Random)
        continue; // zeros or poison: the same whatever the seed, and not the user's
      auto Word = wordBelow(Init[I], F->Address, File ? 1ull << 16 : 0);
      if (!Word)
        continue;
      if (Random) {
        std::vector<std::vector<uint8_t>> Other = Init;
        auto C = initialContents(A, Seed + 0x9e3779b9);
        if (!C) {
          llvm::consumeError(C.takeError());
          continue;
        }
        if (*C == Init[I])
          continue;
        Other[I] = std::move(*C);
        auto M = Dev->load(K0->C);
        if (!M) {
          llvm::consumeError(M.takeError());
          continue;
        }
        auto Again = runOne(
            *Dev, **M, S, Other,
            RunMode{Seed, false, false, 1ull << 24, O.TimeoutSeconds, false, registerFill(Seed)},
            O.Threads, "K0 (pointer probe)");
        if (!faultMoved(Again ? llvm::Error::success() : Again.takeError(), F->Address))
          continue;
      }
      std::string At = "at byte " + std::to_string(Word->second);
      return pointerTableError("", A, *F, Init[I], *Word,
                               File ? At + " of its \"file\""
                                    : At + " of its seed-" + std::to_string(Seed) +
                                          " values, and other values move the fault",
                               S.Path);
    }
    return llvm::Error(std::move(F));
  });
}

// One seed: fresh inputs, K0 once, K1 under every schedule.
bool DiffRun::runSeed(uint64_t Seed, bool Reload) {
  // Each seed starts from the code objects' module-scope data as loaded (a kernel that writes
  // its globals must not see the previous seed's values), so both are loaded again per seed.
  if (Reload) {
    auto L0 = Dev->load(K0->C);
    if (!L0)
      return fail(L0.takeError());
    auto L1 = Dev->load(K1->C);
    if (!L1)
      return fail(L1.takeError());
    Mod0 = std::move(*L0);
    Mod1 = std::move(*L1);
  }
  std::vector<std::vector<uint8_t>> Init(S.Args.size());
  for (size_t I : Outputs) {
    auto C = initialContents(S.Args[I], Seed);
    if (!C)
      return fail(C.takeError());
    Init[I] = std::move(*C);
  }
  if (!O.DumpDir.empty() && !dumpInputs(Seed, Init))
    return false;
  // K0's run of this seed, from the cache when an earlier check made it (the same K0, spec text,
  // seed and strictness: its inputs, register fill and launch are the same).
  std::string CacheKey;
  for (const ReportInput &In : R.Inputs)
    if (In.Role != "k1")
      CacheKey += In.Role + "=" + In.Sha256 + ";";
  // On an edge shape K0 runs under the strict checks even with --no-strict (emu): they are how
  // a shape that breaks the kernel's contract (rows made to overlap) is found and left out.
  const bool K0Strict = Shape ? Dev->info().Emulator : Strict;
  CacheKey += "seed=" + std::to_string(Seed) + ";strict=" + std::to_string(K0Strict) +
              ";backend=" + O.Backend;
  if (Shape)
    CacheKey += ";shape=" + Shape->Name + ":" + Shape->Change;
  if (Shape && O.K0Cache)
    if (auto Why = O.K0Cache->skipped(CacheKey))
      return skipShape(*Why);
  std::shared_ptr<const RunOut> R0 = O.K0Cache ? O.K0Cache->find(CacheKey) : nullptr;
  bool Cached = R0 != nullptr;
  if (!R0) {
    auto Run0 =
        runOne(*Dev, *Mod0, S, Init,
               RunMode{Seed, false, K0Strict, Shape ? 4 * K0MostInstructions : 0, O.TimeoutSeconds,
                       /*Footprint=*/true, registerFill(Seed)},
               threads(), "K0");
    if (!Run0) {
      bool Go = k0Failed(Run0.takeError(), Seed, Init);
      if (Shape && !ShapeSkip.empty() && O.K0Cache)
        O.K0Cache->addSkip(CacheKey, ShapeSkip);
      return Go;
    }
    R0 = std::make_shared<const RunOut>(std::move(*Run0));
    if (O.K0Cache)
      O.K0Cache->add(CacheKey, R0);
  }
  return afterK0(Seed, *R0, Cached, Init);
}

// K0 failed on seed Seed: the report says how (K0's failure is never the candidate's).
bool DiffRun::k0Failed(llvm::Error Err, uint64_t Seed,
                       const std::vector<std::vector<uint8_t>> &Init) {
  if (Shape && !interrupted()) {
    ErrorOutcome EO = errorOutcome(std::move(Err));
    return skipShape("K0: " + EO.Message);
  }
  ErrorOutcome EO = errorOutcome(blamePointerTable(std::move(Err), Seed, Init));
  R.Result = EO.O;
  body()["failed"] = "K0"; // K0's failure, not the candidate's
  if (EO.O == Outcome::Interrupted) {
    R.Message = "stopped during K0's run on " + at(Seed) + ": " + EO.Message;
    return false;
  }
  R.Message = EO.O == Outcome::RuntimeError
                  ? "runtime_error: K0: " + EO.Message + " (seed " + std::to_string(Seed) + ")"
                  : EO.Message + " (seed " + std::to_string(Seed) + ")";
  return false;
}

// What K0's run of seed Seed says (its own checks, findings, values), then K1 on every schedule.
bool DiffRun::afterK0(uint64_t Seed, const RunOut &Run0, bool Cached,
                      const std::vector<std::vector<uint8_t>> &Init) {
  const RunOut *R0 = &Run0;
  for (size_t I : Outputs) {
    const ArgSpec &A = S.Args[I];
    if (auto G = checkGuards(R0->Alloc[I].data(), Init[I].size(), unsigned(I))) {
      if (Shape)
        return skipShape("K0 writes outside buffer '" + A.Label + "': " + G->text());
      return inputError("K0 writes outside buffer '" + A.Label + "' (" + elementsText(A) +
                        ") on seed " + std::to_string(Seed) + ": " + G->text() +
                        ": the spec gives it too few elements");
    }
    // A read of the guards faults nowhere and compares equal in K0 and K1: only the footprint
    // shows that K0 needs more of the buffer than the spec gives.
    if (const auto &T = R0->Touched[I])
      if (llvm::Error E = checkTouchedBytes(A, int64_t(T->first) - int64_t(kGuardBytes),
                                            int64_t(T->second) - int64_t(kGuardBytes),
                                            Init[I].size(), " on " + at(Seed)))
        return Shape ? skipShape(llvm::toString(std::move(E)))
                     : inputError(llvm::toString(std::move(E)));
  }
  if (Shape)
    for (const device::UnsafeFinding &F : R0->Findings) {
      bool Seen = false;
      for (const nlohmann::json &E : K0Unsafe)
        Seen |= E["rule"] == F.Rule && E["offset"] == F.Offset;
      if (!Seen)
        return skipShape("K0 has a strict finding its spec's launch does not: " + F.Message);
    }
  for (const device::UnsafeFinding &F : R0->Findings)
    noteFinding(K0Unsafe, F, Seed, 1);
  if (!Shape)
    K0MostInstructions = std::max(K0MostInstructions, R0->WaveInstructions);
  // What K0 writes and how many of its values are finite: on the spec's own launch (its seeds),
  // which decides whether the check checks anything.
  if (!Shape) {
    for (size_t I : Outputs)
      if (S.Args[I].R != Role::In && !Init[I].empty() &&
          std::memcmp(R0->Alloc[I].data() + kGuardBytes, Init[I].data(), Init[I].size()) != 0)
        K0Wrote = true;
    noteK0Values(*R0, Init);
  }
  // K1's bound: a multiple of what K0 executed on this launch (emu), or the user's.
  uint64_t K1Limit = O.MaxInstructions
                         ? O.MaxInstructions
                         : R0->WaveInstructions * uint64_t(std::max(1u, O.InstructionFactor));
  if (O.Progress)
    O.Progress(at(Seed) + ": K0 ran " + std::to_string(R0->WaveInstructions) +
               " wave-instructions in " + llvm::formatv("{0:f3}", R0->Seconds).str() + " s" +
               (Cached ? " (an earlier check's run, reused)" : "") +
               (K1Limit ? "; K1 may run " + std::to_string(K1Limit) : std::string()));
  for (unsigned Sched = 1; Sched <= Schedules; ++Sched)
    if (!runK1(Seed, Sched, *R0, Init, K1Limit))
      return false;
  return true;
}

// K1 under one schedule (1: the default interleaving; the others seeded, varied ones).
bool DiffRun::runK1(uint64_t Seed, unsigned Sched, const RunOut &R0,
                    const std::vector<std::vector<uint8_t>> &Init, uint64_t K1Limit) {
  if (Sched > 1) {
    auto L1 = Dev->load(K1->C);
    if (!L1)
      return fail(L1.takeError());
    Mod1 = std::move(*L1);
  }
  RunMode M1{Sched == 1 ? Seed : Seed * 0x10001 + Sched,
             Sched > 1,
             Strict,
             K1Limit,
             O.TimeoutSeconds,
             false,
             registerFill(Seed)};
  auto R1 = runOne(*Dev, *Mod1, S, Init, M1, threads(), "K1");
  if (!R1 && interrupted()) {
    R.Result = Outcome::Interrupted;
    R.Message =
        "stopped during K1's run on " + at(Seed) + ": " + errorOutcome(R1.takeError()).Message;
    return false;
  }
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
                  "x K0's instructions: endless loop? (stopped past " + std::to_string(K1Limit) +
                  " wave-instructions; K0 ran " + std::to_string(R0.WaveInstructions) + ")";
        },
        [&](const ToolError &T) { Msg = formatError(T); },
        [&](const llvm::ErrorInfoBase &B) { Msg = B.message(); });
    R.Result = Outcome::RuntimeError;
    R.Message = "runtime_error: K1: " + Msg + " (" + at(Seed) +
                (Schedules > 1 ? ", schedule " + std::to_string(Sched) : "") + ")";
    return false;
  }
  if (O.Progress)
    O.Progress(at(Seed) + (Schedules > 1 ? " schedule " + std::to_string(Sched) : std::string()) +
               ": K1 ran " + std::to_string(R1->WaveInstructions) + " wave-instructions in " +
               llvm::formatv("{0:f3}", R1->Seconds).str() + " s");
  for (const device::UnsafeFinding &F : R1->Findings)
    noteFinding(K1Unsafe, F, Seed, Sched);
  compareOutputs(Seed, Sched, R0, *R1, Init);
  return true;
}

// Eq. 1 on every output buffer, byte equality on inputs, the guards around each.
void DiffRun::compareOutputs(uint64_t Seed, unsigned Sched, const RunOut &R0, const RunOut &R1,
                             const std::vector<std::vector<uint8_t>> &Init) {
  for (size_t I : Outputs) {
    const ArgSpec &A = S.Args[I];
    uint64_t DataBytes = Init[I].size();
    const uint8_t *D0 = R0.Alloc[I].data() + kGuardBytes, *D1 = R1.Alloc[I].data() + kGuardBytes;
    std::string Head = "buffer '" + A.Label + "' (" + elemTypeName(A.Type) + ") on " + at(Seed) +
                       (Schedules > 1 ? " schedule " + std::to_string(Sched) : "") + ": ";
    nlohmann::json SJ = tagged({{"seed", Seed}});
    if (Schedules > 1)
      SJ["schedule"] = Sched;
    if (!O.DumpDir.empty()) {
      std::string Base = dumpDir(Seed) + "/" + fileLabel(unsigned(I), A.Label);
      llvm::consumeError(writeFileAtomic(
          Base + ".k0.bin", llvm::StringRef(reinterpret_cast<const char *>(D0), DataBytes)));
      llvm::consumeError(writeFileAtomic(
          Base + ".k1.bin", llvm::StringRef(reinterpret_cast<const char *>(D1), DataBytes)));
    }
    if (auto G = checkGuards(R1.Alloc[I].data(), DataBytes, unsigned(I))) {
      SJ["guard"] = G->text();
      Findings.push_back(tagged({{"seed", Seed},
                                 {"arg", A.Arg},
                                 {"kind", "guard_write"},
                                 {"kernel", "K1"},
                                 {"detail", G->text()}}));
      if (!First)
        First = Failure{Outcome::Divergent, "divergent: " + Head + G->text()};
    }
    if (A.R == Role::In) {
      bool K0Changed = DataBytes && std::memcmp(D0, Init[I].data(), DataBytes) != 0;
      if (K0Changed)
        Findings.push_back(tagged({{"seed", Seed},
                                   {"arg", A.Arg},
                                   {"kind", "input_written"},
                                   {"kernel", "K0"},
                                   {"detail", "K0 changes this input buffer"}}));
      BufferMetrics M = compareBuffers(ElemType::Bytes, D0, D1, DataBytes, O.Theta, O.Tau);
      SJ["input_unchanged_as_k0"] = M.ok();
      if (!M.ok()) {
        Findings.push_back(tagged({{"seed", Seed},
                                   {"arg", A.Arg},
                                   {"kind", "input_changed"},
                                   {"kernel", "K1"},
                                   {"detail", M.Failure},
                                   {"byte", M.FirstDiff}}));
        if (!First)
          First = Failure{Outcome::Divergent, "divergent: " + Head +
                                                  "input buffer changed: " + M.Failure +
                                                  " at byte " + std::to_string(M.FirstDiff) +
                                                  " (K0 " + M.K0Value + ", K1 " + M.K1Value + ")"};
      }
    } else {
      BufferMetrics M = compareBuffers(A.Type, D0, D1, *A.Elements, O.Theta, O.Tau);
      SJ.update(M.toJson());
      if (!M.ok() && !First)
        First = Failure{Outcome::Divergent, "divergent: " + Head + M.Failure + " at index " +
                                                std::to_string(M.FirstDiff) + " (K0 " + M.K0Value +
                                                ", K1 " + M.K1Value + ")"};
    }
    BufJson[I]["seeds"].push_back(SJ);
  }
}

std::string offsetText(const nlohmann::json &E) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "+0x%llx", (unsigned long long)E["offset"].get<uint64_t>());
  return std::string(Buf);
}

// When K0 itself is unsafe, K1's findings of the same kind (same rule and instructions,
// whatever the pcs, waves, bytes and registers) are K0's behaviour, not K1's: only new kinds
// count against K1.
void DiffRun::judgeUnsafe() {
  for (const nlohmann::json &E : K0Unsafe)
    R.Notes.push_back("K0 itself is unsafe under the strict checks (outputs compared only): "
                      "kernel" +
                      offsetText(E) + ": " + E["message"].get<std::string>());
  std::set<std::string> K0Kinds;
  for (const nlohmann::json &E : K0Unsafe)
    K0Kinds.insert(findingKind(E));
  std::vector<nlohmann::json> NewUnsafe;
  for (const nlohmann::json &E : K1Unsafe)
    if (!K0Kinds.count(findingKind(E)))
      NewUnsafe.push_back(E);
  if (!K0Unsafe.empty())
    body()["unsafe_new_kinds"] = NewUnsafe;
  if (First || NewUnsafe.empty()) {
    for (const nlohmann::json &E : NewUnsafe)
      R.Notes.push_back("also unsafe: " + S.Kernel + offsetText(E) + ": " +
                        E["message"].get<std::string>());
    return;
  }
  K1Unsafe = NewUnsafe;
  const nlohmann::json &E = K1Unsafe.front();
  First = Failure{Outcome::Unsafe,
                  "unsafe: " + S.Kernel + offsetText(E) + ": " + E["message"].get<std::string>() +
                      " (" + E["at"].get<std::string>() +
                      (Schedules > 1 ? ", schedule " + std::to_string(E["schedule"].get<unsigned>())
                                     : std::string()) +
                      ")"};
  for (size_t I = 1; I < K1Unsafe.size(); ++I)
    R.Notes.push_back("also unsafe: " + S.Kernel + offsetText(K1Unsafe[I]) + ": " +
                      K1Unsafe[I]["message"].get<std::string>());
}

// How many of K0's float output values are NaN or infinite (K0Informative, the notes).
void DiffRun::noteK0Values(const RunOut &R0, const std::vector<std::vector<uint8_t>> &Init) {
  K0NonFinite.resize(S.Args.size());
  K0Elements.resize(S.Args.size());
  for (size_t I : Outputs) {
    const ArgSpec &A = S.Args[I];
    if (A.R == Role::In || Init[I].empty())
      continue;
    if (!launch::isFloatType(A.Type)) {
      K0Informative = true;
      continue;
    }
    const unsigned ES = launch::elemSize(A.Type);
    const uint64_t N = Init[I].size() / ES;
    const uint8_t *D0 = R0.Alloc[I].data() + kGuardBytes;
    uint64_t Bad = 0;
    for (uint64_t E = 0; E < N; ++E)
      Bad += !std::isfinite(elementValue(A.Type, D0 + E * ES));
    K0NonFinite[I] += Bad;
    K0Elements[I] += N;
    K0Informative |= Bad < N;
  }
}

// The verdict and one summary line per buffer.
void DiffRun::conclude() {
  nlohmann::json Buffers = nlohmann::json::array();
  for (size_t I : Outputs)
    Buffers.push_back(BufJson[I]);
  body()["buffers"] = Buffers;
  body()["findings"] = Findings;
  body()["unsafe"] = K1Unsafe;
  body()["k0_unsafe"] = K0Unsafe;
  judgeUnsafe();
  const device::DeviceInfo &DI = Dev->info();
  if (First) {
    R.Result = First->O;
    R.Message = First->Line;
  } else if (!K0Wrote) {
    checksNothing("K0 writes no byte of its output buffers on seeds " + seedList(O.Seeds) +
                  " (is a size argument 0 or negative, or an output's \"elements\" 0?), "
                  "so any K1 that also writes nothing would agree with it");
    return;
  } else if (!K0Informative) {
    checksNothing("K0's float outputs hold no finite value on seeds " + seedList(O.Seeds) +
                  " (every element is NaN or infinite), so any K1 whose outputs are NaN too "
                  "would agree with it; are the inputs valid values of the kernel's element "
                  "types (fp8 data read as f32, say)? Give each buffer its element type in the "
                  "spec (" +
                  std::string(launch::kTypeList) + ")");
    return;
  } else {
    R.Result = Outcome::Ok;
    R.Message =
        "ok: " + S.Kernel + ", " + std::to_string(NOut) + " output buffer" +
        (NOut == 1 ? "" : "s") + " equal on seeds " + seedList(O.Seeds) + shapesText() +
        (Schedules > 1 ? " x " + std::to_string(Schedules) + " schedules" : "") +
        (Strict ? (K0Unsafe.empty() ? ", strict checks clean" : ", strict checks: K0 itself unsafe")
                : ", no strict checks") +
        " (backend " + DI.Backend + ", " + DI.Name + ")";
  }
  for (size_t I : Outputs)
    if (I < K0NonFinite.size() && K0NonFinite[I] && 2 * K0NonFinite[I] > K0Elements[I])
      R.Notes.push_back("'" + S.Args[I].Label + "': " + std::to_string(K0NonFinite[I]) + " of " +
                        std::to_string(K0Elements[I]) +
                        " K0 values over the seeds are NaN or infinite; K1 only has to match "
                        "them there, so the values compared are the rest");
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
    R.Notes.push_back(L);
  }
}

} // namespace

Report runDiffCheck(const DiffOptions &O) { return DiffRun(O).run(); }

DiffResult diffCheck(const DiffOptions &O) { return diffResultOf(DiffRun(O).run()); }

Report runInferOnly(const std::string &K0Path, const std::string &SpecPath,
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
  Spec->K0Sha256 = sha256Hex((*K0)->C.Bytes);
  // The partial spec's "file" entries are relative to its folder; the completed one may go
  // elsewhere.
  if (llvm::Error E = relocateSpecFiles(*Spec, Out))
    return errorResult(std::move(E));
  auto Text = launchSpecText(*Spec);
  if (!Text)
    return errorResult(withFile(Text.takeError(), K0Path));
  if (llvm::Error E = writeFileAtomic(Out, *Text))
    return errorResult(std::move(E));
  Report R;
  R.Inputs = {reportInput("k0", K0Path, (*K0)->C.Bytes), reportInput("spec", SpecPath, Spec->Text)};
  R.Backend = "emu";
  R.Message = "inferred: " + Spec->Kernel + ", " + countOf(Inf->Json.size(), "buffer") +
              " completed in " + countOf(Inf->Runs, "emulator run") + " of K0" +
              (Out == "-" ? "" : "; wrote " + Out);
  for (const std::string &L : Inf->Lines)
    R.Notes.push_back("spec: " + L);
  R.Body = {{"kernel", Spec->Kernel},
            {"inferred", Inf->Json},
            {"runs", Inf->Runs},
            {"spec", Spec->toJson()}};
  return R;
}

} // namespace asmevo::check
