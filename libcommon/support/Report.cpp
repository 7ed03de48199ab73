#include "support/Report.h"

#include "support/FileIO.h"

#include "llvm/Config/llvm-config.h"

namespace asmevo {

ReportInput reportInput(std::string Role, std::string Path, llvm::StringRef Bytes) {
  return {std::move(Role), std::move(Path), sha256Hex(Bytes)};
}

Report &Report::fail(llvm::Error E) {
  ErrorOutcome EO = errorOutcome(std::move(E));
  Result = EO.O;
  Message = std::move(EO.Message);
  return *this;
}

nlohmann::json Report::json() const {
  nlohmann::json In = nlohmann::json::array();
  for (const ReportInput &I : Inputs)
    In.push_back({{"role", I.Role}, {"path", I.Path}, {"sha256", I.Sha256}});
  nlohmann::json J{{"format", kReportFormat},
                   {"format_version", kReportFormatVersion},
                   {"tool", Tool},
                   {"tool_version", ASMEVO_VERSION},
                   {"llvm_version", LLVM_VERSION_STRING},
                   {"backend", Backend.empty() ? nlohmann::json() : nlohmann::json(Backend)},
                   {"seeds", Seeds},
                   {"inputs", In},
                   {"outcome", outcomeName(Result)},
                   {"exit_code", asmevo::exitCode(Result)},
                   {"message", Message},
                   {"notes", Notes},
                   {"body", Body}};
  return J;
}

} // namespace asmevo
