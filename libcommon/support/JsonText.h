// Reading JSON that a tool wrote and a person may have damaged (a run's files, an install
// manifest): the text must be UTF-8 without a byte-order mark, and a parse error is an error
// value that says where (line and column), never nlohmann's exception.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <string>

namespace asmevo {

// Text is UTF-8 without a byte-order mark; else an error at the offset of the first bad byte
// ("'F'@0x1f: not valid UTF-8 (byte 0xff)").
llvm::Error checkUtf8Text(const std::string &File, llvm::StringRef Text);

// One JSON value parsed from Text: the whole file, or (Line > 0) line Line of a JSON-lines file.
// Errors: "'F':3: not valid JSON (at column 7)", "'F': empty".
llvm::Expected<nlohmann::json> parseJsonText(const std::string &File, llvm::StringRef Text,
                                             unsigned Line = 0);

// What a value is, for messages: "a string", "an object", "null"...
const char *jsonTypeName(const nlohmann::json &V);

// A value as a message quotes it: its JSON, cut to a readable length.
std::string jsonShown(const nlohmann::json &V);

} // namespace asmevo
