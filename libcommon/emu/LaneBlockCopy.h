// The 64 lanes' dwords of a vector memory or LDS access moved as one block, when each lane's
// dwords follow the previous lane's: a transpose between memory and register rows that the
// compiler vectorizes, where the lane-by-lane copy moves one dword per host instruction.
#pragma once

#include <cstdint>

namespace asmevo::emu {

// With EXEC all ones: lane l's n (1..4) dwords are at offset or address off[l], lane 0's at
// host pointer lane0. When the lanes are packed (off[l] = off[0] + 4 * n * l for every lane, with
// no wrap-around), copies the 64 * n dwords from lane0 on into the n rows (load) or out of them
// and returns true: the lane-by-lane copy's result, since no two lanes overlap. Otherwise copies
// nothing and returns false. The caller has checked that every lane's dwords are in memory;
// rows holds n pointers, and memory and rows do not overlap.
bool copyPackedLanes(bool Load, uint8_t *Lane0, const uint32_t *Off, unsigned n,
                     uint32_t *const *Rows);
bool copyPackedLanes(bool Load, uint8_t *Lane0, const uint64_t *Off, unsigned n,
                     uint32_t *const *Rows);
// The same copy for a caller that has already established that the lanes are packed (lane l's
// n dwords at lane0 + 4 * n * l): no check.
void copyPackedBlock(bool Load, uint8_t *Lane0, unsigned n, uint32_t *const *Rows);

// The dword at Base + Off[l] of every lane l, into Out[l] (a gather: AVX2's where the host has
// it, 8 lanes an instruction). The caller has checked that every lane's 4 bytes are in memory;
// every offset is below 2^31 (AVX2's indices are signed).
void gatherLaneWords(const uint8_t *Base, const uint32_t *Off, uint32_t *Out);
// The dword at Base + Stride * l of every lane l, into Out[l] (Stride * 63 below 2^31; every
// lane's 4 bytes in memory).
void gatherStridedWords(const uint8_t *Base, uint32_t Stride, uint32_t *Out);
// A row's lanes permuted: Out[l] = Row[Src[l]], or 0 where Src[l] is negative (DPP's source
// lanes; every Src[l] below 64). Out may not be Row.
void permuteLanes(const uint32_t *Row, const int8_t *Src, uint32_t *Out);
// The two dwords at Base + Off[l] of every lane l, the first into Row0[l] and the second into
// Row1[l] (the same conditions).
void gatherLaneDwordPairs(const uint8_t *Base, const uint32_t *Off, uint32_t *Row0, uint32_t *Row1);

} // namespace asmevo::emu
