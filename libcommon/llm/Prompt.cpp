// Prompt files and their placeholders (llm/Prompt.h).
#include "llm/Prompt.h"

#include "llm/Dialect.h"

#include "support/Error.h"
#include "support/FileIO.h"

#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace asmevo::llm {

std::string promptsDir() {
  if (const char *D = std::getenv("ASMEVO_PROMPTS_DIR"); D && *D)
    return D;
  return std::string(ASMEVO_SHARE_DIR) + "/prompts";
}

llvm::Expected<std::string> loadPrompt(const std::string &Name) {
  auto B = readFile(promptsDir() + "/" + Name + ".txt");
  if (!B)
    return B.takeError();
  return (*B)->getBuffer().str();
}

llvm::Error checkPrompt(const std::string &Text, const std::string &File,
                        const std::vector<std::string> &Names) {
  auto lineOf = [&](size_t Offset) {
    return unsigned(1 + std::count(Text.begin(), Text.begin() + Offset, '\n'));
  };
  if (Text.size() > (1u << 20))
    return lineError(File, 1,
                     "the prompt is larger than 1 MiB (" + std::to_string(Text.size()) + " bytes)");
  if (llvm::StringRef(Text).starts_with("\xEF\xBB\xBF"))
    return lineError(File, 1,
                     "the prompt starts with a UTF-8 byte-order mark, which the model would get "
                     "as text; save it without one");
  size_t Bad = 0;
  if (!llvm::json::isUTF8(Text, &Bad)) {
    char Hex[8];
    std::snprintf(Hex, sizeof Hex, "0x%02X", static_cast<unsigned char>(Text[Bad]));
    return lineError(File, lineOf(Bad),
                     "the prompt is not valid UTF-8 (byte " + std::string(Hex) + " at offset " +
                         std::to_string(Bad) + ")");
  }
  if (llvm::StringRef(Text).trim().empty())
    return lineError(File, 1, "the prompt is empty");
  for (size_t At = 0;;) {
    size_t Open = Text.find("{{", At);
    if (Open == std::string::npos)
      return llvm::Error::success();
    size_t Close = Text.find("}}", Open + 2);
    if (Close == std::string::npos)
      return lineError(File, lineOf(Open), "an unclosed {{ in the prompt template");
    std::string Name = Text.substr(Open + 2, Close - Open - 2);
    if (std::find(Names.begin(), Names.end(), Name) == Names.end()) {
      std::string Known;
      for (const std::string &N : Names)
        Known += (Known.empty() ? "" : ", ") + N;
      return lineError(
          File, lineOf(Open),
          "the prompt template names {{" + excerpt(Name, 60) +
              "}}, which the driver does not fill (" +
              (Known.empty() ? std::string("this prompt is sent as it is") : "it fills " + Known) +
              ")");
    }
    At = Close + 2;
  }
}

llvm::Expected<std::string> fillPrompt(const std::string &Template, const nlohmann::json &Vars,
                                       const std::string &File) {
  std::string Out;
  size_t At = 0;
  while (true) {
    size_t Open = Template.find("{{", At);
    if (Open == std::string::npos) {
      Out += Template.substr(At);
      return Out;
    }
    size_t Close = Template.find("}}", Open + 2);
    if (Close == std::string::npos)
      return fileError(File, Open, "an unclosed {{ in the prompt template");
    std::string Name = Template.substr(Open + 2, Close - Open - 2);
    auto It = Vars.find(Name);
    if (It == Vars.end())
      return fileError(
          File, Open, "the prompt template names {{" + Name + "}}, which the driver does not fill");
    Out += Template.substr(At, Open - At);
    Out += It->is_string() ? It->get<std::string>()
                           : It->dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
    At = Close + 2;
  }
}

} // namespace asmevo::llm
