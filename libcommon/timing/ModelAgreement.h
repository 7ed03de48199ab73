// How far the timing model is to be believed on a GPU: its agreement with published whole-kernel
// measurements of real code objects (bench/validate_published.py), read from
// share/asmevo/timing/agreement.json and reported beside every modeled figure, so that a modeled
// speedup always says how well the model it comes from matches real hardware there.
//
// File format ("asmevo-model-agreement", version 1; validate_published.py --agreement writes it):
//   { "format": "asmevo-model-agreement", "format_version": 1,
//     "source": "...", "command": "...", "date": "2026-12-07 16:31 UTC", "within": 0.25,
//     "target": { "geomean_low": 0.85, "geomean_high": 1.15, "share_within": 0.7 },
//     "targets": { "gfx942": { "params_sha256": "<sha256 of the parameter file modeled with>",
//                              "gpus": [ { "gpu": "MI300X", "rows": 7, "geomean": 1.005,
//                                          "within": 7, "share_within": 1.0, "min": 0.85,
//                                          "max": 1.15, "families": [ { "family": "fmha_fwd",
//                                          "rows": 7, ... } ] } ] }, ... } }
// The agreement holds for the parameter file it was measured with: a run with another file (an
// edited or a user's own) is told that none is known for it.
#pragma once

#include "timing/TargetParams.h"

#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace asmevo::timing {

// modeled/published over a set of published measurements.
struct AgreementFigures {
  std::string Name; // the GPU ("MI355X") or the kernel family ("bf16gemm")
  unsigned Rows = 0, Within = 0;
  double Geomean = 0, Min = 0, Max = 0;
  double shareWithin() const { return Rows ? double(Within) / Rows : 0; }
};

struct GpuAgreement {
  AgreementFigures All;
  std::vector<AgreementFigures> Families;
};

struct ModelAgreement {
  std::string Date, Command;
  double Within = 0.25;                                      // "within" means |ratio - 1| <= this
  double GeomeanLow = 0.85, GeomeanHigh = 1.15, Share = 0.7; // the target
  std::string ParamsSha256;       // of the file the agreement was measured with, for this target
  std::vector<GpuAgreement> Gpus; // this target's
  // Whether a GPU's figures meet the target (geometric mean and share within).
  bool met(const AgreementFigures &F) const {
    return F.Geomean >= GeomeanLow && F.Geomean <= GeomeanHigh && F.shareWithin() >= Share;
  }
};

// The agreement for TP's target from FilePath (agreement.json): std::nullopt when the file has
// no entry for the target; an error (naming the file) for a file that is not one or is
// malformed. ParamsSha256 is the recorded one: compare it with TP.Sha256 (agreementFor does).
llvm::Expected<std::optional<ModelAgreement>> readModelAgreement(const std::string &FilePath,
                                                                 const std::string &Target);

// What a modeled report says about the model's agreement for TP: read from agreement.json beside
// the shipped parameter files (targetParamsDir()). Status "measured" (TP is the file the
// agreement was measured with), "other_params" (it is not: an edited or a user's own file) or
// "none" (no agreement known for the target, or no agreement file); the JSON of the report's
// "model_agreement", and the notes a person reads.
struct AgreementReport {
  std::string Status;
  nlohmann::json Json;
  std::vector<std::string> Notes;
};
llvm::Expected<AgreementReport> agreementFor(const TargetParams &TP);
// The same with the agreement file given (tests).
llvm::Expected<AgreementReport> agreementFor(const TargetParams &TP, const std::string &FilePath);

} // namespace asmevo::timing
