// Where each K* of a run goes in a target: the files of the source whose SHA-256 is K0's (at
// the same relative path), the paths a previous install of the same run recorded, and, for an
// AITer tree installed beside its original, the links that make the rest of the tree.
//
// Triton's override, as read in triton-lang/triton (python/triton/compiler/compiler.py at
// 9e46d61196637e01878c6ffe712f7cee3082e683, function compile; runtime/cache.py at 10852d2e...,
// FileCacheManager, get_override_manager, get_dump_manager; knobs.py at 00c7dbd4..., the knobs
// compilation.override = TRITON_KERNEL_OVERRIDE, dump_ir = TRITON_KERNEL_DUMP, cache.dump_dir =
// TRITON_DUMP_DIR, cache.override_dir = TRITON_OVERRIDE_DIR; third_party/amd/backend/compiler.py
// at 022816cf..., HIPBackend.add_stages: ttir, ttgir, llir, amdgcn, hsaco):
// - dump and override directories are keyed alike, <dir>/<key>/, key from src.hash() (the
//   kernel's source, signature, constants and attributes; base32 in newer releases), so the
//   dump's directory name is the override's;
// - after each stage, the dump writes "<file_name>.<ext>" (file_name = src.name[:150], the
//   kernel function's name) and the override replaces that stage's output when the file
//   <override>/<key>/<file_name>.<ext> exists; parse() reads a .hsaco with read_bytes(), as is;
// - only stage files are consulted: <name>.json (the metadata: name from make_amdgcn, shared
//   from make_llir) is computed by the stages that still run, so K*, with K0's symbols, kernarg
//   layout and LDS, needs no .json override and none is written;
// - a cache hit returns before the stages run, and TRITON_KERNEL_OVERRIDE does not change the
//   cache key (include/triton/Tools/Sys/GetEnv.hpp, CACHE_INVALIDATING_ENV_VARS): the override
//   needs TRITON_ALWAYS_COMPILE=1 or a fresh cache.
#pragma once

#include "install/Install.h"
#include "install/Manifest.h"
#include "install/Run.h"
#include "install/Tree.h"

#include <optional>
#include <string>
#include <vector>

namespace asmevo::install {

struct Placement {
  size_t Kernel = 0; // index into Run::Kernels
  std::string Rel;   // relative to the target
  std::string Found; // the source file that holds K0 (absolute; empty when none)
};

struct Plan {
  std::string SourceAbs, TargetAbs;
  bool InPlace = false;
  std::vector<Placement> Places;
  std::vector<bool> NotFound;          // per kernel: eligible, but K0 is nowhere in the source
  std::vector<std::string> Mirror;     // AITer beside the original: source files to link
  std::vector<ProtectedDir> Protected; // directories of the source never searched (Tree.h)
};

// Eligible: per kernel, whether it has a K* to install. Errors name the source or target.
llvm::Expected<Plan> planInstall(const InstallOptions &O, const Run &R,
                                 const std::vector<bool> &Eligible,
                                 const std::optional<Manifest> &Old);

} // namespace asmevo::install
