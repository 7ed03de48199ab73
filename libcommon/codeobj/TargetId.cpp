// Decoding the AMDGPU ELF header flags into a target id.
#include "codeobj/TargetId.h"
#include "support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <vector>

namespace asmevo {

namespace {
struct MachEntry {
  unsigned Mach;
  const char *Name;
};
// EF_AMDGPU_MACH_AMDGCN_* (LLVM's AMDGPUUsage, "AMDGPU ELF Header e_flags").
const MachEntry MachTable[] = {
    {0x020, "gfx600"},          {0x021, "gfx601"},        {0x022, "gfx700"},
    {0x023, "gfx701"},          {0x024, "gfx702"},        {0x025, "gfx703"},
    {0x026, "gfx704"},          {0x028, "gfx801"},        {0x029, "gfx802"},
    {0x02a, "gfx803"},          {0x02b, "gfx810"},        {0x02c, "gfx900"},
    {0x02d, "gfx902"},          {0x02e, "gfx904"},        {0x02f, "gfx906"},
    {0x030, "gfx908"},          {0x031, "gfx909"},        {0x032, "gfx90c"},
    {0x033, "gfx1010"},         {0x034, "gfx1011"},       {0x035, "gfx1012"},
    {0x036, "gfx1030"},         {0x037, "gfx1031"},       {0x038, "gfx1032"},
    {0x039, "gfx1033"},         {0x03a, "gfx602"},        {0x03b, "gfx705"},
    {0x03c, "gfx805"},          {0x03d, "gfx1035"},       {0x03e, "gfx1034"},
    {0x03f, "gfx90a"},          {0x040, "gfx940"},        {0x041, "gfx1100"},
    {0x042, "gfx1013"},         {0x043, "gfx1150"},       {0x044, "gfx1103"},
    {0x045, "gfx1036"},         {0x046, "gfx1101"},       {0x047, "gfx1102"},
    {0x048, "gfx1200"},         {0x04a, "gfx1151"},       {0x04b, "gfx941"},
    {0x04c, "gfx942"},          {0x04e, "gfx1201"},       {0x04f, "gfx950"},
    {0x049, "gfx1250"},         {0x055, "gfx1152"},       {0x058, "gfx1153"},
    {0x05a, "gfx1251"},         {0x051, "gfx9-generic"},  {0x052, "gfx10-1-generic"},
    {0x053, "gfx10-3-generic"}, {0x054, "gfx11-generic"}, {0x059, "gfx12-generic"},
    {0x05f, "gfx9-4-generic"},
};

const char *featureSuffix(TargetFeature F) {
  switch (F) {
  case TargetFeature::On:
    return "+";
  case TargetFeature::Off:
    return "-";
  default:
    return nullptr;
  }
}
} // namespace

std::string processorForMach(unsigned Mach) {
  for (const auto &E : MachTable)
    if (E.Mach == Mach)
      return E.Name;
  return "";
}

bool isKnownProcessor(llvm::StringRef Name) {
  for (const auto &E : MachTable)
    if (Name == E.Name)
      return true;
  return false;
}

std::string knownProcessors() {
  std::vector<std::string> Names;
  for (const auto &E : MachTable)
    Names.push_back(E.Name);
  std::sort(Names.begin(), Names.end(), [](const std::string &A, const std::string &B) {
    return A.size() != B.size() ? A.size() < B.size() : A < B;
  });
  return llvm::join(Names, " ");
}

llvm::Error checkProcessorName(llvm::StringRef Name, llvm::StringRef Option) {
  if (isKnownProcessor(Name))
    return llvm::Error::success();
  return makeError(Option + " '" + Name +
                   "': unknown AMDGPU processor; known: " + knownProcessors());
}

bool TargetId::hasGfx90aInsts() const {
  return Processor == "gfx90a" || Processor == "gfx940" || Processor == "gfx941" ||
         Processor == "gfx942" || Processor == "gfx950";
}

bool TargetId::hasArchitectedFlatScratch() const {
  return Processor == "gfx940" || Processor == "gfx941" || Processor == "gfx942" ||
         Processor == "gfx950";
}

bool TargetId::hasKernargPreload() const { return hasGfx90aInsts(); }

std::string TargetId::str() const {
  std::string S = "amdgcn-amd-amdhsa--" + Processor;
  if (const char *Suf = featureSuffix(Sramecc))
    S += std::string(":sramecc") + Suf;
  if (const char *Suf = featureSuffix(Xnack))
    S += std::string(":xnack") + Suf;
  return S;
}

std::string TargetId::mattr() const {
  std::string S;
  auto Add = [&](const char *Name, TargetFeature F) {
    if (const char *Suf = featureSuffix(F)) {
      if (!S.empty())
        S += ",";
      S += std::string(Suf) + Name;
    }
  };
  Add("xnack", Xnack);
  Add("sramecc", Sramecc);
  return S;
}

llvm::Expected<TargetId> parseTargetId(llvm::StringRef Id, unsigned CodeObjectVersion) {
  llvm::StringRef Rest = Id;
  if (!Rest.consume_front("amdgcn-amd-amdhsa--"))
    return makeError("target id '" + Id + "' does not start with amdgcn-amd-amdhsa--");
  llvm::SmallVector<llvm::StringRef, 3> Parts;
  Rest.split(Parts, ':');
  unsigned Mach = 0;
  for (const auto &E : MachTable)
    if (Parts[0] == E.Name)
      Mach = E.Mach;
  if (!Mach)
    return makeError("unknown processor '" + Parts[0] + "' in target id '" + Id + "'");
  uint32_t Xnack = llvm::ELF::EF_AMDGPU_FEATURE_XNACK_ANY_V4,
           Sramecc = llvm::ELF::EF_AMDGPU_FEATURE_SRAMECC_ANY_V4;
  for (size_t I = 1; I < Parts.size(); ++I) {
    llvm::StringRef F = Parts[I];
    if (F == "xnack+")
      Xnack = llvm::ELF::EF_AMDGPU_FEATURE_XNACK_ON_V4;
    else if (F == "xnack-")
      Xnack = llvm::ELF::EF_AMDGPU_FEATURE_XNACK_OFF_V4;
    else if (F == "sramecc+")
      Sramecc = llvm::ELF::EF_AMDGPU_FEATURE_SRAMECC_ON_V4;
    else if (F == "sramecc-")
      Sramecc = llvm::ELF::EF_AMDGPU_FEATURE_SRAMECC_OFF_V4;
    else
      return makeError("unknown feature '" + F + "' in target id '" + Id + "'");
  }
  uint8_t Abi = CodeObjectVersion == 4   ? llvm::ELF::ELFABIVERSION_AMDGPU_HSA_V4
                : CodeObjectVersion == 5 ? llvm::ELF::ELFABIVERSION_AMDGPU_HSA_V5
                : CodeObjectVersion == 6 ? 4
                                         : 0;
  return decodeTargetId(Abi, Mach | Xnack | Sramecc);
}

llvm::Expected<TargetId> decodeTargetId(uint8_t AbiVersion, uint32_t EFlags, bool AnyProcessor) {
  TargetId T;
  T.EFlags = EFlags;
  T.AbiVersion = AbiVersion;
  switch (AbiVersion) {
  case llvm::ELF::ELFABIVERSION_AMDGPU_HSA_V4:
    T.CodeObjectVersion = 4;
    break;
  case llvm::ELF::ELFABIVERSION_AMDGPU_HSA_V5:
    T.CodeObjectVersion = 5;
    break;
  case 4: // ELFABIVERSION_AMDGPU_HSA_V6
    T.CodeObjectVersion = 6;
    break;
  default:
    return makeError("unsupported code object version (ELF ABI version " +
                     llvm::Twine(unsigned(AbiVersion)) + "); supported: v4, v5, v6");
  }
  T.Mach = EFlags & llvm::ELF::EF_AMDGPU_MACH;
  T.Processor = processorForMach(T.Mach);
  if (T.Processor.empty())
    return makeError("unknown AMDGPU processor (e_flags mach 0x" + llvm::utohexstr(T.Mach) + ")");
  if (llvm::StringRef(T.Processor).contains('-'))
    return makeError("generic processor " + T.Processor + " (e_flags mach 0x" +
                     llvm::utohexstr(T.Mach) + ") is not supported");
  llvm::StringRef Digits = llvm::StringRef(T.Processor).drop_front(3);
  // gfxMmS: the last two characters are minor and stepping (hex digits), the rest is major.
  T.Major = std::stoul(Digits.drop_back(2).str());
  T.Minor = std::stoul(Digits.substr(Digits.size() - 2, 1).str(), nullptr, 16);
  T.Stepping = std::stoul(Digits.take_back(1).str(), nullptr, 16);
  auto Feature = [](uint32_t Bits, uint32_t Any, uint32_t Off, uint32_t On) {
    if (Bits == On)
      return TargetFeature::On;
    if (Bits == Off)
      return TargetFeature::Off;
    if (Bits == Any)
      return TargetFeature::Any;
    return TargetFeature::Unsupported;
  };
  T.Xnack = Feature(
      EFlags & llvm::ELF::EF_AMDGPU_FEATURE_XNACK_V4, llvm::ELF::EF_AMDGPU_FEATURE_XNACK_ANY_V4,
      llvm::ELF::EF_AMDGPU_FEATURE_XNACK_OFF_V4, llvm::ELF::EF_AMDGPU_FEATURE_XNACK_ON_V4);
  T.Sramecc = Feature(
      EFlags & llvm::ELF::EF_AMDGPU_FEATURE_SRAMECC_V4, llvm::ELF::EF_AMDGPU_FEATURE_SRAMECC_ANY_V4,
      llvm::ELF::EF_AMDGPU_FEATURE_SRAMECC_OFF_V4, llvm::ELF::EF_AMDGPU_FEATURE_SRAMECC_ON_V4);
  if (T.Major != 9 && !AnyProcessor)
    return makeError("unsupported target " + T.Processor +
                     ": recovery supports gfx9 (GCN/CDNA) processors");
  return T;
}

} // namespace asmevo
