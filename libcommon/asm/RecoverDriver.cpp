// hsaco-recover's work: inputs -> recovered assembly, a round-trip verdict, or a listing.
#include "asm/RecoverDriver.h"
#include "asm/Recover.h"
#include "asm/RoundTrip.h"
#include "codeobj/CodeObject.h"
#include "codeobj/Container.h"
#include "codeobj/Input.h"
#include "support/Cli.h"
#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/Support/raw_ostream.h"

namespace asmevo {

static const char *Tool = "hsaco-recover";

static int listInputs(const RecoverConfig &Cfg) {
  std::string Out;
  for (const auto &In : Cfg.Inputs) {
    auto Objs = loadCodeObjects(In, Cfg.Arch);
    if (!Objs)
      return reportError(Tool, Objs.takeError());
    for (const auto &O : *Objs)
      Out += O.Name + "\n";
  }
  if (auto E = writeFileAtomic(Cfg.Output, Out))
    return reportError(Tool, std::move(E));
  return ExitOk;
}

// The gate against an object rebuilt elsewhere (--against).
static llvm::Expected<GateReport> compareWith(const CodeObject &Original, llvm::StringRef Path) {
  auto Rebuilt = openCodeObject(Path);
  if (!Rebuilt)
    return Rebuilt.takeError();
  return compareCodeObjects(Original, (*Rebuilt)->C);
}

static int checkInputs(const RecoverConfig &Cfg) {
  if (!Cfg.Against.empty() && Cfg.Inputs.size() != 1) {
    llvm::errs() << Tool << ": error: --against compares exactly one input\n";
    return ExitInput;
  }
  nlohmann::json All = nlohmann::json::array();
  std::string Text;
  bool AllPass = true, BadInput = false;
  unsigned Objects = 0, Kernels = 0, Passed = 0, RawTotal = 0;
  for (const auto &In : Cfg.Inputs) {
    auto Objs = loadCodeObjects(In, Cfg.Arch);
    if (!Objs) {
      int Code = reportError(Tool, Objs.takeError());
      if (!Cfg.KeepGoing)
        return Code;
      BadInput = true;
      continue;
    }
    for (const auto &O : *Objs) {
      auto C = CodeObject::read(O.Bytes, O.Name);
      if (!C) {
        int Code = reportError(Tool, C.takeError());
        if (!Cfg.KeepGoing)
          return Code;
        BadInput = true;
        continue;
      }
      auto R = Cfg.Against.empty() ? runRoundTripGate(*C, sha256Hex(O.Bytes))
                                   : compareWith(*C, Cfg.Against);
      if (!R) {
        int Code = reportError(Tool, withFile(R.takeError(), O.Name));
        if (!Cfg.KeepGoing)
          return Code;
        BadInput = true;
        continue;
      }
      ++Objects;
      Kernels += R->Kernels;
      Passed += R->KernelsPassed;
      RawTotal += R->RawInstructions;
      AllPass = AllPass && R->pass();
      if (Cfg.Json)
        All.push_back(R->json());
      else if (!Cfg.Quiet || !R->pass())
        Text += R->text();
      if (Cfg.Verbose)
        for (const auto &N : R->Notes)
          llvm::errs() << Tool << ": note: " << O.Name << ": " << N << "\n";
    }
  }
  if (Cfg.Json) {
    nlohmann::json J{{"tool", Tool},
                     {"version", versionString(Tool)},
                     {"objects", Objects},
                     {"kernels", Kernels},
                     {"kernels_passed", Passed},
                     {"raw_instructions", RawTotal},
                     {"pass", AllPass && !BadInput},
                     {"results", All}};
    Text = J.dump(1) + "\n";
  } else if (Objects > 1 || Cfg.Inputs.size() > 1) {
    Text += "total: " + std::to_string(Objects) + " code objects, " + std::to_string(Passed) + "/" +
            std::to_string(Kernels) + " kernels pass" +
            (RawTotal ? ", " + std::to_string(RawTotal) + " instructions kept as raw words" : "") +
            "\n";
  }
  if (auto E = writeFileAtomic(Cfg.Output, Text))
    return reportError(Tool, std::move(E));
  if (BadInput)
    return ExitInput;
  return AllPass ? ExitOk : ExitNegative;
}

static int recoverOne(const RecoverConfig &Cfg) {
  if (Cfg.Inputs.size() != 1) {
    llvm::errs() << Tool << ": error: recovery takes exactly one input (got " << Cfg.Inputs.size()
                 << ")\n";
    return ExitInput;
  }
  auto Objs = loadCodeObjects(Cfg.Inputs[0], Cfg.Arch);
  if (!Objs)
    return reportError(Tool, Objs.takeError());
  if (Objs->size() != 1) {
    llvm::errs() << Tool << ": error: '" << Cfg.Inputs[0] << "': " << Objs->size()
                 << " code objects inside; choose one with --arch or a URI from --list\n";
    return ExitInput;
  }
  const auto &O = Objs->front();
  auto C = CodeObject::read(O.Bytes, O.Name);
  if (!C)
    return reportError(Tool, C.takeError());
  auto R = recoverAssembly(*C, O.Name, sha256Hex(O.Bytes));
  if (!R)
    return reportError(Tool, withFile(R.takeError(), O.Name));
  if (!Cfg.Quiet)
    for (const auto &N : R->Notes)
      llvm::errs() << Tool << ": note: " << O.Name << ": " << N << "\n";
  if (Cfg.Verbose)
    llvm::errs() << Tool << ": " << O.Name << ": " << C->Kernels.size() << " kernels, "
                 << R->Functions << " functions, " << R->Instructions << " instructions ("
                 << R->RawInstructions << " as raw words), " << R->Branches << " branches and "
                 << R->PcRelRefs << " PC-relative references symbolized\n";
  if (auto E = writeFileAtomic(Cfg.Output, R->Asm))
    return reportError(Tool, std::move(E));
  return ExitOk;
}

int runHsacoRecover(const RecoverConfig &Cfg) {
  if (Cfg.List)
    return listInputs(Cfg);
  if (Cfg.Check)
    return checkInputs(Cfg);
  return recoverOne(Cfg);
}

} // namespace asmevo
