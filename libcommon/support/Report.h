// The one report every tool gives with --json: an envelope (format and version, tool and
// versions, backend, seeds, inputs with their SHA-256, outcome) around the tool's own body.
// share/asmevo/report.schema.json is its JSON Schema; README.md ("Reports") describes it.
// The library builds reports as values; a tool's main renders them (support/Cli.h).
#pragma once

#include "support/Outcome.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace asmevo {

// The envelope's "format" and "format_version". The version changes when a key of the envelope
// changes meaning or goes away; new keys do not change it.
constexpr const char *kReportFormat = "asmevo-report";
constexpr int kReportFormatVersion = 1;

// A file the run read: its role ("input", "k0", "k1", "spec", "abi_of", ...), its path or URI
// as given, and the SHA-256 of the bytes the tool used (a URI's object, not its container).
struct ReportInput {
  std::string Role, Path, Sha256;
};
// An input whose bytes the tool already holds.
ReportInput reportInput(std::string Role, std::string Path, llvm::StringRef Bytes);

struct Report {
  std::string Tool;                // "kernel-diffcheck"
  Outcome Result = Outcome::Ok;    // decides the exit code
  std::string Message;             // the verdict or error line, without the tool prefix
  std::vector<std::string> Notes;  // further lines (details, inherited findings, ...)
  std::vector<ReportInput> Inputs; // what was read
  std::string Backend;             // "emu" or "hip" when the tool ran code ("" otherwise)
  std::vector<uint64_t> Seeds;     // the seeds the run used (empty when none)
  nlohmann::json Body = nlohmann::json::object(); // the tool's own results

  int exitCode() const { return asmevo::exitCode(Result); }
  // Set Result and Message from an error (input_error or runtime_error). Consumes E.
  Report &fail(llvm::Error E);
  // The envelope as JSON.
  nlohmann::json json() const;
};

} // namespace asmevo
