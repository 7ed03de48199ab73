// Prompt files and their placeholders (llm/Prompt.h).
#include "llm/Prompt.h"

#include "support/Error.h"
#include "support/FileIO.h"

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
    Out += It->is_string() ? It->get<std::string>() : It->dump(1);
    At = Close + 2;
  }
}

} // namespace asmevo::llm
