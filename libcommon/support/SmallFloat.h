// The narrow floating-point formats of the CDNA3/CDNA4 matrix and conversion instructions:
// FP8 and BF8 (E4M3 and E5M2: the FNUZ encodings on gfx940..942, the OCP ones on gfx950), the
// OCP MX FP6 (E2M3, E3M2) and FP4 (E2M1) element formats, and the E8M0 scale.
//
//   format      bias  max finite  NaN                         infinity  negative zero
//   E4M3 FNUZ   8     240 (0x7f)  0x80 only                   none      none
//   E5M2 FNUZ   16    57344       0x80 only                   none      none
//   E4M3 (OCP)  7     448 (0x7e)  S.1111.111                  none      yes
//   E5M2 (OCP)  15    57344       S.11111.mm, mm != 0          S.11111.00 yes
//   E2M3        1     7.5         none                        none      yes
//   E3M2        3     28          none                        none      yes
//   E2M1        1     6           none                        none      yes
//   E8M0        127   2^127       0xff                        none      no zero
// Sources: OCP 8-bit Floating Point Specification (OFP8) and OCP Microscaling Formats (MX) v1.0;
// the FNUZ encodings as LLVM (APFloat Float8E4M3FNUZ / Float8E5M2FNUZ) and the CDNA3 ISA use
// them. Decoding is exact (every value is an f32).
#pragma once

#include <cstdint>

namespace asmevo {

enum class SmallFormat : uint8_t { E4M3Fnuz, E5M2Fnuz, E4M3, E5M2, E2M3, E3M2, E2M1 };

// The FP8 / BF8 format of a target: FNUZ before gfx950, OCP on gfx950.
inline SmallFormat fp8Format(bool ocp) { return ocp ? SmallFormat::E4M3 : SmallFormat::E4M3Fnuz; }
inline SmallFormat bf8Format(bool ocp) { return ocp ? SmallFormat::E5M2 : SmallFormat::E5M2Fnuz; }

// Code (the low 8, 6 or 4 bits) -> f32, exact. A NaN code gives the quiet NaN 0x7fc00000
// (0xffc00000 when the code's sign is set): which NaN the hardware produces is not documented.
float smallToF32(uint32_t Code, SmallFormat F);

// f32 -> code, rounding to nearest even (the conversions force it, whatever MODE says).
// Overflow (after rounding) and infinities: with Saturate false, the format's NaN (FNUZ: 0x80;
// E4M3: S.1111.111) or infinity (E5M2); with Saturate true (MODE.FP16_OVFL), the largest finite
// value of the input's sign. NaN gives the NaN code (FNUZ 0x80; OCP S.1111.111 / S.11111.11).
// FNUZ has no negative zero: -0 and negative values that round to zero give 0x00.
// Returns false when the result is not defined by the documents: an infinity with Saturate set,
// and any overflow, infinity or NaN for the FP6 / FP4 formats (they have no NaN or infinity).
bool f32ToSmall(float X, SmallFormat F, bool Saturate, uint32_t &Code);
// The same from a double (an exact scaled value: one rounding to the format).
bool f64ToSmall(double X, SmallFormat F, bool Saturate, uint32_t &Code);

// E8M0 scale -> 2^(E - 127) as a float (exact down to 2^-127 through the denormal range, which
// f32 holds exactly); 0xff gives NaN.
float e8m0ToF32(uint8_t E);

} // namespace asmevo
