"""Wide-row (64K-column) designs timed side by side: rows held in registers as packed bf16 pairs (one
HBM read, no second pass through L2), with or without an L2 prefetch of the row a later program will
read, against what the package ships. Timed on a GPU; bf16 rows of 65536 columns.

    PYTHONPATH=. python3 benchmarks/wide_rows_experiments.py

Why it is here: at 64K columns a chunked kernel reads each row twice (the second time from L2) and
LayerNorm re-reads weight and bias from L2 for every row; ncu on the H200 showed the chunked LayerNorm at
80% of L2 throughput and 69% of DRAM. Holding the row takes 1024 threads x 32 registers of packed pairs,
so one program per SM; conversions go through norms' inline-asm helpers (`_pair_lo`, `_pair_hi`), which
the compiler cannot merge across passes (with plain conversions it kept float32 copies and spilled).
Session 5's figures (H200, torch 2.11, triton 3.6, fraction of a 2 GiB copy), against the chunked kernels:
RMSNorm 4096x65536 93.5% (chunked 90.1%); LayerNorm with two block reductions 82.6%, 84.7% with the
prefetch, and with exact per-lane statistics merged by one Welford reduction 84.2% / 87.0% (chunked
78.3%); softmax 2048x65536 75.9% / 82.8% (chunked 86.0%). norms.py ships the RMSNorm and the Welford +
prefetch LayerNorm designs (`_norm_resident`); this script keeps the ones it does not. Session 6 added a
persistent softmax whose next row's statistics pass is interleaved with the current row's normalising pass
(`softmax_pipelined`): 80.8% / 83.1% at 2048 / 4096 rows (chunks of 8192, 32 warps, one program per SM; the
best of 8 configs) against the shipped 87.5% / 90.2%.
Session 7 (the shipped kernel timed 86.9% / 89.9% in the same runs): the register-resident softmax with no
reduction before the exponentials (`_softmax_speculative`, resident_kernel KIND 3: the max of chunk 0 as
the reference, the rare overflowing row redone from memory; a fallback from the registers spilled 100
bytes) 84.2% / 88.2% read .cg without a prefetch, 79.4% / 82.7% through L1 with it, 71.2% / 72.3% .cg with
it; per-lane references (KIND 1, 56-104 bytes of spills) 61.6% / 62.9%; and a row split over 4-16
programs that exchange their segment statistics through global memory (`softmax_split`; counters reset by
the last program to leave, so repeated calls stay correct: checked) 70.0-74.8% / 72.6-77.5%: the wait
for the siblings costs more than the shorter programs gain.
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
from compilelint.kernels._common import interpreting  # noqa: E402
from compilelint.kernels.norms import _load_row_pairs, _pair_hi, _pair_lo, _pair_pack, _pick  # noqa: E402
from compilelint.kernels.softmax import _normalise_chunk, _online_stats  # noqa: E402


@triton.jit
def resident_kernel(X, Y, W, B, M, N: tl.constexpr, stride_xm, stride_ym, eps, BLOCK: tl.constexpr,
                    KIND: tl.constexpr, PF: tl.constexpr, ASM: tl.constexpr, L1: tl.constexpr = True):
    """The designs not shipped, over a row of 8 * BLOCK bf16 (4 chunks of BLOCK int32 pairs) held in
    registers: KIND 0 softmax (the row's max, then the sum); KIND 1 / 3 softmax with no reduction before
    the exponentials (`_softmax_speculative`: per-lane references / the max of chunk 0); KIND 2 LayerNorm
    with the mean, then the variance (two block reductions, where norms._norm_resident merges exact
    per-lane statistics in one). L1: x read through L1 (evict_first), else .cg."""
    row = tl.program_id(0).to(tl.int64)
    yi = (Y + row * stride_ym).to(tl.pointer_type(tl.int32))
    cols = tl.arange(0, BLOCK)
    c0, c1, c2, c3 = _load_row_pairs(X, row, M, N, stride_xm, PF, ASM, L1)
    L2E: tl.constexpr = 1.4426950408889634
    if KIND == 1 or KIND == 3:
        _softmax_speculative(X + row * stride_xm, Y + row * stride_ym, c0, c1, c2, c3, N, ASM, KIND == 3)
    elif KIND == 0:
        mv = tl.maximum(_pair_lo(c0, ASM), _pair_hi(c0, ASM))
        for j in tl.static_range(1, 4):
            c = _pick(c0, c1, c2, c3, j)
            mv = tl.maximum(mv, tl.maximum(_pair_lo(c, ASM), _pair_hi(c, ASM)))
        m = tl.max(mv, 0) * L2E
        m = tl.where(m == -float("inf"), 0.0, m)
        sv = tl.zeros([BLOCK], tl.float32)
        for j in tl.static_range(4):
            c = _pick(c0, c1, c2, c3, j)
            sv += tl.math.exp2(_pair_lo(c, ASM) * L2E - m) + tl.math.exp2(_pair_hi(c, ASM) * L2E - m)
        s = tl.sum(sv, 0)
        inv = 1.0 / tl.where(s == 0.0, 1.0, s)
        for j in tl.static_range(4):
            c = _pick(c0, c1, c2, c3, j)
            tl.store(yi + j * BLOCK + cols, _pair_pack(tl.math.exp2(_pair_lo(c, ASM) * L2E - m) * inv,
                                                      tl.math.exp2(_pair_hi(c, ASM) * L2E - m) * inv, ASM))
    else:
        sv = tl.zeros([BLOCK], tl.float32)
        for j in tl.static_range(4):
            c = _pick(c0, c1, c2, c3, j)
            sv += _pair_lo(c, ASM) + _pair_hi(c, ASM)
        mean = tl.sum(sv, 0) / N
        sv = tl.zeros([BLOCK], tl.float32)
        for j in tl.static_range(4):
            c = _pick(c0, c1, c2, c3, j)
            dl = _pair_lo(c, ASM) - mean
            dh = _pair_hi(c, ASM) - mean
            sv += dl * dl + dh * dh
        rstd = tl.math.rsqrt(tl.sum(sv, 0) / N + eps)
        for j in tl.static_range(4):
            c = _pick(c0, c1, c2, c3, j)
            w = tl.load(W.to(tl.pointer_type(tl.int32)) + j * BLOCK + cols, eviction_policy="evict_last")
            b = tl.load(B.to(tl.pointer_type(tl.int32)) + j * BLOCK + cols, eviction_policy="evict_last")
            lo = (_pair_lo(c, ASM) - mean) * rstd * _pair_lo(w, ASM) + _pair_lo(b, ASM)
            hi = (_pair_hi(c, ASM) - mean) * rstd * _pair_hi(w, ASM) + _pair_hi(b, ASM)
            tl.store(yi + j * BLOCK + cols, _pair_pack(lo, hi, ASM))


@triton.jit
def _softmax_speculative(x_row, y_row, c0, c1, c2, c3, N: tl.constexpr, ASM: tl.constexpr,
                         BLOCK_REF: tl.constexpr):
    """Softmax of a bf16 row held as 4 chunks of int32 pairs, with no full-row reduction before the
    exponentials: the reference is the max of chunk 0 (BLOCK_REF: one block reduction while chunks 1-3
    arrive) or each lane's own chunk-0 pair (no reduction; lanes merge at the end). Where the sum is not
    finite (a later value exceeds the reference by more than 127 in base 2, inf, nan, a -inf reference)
    the row is redone from memory after the registers are dead (an exact online pass, then normalising),
    so the rare path costs one more read and write but no registers (a fallback from the registers
    spilled: 100 bytes)."""
    BLOCK: tl.constexpr = N // 8
    L2E: tl.constexpr = 1.4426950408889634
    yi = y_row.to(tl.pointer_type(tl.int32))
    cols = tl.arange(0, BLOCK)
    ref = tl.maximum(_pair_lo(c0, ASM), _pair_hi(c0, ASM)) * L2E
    if BLOCK_REF:
        ref = tl.max(ref, 0)
    sv = tl.zeros([BLOCK], tl.float32)
    for j in tl.static_range(4):
        c = _pick(c0, c1, c2, c3, j)
        sv += tl.math.exp2(_pair_lo(c, ASM) * L2E - ref) + tl.math.exp2(_pair_hi(c, ASM) * L2E - ref)
    if BLOCK_REF:
        m = ref
        s = tl.sum(sv, 0)
    else:
        m = tl.max(ref, 0)
        s = tl.sum(sv * tl.math.exp2(ref - m), 0)
    ok = (s < float("inf")) & (s >= 1.0)  # the reference's own term is 1: below 1 only as nan
    inv = 1.0 / tl.where(ok, s, 1.0)
    m = tl.where(ok, m, 0.0)
    for j in tl.static_range(4):
        c = _pick(c0, c1, c2, c3, j)
        tl.store(yi + j * BLOCK + cols, _pair_pack(tl.math.exp2(_pair_lo(c, ASM) * L2E - m) * inv,
                                                  tl.math.exp2(_pair_hi(c, ASM) * L2E - m) * inv, ASM))
    if not ok:
        tl.debug_barrier()  # the speculative stores land first
        ccols = tl.arange(0, 2 * BLOCK)
        ref2, s2 = _online_stats(x_row, ccols, N, True, 2 * BLOCK)
        inv2 = 1.0 / tl.where(s2 == 0.0, 1.0, s2)
        for j in tl.static_range(4):
            _normalise_chunk(x_row, y_row, j * 2 * BLOCK, ccols, N, ref2, inv2, True, False)


@triton.jit
def _ld(ptr, mask, POLICY: tl.constexpr):
    return tl.load(ptr, mask=mask, other=-float("inf"), eviction_policy=POLICY).to(tl.float32)


@triton.jit
def softmax_pipelined(X, Y, M, N: tl.constexpr, stride_xm, stride_ym, BLOCK_N: tl.constexpr):
    """Persistent softmax (programs take rows pid, pid + G, ...): the statistics pass of a program's next row
    runs interleaved with the normalising pass of its current one, so each SM reads and writes throughout.
    Same arithmetic as softmax._softmax_chunked (one reference per row, online fallback)."""
    L2E: tl.constexpr = 1.4426950408889634
    NC: tl.constexpr = N // BLOCK_N
    pid = tl.program_id(0)
    G = tl.num_programs(0)
    cols = tl.arange(0, BLOCK_N)
    full = cols < BLOCK_N
    row = pid.to(tl.int64)
    first = _ld(X + row * stride_xm + cols, full, "evict_last") * L2E
    k = tl.max(first, axis=0)
    k = tl.where(k == -float("inf"), 0.0, k)
    s_vec = tl.math.exp2(first - k)
    for c in tl.static_range(1, NC):
        s_vec += tl.math.exp2(_ld(X + row * stride_xm + c * BLOCK_N + cols, full, "evict_last") * L2E - k)
    for i_row in range(0, tl.cdiv(M - pid, G)):
        row = pid.to(tl.int64) + i_row * G
        x_row = X + row * stride_xm
        y_row = Y + row * stride_ym
        nxt = row + G
        has_next = nxt < M
        n_row = X + tl.where(has_next, nxt, row) * stride_xm
        n_mask = cols < tl.where(has_next, BLOCK_N, 0)
        first_n = _ld(n_row + cols, n_mask, "evict_last") * L2E  # issued before this row's statistics settle
        s = tl.sum(s_vec, axis=0)
        ref = k
        if not ((s < float("inf")) & (s >= 5.421010862427522e-20)):
            ref, s = _online_stats(x_row, cols, N, True, BLOCK_N)
        inv = 1.0 / tl.where(s == 0.0, 1.0, s)
        # last chunk first (likeliest in L2), while the next row's first chunk arrives
        x = _ld(x_row + (NC - 1) * BLOCK_N + cols, full, "evict_first")
        tl.store(y_row + (NC - 1) * BLOCK_N + cols, (tl.math.exp2(x * L2E - ref) * inv).to(Y.dtype.element_ty))
        k_n = tl.max(first_n, axis=0)
        k_n = tl.where(k_n == -float("inf"), 0.0, k_n)
        s_n = tl.math.exp2(first_n - k_n)
        for i in tl.static_range(1, NC):
            start = (NC - 1 - i) * BLOCK_N
            xn = _ld(n_row + i * BLOCK_N + cols, n_mask, "evict_last")
            x = _ld(x_row + start + cols, full, "evict_first")
            tl.store(y_row + start + cols, (tl.math.exp2(x * L2E - ref) * inv).to(Y.dtype.element_ty))
            s_n += tl.math.exp2(xn * L2E - k_n)
        k = k_n
        s_vec = s_n


@triton.jit
def softmax_split(X, Y, STATS, SYNC, M, N: tl.constexpr, stride_xm, stride_ym, SEG: tl.constexpr,
                  BLOCK: tl.constexpr):
    """One row of N split over N // SEG programs (consecutive ids): each sums its segment against its own
    reference, publishes (reference, sum), waits for its siblings, merges the row's statistics and
    normalises its segment (from L2). SYNC (2 * M int32, zero between calls): per row an arrival count
    and a leaving count; the last program to leave resets both, so the buffer is zero for the next call."""
    L2E: tl.constexpr = 1.4426950408889634
    NSEG: tl.constexpr = N // SEG
    pid = tl.program_id(0)
    row = pid // NSEG
    seg = pid % NSEG
    x_seg = X + row.to(tl.int64) * stride_xm + seg * SEG
    y_seg = Y + row.to(tl.int64) * stride_ym + seg * SEG
    cols = tl.arange(0, BLOCK)
    first = tl.load(x_seg + cols, eviction_policy="evict_last").to(tl.float32) * L2E
    k = tl.max(first, axis=0)
    k = tl.where(k == -float("inf"), 0.0, k)
    sv = tl.math.exp2(first - k)
    for start in tl.static_range(BLOCK, SEG, BLOCK):
        sv += tl.math.exp2(tl.load(x_seg + start + cols, eviction_policy="evict_last").to(tl.float32) * L2E - k)
    s = tl.sum(sv, axis=0)
    if not ((s < float("inf")) & (s >= 5.421010862427522e-20)):
        k, s = _online_stats(x_seg, cols, SEG, True, BLOCK)
    tl.store(STATS + 2 * pid, k)
    tl.store(STATS + 2 * pid + 1, s)
    tl.atomic_add(SYNC + row, 1, sem="release")
    arrived = tl.atomic_add(SYNC + row, 0, sem="acquire")
    while arrived < NSEG:
        arrived = tl.atomic_add(SYNC + row, 0, sem="acquire")
    sib = tl.arange(0, NSEG)
    ks = tl.load(STATS + 2 * (row * NSEG + sib), cache_modifier=".cg")
    ss = tl.load(STATS + 2 * (row * NSEG + sib) + 1, cache_modifier=".cg")
    ref = tl.max(ks, axis=0)
    tot = tl.sum(ss * tl.math.exp2(ks - ref), axis=0)
    left = tl.atomic_add(SYNC + M + row, 1, sem="acq_rel")
    if left == NSEG - 1:  # every sibling has read the statistics: reset for the next call
        tl.atomic_xchg(SYNC + row, 0, sem="relaxed")
        tl.atomic_xchg(SYNC + M + row, 0, sem="relaxed")
    inv = 1.0 / tl.where(tot == 0.0, 1.0, tot)
    for i in tl.static_range(0, SEG // BLOCK):
        _normalise_chunk(x_seg, y_seg, SEG - (i + 1) * BLOCK, cols, SEG, ref, inv, True, True)


_SYNC = {}  # (device, M) -> (sync counters, per-segment statistics); counters are zero between calls


def split(x, out, seg=8192, block=2048, warps=8):
    M, N = x.shape
    key = (x.device, M)
    if key not in _SYNC:
        _SYNC[key] = (torch.zeros(2 * M, dtype=torch.int32, device=x.device),
                      torch.empty(2 * M * (N // seg), dtype=torch.float32, device=x.device))
    sync, stats = _SYNC[key]
    softmax_split[(M * (N // seg),)](x, out, stats, sync, M, N, x.stride(0), out.stride(0), SEG=seg, BLOCK=block,
                                     num_warps=warps)
    return out


def pipelined(x, out, block=8192, warps=32, per_sm=1):
    M, N = x.shape
    grid = min(M, torch.cuda.get_device_properties(x.device).multi_processor_count * per_sm)
    softmax_pipelined[(grid,)](x, out, M, N, x.stride(0), out.stride(0), BLOCK_N=block, num_warps=warps)
    return out


def resident(x, w, b, out, kind, eps, pf=0, num_warps=32, l1=True):
    M, N = x.shape
    assert N % 8 == 0 and x.dtype == torch.bfloat16 and x.stride(1) == 1
    resident_kernel[(M,)](x, out, w if w is not None else x, b if b is not None else x, M, N, x.stride(0),
                          out.stride(0), eps, BLOCK=N // 8, KIND=kind, PF=pf, ASM=not interpreting(resident_kernel),
                          L1=l1, num_warps=num_warps)
    return out


_CHUNKED = norms.rowwise_config(16384, 32, chunked=True)  # the chunked kernel's best at 64K (session 5 sweep)


def bench(fn) -> float:
    """Median ms of fn (triton's do_bench: CUDA events, L2 flushed between repetitions), after one call."""
    fn()
    torch.cuda.synchronize()
    return do_bench(fn, warmup=25, rep=100, return_mode="median")


def copy_tbps() -> float:
    """The ceiling: a 1 GiB bf16 device-to-device copy, in TB/s of bytes read + written (printed)."""
    a = torch.randn(1 << 29, device="cuda", dtype=torch.bfloat16)
    c = torch.empty_like(a)
    copy = (1 << 31) / bench(lambda: c.copy_(a)) / 1e9
    print(f"copy {copy:.2f} TB/s (2 GiB moved)")
    return copy


def main() -> None:
    copy = copy_tbps()
    torch.manual_seed(0)
    M, N = 4096, 65536
    x = torch.randn(M, N, device="cuda", dtype=torch.bfloat16)
    w, b = (torch.randn(N, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    out = torch.empty_like(x)
    cases = [
        ("softmax 2048", torch.softmax(x[:2048].float() * 4, -1), 2 * 2048 * N * 2, x[:2048] * 4, [
            ("shipped (chunked)", lambda xs: softmax.softmax(xs, out=out[:2048])),
            ("resident", lambda xs: resident(xs, None, None, out[:2048], 0, 0.0)),
            ("resident + L2 prefetch", lambda xs: resident(xs, None, None, out[:2048], 0, 0.0, pf=132)),
            ("speculative, chunk-0 ref", lambda xs: resident(xs, None, None, out[:2048], 3, 0.0, l1=False)),
            ("speculative, lane refs", lambda xs: resident(xs, None, None, out[:2048], 1, 0.0, l1=False)),
            ("persistent, pipelined", lambda xs: pipelined(xs, out[:2048])),
            ("split, 4 x 16384", lambda xs: split(xs, out[:2048], 16384, 2048, 8)),
            ("split, 8 x 8192", lambda xs: split(xs, out[:2048], 8192, 2048, 8))]),
        ("layer_norm", F.layer_norm(x.float(), (N,), w.float(), b.float(), 1e-5), 2 * M * N * 2 + 4 * N, x, [
            ("shipped (resident)", lambda xs: norms.layer_norm(xs, w, b, 1e-5, out=out)),
            ("chunked", lambda xs: norms.layer_norm(xs, w, b, 1e-5, out=out, config=_CHUNKED)),
            ("two reductions", lambda xs: resident(xs, w, b, out, 2, 1e-5)),
            ("two reductions + prefetch", lambda xs: resident(xs, w, b, out, 2, 1e-5, pf=132))]),
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
