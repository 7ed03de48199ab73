#include "HsacoRecover.h"

#include "asm/Recover.h"
#include "asm/RoundTrip.h"
#include "codeobj/CodeObject.h"
#include "codeobj/Container.h"
#include "codeobj/Input.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/Support/raw_ostream.h"

namespace asmevo {

namespace {

int listInputs(const Cli &C, const RecoverConfig &Cfg) {
  Report Rep = C.report();
  std::string Out;
  nlohmann::json Uris = nlohmann::json::array();
  for (const auto &In : Cfg.Inputs) {
    auto Objs = loadCodeObjects(In, Cfg.Arch);
    if (!Objs)
      return C.fail(Rep, Objs.takeError());
    for (const auto &O : *Objs) {
      Out += O.Name + "\n";
      Uris.push_back(O.Name);
      Rep.Inputs.push_back(reportInput("object", O.Name, O.Bytes));
    }
  }
  if (C.common().Json) {
    Rep.Body["objects"] = Uris;
    Rep.Message = std::to_string(Uris.size()) + " code objects";
    Out = Rep.json().dump(1) + "\n";
  }
  if (auto E = writeFileAtomic(Cfg.Output, Out))
    return C.fail(Rep, std::move(E));
  return Rep.exitCode();
}

// The gate against an object rebuilt elsewhere (--against).
llvm::Expected<GateReport> compareWith(const CodeObject &Original, llvm::StringRef Path) {
  auto Rebuilt = openCodeObject(Path);
  if (!Rebuilt)
    return Rebuilt.takeError();
  return compareCodeObjects(Original, (*Rebuilt)->C);
}

int checkInputs(const Cli &C, const RecoverConfig &Cfg) {
  Report Rep = C.report();
  if (!Cfg.Against.empty() && Cfg.Inputs.size() != 1)
    return C.fail(Rep, Outcome::InputError, "--against compares exactly one input");
  nlohmann::json All = nlohmann::json::array(), Failed = nlohmann::json::array();
  std::string Text;
  bool AllPass = true;
  unsigned Objects = 0, Kernels = 0, Passed = 0, RawTotal = 0;
  auto progress = C.progress();
  // An unreadable input ends the run, or with --keep-going is one more failed input.
  auto bad = [&](llvm::Error E, const std::string &Name) {
    ErrorOutcome EO = errorOutcome(std::move(E));
    llvm::errs() << C.tool() << ": error: " << EO.Message << "\n";
    Failed.push_back({{"input", Name}, {"error", EO.Message}});
    if (Rep.Result == Outcome::Ok) {
      Rep.Result = EO.O;
      Rep.Message = EO.Message;
    }
  };
  for (const auto &In : Cfg.Inputs) {
    auto Objs = loadCodeObjects(In, Cfg.Arch);
    if (!Objs) {
      if (!Cfg.KeepGoing)
        return C.fail(Rep, Objs.takeError());
      bad(Objs.takeError(), In);
      continue;
    }
    for (const auto &O : *Objs) {
      auto CO = CodeObject::read(O.Bytes, O.Name);
      if (!CO) {
        if (!Cfg.KeepGoing)
          return C.fail(Rep, CO.takeError());
        bad(CO.takeError(), O.Name);
        continue;
      }
      auto R = Cfg.Against.empty() ? runRoundTripGate(*CO, sha256Hex(O.Bytes))
                                   : compareWith(*CO, Cfg.Against);
      if (!R) {
        if (!Cfg.KeepGoing)
          return C.fail(Rep, withFile(R.takeError(), O.Name));
        bad(withFile(R.takeError(), O.Name), O.Name);
        continue;
      }
      Rep.Inputs.push_back(reportInput("object", O.Name, O.Bytes));
      ++Objects;
      Kernels += R->Kernels;
      Passed += R->KernelsPassed;
      RawTotal += R->RawInstructions;
      AllPass = AllPass && R->pass();
      if (C.common().Json)
        All.push_back(R->json());
      else if (!C.common().Quiet || !R->pass())
        Text += R->text();
      if (progress) {
        progress(O.Name + ": " + std::to_string(R->KernelsPassed) + "/" +
                 std::to_string(R->Kernels) + " kernels pass");
        for (const auto &N : R->Notes)
          progress("note: " + O.Name + ": " + N);
      }
    }
  }
  std::string Summary =
      std::to_string(Objects) + " code objects, " + std::to_string(Passed) + "/" +
      std::to_string(Kernels) + " kernels pass" +
      (RawTotal ? ", " + std::to_string(RawTotal) + " instructions kept as raw words" : "") +
      (Failed.empty() ? "" : ", " + std::to_string(Failed.size()) + " inputs unreadable");
  if (Rep.Result == Outcome::Ok) {
    Rep.Result = AllPass ? Outcome::Ok : Outcome::RoundTripDiffers;
    Rep.Message = Summary;
  }
  if (C.common().Json) {
    Rep.Body = {{"objects", Objects},       {"kernels", Kernels},
                {"kernels_passed", Passed}, {"raw_instructions", RawTotal},
                {"failed_inputs", Failed},  {"results", All}};
    Text = Rep.json().dump(1) + "\n";
  } else if (Objects > 1 || Cfg.Inputs.size() > 1) {
    Text += "total: " + Summary + "\n";
  }
  if (auto E = writeFileAtomic(Cfg.Output, Text)) {
    Report Err = C.report();
    return C.fail(Err, std::move(E));
  }
  return Rep.exitCode();
}

int recoverOne(const Cli &C, const RecoverConfig &Cfg) {
  Report Rep = C.report();
  if (Cfg.Inputs.size() != 1)
    return C.fail(Rep, Outcome::InputError,
                  "recovery takes exactly one input (got " + std::to_string(Cfg.Inputs.size()) +
                      ")");
  auto Objs = loadCodeObjects(Cfg.Inputs[0], Cfg.Arch);
  if (!Objs)
    return C.fail(Rep, Objs.takeError());
  if (Objs->size() != 1)
    return C.fail(Rep, Outcome::InputError,
                  "'" + Cfg.Inputs[0] + "': " + std::to_string(Objs->size()) +
                      " code objects inside; choose one with --arch or a URI from --list");
  const auto &O = Objs->front();
  Rep.Inputs.push_back(reportInput("object", O.Name, O.Bytes));
  auto CO = CodeObject::read(O.Bytes, O.Name);
  if (!CO)
    return C.fail(Rep, CO.takeError());
  auto R = recoverAssembly(*CO, O.Name, sha256Hex(O.Bytes));
  if (!R)
    return C.fail(Rep, withFile(R.takeError(), O.Name));
  if (!C.common().Json)
    for (const auto &N : R->Notes)
      C.note(O.Name + ": " + N);
  if (auto P = C.progress())
    P(O.Name + ": " + std::to_string(CO->Kernels.size()) + " kernels, " +
      std::to_string(R->Functions) + " functions, " + std::to_string(R->Instructions) +
      " instructions (" + std::to_string(R->RawInstructions) + " as raw words), " +
      std::to_string(R->Branches) + " branches and " + std::to_string(R->PcRelRefs) +
      " PC-relative references symbolized");
  if (auto E = writeFileAtomic(Cfg.Output, R->Asm))
    return C.fail(Rep, std::move(E));
  Rep.Message = "recovered " + O.Name + " to " + Cfg.Output;
  Rep.Notes = R->Notes;
  if (C.common().Json) {
    Rep.Body = {{"output", Cfg.Output},
                {"kernels", CO->Kernels.size()},
                {"functions", R->Functions},
                {"instructions", R->Instructions},
                {"raw_instructions", R->RawInstructions},
                {"raw_descriptors", R->RawDescriptors},
                {"branches", R->Branches},
                {"pc_relative_references", R->PcRelRefs}};
    return C.printJson(Rep);
  }
  return Rep.exitCode();
}

} // namespace

int runHsacoRecover(const Cli &C, const RecoverConfig &Cfg) {
  if (Cfg.List)
    return listInputs(C, Cfg);
  if (Cfg.Check)
    return checkInputs(C, Cfg);
  return recoverOne(C, Cfg);
}

} // namespace asmevo
