// Kernel descriptor decoding/encoding and the directive model of LLVM's AMDGPU assembler.
#include "codeobj/KernelDescriptor.h"
#include "support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"

#include <algorithm>
#include <optional>

#include <cstring>

namespace asmevo {

namespace le = llvm::support::endian;

KernelDescriptor KernelDescriptor::decode(llvm::ArrayRef<uint8_t> B) {
  KernelDescriptor K;
  const uint8_t *P = B.data();
  K.GroupSegmentFixedSize = le::read32le(P + 0);
  K.PrivateSegmentFixedSize = le::read32le(P + 4);
  K.KernargSize = le::read32le(P + 8);
  std::memcpy(K.Reserved0.data(), P + 12, 4);
  K.KernelCodeEntryByteOffset = static_cast<int64_t>(le::read64le(P + 16));
  std::memcpy(K.Reserved1.data(), P + 24, 20);
  K.ComputePgmRsrc3 = le::read32le(P + 44);
  K.ComputePgmRsrc1 = le::read32le(P + 48);
  K.ComputePgmRsrc2 = le::read32le(P + 52);
  K.KernelCodeProperties = le::read16le(P + 56);
  K.KernargPreload = le::read16le(P + 58);
  std::memcpy(K.Reserved2.data(), P + 60, 4);
  return K;
}

std::array<uint8_t, KernelDescriptorSize> KernelDescriptor::encode() const {
  std::array<uint8_t, KernelDescriptorSize> B{};
  uint8_t *P = B.data();
  le::write32le(P + 0, GroupSegmentFixedSize);
  le::write32le(P + 4, PrivateSegmentFixedSize);
  le::write32le(P + 8, KernargSize);
  std::memcpy(P + 12, Reserved0.data(), 4);
  le::write64le(P + 16, static_cast<uint64_t>(KernelCodeEntryByteOffset));
  std::memcpy(P + 24, Reserved1.data(), 20);
  le::write32le(P + 44, ComputePgmRsrc3);
  le::write32le(P + 48, ComputePgmRsrc1);
  le::write32le(P + 52, ComputePgmRsrc2);
  le::write16le(P + 56, KernelCodeProperties);
  le::write16le(P + 58, KernargPreload);
  std::memcpy(P + 60, Reserved2.data(), 4);
  return B;
}

namespace {

enum class Word { Rsrc1, Rsrc2, Rsrc3, Props, Preload };

enum Applies : unsigned {
  All = 0,
  PreArchFS = 1,  // targets without architected flat scratch (gfx908, gfx90a)
  ArchFS = 2,     // gfx940+
  Gfx90aPlus = 4, // unified register file: accum_offset, tg_split
  Preload = 8,    // kernarg preload (gfx90a, gfx940+)
  CoV5 = 16,      // code object v5+
};

// A directive that is a plain bit field of one descriptor word.
struct BitDirective {
  const char *Name;
  Word W;
  unsigned Shift, Width;
  unsigned When;
  bool CountsUserSgprs; // enables user SGPRs (LLVM counts them into the implied count)
  unsigned UserSgprs;
};

// In the order LLVM's AsmPrinter prints them (so that recovered files read like compiler
// output). next_free_vgpr/sgpr, accum_offset, reserve_* and user_sgpr_count are special.
const BitDirective BitDirectives[] = {
    {".amdhsa_user_sgpr_private_segment_buffer", Word::Props, 0, 1, PreArchFS, true, 4},
    {".amdhsa_user_sgpr_dispatch_ptr", Word::Props, 1, 1, All, true, 2},
    {".amdhsa_user_sgpr_queue_ptr", Word::Props, 2, 1, All, true, 2},
    {".amdhsa_user_sgpr_kernarg_segment_ptr", Word::Props, 3, 1, All, true, 2},
    {".amdhsa_user_sgpr_dispatch_id", Word::Props, 4, 1, All, true, 2},
    {".amdhsa_user_sgpr_flat_scratch_init", Word::Props, 5, 1, PreArchFS, true, 2},
    {".amdhsa_user_sgpr_kernarg_preload_length", Word::Preload, 0, 7, Preload, false, 0},
    {".amdhsa_user_sgpr_kernarg_preload_offset", Word::Preload, 7, 9, Preload, false, 0},
    {".amdhsa_user_sgpr_private_segment_size", Word::Props, 6, 1, All, true, 1},
    {".amdhsa_uses_dynamic_stack", Word::Props, 11, 1, CoV5, false, 0},
    {".amdhsa_system_sgpr_private_segment_wavefront_offset", Word::Rsrc2, 0, 1, PreArchFS, false,
     0},
    {".amdhsa_enable_private_segment", Word::Rsrc2, 0, 1, ArchFS, false, 0},
    {".amdhsa_system_sgpr_workgroup_id_x", Word::Rsrc2, 7, 1, All, false, 0},
    {".amdhsa_system_sgpr_workgroup_id_y", Word::Rsrc2, 8, 1, All, false, 0},
    {".amdhsa_system_sgpr_workgroup_id_z", Word::Rsrc2, 9, 1, All, false, 0},
    {".amdhsa_system_sgpr_workgroup_info", Word::Rsrc2, 10, 1, All, false, 0},
    {".amdhsa_system_vgpr_workitem_id", Word::Rsrc2, 11, 2, All, false, 0},
    {".amdhsa_float_round_mode_32", Word::Rsrc1, 12, 2, All, false, 0},
    {".amdhsa_float_round_mode_16_64", Word::Rsrc1, 14, 2, All, false, 0},
    {".amdhsa_float_denorm_mode_32", Word::Rsrc1, 16, 2, All, false, 0},
    {".amdhsa_float_denorm_mode_16_64", Word::Rsrc1, 18, 2, All, false, 0},
    {".amdhsa_dx10_clamp", Word::Rsrc1, 21, 1, All, false, 0},
    {".amdhsa_ieee_mode", Word::Rsrc1, 23, 1, All, false, 0},
    {".amdhsa_fp16_overflow", Word::Rsrc1, 26, 1, All, false, 0},
    {".amdhsa_tg_split", Word::Rsrc3, 16, 1, Gfx90aPlus, false, 0},
    {".amdhsa_exception_fp_ieee_invalid_op", Word::Rsrc2, 24, 1, All, false, 0},
    {".amdhsa_exception_fp_denorm_src", Word::Rsrc2, 25, 1, All, false, 0},
    {".amdhsa_exception_fp_ieee_div_zero", Word::Rsrc2, 26, 1, All, false, 0},
    {".amdhsa_exception_fp_ieee_overflow", Word::Rsrc2, 27, 1, All, false, 0},
    {".amdhsa_exception_fp_ieee_underflow", Word::Rsrc2, 28, 1, All, false, 0},
    {".amdhsa_exception_fp_ieee_inexact", Word::Rsrc2, 29, 1, All, false, 0},
    {".amdhsa_exception_int_div_zero", Word::Rsrc2, 30, 1, All, false, 0},
};

bool applies(unsigned When, const TargetId &T) {
  if ((When & PreArchFS) && T.hasArchitectedFlatScratch())
    return false;
  if ((When & ArchFS) && !T.hasArchitectedFlatScratch())
    return false;
  if ((When & Gfx90aPlus) && !T.hasGfx90aInsts())
    return false;
  if ((When & Preload) && !T.hasKernargPreload())
    return false;
  if ((When & CoV5) && T.CodeObjectVersion < 5)
    return false;
  return true;
}

uint32_t &wordRef(KernelDescriptor &K, Word W, uint32_t &Tmp16a, uint32_t &Tmp16b) {
  switch (W) {
  case Word::Rsrc1:
    return K.ComputePgmRsrc1;
  case Word::Rsrc2:
    return K.ComputePgmRsrc2;
  case Word::Rsrc3:
    return K.ComputePgmRsrc3;
  case Word::Props:
    return Tmp16a;
  case Word::Preload:
    return Tmp16b;
  }
  return Tmp16a;
}

uint32_t wordValue(const KernelDescriptor &K, Word W) {
  switch (W) {
  case Word::Rsrc1:
    return K.ComputePgmRsrc1;
  case Word::Rsrc2:
    return K.ComputePgmRsrc2;
  case Word::Rsrc3:
    return K.ComputePgmRsrc3;
  case Word::Props:
    return K.KernelCodeProperties;
  case Word::Preload:
    return K.KernargPreload;
  }
  return 0;
}

uint32_t fieldMask(unsigned Shift, unsigned Width) {
  return (Width >= 32 ? 0xffffffffu : ((1u << Width) - 1)) << Shift;
}

bool allZero(llvm::ArrayRef<uint8_t> B) {
  for (uint8_t X : B)
    if (X)
      return false;
  return true;
}

} // namespace

unsigned kdExtraSgprs(const TargetId &T, bool ReserveVcc, bool ReserveFlatScratch,
                      bool ReserveXnack) {
  // Mirrors the assembler: the counts do not add up, each reservation implies the lower ones.
  unsigned Extra = ReserveVcc ? 2 : 0;
  if (ReserveXnack)
    Extra = 4;
  if (ReserveFlatScratch || T.hasArchitectedFlatScratch())
    Extra = 6;
  return Extra;
}

KdDirectiveSet kdToDirectives(const KernelDescriptor &K, const TargetId &T) {
  KdDirectiveSet S;
  auto Fail = [&](const std::string &Why) {
    if (S.Inexpressible.empty())
      S.Inexpressible = Why;
  };
  if (!allZero(K.Reserved0) || !allZero(K.Reserved1) || !allZero(K.Reserved2))
    Fail("reserved descriptor bytes are not zero");

  // Which bits the directives below cover; anything else set cannot be expressed.
  uint32_t Covered1 = fieldMask(0, 6) | fieldMask(6, 4), Covered2 = fieldMask(1, 5), Covered3 = 0,
           CoveredProps = 0, CoveredPreload = 0;
  auto Cover = [&](Word W, uint32_t M) {
    switch (W) {
    case Word::Rsrc1:
      Covered1 |= M;
      break;
    case Word::Rsrc2:
      Covered2 |= M;
      break;
    case Word::Rsrc3:
      Covered3 |= M;
      break;
    case Word::Props:
      CoveredProps |= M;
      break;
    case Word::Preload:
      CoveredPreload |= M;
      break;
    }
  };

  auto &D = S.Directives;
  D.push_back({".amdhsa_group_segment_fixed_size", K.GroupSegmentFixedSize});
  D.push_back({".amdhsa_private_segment_fixed_size", K.PrivateSegmentFixedSize});
  D.push_back({".amdhsa_kernarg_size", K.KernargSize});
  D.push_back({".amdhsa_user_sgpr_count", K.userSgprCount()});
  for (const auto &B : BitDirectives) {
    if (!applies(B.When, T))
      continue;
    uint32_t M = fieldMask(B.Shift, B.Width);
    Cover(B.W, M);
    D.push_back({B.Name, (wordValue(K, B.W) & M) >> B.Shift});
  }

  // Register counts: pick values that land in the descriptor's granules.
  unsigned VGran = T.vgprEncodingGranule();
  uint64_t NextFreeVgpr = uint64_t(K.granulatedVgprCount() + 1) * VGran;
  D.push_back({".amdhsa_next_free_vgpr", NextFreeVgpr});
  bool ReserveVcc = true, ReserveFlat = false;
  unsigned Extra = kdExtraSgprs(T, ReserveVcc, ReserveFlat, T.hasXnackReserved());
  unsigned G = K.granulatedSgprCount();
  int64_t Hi = int64_t(G + 1) * T.sgprEncodingGranule() - Extra;
  int64_t Lo = G == 0 ? 0 : int64_t(G) * T.sgprEncodingGranule() + 1 - Extra;
  int64_t NextFreeSgpr = std::min<int64_t>(Hi, T.addressableSgprs());
  if (NextFreeSgpr < std::max<int64_t>(Lo, 0))
    Fail("SGPR granule " + std::to_string(G) + " needs more than " +
         std::to_string(T.addressableSgprs()) + " addressable SGPRs");
  D.push_back({".amdhsa_next_free_sgpr", uint64_t(std::max<int64_t>(NextFreeSgpr, 0))});
  if (T.hasGfx90aInsts()) {
    Covered3 |= fieldMask(0, 6);
    unsigned Accum = K.accumOffset();
    if (Accum > ((std::max<uint64_t>(NextFreeVgpr, 1) + 3) & ~uint64_t(3)))
      Fail("accum_offset " + std::to_string(Accum) + " exceeds the VGPR allocation");
    D.push_back({".amdhsa_accum_offset", Accum});
  }
  D.push_back({".amdhsa_reserve_vcc", ReserveVcc ? 1u : 0u});
  if (!T.hasArchitectedFlatScratch())
    D.push_back({".amdhsa_reserve_flat_scratch", ReserveFlat ? 1u : 0u});

  if (K.ComputePgmRsrc1 & ~Covered1)
    Fail("compute_pgm_rsrc1 bits 0x" + llvm::utohexstr(K.ComputePgmRsrc1 & ~Covered1) +
         " have no directive");
  if (K.ComputePgmRsrc2 & ~Covered2)
    Fail("compute_pgm_rsrc2 bits 0x" + llvm::utohexstr(K.ComputePgmRsrc2 & ~Covered2) +
         " have no directive");
  if (K.ComputePgmRsrc3 & ~Covered3)
    Fail("compute_pgm_rsrc3 bits 0x" + llvm::utohexstr(K.ComputePgmRsrc3 & ~Covered3) +
         " have no directive");
  if (K.KernelCodeProperties & ~CoveredProps)
    Fail("kernel_code_properties bits 0x" +
         llvm::utohexstr(K.KernelCodeProperties & ~CoveredProps) + " have no directive");
  if (K.KernargPreload & ~CoveredPreload)
    Fail("kernarg_preload bits 0x" + llvm::utohexstr(K.KernargPreload & ~CoveredPreload) +
         " have no directive");

  // The assembler refuses an explicit user SGPR count below the one the enables imply.
  unsigned Implied = 0;
  for (const auto &B : BitDirectives)
    if (B.CountsUserSgprs && applies(B.When, T) &&
        (wordValue(K, B.W) & fieldMask(B.Shift, B.Width)))
      Implied += B.UserSgprs;
  if (T.hasKernargPreload())
    Implied += K.kernargPreloadLength();
  if (K.userSgprCount() < Implied)
    Fail("user SGPR count " + std::to_string(K.userSgprCount()) +
         " is below the enabled user SGPRs (" + std::to_string(Implied) + ")");

  // Self-check against the model of the assembler.
  if (S.Inexpressible.empty()) {
    auto Back = kdFromDirectives(D, T);
    if (!Back) {
      Fail(llvm::toString(Back.takeError()));
    } else {
      auto A = Back->encode(), B = K.encode();
      for (unsigned I = 0; I < KernelDescriptorSize; ++I)
        if ((I < KdEntryOffsetBegin || I >= KdEntryOffsetEnd) && A[I] != B[I]) {
          Fail("the directives would change descriptor byte " + std::to_string(I));
          break;
        }
    }
  }
  return S;
}

llvm::Expected<KernelDescriptor> kdFromDirectives(const std::vector<KdDirective> &Ds,
                                                  const TargetId &T) {
  KernelDescriptor K;
  // The assembler's defaults (getDefaultAmdhsaKernelDescriptor for gfx9).
  K.ComputePgmRsrc1 = (3u << 18) /*denorm 16/64 flush none*/ | (1u << 21) | (1u << 23);
  K.ComputePgmRsrc2 = 1u << 7; // workgroup id x
  K.KernelCodeProperties = 0;
  uint32_t Props = 0, Preload = 0;
  std::optional<uint64_t> NextFreeVgpr, NextFreeSgpr, UserSgprCount, Accum;
  bool ReserveVcc = true, ReserveFlat = true, ReserveXnack = T.hasXnackReserved();
  unsigned Implied = 0;
  for (const auto &[Name, Val] : Ds) {
    if (Name == ".amdhsa_group_segment_fixed_size")
      K.GroupSegmentFixedSize = Val;
    else if (Name == ".amdhsa_private_segment_fixed_size")
      K.PrivateSegmentFixedSize = Val;
    else if (Name == ".amdhsa_kernarg_size")
      K.KernargSize = Val;
    else if (Name == ".amdhsa_user_sgpr_count")
      UserSgprCount = Val;
    else if (Name == ".amdhsa_next_free_vgpr")
      NextFreeVgpr = Val;
    else if (Name == ".amdhsa_next_free_sgpr")
      NextFreeSgpr = Val;
    else if (Name == ".amdhsa_accum_offset")
      Accum = Val;
    else if (Name == ".amdhsa_reserve_vcc")
      ReserveVcc = Val != 0;
    else if (Name == ".amdhsa_reserve_flat_scratch")
      ReserveFlat = Val != 0;
    else if (Name == ".amdhsa_reserve_xnack_mask")
      ReserveXnack = Val != 0;
    else {
      const BitDirective *Found = nullptr;
      for (const auto &B : BitDirectives)
        if (Name == B.Name && applies(B.When, T))
          Found = &B;
      if (!Found)
        return makeError("directive " + Name + " is not known for " + T.Processor);
      uint32_t M = fieldMask(Found->Shift, Found->Width);
      if (Val > (M >> Found->Shift))
        return makeError("value out of range for " + Name);
      uint32_t &W = wordRef(K, Found->W, Props, Preload);
      W = (W & ~M) | (uint32_t(Val) << Found->Shift);
      if (Found->CountsUserSgprs && Val)
        Implied += Found->UserSgprs;
      if (Found->W == Word::Preload && Found->Shift == 0)
        Implied += Val;
    }
  }
  K.KernelCodeProperties = Props;
  K.KernargPreload = Preload;
  if (!NextFreeVgpr || !NextFreeSgpr)
    return makeError(".amdhsa_next_free_vgpr and .amdhsa_next_free_sgpr are required");
  if (*NextFreeSgpr > T.addressableSgprs())
    return makeError(".amdhsa_next_free_sgpr " + std::to_string(*NextFreeSgpr) +
                     " is out of range");
  uint64_t NumSgprs = *NextFreeSgpr + kdExtraSgprs(T, ReserveVcc, ReserveFlat, ReserveXnack);
  uint64_t SBlocks = (std::max<uint64_t>(NumSgprs, 1) + 7) / 8 - 1;
  uint64_t VG = T.vgprEncodingGranule();
  uint64_t VBlocks = (std::max<uint64_t>(*NextFreeVgpr, 1) + VG - 1) / VG - 1;
  if (VBlocks > 63 || SBlocks > 15)
    return makeError("register counts out of range");
  K.ComputePgmRsrc1 = (K.ComputePgmRsrc1 & ~0x3ffu) | uint32_t(VBlocks) | uint32_t(SBlocks << 6);
  uint64_t Users = UserSgprCount ? *UserSgprCount : Implied;
  if (Users < Implied)
    return makeError(".amdhsa_user_sgpr_count smaller than than implied by enabled user SGPRs");
  if (Users > 31)
    return makeError("too many user SGPRs enabled");
  K.ComputePgmRsrc2 = (K.ComputePgmRsrc2 & ~fieldMask(1, 5)) | uint32_t(Users << 1);
  if (T.hasGfx90aInsts()) {
    if (!Accum)
      return makeError(".amdhsa_accum_offset directive is required");
    if (*Accum < 4 || *Accum > 256 || (*Accum & 3))
      return makeError("accum_offset should be in range [4..256] in increments of 4");
    K.ComputePgmRsrc3 = (K.ComputePgmRsrc3 & ~0x3fu) | uint32_t(*Accum / 4 - 1);
  }
  return K;
}

} // namespace asmevo
