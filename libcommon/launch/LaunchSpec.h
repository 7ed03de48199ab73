// The launch spec of kernel-diffcheck: how to launch one kernel (grid, block, dynamic LDS) and
// what each explicit argument is (buffers: element type, element count, role, value range, file
// or fill; by-value arguments: their value). Written by hand as JSON, completed by launch
// inference (LaunchInference.h), written back as JSON. The format is described in
// kernel-diffcheck(1) and README.md ("Writing a launch spec").
#pragma once

#include "codeobj/CodeObject.h"
#include "codeobj/KernelArgs.h"
#include "launch/ElemType.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace asmevo::launch {

enum class Role { Unset, In, Out, InOut };
const char *roleName(Role R); // "in", "out", "inout" ("" when unset)

struct ArgSpec {
  // Where it came from and which argument it is.
  std::string Arg;       // as written in the spec ("#0" or a metadata name)
  unsigned Entry = 0;    // index in the spec's "args" array
  unsigned Index = 0;    // explicit-argument index
  std::string Label;     // how messages name it: the metadata name, else "#N"
  std::string ValueKind; // metadata .value_kind
  uint32_t Offset = 0, Size = 0;
  bool Buffer = false; // a global_buffer pointer

  // Buffers.
  bool Null = false;
  ElemType Type = ElemType::Bytes;
  bool TypeGiven = false; // "type" was in the spec (else from .type_name)
  std::optional<uint64_t> Elements;
  Role R = Role::Unset;
  std::optional<std::pair<double, double>> Range;
  std::string File;     // as written
  std::string FilePath; // resolved against the spec's directory
  std::string Fill;     // "", "zero" or "random"
  bool ElementsInferred = false, RoleInferred = false;

  // Pointer tables: a buffer argument whose contents are the addresses of other buffers (the
  // spec's "table": [{buffer}, ...]; paged KV, grouped GEMM, MoE LoRA). The table is a u64
  // buffer of one address per entry, role in, written when the launch is placed; each entry is
  // a buffer of its own, kept in LaunchSpec::Args after every explicit argument, labelled
  // "LABEL[I]", and checked, compared and inferred as any buffer. Its contents read back as
  // zeros where the kernel left the placed addresses (so that K0's and K1's runs, placed at
  // different addresses, compare equal).
  std::vector<ArgSpec> Entries; // a table as parsed: its entries (resolve moves them to Args)
  std::vector<unsigned> Table;  // a table, resolved: its entries' indices in LaunchSpec::Args
  int TableOf = -1;             // an entry: its table's index in LaunchSpec::Args
  unsigned Slot = 0;            // an entry: its index in the table
  bool isTable() const { return !Entries.empty() || !Table.empty(); }

  // By-value arguments.
  nlohmann::json Value;
  std::string ScalarType;          // "type" given for a by-value argument
  std::vector<uint8_t> ValueBytes; // encoded, Size bytes

  uint64_t bytes() const { return Elements ? *Elements * elemSize(Type) : 0; }
};

// How reports, messages and kernel-run's --out name entry I of pointer table Table ("#0[1]"),
// and the table's name and the entry's index in such a name (Slot -1: not an entry's name).
std::string tableEntryName(const std::string &Table, size_t I);
std::pair<std::string, int> splitTableEntryName(const std::string &Name);

// The most bytes a spec's buffers may hold together (each is generated, copied and compared
// several times over on the host).
constexpr uint64_t kMaxSpecBytes = 4ull << 30;

// A spec's "format" and "format_version" (written by --infer; optional in a hand-written spec,
// checked when present).
constexpr const char *kLaunchSpecFormat = "asmevo-launch-spec";
constexpr int kLaunchSpecFormatVersion = 1;

struct LaunchSpec {
  std::string K0Sha256; // the K0 it was written for ("" : any K0)
  std::string Text;     // the JSON as read (for its hash in reports)
  std::string Path;     // for messages ("" for a spec built in memory)
  std::string Dir;      // relative "file" paths are taken from here
  std::string Kernel;
  bool HasGrid = false, HasGridItems = false;
  std::array<uint32_t, 3> Grid{1, 1, 1}, GridItems{1, 1, 1}, Block{1, 1, 1};
  uint32_t DynamicLds = 0;
  // After resolve: one per explicit argument, in order, then the pointer tables' entries.
  std::vector<ArgSpec> Args;
  KernelSignature Sig; // after resolve

  // The grid in work-items (parseLaunchSpec checks it against the hardware's limits).
  std::array<uint32_t, 3> gridItems() const;
  // The kernarg segment (explicit arguments; buffer pointers from Addr, indexed like Args).
  std::vector<uint8_t> kernarg(const std::vector<uint64_t> &Addr) const;
  // The contents of table argument T: its entries' addresses from Addr (indexed like Args).
  std::vector<uint8_t> tableContents(size_t T, const std::vector<uint64_t> &Addr) const;
  // Table argument T's data read back (Data, its bytes) with every slot that still holds its
  // entry's placed address (Addr) set to zero: what a kernel that left the table alone leaves,
  // whatever the addresses.
  void neutralizeTable(size_t T, const std::vector<uint64_t> &Addr, uint8_t *Data,
                       uint64_t Bytes) const;
  nlohmann::json toJson() const;
  // Buffers whose elements or role launch inference must find.
  bool needsInference() const;
};

// Parse a spec's JSON text (UTF-8; a leading byte order mark is skipped). Errors name Path
// and say what is wrong (exit-2 kind): bytes that are not UTF-8 by line and column.
llvm::Expected<LaunchSpec> parseLaunchSpec(llvm::StringRef Text, const std::string &Path);
llvm::Expected<LaunchSpec> readLaunchSpec(const std::string &Path);

// Bind the spec to a kernel of CO (refused when the spec names another K0's SHA-256)
// (KernelOverride, if not empty, wins over the spec's "kernel"; with neither, CO must hold one
// kernel): map every entry to an explicit argument, encode the values, read "file" sizes, and
// require that every explicit argument is covered.
llvm::Error resolveLaunchSpec(LaunchSpec &S, const CodeObject &CO,
                              const std::string &KernelOverride = "");

// S as the JSON text --infer writes. An input error when a string in it is not UTF-8, which
// JSON cannot hold: the kernel's symbol (from K0; the error names no file), a path to a "file"
// (relocateSpecFiles; the error names the spec).
llvm::Expected<std::string> launchSpecText(const LaunchSpec &S);

// Rewrite every relative "file" of S so that a spec written to Out names the same files:
// relative to Out's folder (both folders with their symbolic links resolved), or absolute when
// Out is "-" (stdout, whose reader's folder is unknown). Absolute entries stay as written.
llvm::Error relocateSpecFiles(LaunchSpec &S, const std::string &Out);

} // namespace asmevo::launch
