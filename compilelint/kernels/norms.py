"""LayerNorm and RMSNorm forward over the last dimension, one read and one write per element.

What it does: ``layer_norm(x, w, b, eps)`` = (x - mean) / sqrt(var + eps) * w + b and
``rms_norm(x, w, eps)`` = x / sqrt(mean(x^2) + eps) * w, statistics in float32, output in x's dtype.
One kernel, three shapes of work, chosen per row width by the autotuner (configs in ``CONFIGS``):

* several whole rows per program (a 2-D tile): narrow rows still issue wide loads;
* one whole row per program, held in registers (1-D, unmasked when the width is a power of two: the
  shape of Inductor's persistent reduction): one read and one write per element;
* one row per program in chunks (rows of 8K and wider; at 8K this is Inductor's shape): a statistics
  pass (RMSNorm: sum of squares; LayerNorm: per-lane sums of x - k and its square, k the lane's first
  value, merged across lanes once after the loop: one pass, not two, and no reduction inside the loop,
  so every load of the pass can be in flight at once), then a normalising pass that walks the
  chunks in reverse, so the chunks read last by the first pass, the likeliest still in L2, are read
  first. Optional L2 hints (``HINTS``: keep the row in L2 for the second pass, drop it after). Loops
  over a power-of-two width take it as a compile-time constant.

bf16 rows of exactly ``RESIDENT_N`` (64K) columns with bf16 weights take a fourth shape, chosen by the
launcher (not timed by the autotuner): the whole row held in registers as packed bf16 pairs, one program
of 1024 threads per row, so each element is read from memory once and nothing is re-read from L2
(``_norm_resident``; LayerNorm statistics: each lane's 8 values summarised exactly, lanes merged by one
Welford reduction, an L2 prefetch of the row a later program reads, and cache hints that keep most of
weight and bias in L1). H200, 4096x65536, fraction of copy bandwidth: LayerNorm 76-78% (chunked) -> 92.0%,
RMSNorm 90% -> 96.9% (benchmarks/kernels.py, run 7 in docs/bench/kernels_h200.txt).

Weights and bias are loaded with ``evict_last`` (every row reads them; the resident path reads half the
bias around L1, which cannot hold it all: see ``_norm_resident``). Rows up to ``MAX_FUSED_N`` may
only take the register shapes under the CPU interpreter (its fixed configuration); on a GPU every width
may take either, as timed.

Why: the statistics, the normalisation and the affine are fused into one kernel.

Example::

    y = layer_norm(x, ln.weight, ln.bias, ln.eps)   # == F.layer_norm(x, x.shape[-1:], ...)
    y = rms_norm(x, rms.weight, 1e-6)               # == reference_rms(x, rms.weight, 1e-6)

Inside torch.compile and torch.export, call the registered ops instead: ``rms_norm_op(x, w, eps)`` and
``layer_norm_op(x, w, b, eps)`` are ``torch.library.custom_op``s (``compilelint::rms_norm``,
``compilelint::layer_norm``) with fake implementations, so ``torch.compile(fullgraph=True)`` keeps them in
one graph and ``torch.export`` records one call each, where a direct call of the Triton launcher is
traced into (the autotuner's Python, the launch) and breaks. Forward only: no autograd is registered, so
they serve inference (a backward through them raises). Output: a new tensor of x's shape and dtype,
contiguous (as the launchers allocate it).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

from ._common import (as_rows, interpreting, launch, next_pow2, rowwise_config, rowwise_configs, rowwise_grid,
                      rowwise_interp_config, rowwise_keep)

__all__ = ["reference_layer_norm", "reference_rms", "layer_norm", "rms_norm", "rms_norm_op", "layer_norm_op", "CONFIGS",
           "MAX_FUSED_N", "RESIDENT_N"]

MAX_FUSED_N = 32768
RESIDENT_N = 65536  # the width the register-resident path serves: 1024 threads x 64 bf16 (32 registers)


def reference_layer_norm(x, weight=None, bias=None, eps=1e-5):
    return F.layer_norm(x, x.shape[-1:], weight, bias, eps)


def reference_rms(x, weight=None, eps=1e-6):
    """RMSNorm as written in most model code (statistics in float32, cast back to x's dtype)."""
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    if weight is not None:
        y = y * weight
    return y.to(x.dtype)


@triton.jit
def _load_row(ptr, cols, N, EVEN: tl.constexpr, POLICY: tl.constexpr):
    if EVEN:
        x = tl.load(ptr + cols, eviction_policy=POLICY)
    else:
        x = tl.load(ptr + cols, mask=cols < N, other=0.0, eviction_policy=POLICY)
    return x.to(tl.float32)


@triton.jit
def _norm_tile(X, Y, W, B, M, N, stride_xm, stride_ym, eps,
               IS_RMS: tl.constexpr, HAS_W: tl.constexpr, HAS_B: tl.constexpr, EVEN_N: tl.constexpr,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, X_POLICY: tl.constexpr):
    """BLOCK_M whole rows of BLOCK_N (>= N) columns."""
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    rmask = rows < M
    cmask = cols < N
    mask = rmask[:, None] & cmask[None, :]
    rows64 = rows.to(tl.int64)
    x = tl.load(X + rows64[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0,
                eviction_policy=X_POLICY).to(tl.float32)
    if IS_RMS:
        rstd = tl.math.rsqrt(tl.sum(x * x, axis=1) / N + eps)
        y = x * rstd[:, None]
    else:
        mean = tl.sum(x, axis=1) / N
        xc = x - mean[:, None]
        if not EVEN_N:
            xc = tl.where(mask, xc, 0.0)
        rstd = tl.math.rsqrt(tl.sum(xc * xc, axis=1) / N + eps)
        y = xc * rstd[:, None]
    if HAS_W:
        w = _load_row(W, cols, N, EVEN_N, "evict_last")
        y = y * w[None, :]
    if HAS_B:
        b = _load_row(B, cols, N, EVEN_N, "evict_last")
        y = y + b[None, :]
    tl.store(Y + rows64[:, None] * stride_ym + cols[None, :], y.to(Y.dtype.element_ty), mask=mask)


@triton.jit
def _norm_row(X, Y, W, B, N, stride_xm, stride_ym, eps,
              IS_RMS: tl.constexpr, HAS_W: tl.constexpr, HAS_B: tl.constexpr, EVEN_N: tl.constexpr,
              BLOCK_N: tl.constexpr, X_POLICY: tl.constexpr):
    """One whole row of BLOCK_N (>= N) columns, 1-D."""
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    x = _load_row(X + row * stride_xm, cols, N, EVEN_N, X_POLICY)
    if IS_RMS:
        rstd = tl.math.rsqrt(tl.sum(x * x, axis=0) / N + eps)
        y = x * rstd
    else:
        mean = tl.sum(x, axis=0) / N
        xc = x - mean
        if not EVEN_N:
            xc = tl.where(cols < N, xc, 0.0)
        rstd = tl.math.rsqrt(tl.sum(xc * xc, axis=0) / N + eps)
        y = xc * rstd
    if HAS_W:
        y = y * _load_row(W, cols, N, EVEN_N, "evict_last")
    if HAS_B:
        y = y + _load_row(B, cols, N, EVEN_N, "evict_last")
    y_ptr = Y + row * stride_ym + cols
    if EVEN_N:
        tl.store(y_ptr, y.to(Y.dtype.element_ty))
    else:
        tl.store(y_ptr, y.to(Y.dtype.element_ty), mask=cols < N)


@triton.jit
def _norm_row_chunked(X, Y, W, B, N, stride_xm, stride_ym, eps,
                      IS_RMS: tl.constexpr, HAS_W: tl.constexpr, HAS_B: tl.constexpr, EVEN_N: tl.constexpr,
                      BLOCK_N: tl.constexpr, HINTS: tl.constexpr):
    """One row in chunks of BLOCK_N (< N): one statistics pass, then a normalising pass in reverse."""
    row = tl.program_id(0).to(tl.int64)
    x_row = X + row * stride_xm
    y_row = Y + row * stride_ym
    cols = tl.arange(0, BLOCK_N)
    shift = tl.zeros([], tl.float32)
    mean_d = tl.zeros([], tl.float32)
    if IS_RMS:
        acc = tl.zeros([BLOCK_N], dtype=tl.float32)
        for start in range(0, N, BLOCK_N):
            if HINTS:
                x = _load_row(x_row + start, cols, N - start, EVEN_N, "evict_last")
            else:
                x = _load_row(x_row + start, cols, N - start, EVEN_N, "")
            acc += x * x
        rstd = tl.math.rsqrt(tl.sum(acc, axis=0) / N + eps)
    else:
        # Per-lane shifted sums, no reduction (no barrier) before the last load: each lane shifts its values
        # by the first one it reads (k), sums d = x - k and d^2, and the lanes' (count, mean, M2) are merged
        # once after the loop (Chan et al.), relative to x0 = the row's first element, so the normalising
        # pass computes (x - x0) - mean_d: exact differences for rows of tiny variance on a large offset.
        x0 = tl.load(x_row).to(tl.float32)
        if HINTS:
            k = _load_row(x_row, cols, N, EVEN_N, "evict_last")
        else:
            k = _load_row(x_row, cols, N, EVEN_N, "")
        s1 = tl.zeros([BLOCK_N], tl.float32)
        s2 = tl.zeros([BLOCK_N], tl.float32)
        if EVEN_N:
            cnt = tl.full([BLOCK_N], 1.0, tl.float32)
        else:
            cnt = (cols < N).to(tl.float32)
        for start in range(BLOCK_N, N, BLOCK_N):
            if HINTS:
                x = _load_row(x_row + start, cols, N - start, EVEN_N, "evict_last")
            else:
                x = _load_row(x_row + start, cols, N - start, EVEN_N, "")
            d = x - k
            if not EVEN_N:
                ok = cols < N - start
                d = tl.where(ok, d, 0.0)
                cnt += ok.to(tl.float32)
            s1 += d
            s2 += d * d
        if EVEN_N:  # every lane read the same number of values
            cnt = tl.full([BLOCK_N], N // BLOCK_N, tl.float32)
        n_safe = tl.where(cnt == 0.0, 1.0, cnt)
        lane_mean = (k - x0) + s1 / n_safe  # the lane's mean minus x0
        lane_m2 = tl.where(cnt == 0.0, 0.0, s2 - s1 * s1 / n_safe)
        lane_mean = tl.where(cnt == 0.0, 0.0, lane_mean)
        mean_d = tl.sum(cnt * lane_mean, axis=0) / N  # the row's mean is x0 + mean_d
        dm = lane_mean - mean_d
        m2 = tl.sum(lane_m2, axis=0) + tl.sum(cnt * dm * dm, axis=0)
        shift = x0
        rstd = tl.math.rsqrt(m2 / N + eps)
    n_chunks = tl.cdiv(N, BLOCK_N)
    for i in range(0, n_chunks):
        start = (n_chunks - 1 - i) * BLOCK_N  # last chunk first: the likeliest still in L2
        if HINTS:
            x = _load_row(x_row + start, cols, N - start, EVEN_N, "evict_first")
        else:
            x = _load_row(x_row + start, cols, N - start, EVEN_N, "")
        y = ((x - shift) - mean_d) * rstd  # x - x0 is exact for x near x0 (Sterbenz)
        if HAS_W:
            y = y * _load_row(W + start, cols, N - start, EVEN_N, "evict_last")
        if HAS_B:
            y = y + _load_row(B + start, cols, N - start, EVEN_N, "evict_last")
        if EVEN_N:
            tl.store(y_row + start + cols, y.to(Y.dtype.element_ty))
        else:
            tl.store(y_row + start + cols, y.to(Y.dtype.element_ty), mask=cols < N - start)


@triton.jit
def _norm_kernel(X, Y, W, B, M, N, stride_xm, stride_ym, eps,
                 IS_RMS: tl.constexpr, HAS_W: tl.constexpr, HAS_B: tl.constexpr, NP2: tl.constexpr,
                 EVEN_N: tl.constexpr, TILE: tl.constexpr, CHUNKED: tl.constexpr, HINTS: tl.constexpr):
    """NP2 = next_pow2(N); EVEN_N = (N == NP2). Not CHUNKED: TILE // NP2 whole rows per program (1: the
    1-D path); CHUNKED: one row per program in chunks of TILE (< NP2). HINTS: L2 eviction hints on x."""
    if CHUNKED:
        if EVEN_N:  # the width as a compile-time constant: loops of a known trip count, unrolled
            # (measured on an H200 at 4096x65536: RMSNorm 81% -> 90% of copy bandwidth)
            _norm_row_chunked(X, Y, W, B, NP2, stride_xm, stride_ym, eps, IS_RMS, HAS_W, HAS_B,
                              EVEN_N, TILE, HINTS)
        else:
            _norm_row_chunked(X, Y, W, B, N, stride_xm, stride_ym, eps, IS_RMS, HAS_W, HAS_B,
                              EVEN_N, TILE, HINTS)
    elif TILE // NP2 == 1:
        if HINTS:
            _norm_row(X, Y, W, B, N, stride_xm, stride_ym, eps, IS_RMS, HAS_W, HAS_B, EVEN_N, NP2, "evict_first")
        else:
            _norm_row(X, Y, W, B, N, stride_xm, stride_ym, eps, IS_RMS, HAS_W, HAS_B, EVEN_N, NP2, "")
    else:
        if HINTS:
            _norm_tile(X, Y, W, B, M, N, stride_xm, stride_ym, eps, IS_RMS, HAS_W, HAS_B, EVEN_N, TILE // NP2, NP2,
                       "evict_first")
        else:
            _norm_tile(X, Y, W, B, M, N, stride_xm, stride_ym, eps, IS_RMS, HAS_W, HAS_B, EVEN_N, TILE // NP2, NP2, "")


# -- bf16 rows held in registers as packed pairs (RESIDENT_N) -------------------------------------------
# Conversions go through inline asm on the GPU (ASM): asm that is not pure is never merged with another
# conversion of the same pair, so the compiler cannot keep a float32 copy of the row alive across the
# reductions (it did, and ptxas spilled). The CPU interpreter runs no asm: plain bit arithmetic there.


@triton.jit
def _pair_lo(v, ASM: tl.constexpr):
    """The low bf16 of each int32 pair, as float32."""
    if ASM:
        return tl.inline_asm_elementwise("shl.b32 $0, $1, 16;", "=r,r", [v], dtype=tl.float32, is_pure=False,
                                         pack=1)
    return (v << 16).to(tl.float32, bitcast=True)


@triton.jit
def _pair_hi(v, ASM: tl.constexpr):
    """The high bf16 of each int32 pair, as float32."""
    if ASM:
        return tl.inline_asm_elementwise("and.b32 $0, $1, 0xFFFF0000;", "=r,r", [v], dtype=tl.float32,
                                         is_pure=False, pack=1)
    return (v & -65536).to(tl.float32, bitcast=True)


@triton.jit
def _bf16_bits(f):
    """float32 -> bf16 bits (round to nearest even) in the low 16 bits of an int32."""
    b = f.to(tl.int32, bitcast=True)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF


@triton.jit
def _pair_pack(lo, hi, ASM: tl.constexpr):
    """Round lo and hi to bf16 and pack them, lo in the low half."""
    if ASM:
        return tl.inline_asm_elementwise("cvt.rn.bf16x2.f32 $0, $2, $1;", "=r,r,r", [lo, hi], dtype=tl.int32,
                                         is_pure=True, pack=1)
    return _bf16_bits(lo) | (_bf16_bits(hi) << 16)


@triton.jit
def _welford_combine(m1, q1, n1, m2, q2, n2):
    """Two (mean, M2, count) summaries as one (Chan et al.)."""
    n = n1 + n2
    d = m2 - m1
    w = tl.where(n == 0.0, 0.0, n2 / n)
    return m1 + d * w, q1 + q2 + d * d * n1 * w, n


@triton.jit
def _pick(c0, c1, c2, c3, j: tl.constexpr):
    return c0 if j == 0 else (c1 if j == 1 else (c2 if j == 2 else c3))


@triton.jit
def _load_pairs(ptr, L1: tl.constexpr):
    """int32 pairs read once. L1: through L1, marked evict_first there and in L2 (so a row prefetched into
    L2 for a later program outlives this one); else .cg, around L1 (which then keeps the weights)."""
    if L1:
        return tl.load(ptr, eviction_policy="evict_first")
    return tl.load(ptr, cache_modifier=".cg")


@triton.jit
def _load_row_pairs(X, row, M, N: tl.constexpr, stride_xm, PF: tl.constexpr, ASM: tl.constexpr,
                    L1: tl.constexpr = True):
    """Row `row` of bf16 X as 4 chunks of N // 8 int32 pairs, read once (_load_pairs; L1 as there).
    PF > 0 (GPU): then prefetch row + PF into L2, for the program that will read it."""
    BLOCK: tl.constexpr = N // 8
    pairs = (X + row * stride_xm).to(tl.pointer_type(tl.int32))
    cols = tl.arange(0, BLOCK)
    c0 = _load_pairs(pairs + cols, L1)
    c1 = _load_pairs(pairs + BLOCK + cols, L1)
    c2 = _load_pairs(pairs + 2 * BLOCK + cols, L1)
    c3 = _load_pairs(pairs + 3 * BLOCK + cols, L1)
    if PF > 0:
        if ASM:
            if row + PF < M:
                lines = (X + (row + PF) * stride_xm).to(tl.pointer_type(tl.int8)) + tl.arange(0, N * 2 // 128) * 128
                tl.inline_asm_elementwise("prefetch.global.L2 [$1]; mov.b32 $0, 0;", "=r,l", [lines],
                                          dtype=tl.int32, is_pure=False, pack=1)
    return c0, c1, c2, c3


@triton.jit
def _resident_stats(c0, c1, c2, c3, N: tl.constexpr, eps, IS_RMS: tl.constexpr, ASM: tl.constexpr):
    """(mean, rstd) of a row held as 4 chunks of int32 bf16 pairs (RMSNorm: mean 0). LayerNorm: each
    lane's 8 values give an exact mean and M2 from registers; the lanes merge in one Welford reduction."""
    BLOCK: tl.constexpr = N // 8
    acc = tl.zeros([BLOCK], tl.float32)
    if IS_RMS:
        mean = 0.0
        for j in tl.static_range(4):
            c = _pick(c0, c1, c2, c3, j)
            lo = _pair_lo(c, ASM)
            hi = _pair_hi(c, ASM)
            acc += lo * lo + hi * hi
        rstd = tl.math.rsqrt(tl.sum(acc, axis=0) / N + eps)
    else:
        for j in tl.static_range(4):
            c = _pick(c0, c1, c2, c3, j)
            acc += _pair_lo(c, ASM) + _pair_hi(c, ASM)
        lane_mean = acc / 8.0
        lane_m2 = tl.zeros([BLOCK], tl.float32)
        for j in tl.static_range(4):
            c = _pick(c0, c1, c2, c3, j)
            dl = _pair_lo(c, ASM) - lane_mean
            dh = _pair_hi(c, ASM) - lane_mean
            lane_m2 += dl * dl + dh * dh
        mean, m2, _ = tl.reduce((lane_mean, lane_m2, tl.full([BLOCK], 8.0, tl.float32)), 0, _welford_combine)
        rstd = tl.math.rsqrt(m2 / N + eps)
    return mean, rstd


@triton.jit
def _norm_resident(X, Y, W, B, M, N: tl.constexpr, stride_xm, stride_ym, eps,
                   IS_RMS: tl.constexpr, HAS_W: tl.constexpr, HAS_B: tl.constexpr, PF: tl.constexpr,
                   ASM: tl.constexpr):
    """One bf16 row of N columns per program, loaded once as 4 chunks of N // 8 int32 pairs and kept in
    registers through the statistics and the normalisation. PF > 0: prefetch the row PF programs later
    into L2 while this one computes (about one row per SM ahead).

    Cache hints, because every row re-reads weight and bias (LayerNorm: as many bytes as x and y together)
    and L2 throughput, not DRAM, was the limit (ncu, H200 4096x65536: L2 90%, DRAM 80%). L1 (256 KB with
    shared memory on an H100/H200) cannot hold both: the weight and the first half of the bias are kept
    there (evict_last), the second half of the bias goes around it (.cg). RMSNorm reads x around L1 so
    the whole weight stays; LayerNorm reads x through L1 as evict_first, whose L2 half keeps the
    prefetched rows alive (x read .cg timed 77%), and writes y evict_first in L2 too. Timed on the H200
    (docs/bench/kernels_h200.txt, cache hints): LayerNorm 87.2% -> 92.1% of copy, RMSNorm 93.7% -> 96.8%."""
    BLOCK: tl.constexpr = N // 8
    row = tl.program_id(0).to(tl.int64)
    y_pairs = (Y + row * stride_ym).to(tl.pointer_type(tl.int32))
    cols = tl.arange(0, BLOCK)
    c0, c1, c2, c3 = _load_row_pairs(X, row, M, N, stride_xm, PF, ASM, not IS_RMS)
    mean, rstd = _resident_stats(c0, c1, c2, c3, N, eps, IS_RMS, ASM)
    for j in tl.static_range(4):
        c = _pick(c0, c1, c2, c3, j)
        lo = (_pair_lo(c, ASM) - mean) * rstd
        hi = (_pair_hi(c, ASM) - mean) * rstd
        if HAS_W:
            w = tl.load(W.to(tl.pointer_type(tl.int32)) + j * BLOCK + cols, eviction_policy="evict_last")
            lo *= _pair_lo(w, ASM)
            hi *= _pair_hi(w, ASM)
        if HAS_B:
            b_ptr = B.to(tl.pointer_type(tl.int32)) + j * BLOCK + cols
            if j < 2:
                b = tl.load(b_ptr, eviction_policy="evict_last")
            else:
                b = tl.load(b_ptr, cache_modifier=".cg")
            lo += _pair_lo(b, ASM)
            hi += _pair_hi(b, ASM)
        if IS_RMS:
            tl.store(y_pairs + j * BLOCK + cols, _pair_pack(lo, hi, ASM))
        else:
            tl.store(y_pairs + j * BLOCK + cols, _pair_pack(lo, hi, ASM), eviction_policy="evict_first")


CONFIGS = rowwise_configs()
keep_config = rowwise_keep
_cfg = rowwise_config


def _prune(configs, named_args, **kwargs):
    np2 = {**named_args, **kwargs}["NP2"]  # launchers pass arguments by keyword
    return [c for c in configs if rowwise_keep(c, np2)] or [rowwise_interp_config(np2, MAX_FUSED_N)]


# tuned per power-of-two bucket of the width (and whether it is one), not per width
_tuned = triton.autotune(CONFIGS, key=["NP2", "EVEN_N", "IS_RMS", "HAS_W", "HAS_B"],
                         prune_configs_by={"early_config_prune": _prune})(_norm_kernel)


def _norm(x, weight, bias, eps, is_rms, out, config):
    x2, y2, out, M, N = as_rows(x, out)
    if M == 0 or N == 0:
        return out
    w = weight.contiguous() if weight is not None else x2  # dummy pointer when absent
    b = bias.contiguous() if bias is not None else x2
    if config is None and resident_fits(x2, y2, w, b) and not interpreting(_norm_resident):
        launch_resident(x2, y2, w, b, eps, is_rms, weight is not None, bias is not None)
        return out
    np2 = next_pow2(N)
    args = dict(X=x2, Y=y2, W=w, B=b, M=M, N=N, stride_xm=x2.stride(0), stride_ym=y2.stride(0), eps=eps,
                IS_RMS=is_rms, HAS_W=weight is not None, HAS_B=bias is not None, NP2=np2, EVEN_N=N == np2)
    launch(_tuned, _norm_kernel, rowwise_grid(M, np2), args, config, rowwise_interp_config(np2, MAX_FUSED_N))
    return out


def resident_fits(x2, y2, w, b) -> bool:
    """Whether the register-resident path serves these (M, N) rows: bf16 rows (and weights) of exactly
    RESIDENT_N columns, every row and vector 4-byte aligned (they are read and written as int32 pairs)."""
    tensors = (x2, y2, w, b)
    return (x2.shape[1] == RESIDENT_N and all(t.dtype == torch.bfloat16 for t in tensors)
            and all(t.data_ptr() % 4 == 0 for t in tensors) and x2.stride(0) % 2 == 0 and y2.stride(0) % 2 == 0)


def launch_resident(x2, y2, w, b, eps, is_rms, has_w, has_b, num_warps=32):
    """Launch _norm_resident on (M, N) bf16 rows, N a multiple of 8 * num_warps * 32 (tests call it with
    small rows; the launcher with RESIDENT_N and 32 warps)."""
    M, N = x2.shape
    asm = not interpreting(_norm_resident)
    # LayerNorm: prefetch about one row per SM ahead (+2.8 points at 4096x65536); RMSNorm timed 1 point
    # slower with it (docs/bench/kernels_h200.txt, 64K-row designs)
    pf = 0 if is_rms or not asm else torch.cuda.get_device_properties(x2.device).multi_processor_count
    _norm_resident[(M,)](x2, y2, w, b, M, N, x2.stride(0), y2.stride(0), eps, IS_RMS=is_rms, HAS_W=has_w,
                         HAS_B=has_b, PF=pf, ASM=asm, num_warps=num_warps)


def layer_norm(x, weight=None, bias=None, eps=1e-5, out=None, config=None):
    """LayerNorm over the last dim of x (any leading shape), weight/bias of shape (N,) or None."""
    return _norm(x, weight, bias, eps, False, out, config)


def rms_norm(x, weight=None, eps=1e-6, out=None, config=None):
    """RMSNorm over the last dim of x, weight of shape (N,) or None."""
    return _norm(x, weight, None, eps, True, out, config)


# The supported way to call the kernels from compiled and exported code: ops whose fake implementations
# state the output (x's shape and dtype, contiguous), so neither compiler traces into the launcher.
@torch.library.custom_op("compilelint::rms_norm", mutates_args=())
def rms_norm_op(x: torch.Tensor, weight: torch.Tensor | None, eps: float) -> torch.Tensor:
    """rms_norm as an op: one node of a torch.compile / torch.export graph."""
    return rms_norm(x, weight, eps)


@rms_norm_op.register_fake
def _(x, weight, eps):
    return torch.empty(x.shape, dtype=x.dtype, device=x.device)


@torch.library.custom_op("compilelint::layer_norm", mutates_args=())
def layer_norm_op(x: torch.Tensor, weight: torch.Tensor | None, bias: torch.Tensor | None, eps: float) -> torch.Tensor:
    """layer_norm as an op: one node of a torch.compile / torch.export graph."""
    return layer_norm(x, weight, bias, eps)


@layer_norm_op.register_fake
def _(x, weight, bias, eps):
    return torch.empty(x.shape, dtype=x.dtype, device=x.device)
