#include "HsacoRecover.h"

#include "asm/Recover.h"
#include "asm/RoundTrip.h"
#include "codeobj/CodeObject.h"
#include "codeobj/Container.h"
#include "codeobj/Input.h"
#include "support/Error.h"
#include "support/FileIO.h"
#include "support/Interrupt.h"
#include "support/Plural.h"
#include "support/ProgressLine.h"

#include "llvm/Support/raw_ostream.h"

namespace asmevo {

namespace {

// An input --keep-going could not read: its error on stderr now, an entry of Failed (the
// report's failed_inputs), and the first one's error is the run's outcome.
void failedInput(const Cli &C, Report &Rep, nlohmann::json &Failed, llvm::Error E,
                 const std::string &Name) {
  ErrorOutcome EO = errorOutcome(std::move(E));
  llvm::errs() << C.tool() << ": error: " << EO.Message << "\n";
  Failed.push_back({{"input", Name}, {"error", EO.Message}});
  if (Rep.Result == Outcome::Ok) {
    Rep.Result = EO.O;
    Rep.Message = EO.Message;
  }
}

// One line per code object inside the inputs, each read as recovery would read it: a listed
// object is one the other modes accept (or, with --keep-going, the failures are named).
int listInputs(const Cli &C, const RecoverConfig &Cfg) {
  Report Rep = C.report();
  std::string Out;
  nlohmann::json Uris = nlohmann::json::array(), Failed = nlohmann::json::array();
  auto bad = [&](llvm::Error E, const std::string &Name) {
    failedInput(C, Rep, Failed, std::move(E), Name);
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
      // Read as recovery reads it, except that any known processor is listed (a fat library
      // holds objects for other GPU families too).
      auto CO = CodeObject::read(O.Bytes, O.Name, /*AnyProcessor=*/true);
      if (!CO) {
        if (!Cfg.KeepGoing)
          return C.fail(Rep, CO.takeError());
        bad(CO.takeError(), O.Name);
        continue;
      }
      Out += O.Name + "\n";
      Uris.push_back(O.Name);
      Rep.Inputs.push_back(reportInput("object", O.Name, O.Bytes));
    }
  }
  std::string Summary = countOf(Uris.size(), "code object") +
                        (Failed.empty() ? "" : ", " + countOf(Failed.size(), "unreadable input"));
  if (Rep.Result == Outcome::Ok)
    Rep.Message = Summary;
  if (C.common().Json) {
    Rep.Body["objects"] = Uris;
    Rep.Body["failed_inputs"] = Failed;
    Out = Rep.json().dump(1) + "\n";
  }
  if (auto E = writeFileAtomic(Cfg.Output, Out)) {
    Report Err = C.report();
    return C.fail(Err, std::move(E));
  }
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
  const bool Json = C.common().Json, Quiet = C.common().Quiet;
  // Text to stdout streams: one object's verdict as soon as it is known, so that a long run
  // shows its results and a killed one keeps them. To a file (or JSON) it is written at the end.
  const bool Stream = !Json && Cfg.Output == "-";
  nlohmann::json All = nlohmann::json::array(), Failed = nlohmann::json::array();
  std::string Text;
  auto emit = [&](const std::string &T) {
    if (!Stream) {
      Text += T;
      return;
    }
    llvm::outs() << T;
    llvm::outs().flush();
  };
  bool AllPass = true;
  unsigned Objects = 0, Kernels = 0, Passed = 0, RawTotal = 0;
  auto progress = C.progress();
  ProgressLine Line(C.tool(), C.progressLineWanted());
  // An unreadable input ends the run, or with --keep-going is one more failed input.
  auto bad = [&](llvm::Error E, const std::string &Name) {
    Line.clear();
    failedInput(C, Rep, Failed, std::move(E), Name);
  };
  size_t InputNo = 0;
  bool Stopped = false;
  for (const auto &In : Cfg.Inputs) {
    ++InputNo;
    if ((Stopped = interrupted()))
      break;
    auto Objs = loadCodeObjects(In, Cfg.Arch);
    if (!Objs && interrupted()) { // a read cut short by the signal is not a bad input
      llvm::consumeError(Objs.takeError());
      Stopped = true;
      break;
    }
    if (!Objs) {
      if (!Cfg.KeepGoing)
        return C.fail(Rep, Objs.takeError());
      bad(Objs.takeError(), In);
      continue;
    }
    size_t ObjNo = 0;
    for (const auto &O : *Objs) {
      ++ObjNo;
      if ((Stopped = interrupted()))
        break;
      Line.update("input " + std::to_string(InputNo) + "/" + std::to_string(Cfg.Inputs.size()) +
                  (Objs->size() > 1 ? ", " + progressCount(ObjNo - 1, Objs->size(), "objects")
                                    : std::string()) +
                  ": " + O.Name);
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
      Line.clear();
      if (Json)
        All.push_back(R->json());
      else if (!Quiet || !R->pass())
        emit(R->text());
      if (progress) {
        progress(O.Name + ": " + std::to_string(R->KernelsPassed) + "/" +
                 std::to_string(R->Kernels) + " kernels pass");
        for (const auto &N : R->Notes)
          progress("note: " + O.Name + ": " + N);
      }
    }
    if (Stopped)
      break;
  }
  Line.clear();
  // Unreadable inputs first: "2/2 kernels pass" must not be the first thing read of a failed run.
  std::string Summary =
      (Failed.empty() ? "" : countOf(Failed.size(), "unreadable input") + ", ") +
      countOf(Objects, "code object") + ", " + std::to_string(Passed) + "/" +
      std::to_string(Kernels) + " kernels pass" +
      (RawTotal ? ", " + countOf(RawTotal, "instruction") + " kept as raw words" : "");
  if (Stopped) {
    Rep.Result = Outcome::Interrupted;
    Rep.Message = "stopped before input " + std::to_string(InputNo) + " of " +
                  std::to_string(Cfg.Inputs.size()) + " ('" + Cfg.Inputs[InputNo - 1] +
                  "'); done so far: " + Summary;
  } else if (Rep.Result == Outcome::Ok) {
    Rep.Result = AllPass ? Outcome::Ok : Outcome::RoundTripDiffers;
    Rep.Message = Summary;
  } else {
    // The first unreadable input's message, and the totals of what could be checked.
    Rep.Notes.push_back("totals: " + Summary);
  }
  if (Json) {
    Rep.Body = {{"objects", Objects},       {"kernels", Kernels},
                {"kernels_passed", Passed}, {"raw_instructions", RawTotal},
                {"failed_inputs", Failed},  {"results", All}};
    Text = Rep.json().dump(1) + "\n";
  } else if (Stopped) {
    emit("total: " + Summary + " (interrupted)\n");
  } else if (Objects + Failed.size() > 1 || Cfg.Inputs.size() > 1) {
    emit("total: " + Summary + "\n");
  }
  if (Stopped)
    llvm::errs() << C.tool() << ": interrupted: " << Rep.Message << "\n";
  if (!Stream)
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
  auto R = recoverAssembly(*CO, O.Name, sha256Hex(O.Bytes), Cfg.Output == "-" ? "K.s" : Cfg.Output);
  if (!R)
    return C.fail(Rep, withFile(R.takeError(), O.Name));
  if (!C.common().Json)
    for (const auto &N : R->Notes)
      C.note(O.Name + ": " + N);
  if (auto P = C.progress())
    P(O.Name + ": " + countOf(CO->Kernels.size(), "kernel") + ", " +
      countOf(R->Functions, "function") + ", " + countOf(R->Instructions, "instruction") + " (" +
      std::to_string(R->RawInstructions) + " as raw words), " +
      countOf(R->Branches, "branch", "branches") + " and " +
      countOf(R->PcRelRefs, "PC-relative reference") + " symbolized");
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
