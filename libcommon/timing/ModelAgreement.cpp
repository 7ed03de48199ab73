// Reading share/asmevo/timing/agreement.json (ModelAgreement.h) and saying, in a modeled report,
// how well the model agrees with published whole-kernel measurements on the GPU it models.
#include "timing/ModelAgreement.h"

#include "support/Error.h"
#include "support/FileIO.h"
#include "support/JsonText.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <cstdio>

namespace asmevo::timing {

namespace {

constexpr const char *kFormat = "asmevo-model-agreement";
constexpr int64_t kFormatVersion = 1;

llvm::Error inFile(const std::string &Path, const llvm::Twine &Message) {
  return llvm::make_error<ToolError>(Message.str(), Path);
}

std::string fixed2(double V) {
  char B[32];
  std::snprintf(B, sizeof B, "%.2f", V);
  return B;
}

std::string percent(double Share) { return std::to_string(int(std::lround(100 * Share))) + "%"; }

// One object of figures: rows, within, geomean, min, max and its name under NameKey. Throws
// nlohmann's type_error for a missing or mistyped key (the reader turns it into a file error).
AgreementFigures figuresOf(const nlohmann::json &J, const char *NameKey) {
  AgreementFigures F;
  F.Name = J.at(NameKey).get<std::string>();
  F.Rows = J.at("rows").get<unsigned>();
  F.Within = J.at("within").get<unsigned>();
  F.Geomean = J.at("geomean").get<double>();
  F.Min = J.at("min").get<double>();
  F.Max = J.at("max").get<double>();
  if (F.Rows == 0 || F.Within > F.Rows || !(F.Geomean > 0) || !(F.Min > 0) || F.Min > F.Max)
    throw std::domain_error("'" + F.Name + "' has inconsistent figures (rows " +
                            std::to_string(F.Rows) + ", within " + std::to_string(F.Within) +
                            ", geomean " + fixed2(F.Geomean) + ")");
  return F;
}

nlohmann::json figuresJson(const AgreementFigures &F, const char *NameKey) {
  return {{NameKey, F.Name},      {"rows", F.Rows},
          {"within", F.Within},   {"share_within", F.shareWithin()},
          {"geomean", F.Geomean}, {"min", F.Min},
          {"max", F.Max}};
}

// "bf16gemm 0.70 (5/60)".
std::string familyText(const AgreementFigures &F) {
  return F.Name + " " + fixed2(F.Geomean) + " (" + std::to_string(F.Within) + "/" +
         std::to_string(F.Rows) + ")";
}

} // namespace

llvm::Expected<std::optional<ModelAgreement>> readModelAgreement(const std::string &FilePath,
                                                                 const std::string &Target) {
  auto Buf = readFile(FilePath);
  if (!Buf)
    return Buf.takeError();
  auto Parsed = parseJsonText(FilePath, (*Buf)->getBuffer());
  if (!Parsed)
    return Parsed.takeError();
  const nlohmann::json &J = *Parsed;
  if (!J.is_object() || !J.contains("format") || J.at("format") != kFormat)
    return inFile(FilePath,
                  llvm::Twine("not a model agreement file (format is not ") + kFormat + ")");
  if (!J.contains("format_version") || J.at("format_version") != kFormatVersion)
    return inFile(FilePath, "format_version is not " + std::to_string(kFormatVersion));
  try {
    const nlohmann::json &Ts = J.at("targets");
    if (!Ts.is_object())
      return inFile(FilePath, "\"targets\" is not an object");
    if (!Ts.contains(Target))
      return std::optional<ModelAgreement>();
    const nlohmann::json &T = Ts.at(Target);
    ModelAgreement A;
    A.Date = J.at("date").get<std::string>();
    A.Command = J.at("command").get<std::string>();
    A.Within = J.at("within").get<double>();
    const nlohmann::json &Goal = J.at("target");
    A.GeomeanLow = Goal.at("geomean_low").get<double>();
    A.GeomeanHigh = Goal.at("geomean_high").get<double>();
    A.Share = Goal.at("share_within").get<double>();
    A.ParamsSha256 = T.at("params_sha256").get<std::string>();
    for (const nlohmann::json &G : T.at("gpus")) {
      GpuAgreement Ga{figuresOf(G, "gpu"), {}};
      for (const nlohmann::json &F : G.at("families"))
        Ga.Families.push_back(figuresOf(F, "family"));
      A.Gpus.push_back(std::move(Ga));
    }
    if (A.Gpus.empty())
      return inFile(FilePath, "target '" + Target + "' has no GPU");
    return std::optional<ModelAgreement>(std::move(A));
  } catch (const nlohmann::json::exception &E) {
    return inFile(FilePath, "target '" + Target + "': " + E.what());
  } catch (const std::domain_error &E) {
    return inFile(FilePath, "target '" + Target + "': " + E.what());
  }
}

llvm::Expected<AgreementReport> agreementFor(const TargetParams &TP, const std::string &FilePath) {
  AgreementReport R;
  const std::string Where = "bench/validate_published.py";
  if (!llvm::sys::fs::exists(FilePath)) {
    R.Status = "none";
    R.Json = {{"status", R.Status}};
    R.Notes.push_back("model agreement: none known for " + TP.Target + " (no " + FilePath +
                      "): this modeled figure has not been held to published measurements");
    return R;
  }
  auto A = readModelAgreement(FilePath, TP.Target);
  if (!A)
    return A.takeError();
  if (!*A) {
    R.Status = "none";
    R.Json = {{"status", R.Status}, {"file", FilePath}};
    R.Notes.push_back("model agreement: none known for " + TP.Target + " (" + FilePath +
                      " has no entry; " + Where +
                      " has no published whole-kernel time for it): this modeled figure has not "
                      "been held to real measurements");
    return R;
  }
  const ModelAgreement &M = **A;
  if (M.ParamsSha256 != TP.Sha256) {
    R.Status = "other_params";
    R.Json = {{"status", R.Status},
              {"file", FilePath},
              {"measured_params_sha256", M.ParamsSha256},
              {"params_sha256", TP.Sha256}};
    R.Notes.push_back(
        "model agreement: none known for this parameter file (" + TP.Path + ", sha256 " +
        TP.Sha256.substr(0, 12) + "): the published-kernel validation in " + FilePath +
        " was measured with another file (sha256 " + M.ParamsSha256.substr(0, 12) + ")");
    return R;
  }
  R.Status = "measured";
  nlohmann::json Gpus = nlohmann::json::array();
  for (const GpuAgreement &G : M.Gpus) {
    nlohmann::json X = figuresJson(G.All, "gpu");
    X["target_met"] = M.met(G.All);
    nlohmann::json Fs = nlohmann::json::array();
    std::string Families;
    for (const AgreementFigures &F : G.Families) {
      Fs.push_back(figuresJson(F, "family"));
      Families += (Families.empty() ? "" : ", ") + familyText(F);
    }
    X["families"] = Fs;
    Gpus.push_back(X);
    std::string Note = "model agreement on " + G.All.Name + ": modeled/published geometric mean " +
                       fixed2(G.All.Geomean) + " over " + std::to_string(G.All.Rows) +
                       " published whole-kernel times, " + std::to_string(G.All.Within) + " (" +
                       percent(G.All.shareWithin()) + ") within +-" + percent(M.Within) + " (" +
                       Where + ", " + M.Date + "; by family: " + Families + "); ";
    if (M.met(G.All))
      Note += "within the target (" + fixed2(M.GeomeanLow) + " to " + fixed2(M.GeomeanHigh) + ", " +
              percent(M.Share) + " within)";
    else
      Note += "the target (" + fixed2(M.GeomeanLow) + " to " + fixed2(M.GeomeanHigh) + ", " +
              percent(M.Share) +
              " within) is NOT met: a modeled speedup on this GPU is weak "
              "evidence";
    R.Notes.push_back(Note);
  }
  R.Json = {
      {"status", R.Status},
      {"file", FilePath},
      {"date", M.Date},
      {"command", M.Command},
      {"within", M.Within},
      {"target",
       {{"geomean_low", M.GeomeanLow}, {"geomean_high", M.GeomeanHigh}, {"share_within", M.Share}}},
      {"gpus", Gpus}};
  return R;
}

llvm::Expected<AgreementReport> agreementFor(const TargetParams &TP) {
  llvm::SmallString<256> Path(targetParamsDir());
  llvm::sys::path::append(Path, "agreement.json");
  return agreementFor(TP, std::string(Path));
}

} // namespace asmevo::timing
