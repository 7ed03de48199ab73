// The emulator's cost per instruction, by class: for each instruction below, a kernel whose loop
// runs it 32 times per iteration (assembled in-process for gfx942) is timed on one host thread,
// and the loop's own cost (an empty loop body) is subtracted. Prints host nanoseconds per wave
// instruction and per lane-instruction with EXEC all ones. These are host-time figures of an
// emulator, not GPU times: they show where emu_bench's time goes, one instruction at a time.
//   emu_inst_bench [--repeat 5] [--iterations 2000] [--waves 4] [--only SUBSTRING]
#include "bench_support.h"

#include "emu/AsmKernelSource.h"

#include "asm/Assembler.h"
#include "codeobj/Input.h"
#include "codeobj/TargetId.h"
#include "emu/Emulator.h"
#include "support/FileIO.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace asmevo;
using namespace asmevo::emu;
using namespace asmevo::bench;
using asmevo::emu::test::AsmKernel;
using asmevo::emu::test::asmKernelSource;

namespace {

constexpr unsigned kUnroll = 32;

struct Row {
  const char *Name;
  const char *Inst; // one instruction, repeated kUnroll times in the loop body
};

// Registers on entry to the loop: s[4:7] a V# over the buffer (num_records 64 KiB), v1 = 4 * lane,
// v10 = 16 * lane, v3 = lane, v4 = 1.0, v5 = float(lane), v8 = two f16 lanes (lane, 1.0),
// v9 = -lane / 8 (an exponent as softmax makes them, x - max <= 0, for v_exp_f32), v[6:7] = four
// f16 values (0.5, 1.0, 0.25, -1.0; the MFMA's A and B), s8 = 100, vcc = lanes below 32, m0 = -1.
// Float operands are normal numbers (a denormal can cost the host a microcode assist, which would
// not be the emulator's cost).
const Row Rows[] = {
    {"s_nop", "s_nop 0"},
    {"s_add_u32", "s_add_u32 s9, s9, s8"},
    {"v_mov_b32_e32", "v_mov_b32_e32 v2, v3"},
    {"v_add_f32", "v_add_f32_e32 v2, v5, v4"},
    {"v_or_b32", "v_or_b32_e32 v2, 1, v3"},
    {"v_lshlrev_b32", "v_lshlrev_b32_e32 v2, 2, v3"},
    {"v_lshl_or_b32 (VOP3)", "v_lshl_or_b32 v2, v3, 2, s8"},
    {"v_fma_f32 (VOP3)", "v_fma_f32 v2, v5, v4, v4"},
    {"v_exp_f32", "v_exp_f32_e32 v2, v9"},
    {"v_cndmask_b32", "v_cndmask_b32_e32 v2, v3, v5, vcc"},
    {"v_cmp_gt_i32", "v_cmp_gt_i32_e64 s[10:11], s8, v3"},
    {"v_add_co_u32", "v_add_co_u32_e64 v2, s[10:11], v3, v4"},
    {"v_mov_b32_dpp", "v_mov_b32_dpp v2, v3 row_shr:1 bound_ctrl:0"},
    {"v_pk_add_f16", "v_pk_add_f16 v2, v8, v8"},
    {"v_pk_mul_f32", "v_pk_mul_f32 v[2:3], v[4:5], v[4:5]"},
    {"v_pk_fma_f32", "v_pk_fma_f32 v[2:3], v[4:5], v[4:5], v[4:5]"},
    {"ds_read_b32", "ds_read_b32 v2, v1"},
    {"ds_write_b32", "ds_write_b32 v1, v3"},
    {"buffer_load_dword", "buffer_load_dword v2, v1, s[4:7], 0 offen"},
    {"buffer_store_dword", "buffer_store_dword v3, v1, s[4:7], 0 offen"},
    {"buffer_load_dword (16 B apart)", "buffer_load_dword v2, v10, s[4:7], 0 offen"},
    {"buffer_store_dword (16 B apart)", "buffer_store_dword v3, v10, s[4:7], 0 offen"},
    {"buffer_load_dwordx4", "buffer_load_dwordx4 v[12:15], v10, s[4:7], 0 offen"},
    {"buffer_store_dwordx4", "buffer_store_dwordx4 v[12:15], v10, s[4:7], 0 offen"},
    {"global_load_dword", "global_load_dword v2, v1, s[2:3]"},
    {"v_mfma_f32_32x32x8_f16", "v_mfma_f32_32x32x8_f16 v[8:23], v[6:7], v[6:7], v[8:23]"},
};

// The loop kernel: setup, then Body run ITERATIONS times (test/unit/emu/AsmKernelSource.h
// supplies the prologue, descriptor and metadata).
std::string source(const std::string &Body, unsigned Iterations) {
  AsmKernel K;
  K.Vgprs = 24;
  K.Directives = "\t.amdhsa_float_denorm_mode_32 3\n"; // the compiled-kernel default MODE
  return asmKernelSource(R"(
	v_mov_b32 v3, v0
	v_lshlrev_b32 v10, 4, v0
	v_mov_b32 v4, 1.0
	v_cvt_f32_u32 v5, v0
	v_mul_f32 v9, 0xbe000000, v5
	v_cvt_f16_u16 v8, v0
	v_or_b32 v8, 0x3c000000, v8
	v_mov_b32 v6, 0x3c003800
	v_mov_b32 v7, 0xbc003400
	s_mov_b32 s8, 100
	s_mov_b32 s9, 0
	s_mov_b64 vcc, 0xffffffff
	s_mov_b32 m0, -1
	s_mov_b32 s4, s2
	s_and_b32 s5, s3, 0xffff
	s_mov_b32 s6, 0x10000
	s_mov_b32 s7, 0x27000
	s_mov_b32 s12, )" + std::to_string(Iterations) +
                             R"(
.Lloop:
)" + Body + R"(
	s_sub_u32 s12, s12, 1
	s_cmp_lg_u32 s12, 0
	s_cbranch_scc1 .Lloop
	s_waitcnt vmcnt(0) lgkmcnt(0)
)",
                         K);
}

// Median milliseconds of Repeat runs of the kernel whose loop body is Inst x Count.
double timeKernel(const std::string &Inst, unsigned Count, unsigned Iterations, unsigned Waves,
                  int Repeat, const std::string &Dir) {
  std::string Body;
  for (unsigned I = 0; I < Count; ++I)
    Body += "\t" + Inst + "\n";
  const std::string Src = source(Body, Iterations);
  auto T = parseTargetId("amdgcn-amd-amdhsa--gfx942", 5);
  auto Obj = assembleAndLink(Src, "k.s", *T);
  if (!Obj) {
    std::fprintf(stderr, "emu_inst_bench: %s: %s\n", Inst.c_str(),
                 llvm::toString(Obj.takeError()).c_str());
    std::exit(2);
  }
  std::string Path = Dir + "/k.hsaco";
  llvm::cantFail(writeFileAtomic(Path, *Obj));
  auto O = llvm::cantFail(openCodeObject(Path));
  DeviceMemory Mem;
  auto E = llvm::cantFail(Emulator::load(O->C, Mem));
  uint64_t Buf = Mem.allocate(1 << 16, 256, "buffer");
  LaunchConfig L;
  L.Kernel = "k";
  L.Block = {64 * Waves, 1, 1};
  L.GridItems = L.Block;
  L.Kernarg.resize(8);
  std::memcpy(L.Kernarg.data(), &Buf, 8);
  L.Threads = 1;
  std::vector<double> Ms;
  for (int R = 0; R < Repeat; ++R) {
    auto T0 = Clock::now();
    auto S = E->run(L);
    if (!S) {
      std::fprintf(stderr, "emu_inst_bench: %s: %s\n", Inst.c_str(),
                   llvm::toString(S.takeError()).c_str());
      std::exit(3);
    }
    Ms.push_back(msSince(T0));
  }
  return median(Ms);
}

} // namespace

int main(int argc, char **argv) {
  int Repeat = 5;
  unsigned Iterations = 2000, Waves = 4;
  std::string Only;
  for (int I = 1; I + 1 < argc; I += 2) {
    if (!std::strcmp(argv[I], "--repeat"))
      Repeat = std::atoi(argv[I + 1]);
    else if (!std::strcmp(argv[I], "--iterations"))
      Iterations = unsigned(std::atoi(argv[I + 1]));
    else if (!std::strcmp(argv[I], "--waves"))
      Waves = unsigned(std::atoi(argv[I + 1]));
    else if (!std::strcmp(argv[I], "--only"))
      Only = argv[I + 1];
  }
  auto Dir = llvm::cantFail(TempDir::create("asmevo-inst-bench"));
  std::printf("emu_inst_bench: gfx942, %u waves x %u iterations x %u copies, median of %d runs, "
              "1 host thread (emulated: host time, not GPU time)\n",
              Waves, Iterations, kUnroll, Repeat);
  const double Loop = timeKernel("s_nop 0", 0, Iterations, Waves, Repeat, Dir.path());
  const double Insts = double(Waves) * Iterations * kUnroll;
  std::printf("%-26s %10s %12s %14s\n", "instruction", "ms", "ns/wave-inst", "ns/lane-inst");
  for (const Row &R : Rows) {
    if (!Only.empty() && std::string(R.Name).find(Only) == std::string::npos)
      continue;
    double Ms = timeKernel(R.Inst, kUnroll, Iterations, Waves, Repeat, Dir.path());
    double Ns = (Ms - Loop) * 1e6 / Insts;
    std::printf("%-26s %10.2f %12.1f %14.3f\n", R.Name, Ms, Ns, Ns / 64);
  }
  return 0;
}
