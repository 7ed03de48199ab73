// hsaco-patch: replace a window of a kernel's instructions in place, or print it as a snippet.
#include "HsacoPatch.h"

#include "llvm/Support/Error.h"

using namespace asmevo;

int main(int argc, char **argv) {
  Cli C("hsaco-patch",
        "replace a window of a kernel's instructions in place, padding with s_nop, or refuse",
        "K.hsaco --window W --extract [-o W.s] | K.hsaco --window W --with EDIT.s (-o K1.hsaco "
        "| --in-place)");
  C.addOutputOption("Write the patched code object (with --extract: the snippet, default "
                    "stdout) to FILE; '-' is stdout",
                    /*DefaultStdout=*/false);
  C.addJsonOption();
  C.options().add_options("positional")("inputs", "The code object (a file or a file:// URI)",
                                        cxxopts::value<std::vector<std::string>>());
  C.options().add_options()(
      "window",
      "The window: KERNEL:START-END or KERNEL:START+LENGTH, byte offsets from the "
      "kernel or function symbol (0x... or decimal), END exclusive",
      cxxopts::value<std::string>(), "WINDOW")(
      "with", "Assembly snippet (instructions, local labels, comments) to put in the window",
      cxxopts::value<std::string>(), "EDIT.s")(
      "in-place", "Write the patched code object over the input (atomically) instead of -o")(
      "extract", "Print the window's instructions as a snippet for --with");
  C.options().parse_positional({"inputs"});
  if (int Code = C.parse(argc, argv); Code >= 0)
    return Code;
  const auto &R = C.result();
  PatchConfig Cfg;
  std::vector<std::string> Inputs;
  if (R.count("inputs"))
    Inputs = R["inputs"].as<std::vector<std::string>>();
  if (Inputs.empty())
    return C.usageError("no input file");
  if (Inputs.size() > 1)
    return C.usageError("one input only (got " + std::to_string(Inputs.size()) + ")");
  Cfg.Input = Inputs[0];
  if (!R.count("window"))
    return C.usageError("--window is required");
  Cfg.WindowSpec = R["window"].as<std::string>();
  auto W = parsePatchWindow(Cfg.WindowSpec);
  if (!W)
    return C.usageError(llvm::toString(W.takeError()));
  Cfg.Window = *W;
  Cfg.Extract = R.count("extract") > 0;
  Cfg.InPlace = R.count("in-place") > 0;
  bool HasOutput = R.count("output") > 0;
  Cfg.Output = C.common().Output;
  if (R.count("with"))
    Cfg.With = R["with"].as<std::string>();
  if (Cfg.Extract) {
    if (!Cfg.With.empty())
      return C.usageError("--extract and --with cannot be combined");
    if (Cfg.InPlace)
      return C.usageError("--extract and --in-place cannot be combined");
    if (C.common().Json && Cfg.Output == "-")
      return C.usageError("--json needs -o FILE for the snippet (the report goes to stdout)");
    if (int Code = C.checkOutput(Cfg.Output, {Cfg.Input}); Code >= 0)
      return Code;
    return runHsacoPatch(C, Cfg);
  }
  if (Cfg.With.empty())
    return C.usageError("give --with EDIT.s (or --extract)");
  if (Cfg.InPlace && llvm::StringRef(Cfg.Input).starts_with("file://"))
    return C.usageError("--in-place writes a code-object file, not a URI ('" + Cfg.Input +
                        "'): give the file's path, or -o FILE");
  if (Cfg.InPlace && HasOutput)
    return C.usageError("--in-place and -o cannot be combined");
  if (!Cfg.InPlace && !HasOutput)
    return C.usageError("give -o FILE (or -o - for stdout) or --in-place");
  if (C.common().Json && !Cfg.InPlace && Cfg.Output == "-")
    return C.usageError("--json needs -o FILE or --in-place (the report goes to stdout)");
  // In place is the one documented way to write over the input; -o never is.
  if (int Code = C.checkOutput(Cfg.InPlace ? Cfg.Input : Cfg.Output,
                               Cfg.InPlace ? std::vector<std::string>{Cfg.With}
                                           : std::vector<std::string>{Cfg.Input, Cfg.With});
      Code >= 0)
    return Code;
  return runHsacoPatch(C, Cfg);
}
