// The figures every timing parameter file defines (TargetParams.h says what each one is).
#include "timing/TargetParams.h"

namespace asmevo::timing {

const std::vector<std::string> kFigureNames = {
    "compute_units",
    "clock_mhz",
    "l2_instances",
    "simds_per_cu",
    "wave_slots_per_simd",
    "vgprs_per_simd_lane",
    "vgpr_granule",
    "sgprs_per_simd",
    "sgpr_granule",
    "lds_bytes_per_cu",
    "lds_banks",
    "lds_bytes_per_clk",
    "lds_latency_clk",
    "scalar_cache_bytes",
    "scalar_cache_line_bytes",
    "scalar_cache_latency_clk",
    "scalar_miss_latency_clk",
    "l1_bytes",
    "l1_line_bytes",
    "l1_ways",
    "l1_latency_clk",
    "l1_bytes_per_clk",
    "l2_bytes",
    "l2_line_bytes",
    "l2_ways",
    "l2_latency_clk",
    "l2_bytes_per_clk",
    "mall_bytes",
    "mall_latency_clk",
    "mall_bytes_per_clk",
    "hbm_latency_clk",
    "hbm_bytes_per_clk",
    "hbm_efficiency",
    "barrier_latency_clk",
    "branch_taken_clk",
    "launch_overhead_clk",
};

} // namespace asmevo::timing
