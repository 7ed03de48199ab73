// A run's files, checked as they are read: encoding, JSON, format and the type of every field.
#include "report/RunFiles.h"

#include "support/Error.h"
#include "support/FileIO.h"
#include "support/JsonText.h"

#include "llvm/Support/FileSystem.h"

#include <cmath>

namespace asmevo::report {

llvm::Error checkText(const std::string &File, llvm::StringRef Text) {
  return checkUtf8Text(File, Text);
}

llvm::Expected<std::optional<std::string>> readRunText(const std::string &Path) {
  if (!llvm::sys::fs::exists(Path))
    return std::nullopt;
  auto B = readFile(Path);
  if (!B)
    return B.takeError();
  llvm::StringRef T = (*B)->getBuffer();
  if (llvm::Error E = checkText(Path, T))
    return std::move(E);
  return T.str();
}

llvm::Expected<nlohmann::json> parseValue(const std::string &File, llvm::StringRef Text,
                                          unsigned Line) {
  return parseJsonText(File, Text, Line);
}

llvm::Expected<nlohmann::json> parseObject(const std::string &File, llvm::StringRef Text,
                                           unsigned Line) {
  auto J = parseValue(File, Text, Line);
  if (!J)
    return J.takeError();
  if (!J->is_object()) {
    std::string What = std::string("JSON ") + jsonTypeName(*J) + ", not an object";
    return Line ? lineError(File, Line, What) : llvm::make_error<ToolError>(What, File);
  }
  return J;
}

llvm::Expected<std::optional<nlohmann::json>> readRunJson(const std::string &Path,
                                                          const std::string &Format) {
  auto T = readRunText(Path);
  if (!T)
    return T.takeError();
  if (!*T)
    return std::nullopt;
  auto J = parseObject(Path, **T);
  if (!J)
    return J.takeError();
  if (!Format.empty()) {
    auto It = J->find("format");
    if (It == J->end() || !It->is_string() || It->get<std::string>() != Format)
      return llvm::make_error<ToolError>(
          "not a file of format " + Format + " (\"format\" is " +
              (It == J->end() ? std::string("absent") : jsonShown(*It)) + ")",
          Path);
    // Every format asmevo-report reads is at version 1; a file without the field (written by
    // hand) is read as version 1, one of another version is refused, not misread.
    auto V = J->find("format_version");
    if (V != J->end() && !(V->is_number_integer() && V->get<int64_t>() == 1))
      return llvm::make_error<ToolError>(
          "format " + Format + " version " + jsonShown(*V) + "; this build reads version 1", Path);
  }
  return std::optional<nlohmann::json>(std::move(*J));
}

const nlohmann::json &member(const nlohmann::json &J, const char *Key) {
  static const nlohmann::json Null;
  if (!J.is_object())
    return Null;
  auto It = J.find(Key);
  return It == J.end() ? Null : *It;
}

double numberOf(const nlohmann::json &J, const char *Key) {
  const nlohmann::json &V = member(J, Key);
  return V.is_number() ? V.get<double>() : 0;
}

Fields::Fields(const nlohmann::json &J, std::string File)
    : Fields(J, std::move(File), "", std::make_shared<std::optional<std::string>>()) {}

Fields::Fields(const nlohmann::json &J, std::string File, std::string Prefix,
               std::shared_ptr<std::optional<std::string>> Err)
    : J(J.is_object() ? J : nlohmann::json::object()), File(std::move(File)),
      Prefix(std::move(Prefix)), Err(std::move(Err)) {}

const nlohmann::json *Fields::find(const char *Key) const {
  auto It = J.find(Key);
  return It == J.end() || It->is_null() ? nullptr : &*It;
}

void Fields::wrong(const char *Key, const nlohmann::json &V, const char *Want) {
  if (!*Err)
    *Err =
        "\"" + Prefix + Key + "\" is " + jsonShown(V) + " (" + jsonTypeName(V) + "), not " + Want;
}

std::string Fields::str(const char *Key, const std::string &Default) {
  const nlohmann::json *V = find(Key);
  if (!V)
    return Default;
  if (!V->is_string()) {
    wrong(Key, *V, "a string");
    return Default;
  }
  return V->get<std::string>();
}

double Fields::num(const char *Key, double Default) {
  const nlohmann::json *V = find(Key);
  if (!V)
    return Default;
  if (!V->is_number()) {
    wrong(Key, *V, "a number");
    return Default;
  }
  double D = V->get<double>();
  if (!std::isfinite(D) || D < 0) {
    if (!*Err)
      *Err = "\"" + Prefix + Key + "\" is " + jsonShown(*V) + ", not a finite number >= 0";
    return Default;
  }
  return D;
}

bool Fields::flag(const char *Key, bool Default) {
  const nlohmann::json *V = find(Key);
  if (!V)
    return Default;
  if (!V->is_boolean()) {
    wrong(Key, *V, "true or false");
    return Default;
  }
  return V->get<bool>();
}

nlohmann::json Fields::object(const char *Key) {
  const nlohmann::json *V = find(Key);
  if (V && !V->is_object())
    wrong(Key, *V, "an object");
  return V && V->is_object() ? *V : nlohmann::json();
}

nlohmann::json Fields::array(const char *Key) {
  const nlohmann::json *V = find(Key);
  if (V && !V->is_array())
    wrong(Key, *V, "an array");
  return V && V->is_array() ? *V : nlohmann::json();
}

Fields Fields::sub(const char *Key) { return Fields(object(Key), File, Prefix + Key + ".", Err); }

Fields Fields::element(const nlohmann::json &Array, size_t Index, const char *Key) {
  std::string Name = Prefix + Key + "[" + std::to_string(Index) + "]";
  const nlohmann::json &V = Array.at(Index);
  if (!V.is_object() && !*Err)
    *Err = "\"" + Name + "\" is " + jsonShown(V) + " (" + jsonTypeName(V) + "), not an object";
  return Fields(V, File, Name + ".", Err);
}

const std::string &Fields::message() const {
  static const std::string None;
  return *Err ? **Err : None;
}

llvm::Error Fields::error() const {
  if (!*Err)
    return llvm::Error::success();
  return llvm::make_error<ToolError>(**Err, File);
}

} // namespace asmevo::report
