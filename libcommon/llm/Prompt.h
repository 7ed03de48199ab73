// The driver's prompts are files (share/asmevo/prompts/<name>.txt), filled from the node's
// context: every {{name}} is replaced by Vars[name] (a string as it is, anything else as JSON).
#pragma once

#include <nlohmann/json.hpp>

#include "llvm/Support/Error.h"

#include <string>

namespace asmevo::llm {

// The prompt directory: $ASMEVO_PROMPTS_DIR, else the source tree's share/asmevo/prompts.
std::string promptsDir();

// Reads <promptsDir()>/<Name>.txt.
llvm::Expected<std::string> loadPrompt(const std::string &Name);

// Fills Template; an unknown {{name}} or an unclosed "{{" is an error naming it and File.
llvm::Expected<std::string> fillPrompt(const std::string &Template, const nlohmann::json &Vars,
                                       const std::string &File);

} // namespace asmevo::llm
