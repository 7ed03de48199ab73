// Line-level reading and editing of AMDGPU assembly for the rebuild.
#include "asm/AsmSource.h"
#include "support/Error.h"

#include "llvm/ADT/StringExtras.h"

namespace asmevo {

namespace {
// The statement of a line without its comment and surrounding blanks.
llvm::StringRef statement(llvm::StringRef L) {
  size_t C = L.find(';');
  if (C != llvm::StringRef::npos)
    L = L.take_front(C);
  return L.trim();
}
} // namespace

llvm::Expected<AsmSource> AsmSource::parse(llvm::StringRef Text, llvm::StringRef Name) {
  AsmSource S;
  S.Name = Name.str();
  llvm::SmallVector<llvm::StringRef, 0> Ls;
  Text.split(Ls, '\n');
  for (auto L : Ls)
    S.Lines.push_back(L.str());
  if (!S.Lines.empty() && S.Lines.back().empty())
    S.Lines.pop_back();
  std::optional<std::string> TargetStr;
  unsigned Cov = 0;
  for (size_t I = 0; I < S.Lines.size(); ++I) {
    llvm::StringRef St = statement(S.Lines[I]);
    if (St.consume_front(".amdgcn_target")) {
      St = St.trim();
      if (!St.consume_front("\"") || !St.consume_back("\""))
        return lineError(Name, I + 1, "malformed .amdgcn_target (expected a quoted target id)");
      TargetStr = St.str();
    } else if (St.consume_front(".amdhsa_code_object_version")) {
      if (St.trim().getAsInteger(0, Cov))
        return lineError(Name, I + 1, "malformed .amdhsa_code_object_version");
    }
  }
  if (!TargetStr)
    return makeError("no .amdgcn_target directive: the target is unknown");
  if (!Cov)
    return makeError("no .amdhsa_code_object_version directive");
  auto T = parseTargetId(*TargetStr, Cov);
  if (!T)
    return T.takeError();
  S.Target = *T;
  S.reindex();
  for (const auto &B : S.Blocks)
    if (B.End == 0)
      return lineError(Name, B.Begin + 1,
                       ".amdhsa_kernel " + B.Kernel + " has no .end_amdhsa_kernel");
  if (S.MetaBegin && !S.MetaEnd)
    return lineError(Name, S.MetaBegin + 1, ".amdgpu_metadata has no .end_amdgpu_metadata");
  return S;
}

void AsmSource::reindex() {
  Blocks.clear();
  MetaBegin = MetaEnd = 0;
  for (size_t I = 0; I < Lines.size(); ++I) {
    llvm::StringRef St = statement(Lines[I]);
    if (St.consume_front(".amdhsa_kernel") && (St.empty() || llvm::isSpace(St[0]))) {
      Block B;
      B.Kernel = St.trim().trim('"').str();
      B.Begin = I;
      Blocks.push_back(B);
    } else if (St == ".end_amdhsa_kernel" && !Blocks.empty() && !Blocks.back().End) {
      Blocks.back().End = I;
    } else if (St == ".amdgpu_metadata") {
      MetaBegin = I;
    } else if (St == ".end_amdgpu_metadata" && MetaBegin) {
      MetaEnd = I;
    }
  }
}

std::string AsmSource::text() const {
  std::string T;
  for (const auto &L : Lines)
    T += L + "\n";
  return T;
}

std::vector<std::string> AsmSource::kernels() const {
  std::vector<std::string> K;
  for (const auto &B : Blocks)
    K.push_back(B.Kernel);
  return K;
}

const AsmSource::Block *AsmSource::block(llvm::StringRef Kernel) const {
  for (const auto &B : Blocks)
    if (B.Kernel == Kernel)
      return &B;
  return nullptr;
}

std::optional<uint64_t> AsmSource::directive(llvm::StringRef Kernel,
                                             llvm::StringRef Directive) const {
  const Block *B = block(Kernel);
  if (!B)
    return std::nullopt;
  for (size_t I = B->Begin + 1; I < B->End; ++I) {
    llvm::StringRef St = statement(Lines[I]);
    auto [Name, Val] = St.split(' ');
    uint64_t V;
    if (Name == Directive && !Val.trim().getAsInteger(0, V))
      return V;
  }
  return std::nullopt;
}

void AsmSource::setDirective(llvm::StringRef Kernel, llvm::StringRef Directive, uint64_t Value) {
  const Block *B = block(Kernel);
  if (!B)
    return;
  std::string New = "\t\t" + Directive.str() + " " + std::to_string(Value);
  for (size_t I = B->Begin + 1; I < B->End; ++I) {
    llvm::StringRef St = statement(Lines[I]);
    if (St.split(' ').first == Directive) {
      Lines[I] = New;
      return;
    }
  }
  Lines.insert(Lines.begin() + B->End, New);
  reindex();
}

void AsmSource::setMetadataYaml(llvm::StringRef Yaml) {
  if (!MetaBegin)
    return;
  llvm::SmallVector<llvm::StringRef, 0> Ls;
  Yaml.rtrim('\n').split(Ls, '\n');
  Lines.erase(Lines.begin() + MetaBegin + 1, Lines.begin() + MetaEnd);
  Lines.insert(Lines.begin() + MetaBegin + 1, Ls.begin(), Ls.end());
  reindex();
}

} // namespace asmevo
