// JSON text checked before and while it is parsed.
#include "support/JsonText.h"

#include "support/Error.h"

#include "llvm/Support/ConvertUTF.h"

#include <algorithm>

namespace asmevo {

llvm::Error checkUtf8Text(const std::string &File, llvm::StringRef Text) {
  if (Text.starts_with("\xef\xbb\xbf"))
    return fileError(File, 0,
                     "starts with a UTF-8 byte-order mark (EF BB BF); the file is written "
                     "without one (was it edited or replaced?)");
  const auto *Begin = reinterpret_cast<const llvm::UTF8 *>(Text.data());
  const llvm::UTF8 *P = Begin;
  if (!llvm::isLegalUTF8String(&P, Begin + Text.size()))
    return fileError(File, uint64_t(P - Begin), "not valid UTF-8 (byte " + hexText(*P) + ")");
  return llvm::Error::success();
}

llvm::Expected<nlohmann::json> parseJsonText(const std::string &File, llvm::StringRef Text,
                                             unsigned Line) {
  if (Text.trim().empty())
    return Line ? lineError(File, Line, "an empty line, not JSON")
                : llvm::make_error<ToolError>("empty, not JSON", File);
  try {
    return nlohmann::json::parse(Text.begin(), Text.end());
  } catch (const nlohmann::json::parse_error &E) {
    // The line and column of the byte the parser stopped at (E.byte counts from 1).
    size_t At = std::min<size_t>(E.byte ? E.byte - 1 : 0, Text.size());
    llvm::StringRef Before = Text.take_front(At);
    size_t Nl = Before.rfind('\n');
    size_t Col = At - (Nl == llvm::StringRef::npos ? 0 : Nl + 1) + 1;
    unsigned L = Line ? Line : unsigned(Before.count('\n')) + 1;
    return lineError(File, L, "not valid JSON (at column " + std::to_string(Col) + ")");
  } catch (const nlohmann::json::exception &) {
    // out_of_range 406: a number past the range of a double ("1e400").
    std::string Why = "not valid JSON: a number too large for a double";
    return Line ? lineError(File, Line, Why) : llvm::make_error<ToolError>(Why, File);
  }
}

const char *jsonTypeName(const nlohmann::json &V) {
  switch (V.type()) {
  case nlohmann::json::value_t::string:
    return "a string";
  case nlohmann::json::value_t::boolean:
    return "a boolean";
  case nlohmann::json::value_t::object:
    return "an object";
  case nlohmann::json::value_t::array:
    return "an array";
  case nlohmann::json::value_t::null:
    return "null";
  default:
    return "a number";
  }
}

std::string jsonShown(const nlohmann::json &V) {
  std::string S = V.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (S.size() <= 40)
    return S;
  size_t Cut = 37;
  while (Cut && (static_cast<unsigned char>(S[Cut]) & 0xC0) == 0x80)
    --Cut; // not inside a character
  return S.substr(0, Cut) + "...";
}

} // namespace asmevo
