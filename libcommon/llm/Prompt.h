// The driver's prompts are files (share/asmevo/prompts/<name>.txt), filled from the node's
// context: every {{name}} is replaced by Vars[name] (a string as it is, anything else as JSON).
#pragma once

#include <nlohmann/json.hpp>

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace asmevo::llm {

// The prompt directory: $ASMEVO_PROMPTS_DIR, else the source tree's share/asmevo/prompts.
std::string promptsDir();

// Reads <promptsDir()>/<Name>.txt.
llvm::Expected<std::string> loadPrompt(const std::string &Name);

// A prompt file the driver can send: at most 1 MiB, not empty, UTF-8 without a byte-order mark
// (the model would get it as text), and every {{name}} closed and one of Names (a template
// is checked when the driver starts, so that a mistake in it stops nothing later). Errors name
// File and the line.
llvm::Error checkPrompt(const std::string &Text, const std::string &File,
                        const std::vector<std::string> &Names);

// Fills Template; an unknown {{name}} or an unclosed "{{" is an error naming it and File.
llvm::Expected<std::string> fillPrompt(const std::string &Template, const nlohmann::json &Vars,
                                       const std::string &File);

} // namespace asmevo::llm
