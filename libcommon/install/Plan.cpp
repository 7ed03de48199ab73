// Planning an install: nothing is written here. Triton's override replaces one stage, so only
// the dump's .hsaco files are candidates; an AITer tree or an application directory may hold
// K0 under any name (".co", ".hsaco").
#include "install/Plan.h"

#include "install/Tree.h"
#include "support/Error.h"

#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <set>

namespace asmevo::install {

namespace {

bool inside(llvm::StringRef Path, llvm::StringRef Dir) {
  return Path != Dir && isWithin(Path, Dir);
}

} // namespace

llvm::Expected<Plan> planInstall(const InstallOptions &O, const Run &R,
                                 const std::vector<bool> &Eligible,
                                 const std::optional<Manifest> &Old) {
  Plan P;
  P.TargetAbs = absolutePath(O.Target);
  P.NotFound.assign(R.Kernels.size(), false);
  if (llvm::sys::fs::exists(O.Target) && !llvm::sys::fs::is_directory(O.Target))
    return llvm::make_error<ToolError>("the target is not a directory", O.Target);
  if (isWithin(P.TargetAbs, absolutePath(R.Dir)))
    return llvm::make_error<ToolError>("the target is inside the run directory ('" + R.Dir +
                                           "'), whose files are the run's own: give another "
                                           "directory",
                                       O.Target);
  std::vector<TreeFile> Files;
  std::map<std::string, std::vector<std::string>> BySha;
  if (!O.Source.empty()) {
    P.SourceAbs = absolutePath(O.Source);
    auto F = listTree(O.Source, R.Dir, &P.Protected);
    if (!F)
      return F.takeError();
    Files = std::move(*F);
    P.InPlace = P.SourceAbs == P.TargetAbs;
    if (inside(P.TargetAbs, P.SourceAbs) || inside(P.SourceAbs, P.TargetAbs))
      return llvm::make_error<ToolError>(
          "the target and the source ('" + O.Source +
              "') are inside one another: give another directory, or the source itself to "
              "install in place",
          O.Target);
    std::set<uint64_t> Sizes;
    for (size_t I = 0; I < R.Kernels.size(); ++I)
      if (Eligible[I])
        Sizes.insert(R.Kernels[I].K0.size());
    auto H = hashTree(O.Source, Files, Sizes);
    if (!H)
      return H.takeError();
    BySha = std::move(*H);
  }
  std::set<std::string> Taken;
  for (size_t I = 0; I < R.Kernels.size(); ++I) {
    if (!Eligible[I])
      continue;
    const RunKernel &K = R.Kernels[I];
    std::vector<Placement> Mine;
    auto add = [&](const std::string &Rel, const std::string &Found) {
      for (const Placement &Q : Mine)
        if (Q.Rel == Rel)
          return;
      Mine.push_back({I, Rel, Found});
    };
    if (O.Source.empty() && O.Kind == Layout::Hip)
      add(K.Name + ".hsaco", "");
    for (const std::string &Rel : BySha[K.K0Sha256])
      if (O.Kind != Layout::Triton || llvm::StringRef(Rel).ends_with(".hsaco"))
        add(Rel, P.SourceAbs + "/" + Rel);
    if (Old)
      for (const ManifestEntry &E : Old->Entries)
        if (E.Kernel == K.Name && E.Run == R.AbsDir)
          add(E.Path, E.Source);
    if (Mine.empty())
      P.NotFound[I] = true;
    for (Placement &Q : Mine) {
      if (!Taken.insert(Q.Rel).second)
        return llvm::make_error<ToolError>("two kernels of the run go to one file '" + Q.Rel +
                                               "' (their K0 are the same bytes)",
                                           O.Target);
      P.Places.push_back(std::move(Q));
    }
  }
  if (O.Kind == Layout::Aiter && !P.InPlace)
    for (const TreeFile &F : Files)
      if (!Taken.count(F.Rel))
        P.Mirror.push_back(F.Rel);
  return P;
}

} // namespace asmevo::install
