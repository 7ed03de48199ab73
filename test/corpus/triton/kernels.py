"""Triton kernels for the AMDGPU code-object test corpus.

Each kernel is a small, standard Triton kernel (in the style of the Triton
tutorials and of vLLM's fused_moe_kernel).  compile.py compiles them ahead of
time for gfx90a / gfx942 / gfx950; README.md lists the signature, the
constexpr values, the launch grid and the kernel-argument layout of every
compiled kernel.

Conventions shared by all kernels:
  * program ids: tl.program_id(0) is the x workgroup id, (1) the y id.
  * the innermost dimension of every tensor is contiguous; its stride is
    either absent or a constexpr 1 (which is what Triton's JIT does when it
    sees a stride equal to 1), so it is not a kernel argument.
"""

import triton
import triton.language as tl


# --------------------------------------------------------------------------
# 1. Vector add (fp32): out[i] = x[i] + y[i]
#    grid = (cdiv(n_elements, BLOCK_SIZE),)
# --------------------------------------------------------------------------
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


# --------------------------------------------------------------------------
# 2. Row-wise softmax (fp32 in, fp32 out), one program per row.
#    Requires n_cols <= BLOCK_SIZE.
#    grid = (n_rows,)
# --------------------------------------------------------------------------
@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, num / den, mask=mask)


# --------------------------------------------------------------------------
# 3. LayerNorm forward: Y = (X - mean) * rstd * W + B, per row of length N.
#    X, Y, W, B: fp16; Mean, Rstd: fp32 (one value per row).  Statistics are
#    accumulated in fp32.  Any N (looped in chunks of BLOCK_SIZE).
#    grid = (n_rows,)
# --------------------------------------------------------------------------
@triton.jit
def layer_norm_fwd_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / N
    acc2 = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        d = tl.where(cols < N, x - mean, 0.0)
        acc2 += d * d
    var = tl.sum(acc2, axis=0) / N
    rstd = 1.0 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask).to(tl.float32)
        b = tl.load(B + cols, mask=mask).to(tl.float32)
        x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(Y + cols, y.to(Y.dtype.element_ty), mask=mask)


# --------------------------------------------------------------------------
# 4. Matmul C[M, N] = A[M, K] @ B[K, N] (row-major A, B, C), fp32 accumulate
#    through tl.dot (MFMA on CDNA).  The element type of A/B/C comes from the
#    pointer types (fp16 or bf16); C is stored in C's element type.
#    Grouped ("super-grouping") program order as in the Triton tutorial.
#    grid = (cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N),)
# --------------------------------------------------------------------------
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = acc.to(c_ptr.dtype.element_ty)

    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


# --------------------------------------------------------------------------
# 5. Fused-MoE grouped GEMM (a small version of vLLM's fused_moe_kernel).
#    A: [num_tokens, K] activations; B: [E, N, K] expert weights;
#    C: [num_tokens * top_k, N] output.
#    sorted_token_ids: [EM] indices into the flattened (token, k) pairs,
#      padded so that each BLOCK_M block belongs to one expert; a padding
#      entry holds a value >= num_valid_tokens (= num_tokens * top_k).
#    expert_ids: [EM / BLOCK_M] expert of each BLOCK_M block.
#    num_tokens_post_padded: [1] number of valid entries of sorted_token_ids
#      (blocks at or past it exit early).
#    topk_weights: [num_tokens * top_k] fp32 router weights (used when
#      MUL_ROUTED_WEIGHT).
#    grid = (cdiv(EM, BLOCK_M) * cdiv(N, BLOCK_N),)
# --------------------------------------------------------------------------
@triton.jit
def fused_moe_kernel(a_ptr, b_ptr, c_ptr, topk_weights_ptr, sorted_token_ids_ptr, expert_ids_ptr,
                     num_tokens_post_padded_ptr,
                     N, K, EM, num_valid_tokens,
                     stride_am, stride_ak, stride_be, stride_bk, stride_bn, stride_cm, stride_cn,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                     GROUP_M: tl.constexpr, MUL_ROUTED_WEIGHT: tl.constexpr, top_k: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(EM, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    num_tokens_post_padded = tl.load(num_tokens_post_padded_ptr)
    if pid_m * BLOCK_M >= num_tokens_post_padded:
        return

    offs_token_id = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_token = tl.load(sorted_token_ids_ptr + offs_token_id)
    token_mask = offs_token < num_valid_tokens
    off_expert = tl.load(expert_ids_ptr + pid_m).to(tl.int64)

    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_token[:, None] // top_k * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + off_expert * stride_be + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=token_mask[:, None] & (offs_k[None, :] < K - k * BLOCK_K), other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    if MUL_ROUTED_WEIGHT:
        w = tl.load(topk_weights_ptr + offs_token, mask=token_mask, other=0.0)
        acc = acc * w[:, None]
    c = acc.to(c_ptr.dtype.element_ty)

    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_token[:, None] + stride_cn * offs_cn[None, :]
    c_mask = token_mask[:, None] & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


# --------------------------------------------------------------------------
# 6. Flash-attention forward (fp16 Q/K/V/Out, fp32 softmax statistics).
#    Q, K, V, Out: [Z, H, N_CTX, HEAD_DIM], all with the same strides
#    (stride_z, stride_h, stride_m; the HEAD_DIM stride is 1).
#    Lse: [Z * H, N_CTX] fp32, receives the row log2-sum-exp2 of the scaled
#    scores (m + log2(l)), as in the Triton tutorial.
#    IS_CAUSAL: key j is visible to query i iff j <= i.
#    grid = (cdiv(N_CTX, BLOCK_M), Z * H)
# --------------------------------------------------------------------------
@triton.jit
def attn_fwd_kernel(Q, K, V, Out, Lse, sm_scale,
                    stride_z, stride_h, stride_m, H, N_CTX,
                    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    IS_CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    base = off_z.to(tl.int64) * stride_z + off_h.to(tl.int64) * stride_h

    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)

    q = tl.load(Q + base + offs_m[:, None] * stride_m + offs_d[None, :], mask=offs_m[:, None] < N_CTX, other=0.0)

    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # 1/ln(2): use exp2

    if IS_CAUSAL:
        hi = tl.minimum((start_m + 1) * BLOCK_M, N_CTX)
    else:
        hi = N_CTX

    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        # K^T tile: [HEAD_DIM, BLOCK_N]
        k = tl.load(K + base + cols[None, :] * stride_m + offs_d[:, None], mask=cols[None, :] < N_CTX, other=0.0)
        qk = tl.dot(q, k) * qk_scale
        valid = cols[None, :] < N_CTX
        if IS_CAUSAL:
            valid = valid & (offs_m[:, None] >= cols[None, :])
        qk = tl.where(valid, qk, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(V + base + cols[:, None] * stride_m + offs_d[None, :], mask=cols[:, None] < N_CTX, other=0.0)
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij

    acc = acc / l_i[:, None]
    tl.store(Lse + off_hz * N_CTX + offs_m, m_i + tl.math.log2(l_i), mask=offs_m < N_CTX)
    tl.store(Out + base + offs_m[:, None] * stride_m + offs_d[None, :], acc.to(Out.dtype.element_ty),
             mask=offs_m[:, None] < N_CTX)


# --------------------------------------------------------------------------
# 7. Microscaling (MX) matmul through tl.dot_scaled (MXFP4 / MXFP8, gfx950).
#    C[M, N] = (A * 2^(a_scale - 127)) @ (B * 2^(b_scale - 127)), fp32 accumulate.
#    A: [M, K / PACK_A] bytes, row-major (stride_am; the K stride is 1):
#       A_FMT == "e2m1": two fp4 values per byte along K, element k = 2j in the
#       low nibble of byte j, k = 2j + 1 in the high nibble (PACK_A = 2);
#       A_FMT == "e4m3" / "e5m2": one OCP fp8 value per byte (PACK_A = 1).
#    B: stored as [N, K / PACK_B] (i.e. B^T, K contiguous, stride_bn), same
#       packing rule along K; the kernel loads [BLOCK_K / PACK_B, BLOCK_N] tiles.
#    a_scale: [M, K / 32] uint8 e8m0 (stride_asm, K/32 stride 1): element
#       a_scale[i, k // 32] scales A[i, k]; b_scale: [N, K / 32] likewise.
#    C: [M, N] row-major (stride_cm), stored in C's element type.
#    K must be a multiple of BLOCK_K (no K mask); rows/columns wrap modulo M/N
#    on load and the store is masked, as in matmul_kernel.
#    grid = (cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N),)
# --------------------------------------------------------------------------
@triton.jit
def mx_matmul_kernel(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, M, N, K,
                     stride_am, stride_ak, stride_bn, stride_bk, stride_asm, stride_bsn,
                     stride_cm, stride_cn,
                     A_FMT: tl.constexpr, B_FMT: tl.constexpr,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                     GROUP_M: tl.constexpr):
    PACK_A: tl.constexpr = 2 if A_FMT == "e2m1" else 1
    PACK_B: tl.constexpr = 2 if B_FMT == "e2m1" else 1
    SCALE_K: tl.constexpr = BLOCK_K // 32
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_ak = tl.arange(0, BLOCK_K // PACK_A)
    offs_bk = tl.arange(0, BLOCK_K // PACK_B)
    offs_sk = tl.arange(0, SCALE_K)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_ak[None, :] * stride_ak
    b_ptrs = b_ptr + offs_bk[:, None] * stride_bk + offs_bn[None, :] * stride_bn
    as_ptrs = a_scale_ptr + offs_am[:, None] * stride_asm + offs_sk[None, :]
    bs_ptrs = b_scale_ptr + offs_bn[:, None] * stride_bsn + offs_sk[None, :]

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        a_scale = tl.load(as_ptrs)
        b_scale = tl.load(bs_ptrs)
        acc = tl.dot_scaled(a, a_scale, A_FMT, b, b_scale, B_FMT, acc)
        a_ptrs += (BLOCK_K // PACK_A) * stride_ak
        b_ptrs += (BLOCK_K // PACK_B) * stride_bk
        as_ptrs += SCALE_K
        bs_ptrs += SCALE_K
    c = acc.to(c_ptr.dtype.element_ty)

    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


# --------------------------------------------------------------------------
# 8. One-tile scaled dot (the shape of Triton's own test_scaled_dot kernel):
#    out[BLOCK_M, BLOCK_N] fp32 = dot_scaled(A tile, B tile) for a single
#    BLOCK_K; A [BLOCK_M, BLOCK_K / PACK_A] row-major (stride_am), B stored
#    [BLOCK_N, BLOCK_K / PACK_B] (stride_bn), scales [BLOCK_M, BLOCK_K / 32]
#    and [BLOCK_N, BLOCK_K / 32] contiguous, out row-major with row stride BLOCK_N.
#    grid = (1, 1, 1)
# --------------------------------------------------------------------------
@triton.jit
def mx_dot_tile_kernel(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, out_ptr, stride_am, stride_bn,
                       A_FMT: tl.constexpr, B_FMT: tl.constexpr,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    PACK_A: tl.constexpr = 2 if A_FMT == "e2m1" else 1
    PACK_B: tl.constexpr = 2 if B_FMT == "e2m1" else 1
    SCALE_K: tl.constexpr = BLOCK_K // 32
    offs_m = tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    a = tl.load(a_ptr + offs_m[:, None] * stride_am + tl.arange(0, BLOCK_K // PACK_A)[None, :])
    b = tl.load(b_ptr + tl.arange(0, BLOCK_K // PACK_B)[:, None] + offs_n[None, :] * stride_bn)
    a_scale = tl.load(a_scale_ptr + offs_m[:, None] * SCALE_K + tl.arange(0, SCALE_K)[None, :])
    b_scale = tl.load(b_scale_ptr + offs_n[:, None] * SCALE_K + tl.arange(0, SCALE_K)[None, :])
    c = tl.dot_scaled(a, a_scale, A_FMT, b, b_scale, B_FMT)
    tl.store(out_ptr + offs_m[:, None] * BLOCK_N + offs_n[None, :], c)


# --------------------------------------------------------------------------
# 9. W8A8 block-scale FP8 GEMM (the shape of vLLM's block-quantised fp8
#    linear layer, as used for DeepSeek-V3 on MI300X; written here, not copied).
#    A: [M, K] fp8 (row-major, stride_am; K stride 1), quantised per token and
#       per GROUP_K columns: As [M, K / GROUP_K] fp32 (stride_as_m, K stride 1).
#    B: [N, K] fp8 (the weight, K contiguous: stride_bn; the kernel loads
#       [BLOCK_K, BLOCK_N] tiles of B^T), quantised per GROUP_N x GROUP_K block:
#       Bs [N / GROUP_N, K / GROUP_K] fp32 (stride_bs_n, K stride 1).
#    C[i, j] = sum over K blocks kb of As[i, kb] * Bs[j // GROUP_N, kb] *
#              sum_{k in kb} A[i, k] * B[j, k]      (fp32 accumulate, C in C's type)
#    BLOCK_K == GROUP_K, so one K block has one scale; rows/columns wrap modulo
#    M/N on load and the store is masked, as in matmul_kernel.
#    grid = (cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N),)
# --------------------------------------------------------------------------
@triton.jit
def w8a8_block_fp8_matmul_kernel(a_ptr, b_ptr, c_ptr, as_ptr, bs_ptr, M, N, K,
                                 stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                                 stride_as_m, stride_as_k, stride_bs_n, stride_bs_k,
                                 GROUP_N: tl.constexpr, GROUP_K: tl.constexpr,
                                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                                 BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn
    as_ptrs = as_ptr + offs_am * stride_as_m
    bs_ptrs = bs_ptr + (offs_bn // GROUP_N) * stride_bs_n

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        k_group = (k * BLOCK_K) // GROUP_K
        a_s = tl.load(as_ptrs + k_group * stride_as_k)
        b_s = tl.load(bs_ptrs + k_group * stride_bs_k)
        acc += tl.dot(a, b) * a_s[:, None] * b_s[None, :]
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = acc.to(c_ptr.dtype.element_ty)

    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


# --------------------------------------------------------------------------
# 10. AWQ int4 GEMM with split K (the shape of the AWQ Triton GEMM that vLLM
#     and SGLang run on ROCm; written here, not copied).
#     A: [M, K] fp16 row-major (stride_am; K stride 1).
#     qweight: [K, N / 8] int32, row-major (row stride N / 8): 8 int4 weights
#       per word in AWQ's packing order: logical column 8c + j is the nibble
#       at bits 4 * p(j) of word c, p = (0, 4, 1, 5, 2, 6, 3, 7)[j], i.e.
#       p(j) = j // 2 + (j % 2) * 4.
#     qzeros: [K / GROUP_SIZE, N / 8] int32, the same packing; scales:
#       [K / GROUP_SIZE, N] fp16.
#     W[k, n] = fp16((q[k, n] - z[k // G, n]) * s[k // G, n])  (one fp16 rounding)
#     C: [SPLIT_K, M, N] fp16: slice z holds the sum over K blocks
#       z, z + SPLIT_K, z + 2 SPLIT_K, ... of A @ W (fp32 accumulate); the caller
#       adds the slices.  K % (BLOCK_K * SPLIT_K) == 0; BLOCK_K divides GROUP_SIZE.
#     grid = (cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N), SPLIT_K)
# --------------------------------------------------------------------------
@triton.jit
def awq_gemm_kernel(a_ptr, qweight_ptr, qzeros_ptr, scales_ptr, c_ptr, M, N, K, stride_am,
                    GROUP_SIZE: tl.constexpr, SPLIT_K: tl.constexpr,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    pid_z = tl.program_id(1)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n

    offs_am = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_bn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = pid_z * BLOCK_K + tl.arange(0, BLOCK_K)
    mask_m = offs_am < M
    mask_n = offs_bn < N
    packed_n = N // 8
    shifts = ((offs_bn % 8) // 2 + (offs_bn % 2) * 4) * 4

    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :]
    b_ptrs = qweight_ptr + offs_k[:, None] * packed_n + (offs_bn // 8)[None, :]

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K * SPLIT_K)):
        k_left = K - k * BLOCK_K * SPLIT_K
        mask_k = offs_k < k_left
        a = tl.load(a_ptrs, mask=mask_m[:, None] & mask_k[None, :], other=0.0)
        q = tl.load(b_ptrs, mask=mask_k[:, None] & mask_n[None, :], other=0)
        group = (k * BLOCK_K * SPLIT_K + pid_z * BLOCK_K) // GROUP_SIZE
        z = tl.load(qzeros_ptr + group * packed_n + offs_bn // 8, mask=mask_n, other=0)
        s = tl.load(scales_ptr + group * N + offs_bn, mask=mask_n, other=0.0)
        q = (q >> shifts[None, :]) & 0xF
        z = (z >> shifts) & 0xF
        w = (q - z[None, :]).to(tl.float16) * s[None, :]
        acc = tl.dot(a, w, acc)
        a_ptrs += BLOCK_K * SPLIT_K
        b_ptrs += BLOCK_K * SPLIT_K * packed_n
    c = acc.to(c_ptr.dtype.element_ty)

    c_ptrs = c_ptr + pid_z * M * N + offs_am[:, None] * N + offs_bn[None, :]
    tl.store(c_ptrs, c, mask=mask_m[:, None] & mask_n[None, :])


# --------------------------------------------------------------------------
# 11. MoE LoRA shrink (the first half of the fused MoE-LoRA op that SGLang
#     and vLLM run: each routed (token, k) pair times its adapter's LoRA A
#     matrix of its expert; written here, not copied).
#     x: [num_tokens, K] fp16 (stride_xm; K stride 1).
#     lora_a: [num_loras, E, R, K] fp16 (stride_al, stride_ae, stride_ar; K
#       stride 1).
#     Per adapter slot s (grid axis 1), the routed pairs of the tokens that use
#     it, sorted and padded per expert as in fused_moe_kernel:
#       sorted_token_ids [num_slots, EM] (a padding entry >= num_valid_tokens),
#       expert_ids [num_slots, EM / BLOCK_M] (-1: the block is skipped),
#       num_tokens_post_padded [num_slots], lora_ids [num_slots] (the adapter
#       of the slot; -1: the slot is empty).
#     out[t, r] = sum_k x[t // top_k, k] * lora_a[lora, expert, r, k]
#       for every routed pair t (fp32 accumulate, fp16 out, row stride stride_om).
#     grid = (cdiv(EM, BLOCK_M) * cdiv(R, BLOCK_N), num_slots)
# --------------------------------------------------------------------------
@triton.jit
def moe_lora_shrink_kernel(x_ptr, lora_a_ptr, out_ptr, sorted_token_ids_ptr, expert_ids_ptr,
                           num_tokens_post_padded_ptr, lora_ids_ptr,
                           R, K, EM, num_valid_tokens,
                           stride_xm, stride_xk, stride_al, stride_ae, stride_ar, stride_ak,
                           stride_om, stride_or,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                           top_k: tl.constexpr):
    pid = tl.program_id(0)
    slot = tl.program_id(1)
    num_pid_n = tl.cdiv(R, BLOCK_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n

    lora_id = tl.load(lora_ids_ptr + slot)
    if lora_id < 0:
        return
    num_tokens_post_padded = tl.load(num_tokens_post_padded_ptr + slot)
    if pid_m * BLOCK_M >= num_tokens_post_padded:
        return
    expert = tl.load(expert_ids_ptr + slot * tl.cdiv(EM, BLOCK_M) + pid_m)
    if expert < 0:
        return

    offs_token_id = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_token = tl.load(sorted_token_ids_ptr + slot * EM + offs_token_id)
    token_mask = offs_token < num_valid_tokens
    offs_r = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_r = offs_r < R
    offs_k = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + (offs_token[:, None] // top_k) * stride_xm + offs_k[None, :] * stride_xk
    a_ptrs = (lora_a_ptr + lora_id.to(tl.int64) * stride_al + expert.to(tl.int64) * stride_ae +
              offs_r[None, :] * stride_ar + offs_k[:, None] * stride_ak)

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        x = tl.load(x_ptrs, mask=token_mask[:, None] & (offs_k[None, :] < k_left), other=0.0)
        w = tl.load(a_ptrs, mask=mask_r[None, :] & (offs_k[:, None] < k_left), other=0.0)
        acc = tl.dot(x, w, acc)
        x_ptrs += BLOCK_K * stride_xk
        a_ptrs += BLOCK_K * stride_ak
    o = acc.to(out_ptr.dtype.element_ty)

    o_ptrs = out_ptr + offs_token[:, None] * stride_om + offs_r[None, :] * stride_or
    tl.store(o_ptrs, o, mask=token_mask[:, None] & mask_r[None, :])
