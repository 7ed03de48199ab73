// The HIP note: a person reads it, so it is plain text, with the format named on its first line.
#include "install/HipNote.h"

#include "support/Format.h"

namespace asmevo::install {

std::string hipNote(const Run &R, const Plan &P) {
  std::string T = "asmevo-install note v1: code objects for a HIP application\n";
  T += "run: " + R.AbsDir + "\n";
  T += "manifest: asmevo-install.json (K0's and K*'s SHA-256, the backups); "
       "'asmevo-install --uninstall " +
       P.TargetAbs + "' undoes the install\n";
  std::string Example;
  for (const Placement &Q : P.Places) {
    const RunKernel &K = R.Kernels[Q.Kernel];
    T += "\n" + Q.Rel + ": K* of " + K.Name + " (" + K.Processor + "), " + fixed(K.Speedup, 4) +
         "x" + (K.Kind.empty() ? "" : " (" + K.Kind + ")") + "\n";
    T += "  replaces K0, SHA-256 " + K.K0Sha256 +
         (Q.Found.empty() ? std::string() : " (" + Q.Found + ")") + "\n";
    T += "  K* SHA-256 " + K.KStarSha256 + "\n";
    std::string Syms;
    for (const std::string &S : K.Symbols)
      Syms += (Syms.empty() ? "" : ", ") + S;
    T += "  kernels: " + Syms + "\n";
    if (Example.empty() && !K.Symbols.empty())
      Example = "hipModuleLoad(&module, \"" + P.TargetAbs + "/" + Q.Rel +
                "\");\n    hipModuleGetFunction(&function, module, \"" + K.Symbols.front() +
                "\");\n";
  }
  T += "\nLoading: K* keeps K0's kernel symbols, kernel-argument layout and metadata, so the\n"
       "launch code stays as it is. Either load K* by its path where the application loads\n"
       "K0's file,\n    " +
       Example +
       "or put K* where the application's file is: 'asmevo-install RUN --hip --from APP_DIR\n"
       "--to APP_DIR' replaces each file whose SHA-256 is K0's, keeping a backup.\n"
       "A kernel built into the executable (hipcc's offload bundle) is not loaded from a file:\n"
       "extract its code object, run the workflow on it and load K* with hipModuleLoad.\n";
  return T;
}

} // namespace asmevo::install
