"""A design the shipped norms do not use yet, timed against them: the whole 64K-column row held in
registers as packed bf16 pairs (one HBM read, no second pass through L2), optionally with an L2
prefetch of the row a later program will read. GPU only (inline PTX); bf16 rows of exactly 65536.

    PYTHONPATH=. python3 benchmarks/wide_rows_experiments.py

Why it is here: at 64K columns the shipped chunked kernels read each row twice (the second time from
L2) and LayerNorm re-reads weight and bias from L2 for every row; ncu on the H200 showed the chunked
LayerNorm at 80% of L2 throughput and 69% of DRAM. Holding the row in registers takes 1024 threads x 32
registers of packed pairs, so one program per SM; conversions go through inline asm (`_lo`, `_hi`) that
the compiler cannot merge across passes, or it keeps float32 copies alive and spills (ptxas: 0 spills
for softmax and RMSNorm, 8-16 bytes for LayerNorm). Session 5's figures (H200, torch 2.11, triton 3.6,
fraction of a 2 GiB copy): RMSNorm 4096x65536 93.7% (shipped 90.3%); LayerNorm 82.9%, 85.1% with the
prefetch (shipped 78.4%); softmax 2048x65536 75.6% / 82.8% (shipped: 86.7%).
"""

from __future__ import annotations

import os
import sys

import torch
import torch.nn.functional as F
import triton
import triton.language as tl
from triton.testing import do_bench

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from compilelint.kernels import norms, softmax  # noqa: E402


@triton.jit
def _lo(v):  # the low bf16 of each int32 pair, as float32; asm that is not pure is never merged
    return tl.inline_asm_elementwise("shl.b32 $0, $1, 16;", "=r,r", [v], dtype=tl.float32, is_pure=False, pack=1)


@triton.jit
def _hi(v):
    return tl.inline_asm_elementwise("and.b32 $0, $1, 0xFFFF0000;", "=r,r", [v], dtype=tl.float32, is_pure=False,
                                     pack=1)


@triton.jit
def _pack(lo, hi):  # round both to bf16 (nearest even), lo in the low half
    return tl.inline_asm_elementwise("cvt.rn.bf16x2.f32 $0, $2, $1;", "=r,r,r", [lo, hi], dtype=tl.int32,
                                     is_pure=True, pack=1)


@triton.jit
def _chunk(c0, c1, c2, c3, j: tl.constexpr):
    return c0 if j == 0 else (c1 if j == 1 else (c2 if j == 2 else c3))


@triton.jit
def resident_kernel(X, Y, W, B, M, N: tl.constexpr, stride_xm, stride_ym, eps, BLOCK: tl.constexpr,
                    KIND: tl.constexpr, PF: tl.constexpr):
    """KIND 0 softmax, 1 RMSNorm, 2 LayerNorm over a row of 8 * BLOCK bf16 (4 chunks of BLOCK int32)."""
    row = tl.program_id(0).to(tl.int64)
    xi = (X + row * stride_xm).to(tl.pointer_type(tl.int32))
    yi = (Y + row * stride_ym).to(tl.pointer_type(tl.int32))
    cols = tl.arange(0, BLOCK)
    c0 = tl.load(xi + cols, eviction_policy="evict_first")
    c1 = tl.load(xi + BLOCK + cols, eviction_policy="evict_first")
    c2 = tl.load(xi + 2 * BLOCK + cols, eviction_policy="evict_first")
    c3 = tl.load(xi + 3 * BLOCK + cols, eviction_policy="evict_first")
    if PF > 0:  # pull the row a program PF later will read into L2 while this one computes
        if row + PF < M:
            p = (X + (row + PF) * stride_xm).to(tl.pointer_type(tl.int8)) + tl.arange(0, N * 2 // 128) * 128
            tl.inline_asm_elementwise("prefetch.global.L2 [$1]; mov.b32 $0, 0;", "=r,l", [p], dtype=tl.int32,
                                      is_pure=False, pack=1)
    L2E: tl.constexpr = 1.4426950408889634
    if KIND == 0:
        mv = tl.maximum(_lo(c0), _hi(c0))
        for j in tl.static_range(1, 4):
            c = _chunk(c0, c1, c2, c3, j)
            mv = tl.maximum(mv, tl.maximum(_lo(c), _hi(c)))
        m = tl.max(mv, 0) * L2E
        m = tl.where(m == -float("inf"), 0.0, m)
        sv = tl.zeros([BLOCK], tl.float32)
        for j in tl.static_range(4):
            c = _chunk(c0, c1, c2, c3, j)
            sv += tl.math.exp2(_lo(c) * L2E - m) + tl.math.exp2(_hi(c) * L2E - m)
        s = tl.sum(sv, 0)
        inv = 1.0 / tl.where(s == 0.0, 1.0, s)
        for j in tl.static_range(4):
            c = _chunk(c0, c1, c2, c3, j)
            tl.store(yi + j * BLOCK + cols, _pack(tl.math.exp2(_lo(c) * L2E - m) * inv,
                                                 tl.math.exp2(_hi(c) * L2E - m) * inv))
    else:
        sv = tl.zeros([BLOCK], tl.float32)
        mean = 0.0
        if KIND == 2:
            for j in tl.static_range(4):
                c = _chunk(c0, c1, c2, c3, j)
                sv += _lo(c) + _hi(c)
            mean = tl.sum(sv, 0) / N
            sv = tl.zeros([BLOCK], tl.float32)
        for j in tl.static_range(4):
            c = _chunk(c0, c1, c2, c3, j)
            dl = _lo(c) - mean
            dh = _hi(c) - mean
            sv += dl * dl + dh * dh
        rstd = tl.math.rsqrt(tl.sum(sv, 0) / N + eps)
        for j in tl.static_range(4):
            c = _chunk(c0, c1, c2, c3, j)
            w = tl.load(W.to(tl.pointer_type(tl.int32)) + j * BLOCK + cols, eviction_policy="evict_last")
            lo = (_lo(c) - mean) * rstd * _lo(w)
            hi = (_hi(c) - mean) * rstd * _hi(w)
            if KIND == 2:
                b = tl.load(B.to(tl.pointer_type(tl.int32)) + j * BLOCK + cols, eviction_policy="evict_last")
                lo += _lo(b)
                hi += _hi(b)
            tl.store(yi + j * BLOCK + cols, _pack(lo, hi))


def resident(x, w, b, out, kind, eps, pf=0):
    M, N = x.shape
    assert N == 65536 and x.dtype == torch.bfloat16 and x.stride(1) == 1
    resident_kernel[(M,)](x, out, w if w is not None else x, b if b is not None else x, M, N, x.stride(0),
                          out.stride(0), eps, BLOCK=N // 8, KIND=kind, PF=pf, num_warps=32)
    return out


def main() -> None:
    def bench(fn):
        fn()
        torch.cuda.synchronize()
        return do_bench(fn, warmup=25, rep=100, return_mode="median")

    a = torch.randn(1 << 29, device="cuda", dtype=torch.bfloat16)
    c = torch.empty_like(a)
    copy = (1 << 31) / bench(lambda: c.copy_(a)) / 1e9
    del a, c
    print(f"copy {copy:.2f} TB/s (2 GiB moved)")
    torch.manual_seed(0)
    M, N = 4096, 65536
    x = torch.randn(M, N, device="cuda", dtype=torch.bfloat16)
    w, b = (torch.randn(N, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    out = torch.empty_like(x)
    cases = [
        ("softmax 2048", torch.softmax(x[:2048].float() * 4, -1), 2 * 2048 * N * 2, x[:2048] * 4, [
            ("shipped", lambda xs: softmax.softmax(xs, out=out[:2048])),
            ("resident", lambda xs: resident(xs, None, None, out[:2048], 0, 0.0)),
            ("resident + L2 prefetch", lambda xs: resident(xs, None, None, out[:2048], 0, 0.0, pf=132))]),
        ("rms_norm", norms.reference_rms(x.float(), w.float()), 2 * M * N * 2 + 2 * N, x, [
            ("shipped", lambda xs: norms.rms_norm(xs, w, 1e-6, out=out)),
            ("resident", lambda xs: resident(xs, w, None, out, 1, 1e-6)),
            ("resident + L2 prefetch", lambda xs: resident(xs, w, None, out, 1, 1e-6, pf=132))]),
        ("layer_norm", F.layer_norm(x.float(), (N,), w.float(), b.float(), 1e-5), 2 * M * N * 2 + 4 * N, x, [
            ("shipped", lambda xs: norms.layer_norm(xs, w, b, 1e-5, out=out)),
            ("resident", lambda xs: resident(xs, w, b, out, 2, 1e-5)),
            ("resident + L2 prefetch", lambda xs: resident(xs, w, b, out, 2, 1e-5, pf=132))]),
    ]
    for name, ref, nbytes, xs, variants in cases:
        for vn, fn in variants:
            y = fn(xs)
            err = ((y.double() - ref.double()).norm() / ref.double().norm()).item()
            ms = bench(lambda fn=fn: fn(xs))
            print(f"{name:13s} {vn:24s} {ms * 1000:7.1f} us {nbytes / ms / 1e9 / copy * 100:5.1f}% of copy  "
                  f"rel.err {err:.1e}")


if __name__ == "__main__":
    main()
