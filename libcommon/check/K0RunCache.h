// K0's runs kept across the differential checks of many candidates against one K0 (a search
// checks hundreds): each (K0, spec, seed, edge shape, strictness) is run once and its outputs,
// footprint, findings and instruction count reused; an edge shape K0 cannot be the reference on
// is remembered with why. In memory, and, given a directory, on disk (one file per run,
// RUN_DIR/k0-runs/<SHA-256 of the key>.k0run, format asmevo-k0-run v1 in msgpack), so that a
// --resume and the worker processes of --worker-launch reuse what the controller ran. A file
// that cannot be read back whole, or holds another key, is a miss: K0 runs again.
#pragma once

#include "device/Device.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace asmevo::check {

// One kernel's run on one seed: each buffer's whole allocation (guard, data, guard) afterwards.
struct RunOut {
  std::vector<std::vector<uint8_t>> Alloc; // indexed like Spec.Args (empty for non-buffers)
  uint64_t WaveInstructions = 0;           // emu: what the dispatch executed
  double Seconds = 0;
  bool Checked = false; // the strict checks ran
  std::vector<device::UnsafeFinding> Findings;
  uint64_t FindingsTotal = 0;
  // With footprint tracking, per buffer (like Alloc): the lowest and one past the highest byte
  // offset touched in its allocation (guards included); nullopt when untouched or not tracked.
  std::vector<std::optional<std::pair<uint64_t, uint64_t>>> Touched;
};

// A run as the store's file holds it, under Key; and back (nullopt: not a whole run of Key).
std::string encodeK0Run(const std::string &Key, const RunOut &R);
std::optional<RunOut> decodeK0Run(llvm::StringRef Bytes, const std::string &Key);

// Thread-safe. Dir "": memory only; ReadOnly: read Dir's files, write none (a worker writes
// nothing outside its node directory).
class K0RunCache {
public:
  explicit K0RunCache(std::string Dir = "", bool ReadOnly = false)
      : Dir(std::move(Dir)), ReadOnly(ReadOnly) {}
  std::shared_ptr<const RunOut> find(const std::string &Key);
  void add(const std::string &Key, std::shared_ptr<const RunOut> R);
  std::optional<std::string> skipped(const std::string &Key);
  void addSkip(const std::string &Key, const std::string &Why);
  // The runs answered (from memory or disk), and the ones that had to be made.
  std::pair<uint64_t, uint64_t> counts() const;

private:
  std::string path(const std::string &Key, const char *Ext) const;
  // Dir's file of Key (nullopt: none, or no Dir); write one (not when ReadOnly; errors ignored).
  std::optional<std::string> stored(const std::string &Key, const char *Ext) const;
  void store(const std::string &Key, const char *Ext, const std::string &Data) const;
  const std::string Dir;
  const bool ReadOnly;
  mutable std::mutex M;
  std::map<std::string, std::shared_ptr<const RunOut>> Runs;
  std::map<std::string, std::string> Skips;
  uint64_t Hits = 0, Misses = 0;
};

} // namespace asmevo::check
