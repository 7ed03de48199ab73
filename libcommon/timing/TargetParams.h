// The figures of one GPU that the timing model needs, read from a per-target parameter file
// (share/asmevo/timing/<processor>.json: gfx90a = one MI250X GCD, gfx942 = MI300X, gfx950 =
// MI355X). Every figure in the file carries its source. Instruction latencies and MFMA passes
// are NOT here: they come from LLVM's scheduling model (asm/SchedInfo.h).
//
// File format ("asmevo-timing-params", version 1):
//   { "format": "asmevo-timing-params", "format_version": 1,
//     "target": "gfx942", "device": "AMD Instinct MI300X",
//     "figures": { "<name>": { "value": <number>, "unit": "<unit>", "source": "<where from>" },
//                  ... } }
// Every name of kFigureNames must be present with a finite number >= 0 (> 0 where marked),
// a "unit" string and a non-empty "source"; an unknown name is an error too (a typo would
// otherwise silently leave the default).
#pragma once

#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace asmevo::timing {

struct Figure {
  double Value = 0;
  std::string Unit, Source;
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

// The figure names a file must define, each with the unit it is in:
//   compute_units (count), clock_mhz (MHz, peak engine clock), l2_instances (count: L2s, one per
//   XCD/GCD; CUs are spread over them), simds_per_cu, wave_slots_per_simd,
//   vgprs_per_simd_lane (registers per lane per SIMD: arch + acc, unified), vgpr_granule
//   (registers), sgprs_per_simd, sgpr_granule, lds_bytes_per_cu, lds_banks,
//   lds_bytes_per_clk (per CU), lds_latency_clk,
//   scalar_cache_bytes, scalar_cache_line_bytes, scalar_cache_latency_clk, scalar_miss_latency_clk,
//   l1_bytes, l1_line_bytes, l1_ways, l1_latency_clk, l1_bytes_per_clk (per CU),
//   l2_bytes (per instance), l2_line_bytes, l2_ways, l2_latency_clk,
//   l2_bytes_per_clk (per instance),
//   mall_bytes (Infinity Cache, whole device; 0 when the target has none), mall_latency_clk,
//   mall_bytes_per_clk (whole device),
//   hbm_latency_clk, hbm_bytes_per_clk (whole device: peak bandwidth / clock),
//   hbm_efficiency (the fraction of the peak a streaming kernel sustains, 0 < x <= 1),
//   barrier_latency_clk (s_barrier release after the last wave arrives),
//   branch_taken_clk (extra cycles of a taken branch: the instruction fetch restarts),
//   launch_overhead_clk (dispatch of the first wave, and the end of the last, per launch)
extern const std::vector<std::string> kFigureNames;

// Read and check a parameter file. Errors (exit-2 kind) name the file and the figure:
// "'f.json': figure 'l2_bytes' is missing", "... has no source", "... is not a number".
llvm::Expected<TargetParams> readTargetParams(const std::string &Path);

// The parameter file of Processor ("gfx942") in the installed share/asmevo/timing (or the
// source tree's, for the build tree's tools): "no timing parameters for gfx1100 (there are:
// gfx90a, gfx942, gfx950)" for a target without one.
llvm::Expected<TargetParams> loadTargetParams(const std::string &Processor);

// The directory searched by loadTargetParams ($ASMEVO_TIMING_PARAMS_DIR overrides it).
std::string targetParamsDir();

} // namespace asmevo::timing
