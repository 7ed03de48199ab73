// dispatch-capture: record one kernel dispatch of an application (its code object, kernargs and
// every device region they reach, before and after) into a capture bundle.
#include "DispatchCapture.h"

#include "llvm/Support/Regex.h"

#include <cstring>

using namespace asmevo;

int main(int argc, char **argv) {
  Cli C("dispatch-capture", "record one kernel dispatch of a HIP application into a capture bundle",
        "[--kernel REGEX] [--nth N] [--max-bytes B] -o BUNDLE -- APP [ARGS...]");
  C.addOutputOption("Write the capture bundle to FILE (mode 0600)", /*DefaultStdout=*/false);
  C.addJsonOption();
  C.options().add_options()(
      "kernel", "Capture a dispatch of a kernel whose name matches REGEX (default: any kernel)",
      cxxopts::value<std::string>(),
      "REGEX")("nth", "Capture the Nth matching dispatch, counting from 0 (default 0: the first)",
               cxxopts::value<uint64_t>(), "N")(
      "max-bytes",
      "Refuse a dispatch whose reached regions hold more than B bytes (default 1073741824)",
      cxxopts::value<uint64_t>(), "B");
  // The application's command line follows "--" and is not parsed.
  int Split = argc;
  for (int I = 1; I < argc; ++I)
    if (!std::strcmp(argv[I], "--")) {
      Split = I;
      break;
    }
  if (int Code = C.parse(Split, argv); Code >= 0)
    return Code;
  const auto &R = C.result();
  CaptureConfig Cfg;
  for (int I = Split + 1; I < argc; ++I)
    Cfg.Command.push_back(argv[I]);
  if (Cfg.Command.empty())
    return C.usageError("give the application to run after --");
  if (!R.count("output"))
    return C.usageError("-o BUNDLE is required");
  Cfg.Output = C.common().Output;
  if (Cfg.Output == "-")
    return C.usageError("the bundle is binary: give -o FILE");
  if (R.count("kernel")) {
    Cfg.KernelRegex = R["kernel"].as<std::string>();
    std::string Why;
    if (!llvm::Regex(Cfg.KernelRegex).isValid(Why))
      return C.usageError("--kernel '" + Cfg.KernelRegex + "': " + Why);
  }
  if (R.count("nth"))
    Cfg.Nth = R["nth"].as<uint64_t>();
  if (R.count("max-bytes"))
    Cfg.MaxBytes = R["max-bytes"].as<uint64_t>();
  if (int Code = C.checkOutput(Cfg.Output, {}); Code >= 0)
    return Code;
  return runDispatchCapture(C, Cfg);
}
