// The figures of one GPU that the timing model needs, read from a per-target parameter file
// (share/asmevo/timing/<processor>.json: gfx90a = one MI250X GCD, gfx942 = MI300X, gfx950 =
// MI355X). Every figure in the file carries its source. Instruction latencies and MFMA passes
// are NOT here: they come from LLVM's scheduling model (asm/SchedInfo.h).
//
// File format ("asmevo-timing-params", version 2):
//   { "format": "asmevo-timing-params", "format_version": 2,
//     "target": "gfx942", "device": "AMD Instinct MI300X",
//     "figures": { "<name>": { "value": <number>, "unit": "<unit>", "source": "<where from>",
//                              "range": [<low>, <high>], "range_source": "<why this range>" },
//                  ... } }
// Every figure of kFigures must be present, in its unit, with a value in its plausible range (a
// whole number or a power of two where it counts something) and a non-empty "source"; an unknown
// figure or key is an error too (a typo would otherwise silently leave the default). A UTF-8
// byte order mark before the JSON is skipped, as RFC 8259 allows a reader to.
// Version 2 adds the model's uncertainty about each figure: "range" [low, high] holds the value
// and lies within the plausible range; "range_source" starts with "exact:" (a documented fact or
// one of the model's structural counts: low = high = value), "sources:" (the spread of the
// figure's sources) or "assumed:" (a stated default, e.g. +-20%, for a figure no source pins
// down). A figure that counts something (kind Whole or PowerOfTwo) must be exact: the occupancy,
// the sampling plan and the caches' shapes depend on them, so one trace serves every parameter
// set an ensemble draws (Ensemble.h). Version 1 files (no ranges) are refused, saying so.
#pragma once

#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace asmevo::timing {

struct Figure {
  double Value = 0;
  std::string Unit, Source;
  double Low = 0, High = 0; // the range: Low <= Value <= High (equal for an exact figure)
  std::string RangeSource;  // "exact: ...", "sources: ..." or "assumed: ..."
  bool exact() const { return Low == High; }
};

struct TargetParams {
  std::string Target; // "gfx942"
  std::string Device; // "AMD Instinct MI300X"
  std::string Path;   // the file it was read from
  std::string Sha256; // of its bytes (for the report's inputs)
  std::map<std::string, Figure> Figures;

  // The figures by name (the names are kFigureNames; every one is present after a read).
  double operator[](const std::string &Name) const { return Figures.at(Name).Value; }

  // Compute resources.
  double computeUnits() const { return (*this)["compute_units"]; }
  double clockMHz() const { return (*this)["clock_mhz"]; }
};

// What a figure's value may be besides its range: any number, a whole number (it counts
// something), or a power of two (a cache line).
enum class FigureKind { Real, Whole, PowerOfTwo };

// One figure every file must define (the table is kFigures, FigureNames.cpp, which says what
// each figure is): the unit the file must give ("clk", "bytes", "B/clk", "count", ...) and the
// plausible range, wide enough for any CDNA device, so that a value outside it is a mistake.
struct FigureDef {
  const char *Name;
  const char *Unit;
  double Min, Max; // inclusive
  FigureKind Kind;
};
// Whether a file must give D a zero-width range: a count, a size or a line (TargetParams.h's
// banner says why).
inline bool mustBeExact(const FigureDef &D) { return D.Kind != FigureKind::Real; }
extern const std::vector<FigureDef> kFigures;
// Their names, in the same order.
extern const std::vector<std::string> kFigureNames;

// Read and check a parameter file. Errors (exit-2 kind) name the file, the figure, the value
// and what it must be: "'f.json': figure 'l2_bytes' is missing", "'f.json': figure
// 'compute_units' is 1e+12, outside 1 to 1024 (count, a whole number)", "'f.json': figure
// 'l2_latency_clk' has range [300, 200]: its low is more than its high".
llvm::Expected<TargetParams> readTargetParams(const std::string &Path);

// The parameter file of Processor ("gfx942") in the installed share/asmevo/timing (or the
// source tree's, for the build tree's tools): "no timing parameters for gfx1100 (there are:
// gfx90a, gfx942, gfx950)" for a target without one.
llvm::Expected<TargetParams> loadTargetParams(const std::string &Processor);

// The directory searched by loadTargetParams ($ASMEVO_TIMING_PARAMS_DIR overrides it).
std::string targetParamsDir();

} // namespace asmevo::timing
