// The figures every timing parameter file defines: one row each, with the unit the file must
// give it in and the range of values the model takes (TargetParams.h says how they are checked).
// The ranges are deliberately wide: they hold every CDNA device and then some, so that a value
// outside one is a typo, a wrong unit or a corrupted file, never a real GPU. They are not the
// model's uncertainty about a figure; that would be another pair of columns beside these.
#include "timing/TargetParams.h"

namespace asmevo::timing {

namespace {
constexpr FigureKind Real = FigureKind::Real, Whole = FigureKind::Whole,
                     Pow2 = FigureKind::PowerOfTwo;
constexpr double KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;
} // namespace

// Latencies are in shader clocks (clk); bandwidths in bytes per shader clock; the l2_* figures
// are per L2 instance (one per XCD or GCD), the mall_* and hbm_* ones for the whole device.
const std::vector<FigureDef> kFigures = {
    // {name, unit, min, max, kind}
    // Compute resources (MI300X: 304 CUs at 2100 MHz). l2_instances: the L2s, one per XCD or
    // GCD; CUs are spread over them.
    {"compute_units", "count", 1, 1024, Whole},
    // The engine clock: its peak (boost), the sustained clock with every CU's matrix cores busy,
    // and the exponent of the power law between them (Model.h: the clock model).
    {"clock_mhz", "MHz", 100, 5000, Real},
    {"mfma_clock_mhz", "MHz", 100, 5000, Real},
    {"clock_power_exponent", "exponent", 0.5, 8, Real},
    {"l2_instances", "count", 1, 64, Whole},
    {"simds_per_cu", "count", 1, 8, Whole},
    {"wave_slots_per_simd", "waves", 1, 32, Whole},
    {"vgprs_per_simd_lane", "registers", 64, 2048, Whole}, // arch + acc, unified
    {"vgpr_granule", "registers", 1, 64, Whole},
    {"sgprs_per_simd", "registers", 16, 4096, Whole},
    {"sgpr_granule", "registers", 1, 64, Whole},
    // LDS (per CU).
    {"lds_bytes_per_cu", "bytes", 1 * KiB, 1 * MiB, Whole},
    {"lds_banks", "banks", 1, 256, Whole},
    {"lds_bytes_per_clk", "B/clk", 4, 4096, Real},
    {"lds_latency_clk", "clk", 0, 1000, Real},
    // The scalar cache (the model gives it 4 ways).
    {"scalar_cache_bytes", "bytes", 256, 1 * MiB, Whole},
    {"scalar_cache_line_bytes", "bytes", 4, 1024, Pow2},
    {"scalar_cache_latency_clk", "clk", 0, 1000, Real},
    {"scalar_miss_latency_clk", "clk", 0, 10000, Real},
    // The vector L1 (per CU).
    {"l1_bytes", "bytes", 1 * KiB, 16 * MiB, Whole},
    {"l1_line_bytes", "bytes", 16, 1024, Pow2},
    {"l1_ways", "ways", 1, 1024, Whole},
    {"l1_latency_clk", "clk", 0, 5000, Real},
    {"l1_bytes_per_clk", "B/clk", 1, 4096, Real},
    // Clocks the CU's texture addresser takes for one vector-memory instruction (its lanes'
    // addresses): no further VMEM instruction of the CU issues in between (Model.cpp).
    {"vmem_issue_clk", "clk", 1, 256, Real},
    // L2 (per instance).
    {"l2_bytes", "bytes", 64 * KiB, 1 * GiB, Whole},
    {"l2_line_bytes", "bytes", 16, 1024, Pow2},
    {"l2_ways", "ways", 1, 1024, Whole},
    {"l2_latency_clk", "clk", 0, 10000, Real},
    {"l2_bytes_per_clk", "B/clk", 1, 65536, Real},
    // Infinity Cache (whole device; mall_bytes 0: the target has none, and its latency and
    // bandwidth are then unused). It has l2_line_bytes lines and 16 ways in the model.
    {"mall_bytes", "bytes", 0, 16 * GiB, Whole},
    {"mall_latency_clk", "clk", 0, 10000, Real},
    {"mall_bytes_per_clk", "B/clk", 0, 1 * MiB, Real},
    // HBM (whole device): peak bandwidth / clock, and the fraction a streaming kernel sustains.
    {"hbm_latency_clk", "clk", 0, 20000, Real},
    {"hbm_bytes_per_clk", "B/clk", 1, 1 * MiB, Real},
    {"hbm_efficiency", "fraction", 0.01, 1, Real},
    // Events: s_barrier release after the last wave arrives; the extra cycles of a taken branch
    // (the instruction fetch restarts). The launch overhead is in microseconds, not clocks: the
    // gap a launch adds between back-to-back launches is the command processor's and the host
    // runtime's, not the engine clock's (Model.h: what a modeled time includes).
    {"barrier_latency_clk", "clk", 0, 10000, Real},
    {"branch_taken_clk", "clk", 0, 1000, Real},
    {"launch_overhead_us", "us", 0, 10000, Real},
    // A kernel's fixed GPU-side time beyond what the simulation contains (its dispatch, the
    // address translation of inputs that come cold from HBM, the release at its end): in a
    // profiler's kernel duration too, so part of the kernel's time (Model.h).
    {"kernel_fixed_us", "us", 0, 10000, Real},
};

const std::vector<std::string> kFigureNames = [] {
  std::vector<std::string> N;
  for (const FigureDef &F : kFigures)
    N.push_back(F.Name);
  return N;
}();

} // namespace asmevo::timing
