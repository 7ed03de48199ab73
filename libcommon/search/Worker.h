// Workers in other processes: with --worker-launch PREFIX the controller evaluates each
// candidate by running `PREFIX asmevo-agent --worker NODE_DIR` (PREFIX: `srun --ntasks=1
// --gpus-per-task=1`, so that every evaluation is a Slurm job step on a GPU of the allocation).
// The controller writes RUN_DIR/worker.json (the evaluation options, format asmevo-worker v1)
// once and NODE_DIR/cand.s per candidate; the worker runs GatedEval there and writes
// NODE_DIR/eval.json (format asmevo-eval v1) atomically, and nothing outside NODE_DIR. The
// controller stays the only writer of the lineage; a worker that does not start (srun refuses
// the step) or dies leaves no eval.json, and its error comes back as an infrastructure failure
// of that candidate, with the step's last stderr line.
#pragma once

#include "search/GatedEval.h"
#include "support/Report.h"

#include <string>

namespace asmevo::search {

// The controller's side: write Text to NodeDir/cand.s, run the worker through Launch, and
// read back its result. Self is the asmevo-agent executable.
EvalResult evaluateThrough(const std::string &Launch, const std::string &Self,
                           const std::string &NodeDir, const std::string &Text);

// The worker's side: evaluate NodeDir/cand.s under NodeDir/../../worker.json and write
// NodeDir/eval.json. Outcome ok when eval.json was written (whatever the candidate's verdict),
// input_error when the node directory or the options cannot be read, runtime_error when K0
// cannot be opened. Tool names the caller in the report.
Report runWorker(const std::string &NodeDir, const std::string &Tool);

} // namespace asmevo::search
