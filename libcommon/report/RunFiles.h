// Reading a run directory's files strictly where they are present. Every file of a run is
// written whole (asmevo-agent and Makefile.workflow write through a temporary file and a
// rename), so a file that is there but is not what its name says (not UTF-8, a byte-order mark,
// not JSON, another format, a field of the wrong type or out of range) was damaged or replaced:
// an input error that names the file and what is wrong, never a page drawn from defaults. An
// absent file or field is the caller's to list as missing; the journal's torn last line (a kill
// in the middle of an append) is the one partial write a run can hold.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>

namespace asmevo::report {

// Text must be UTF-8 without a byte-order mark: the error names File and the offset.
llvm::Error checkText(const std::string &File, llvm::StringRef Text);

// The text of a file, checked; nullopt when there is no such file.
llvm::Expected<std::optional<std::string>> readRunText(const std::string &Path);

// One JSON value parsed from Text (the whole file, or the line Line of a JSON-lines file).
llvm::Expected<nlohmann::json> parseValue(const std::string &File, llvm::StringRef Text,
                                          unsigned Line = 0);
// The same, and it must be an object.
llvm::Expected<nlohmann::json> parseObject(const std::string &File, llvm::StringRef Text,
                                           unsigned Line = 0);

// A JSON object whose "format" is Format (any when empty) and whose "format_version", when
// present, is 1 (every format asmevo-report reads is at version 1); nullopt when there is no
// such file.
llvm::Expected<std::optional<nlohmann::json>> readRunJson(const std::string &Path,
                                                          const std::string &Format);

// J[Key] when J is an object that has it, else null; a number there, else 0 (for drawing what
// Fields has checked, without nlohmann's exceptions).
const nlohmann::json &member(const nlohmann::json &J, const char *Key);
double numberOf(const nlohmann::json &J, const char *Key);

// The fields of one JSON object, read with their types checked. An absent (or null) field gives
// the default; a field of another type, or a number that is not finite or is negative where a
// count, time or ratio is meant, records an error that names the file and the field
// ("'F': \"speedup\" is \"fast\" (a string), not a number"), and the first one is what error()
// returns. sub() reads a nested object with the same error record ("body.kernels[0].cv").
class Fields {
public:
  Fields(const nlohmann::json &J, std::string File);

  std::string str(const char *Key, const std::string &Default = "");
  double num(const char *Key, double Default = 0); // finite and >= 0
  bool flag(const char *Key, bool Default = false);
  // An object or an array (a null json when absent).
  nlohmann::json object(const char *Key);
  nlohmann::json array(const char *Key);
  // A nested object (or element Index of an array) read with the same error record.
  Fields sub(const char *Key);
  Fields element(const nlohmann::json &Array, size_t Index, const char *Key);

  bool ok() const { return !*Err; }
  const std::string &message() const; // the first error, without the file ("" when none)
  llvm::Error error() const;

private:
  Fields(const nlohmann::json &J, std::string File, std::string Prefix,
         std::shared_ptr<std::optional<std::string>> Err);
  const nlohmann::json *find(const char *Key) const;
  void wrong(const char *Key, const nlohmann::json &V, const char *Want);

  nlohmann::json J;
  std::string File, Prefix;
  std::shared_ptr<std::optional<std::string>> Err;
};

} // namespace asmevo::report
