"""Cache hints on the 64K-column row kernels, timed side by side on a GPU (bf16, 65536 columns): which
loads go through L1 and with what eviction priority in L1 and L2, against what the package ships.

    PYTHONPATH=. python3 benchmarks/wide_rows_cache_hints.py

Why it is here: ncu on the H200 put the register-resident LayerNorm (norms._norm_resident) at 90% of L2
throughput and 80% of DRAM: each row re-reads weight and bias from L2 (256 KB, as many bytes as x and y
together), so L2, not DRAM, was the limit. L1 (256 KB with shared memory) can keep part of them. The
knobs of `hinted_norm` below (the kernel is _norm_resident's, with the hints as parameters):

* X_CG: x read with .cg (around L1; no L2 priority) instead of L1/L2 evict_first;
* B_L1: how many of bias's 4 chunks are read through L1 (evict_last); the rest .cg;
* Y_EF: y written evict_first in L2;
* PF: the L2 prefetch distance (rows), 0 for none.

Softmax: the shipped chunked kernel (one exponential per element, a second pass from L2) with its loops
unrolled at power-of-two widths, against the same kernel with the width a runtime argument (so runtime
loops; the code before session 6 looped with `range` over a compile-time width, which this is not), and
at 2112 rows
(16 waves of 132 programs) against 2048 (15.5 waves), to separate the tail wave from the kernel.
Every output is checked against float64 before it is timed.
"""

from __future__ import annotations

import os
import sys

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compilelint.kernels import norms, softmax  # noqa: E402
from compilelint.kernels._common import rowwise_config  # noqa: E402
from compilelint.kernels.norms import _load_row_pairs, _pair_hi, _pair_lo, _pair_pack, _pick, _resident_stats  # noqa: E402
from wide_rows_experiments import bench, copy_tbps  # noqa: E402


@triton.jit
def _pairs(P, j: tl.constexpr, BLOCK: tl.constexpr, cols, THROUGH_L1: tl.constexpr):
    if THROUGH_L1:
        return tl.load(P.to(tl.pointer_type(tl.int32)) + j * BLOCK + cols, eviction_policy="evict_last")
    return tl.load(P.to(tl.pointer_type(tl.int32)) + j * BLOCK + cols, cache_modifier=".cg")


@triton.jit
def hinted_norm(X, Y, W, B, M, N: tl.constexpr, stride_xm, stride_ym, eps, IS_RMS: tl.constexpr,
                HAS_B: tl.constexpr, PF: tl.constexpr, X_CG: tl.constexpr, B_L1: tl.constexpr, Y_EF: tl.constexpr):
    BLOCK: tl.constexpr = N // 8
    row = tl.program_id(0).to(tl.int64)
    y_pairs = (Y + row * stride_ym).to(tl.pointer_type(tl.int32))
    cols = tl.arange(0, BLOCK)
    c0, c1, c2, c3 = _load_row_pairs(X, row, M, N, stride_xm, PF, True, not X_CG)
    mean, rstd = _resident_stats(c0, c1, c2, c3, N, eps, IS_RMS, True)
    for j in tl.static_range(4):
        c = _pick(c0, c1, c2, c3, j)
        w = _pairs(W, j, BLOCK, cols, True)
        lo = (_pair_lo(c, True) - mean) * rstd * _pair_lo(w, True)
        hi = (_pair_hi(c, True) - mean) * rstd * _pair_hi(w, True)
        if HAS_B:
            b = _pairs(B, j, BLOCK, cols, j < B_L1)
            lo += _pair_lo(b, True)
            hi += _pair_hi(b, True)
        if Y_EF:
            tl.store(y_pairs + j * BLOCK + cols, _pair_pack(lo, hi, True), eviction_policy="evict_first")
        else:
            tl.store(y_pairs + j * BLOCK + cols, _pair_pack(lo, hi, True))


@triton.jit
def runtime_loop_softmax(X, Y, N, stride_xm, stride_ym, BLOCK_N: tl.constexpr):
    """softmax._softmax_chunked's fast path with the width N a runtime argument (the shipped code unrolls
    its loops over a compile-time width)."""
    row = tl.program_id(0).to(tl.int64)
    x_row = X + row * stride_xm
    y_row = Y + row * stride_ym
    cols = tl.arange(0, BLOCK_N)
    first = tl.load(x_row + cols, eviction_policy="evict_last").to(tl.float32) * 1.4426950408889634
    k = tl.max(first, axis=0)
    s_vec = tl.math.exp2(first - k)
    for start in range(BLOCK_N, N, BLOCK_N):
        x = tl.load(x_row + start + cols, eviction_policy="evict_last").to(tl.float32)
        s_vec += tl.math.exp2(x * 1.4426950408889634 - k)
    inv = 1.0 / tl.sum(s_vec, axis=0)
    n_chunks = tl.cdiv(N, BLOCK_N)
    for i in range(0, n_chunks):
        start = (n_chunks - 1 - i) * BLOCK_N
        x = tl.load(x_row + start + cols, eviction_policy="evict_first").to(tl.float32)
        tl.store(y_row + start + cols, (tl.math.exp2(x * 1.4426950408889634 - k) * inv).to(Y.dtype.element_ty))


NORM_VARIANTS = [  # (label, is_rms, PF, X_CG, B_L1, Y_EF)
    ("LayerNorm, session 5's hints (x evict_first, W and B evict_last)", False, 132, False, 4, False),
    ("LayerNorm, bias chunks 2-3 .cg", False, 132, False, 2, False),
    ("LayerNorm, y evict_first", False, 132, False, 4, True),
    ("LayerNorm, bias chunks 2-3 .cg, y evict_first (shipped)", False, 132, False, 2, True),
    ("LayerNorm, x .cg, bias chunks 2-3 .cg, y evict_first", False, 132, True, 2, True),
    ("LayerNorm, as shipped without the prefetch", False, 0, False, 2, True),
    ("RMSNorm, session 5's hints (x evict_first)", True, 0, False, 0, False),
    ("RMSNorm, x .cg (shipped)", True, 0, True, 0, False),
    ("RMSNorm, x .cg, y evict_first", True, 0, True, 0, True),
]


def main() -> None:
    copy = copy_tbps()
    torch.manual_seed(0)
    M, N = 4224, 65536  # 4096 rows for the norms; up to 4224 (32 x 132) for softmax
    x = torch.randn(M, N, device="cuda", dtype=torch.bfloat16) * 2 + 3
    w, b = (torch.randn(N, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    out = torch.empty_like(x)

    def report(label, fn, ref, rows):
        out.fill_(float("nan"))
        y = fn()
        err = ((y.double() - ref).norm() / ref.norm()).item()
        ms = bench(fn)
        print(f"{label:64s} {rows:5d} rows {ms * 1000:7.1f} us {2 * rows * N * 2 / ms / 1e9 / copy * 100:5.1f}% of copy"
              f"  rel.err {err:.1e}", flush=True)

    xn, on = x[:4096], out[:4096]
    refs = {False: F.layer_norm(xn.double(), (N,), w.double(), b.double(), 1e-5),
            True: norms.reference_rms(xn.double(), w.double(), 1e-5)}
    for label, is_rms, pf, x_cg, b_l1, y_ef in NORM_VARIANTS:
        def run(is_rms=is_rms, pf=pf, x_cg=x_cg, b_l1=b_l1, y_ef=y_ef):
            hinted_norm[(4096,)](xn, on, w, b, 4096, N, xn.stride(0), on.stride(0), 1e-5, IS_RMS=is_rms, HAS_B=not is_rms,
                                 PF=pf, X_CG=x_cg, B_L1=b_l1, Y_EF=y_ef, num_warps=32)
            return on
        report(label, run, refs[is_rms], 4096)
    report("layer_norm (the package)", lambda: norms.layer_norm(xn, w, b, 1e-5, out=on), refs[False], 4096)
    report("rms_norm (the package)", lambda: norms.rms_norm(xn, w, 1e-5, out=on), refs[True], 4096)
    del refs
    xs = x * 2
    chunked = rowwise_config(16384, 32, chunked=True, hints=True)
    for rows in (2048, 2112, 4096, 4224):
        xm, om = xs[:rows], out[:rows]
        ref = torch.softmax(xm.double(), -1)
        report("softmax, chunks of 16384, 32 warps, unrolled (shipped)",
               lambda: softmax.softmax(xm, out=om, config=chunked), ref, rows)
        def runtime_loops(xm=xm, om=om, rows=rows):
            runtime_loop_softmax[(rows,)](xm, om, N, xm.stride(0), om.stride(0), BLOCK_N=16384, num_warps=32)
            return om
        report("softmax, the same with a runtime width", runtime_loops, ref, rows)
        report("softmax (the package, autotuned)", lambda: softmax.softmax(xm, out=om), ref, rows)


if __name__ == "__main__":
    main()
