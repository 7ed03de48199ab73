#include "AsmevoInstall.h"

#include "install/Manifest.h"
#include "install/Refusal.h"
#include "support/Error.h"
#include "support/Format.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>
#include <cstring>

namespace asmevo {

namespace {

// A refusal is outcome "refused" ("<tool>: refused: ..."); everything else is an error.
int fail(const Cli &C, Report &Rep, llvm::Error E) {
  bool Refused = false;
  E = llvm::handleErrors(std::move(E), [&](const install::InstallRefusal &R) {
    Refused = true;
    Rep.Result = Outcome::Refused;
    Rep.Message = "'" + R.File + "': " + R.Message;
  });
  if (E)
    return C.fail(Rep, std::move(E));
  llvm::errs() << C.tool() << ": refused: " << Rep.Message << "\n";
  if (C.common().Json)
    C.printJson(Rep);
  return Rep.exitCode();
}

int render(const Cli &C, const Report &Rep) { return C.printAnswer(Rep); }

// A word as a POSIX shell reads it back: as it is when it has only characters the shell takes
// literally, else in single quotes (a ' as '\''), so that a hint can be pasted.
std::string shellQuote(const std::string &W) {
  bool Plain = !W.empty();
  for (char C : W)
    Plain = Plain && (std::isalnum(static_cast<unsigned char>(C)) ||
                      std::strchr("_@%+=:,./-", C) != nullptr);
  if (Plain)
    return W;
  std::string Q = "'";
  for (char C : W)
    Q += C == '\'' ? std::string("'\\''") : std::string(1, C);
  return Q + "'";
}

std::string howToLoad(install::Layout L, const install::InstallResult &R) {
  switch (L) {
  case install::Layout::Triton:
    return "Triton loads it with TRITON_KERNEL_OVERRIDE=1 TRITON_OVERRIDE_DIR=" +
           shellQuote(R.Target) +
           " (and TRITON_ALWAYS_COMPILE=1 or a fresh TRITON_CACHE_DIR: a cache hit skips the "
           "override); set it only on " +
           (R.KStarTarget.empty() ? "K*'s target" : R.KStarTarget) +
           " GPUs: the override directory is keyed by the kernel's source hash, not by the GPU, "
           "so a compile for any other target would load this " +
           (R.KStarTarget.empty() ? "" : R.KStarTarget + " ") + "code object too";
  case install::Layout::Aiter:
    return R.InPlace ? "AITer loads it from its own asm directory"
                     : "AITer loads it with AITER_ASM_DIR=" + shellQuote(R.Target + "/") +
                           " (the original's relative paths; the rest links to the originals)";
  case install::Layout::Hip:
    return "how to load it: " + shellQuote(R.Target + "/" + R.Note);
  }
  return "";
}

int runUninstall(const Cli &C, Report &Rep, const std::string &Target) {
  auto R = install::uninstall(Target);
  if (!R)
    return fail(C, Rep, R.takeError());
  Rep.Message = "uninstalled " + Target + ": " + std::to_string(R->Restored) + " restored, " +
                std::to_string(R->Removed) + " removed, " + std::to_string(R->Links) +
                " links removed";
  for (const std::string &P : R->Kept)
    Rep.Notes.push_back(P + ": kept (K* was there before the install)");
  Rep.Body = {{"target", Target},
              {"restored", R->Restored},
              {"removed", R->Removed},
              {"links", R->Links},
              {"kept", R->Kept}};
  return render(C, Rep);
}

} // namespace

// What K* was verified on, in words: the other launches of the kernel were not (a Triton cache
// key does not include the problem size, so its other sizes load K* too).
static std::string verifiedText(const nlohmann::json &V) {
  if (!V.is_array())
    return "the launches K* was verified on are not recorded (a search from before they were); "
           "launches other than the search's were not verified";
  std::string S;
  auto Dims = [](const nlohmann::json &A) {
    std::string D;
    for (const nlohmann::json &X : A)
      D += (D.empty() ? "" : "x") + X.dump();
    return D;
  };
  for (const nlohmann::json &E : V) {
    S += S.empty() ? "" : "; ";
    if (E.contains("capture")) {
      S += "the captured dispatch " + E.value("capture", std::string());
      continue;
    }
    S += E.value("spec", std::string());
    if (E.contains("grid"))
      S +=
          " (grid " + Dims(E["grid"]) + ", block " + Dims(E.value("block", nlohmann::json())) + ")";
    std::string Seeds;
    for (const nlohmann::json &X : E.value("seeds", nlohmann::json::array()))
      Seeds += (Seeds.empty() ? "" : ",") + X.dump();
    S += " seeds " + Seeds;
    const nlohmann::json Edge = E.value("edge_shapes", nlohmann::json::object());
    if (Edge.is_object() && Edge.contains("shapes") && Edge["shapes"].is_array()) {
      std::string Names;
      for (const nlohmann::json &X : Edge["shapes"])
        Names += (Names.empty() ? "" : ", ") + X.value("name", std::string());
      S += " and edge shapes " + Names + " (seed " + Edge.value("seed", nlohmann::json()).dump() +
           ")";
    }
  }
  return "verified on " + S +
         " only; other launches of the kernel were not verified (a Triton cache key does not "
         "include the problem size: every size loads K*)";
}

int runAsmevoInstall(const Cli &C, const InstallConfig &Cfg) {
  Report Rep = C.report();
  const install::InstallOptions &O = Cfg.Options;
  if (Cfg.Uninstall)
    return runUninstall(C, Rep, O.Target);
  auto R = install::install(O);
  if (!R)
    return fail(C, Rep, R.takeError());
  nlohmann::json Kernels = nlohmann::json::array();
  unsigned Installed = 0, Unchanged = 0, Skipped = 0;
  std::vector<std::string> Verified; // what each K* was verified on, after the other notes
  for (const install::KernelResult &K : R->Kernels) {
    Installed += K.Status == "installed";
    Unchanged += K.Status == "unchanged";
    Skipped += K.Status == "skipped" || K.Status == "not_found";
    Rep.Inputs.push_back({"k0", O.RunDir + "/" + K.Name + "/k0.hsaco", K.K0Sha256});
    if (!K.KStarSha256.empty())
      Rep.Inputs.push_back(
          {"kstar", O.RunDir + "/" + K.Name + "/search/best.hsaco", K.KStarSha256});
    std::string Line = K.Name + ": " + (K.Status == "not_found" ? "not found" : K.Status);
    for (const std::string &P : K.Paths)
      Line += " " + P;
    if (!K.Reason.empty())
      Line += ": " + K.Reason;
    else
      Line += " (" + fixed(K.Speedup, 4) + "x)";
    Rep.Notes.push_back(Line);
    if (K.Status == "installed" || K.Status == "unchanged")
      Verified.push_back(K.Name + ": " + verifiedText(K.VerifiedOn));
    Kernels.push_back({{"name", K.Name},
                       {"verified_on", K.VerifiedOn},
                       {"status", K.Status},
                       {"reason", K.Reason},
                       {"k0_sha256", K.K0Sha256},
                       {"kstar_sha256", K.KStarSha256},
                       {"speedup", K.Speedup},
                       {"paths", K.Paths}});
  }
  for (const auto &[Rel, Why] : R->Protected)
    Rep.Notes.push_back("not searched: " + Rel + "/ (" + Why + "; nothing in it is replaced)");
  if (Installed + Unchanged)
    Rep.Notes.push_back(howToLoad(O.Kind, *R));
  Rep.Notes.insert(Rep.Notes.end(), Verified.begin(), Verified.end());
  Rep.Message = std::string("installed ") + std::to_string(Installed) + " K* (" +
                std::to_string(Unchanged) + " unchanged, " + std::to_string(Skipped) +
                " skipped) into " + O.Target + " (" + install::layoutName(O.Kind) +
                (R->InPlace ? ", in place" : "") + ")";
  if (llvm::sys::fs::exists(O.Target + "/" + install::kManifestFile))
    Rep.Message += std::string("; manifest ") + O.Target + "/" + install::kManifestFile;
  Rep.Body = {
      {"layout", install::layoutName(O.Kind)},
      {"run", O.RunDir},
      {"source", O.Source.empty() ? nlohmann::json() : nlohmann::json(O.Source)},
      {"target", R->Target},
      {"in_place", R->InPlace},
      {"manifest", O.Target + "/" + install::kManifestFile},
      {"written", R->Written},
      {"backups", R->Backups},
      {"links", R->Links},
      {"note", R->Note.empty() ? nlohmann::json() : nlohmann::json(R->Note)},
      {"kstar_target", R->KStarTarget.empty() ? nlohmann::json() : nlohmann::json(R->KStarTarget)},
      {"not_searched", nlohmann::json::array()},
      {"kernels", Kernels}};
  for (const auto &[Rel, Why] : R->Protected)
    Rep.Body["not_searched"].push_back({{"path", Rel}, {"why", Why}});
  return render(C, Rep);
}

} // namespace asmevo
