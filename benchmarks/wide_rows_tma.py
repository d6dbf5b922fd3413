"""Softmax over wide bf16 rows (2048 / 4096 x 65536) with the loads pipelined into shared memory.

Why: the shipped chunked softmax (compilelint/kernels/softmax.py) keeps its loads in registers; one
program of 32 warps per SM has at most 64 registers per thread, which bounds the bytes in flight per SM
(about 32 KB at chunks of 16384 bf16). Little's law at 4.2 TB/s and ~1 us of DRAM latency asks for about
that much per SM, so the register file may be what holds 2048x65536 at 87% of copy. Loads that land in
shared memory (cp.async, or the bulk tensor copy engine through a descriptor) are not bounded by it.

Variants (same arithmetic as the shipped kernel: one reference per row, the max of the first chunk; the
rare row whose sum is not finite takes the shipped online pass):
  ptr:  pointer loads in `tl.range(..., num_stages=S)` loops (Triton pipelines them with cp.async).
  tma:  a descriptor over x viewed as (M * N / 256, 256) with [R, 256] boxes (a box is at most 256 per
        dimension), loads pipelined by `tl.range(..., num_stages=S)`; y stored through a descriptor too.

Result (H200, torch 2.11, triton 3.6, session 8, one run; fraction of the 1 GiB copy, 4.25 TB/s): every
variant is slower than the shipped kernel (86.5% / 89.7% at 2048 / 4096 rows in the same run). Best ptr:
chunks of 8192, 8 warps, 4 stages, 73.7% / 76.0%; best tma: the same shape with pointer stores, 73.6% / 76.1%
(descriptor stores 72.2% / 75.6%). More stages helped every shape (2 stages: 42-63%), 16 warps hurt. So the
bytes in flight are not what holds the shipped kernel back: with loads no longer bound by registers the
kernel is slower, not faster. Raw output: docs/bench/kernels_h200.txt, session 8.

`softmax_persistent`: the shipped kernel's arithmetic with G programs looping over rows (G = 128: exactly 16
rows each at 2048 rows, so no half-filled last wave); checked against torch under the interpreter (`--check`, a
CI test). Timed in session 9 (`--only persistent`): best 86.3% / 89.8% of copy at 2048 / 4096 x 65536 against the
shipped 87.0% / 89.9% in the same run, so the last wave is not the gap either; not shipped.

    PYTHONPATH=. python3 benchmarks/wide_rows_tma.py          # on the GPU: time every variant
    PYTHONPATH=. python3 benchmarks/wide_rows_tma.py --aot    # no GPU: PTX of each (cp.async? bulk copies?)
    TRITON_INTERPRET=1 PYTHONPATH=. python3 benchmarks/wide_rows_tma.py --check   # no GPU: the persistent one
"""

from __future__ import annotations

import argparse
import os
import sys

import torch
import triton
import triton.language as tl

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from compilelint.kernels import softmax  # noqa: E402
from compilelint.kernels.softmax import _exp2_chunk, _normalise_chunk, _online_stats  # noqa: E402

LOG2E = 1.4426950408889634
W = 256  # the descriptor's row width (a TMA box is at most 256 elements in each dimension)


@triton.jit
def softmax_ptr(X, Y, N: tl.constexpr, BLOCK: tl.constexpr, STAGES: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = X + row * N
    y_row = Y + row * N
    cols = tl.arange(0, BLOCK)
    first = tl.load(x_row + cols).to(tl.float32) * 1.4426950408889634
    k = tl.max(first, axis=0)
    s_vec = tl.math.exp2(first - k)
    for start in tl.range(BLOCK, N, BLOCK, num_stages=STAGES):
        s_vec += tl.math.exp2(tl.load(x_row + start + cols).to(tl.float32) * 1.4426950408889634 - k)
    s = tl.sum(s_vec, axis=0)
    ref = k
    if not ((s < float("inf")) & (s >= 5.421010862427522e-20)):
        ref, s = _online_stats(x_row, cols, N, True, BLOCK)
    inv = 1.0 / s
    for i in tl.range(0, N // BLOCK, num_stages=STAGES):
        start = N - (i + 1) * BLOCK
        x = tl.load(x_row + start + cols).to(tl.float32)
        tl.store(y_row + start + cols, (tl.math.exp2(x * 1.4426950408889634 - ref) * inv).to(Y.dtype.element_ty))


@triton.jit
def softmax_tma(xd, yd, X, N: tl.constexpr, R: tl.constexpr, STAGES: tl.constexpr, TMA_STORE: tl.constexpr,
                Y):
    """xd, yd: descriptors over x, y viewed as (M * N // 256, 256) with [R, 256] boxes; row r of the
    softmax is rows r * N // 256 ... of that view."""
    row = tl.program_id(0)
    base = row * (N // 256)
    first = xd.load([base, 0]).to(tl.float32) * 1.4426950408889634
    k = tl.max(tl.max(first, axis=1), axis=0)
    s_vec = tl.math.exp2(first - k)
    for r in tl.range(R, N // 256, R, num_stages=STAGES):
        s_vec += tl.math.exp2(xd.load([base + r, 0]).to(tl.float32) * 1.4426950408889634 - k)
    s = tl.sum(tl.sum(s_vec, axis=1), axis=0)
    ref = k
    if not ((s < float("inf")) & (s >= 5.421010862427522e-20)):
        ref, s = _online_stats(X + row.to(tl.int64) * N, tl.arange(0, R * 256), N, True, R * 256)
    inv = 1.0 / s
    for i in tl.range(0, N // 256 // R, num_stages=STAGES):
        r = N // 256 - (i + 1) * R
        x = xd.load([base + r, 0]).to(tl.float32)
        y = (tl.math.exp2(x * 1.4426950408889634 - ref) * inv).to(tl.bfloat16)
        if TMA_STORE:
            yd.store([base + r, 0], y)
        else:
            offs = (base + r).to(tl.int64) * 256 + tl.arange(0, R)[:, None] * 256 + tl.arange(0, 256)[None, :]
            tl.store(Y + offs, y)


@triton.jit
def softmax_persistent(X, Y, M, N: tl.constexpr, BLOCK: tl.constexpr):
    """The shipped chunked softmax (statistics pass, then the normalising pass in reverse), with G programs
    looping over rows pid, pid + G, ... instead of one program per row: with G = 128 and 2048 rows every
    program takes exactly 16 rows, so no SM waits out the last, half-filled wave (the shortfall at 2048 rows
    is about 9 us of fixed cost, of which the ragged end may be half a row's time: 4 us)."""
    G = tl.num_programs(0)
    cols = tl.arange(0, BLOCK)
    for row in range(tl.program_id(0), M, G):
        r64 = tl.cast(row, tl.int64)
        x_row = X + r64 * N
        y_row = Y + r64 * N
        first = tl.load(x_row + cols, eviction_policy="evict_last").to(tl.float32) * 1.4426950408889634
        k = tl.max(first, axis=0)
        k = tl.where(k == -float("inf"), 0.0, k)
        s_vec = tl.math.exp2(first - k)
        for start in tl.static_range(BLOCK, N, BLOCK):
            s_vec += _exp2_chunk(x_row, start, cols, N, k, True, True)
        s = tl.sum(s_vec, axis=0)
        ref = k
        if not ((s < float("inf")) & (s >= 5.421010862427522e-20)):
            ref, s = _online_stats(x_row, cols, N, True, BLOCK)
        inv = 1.0 / tl.where(s == 0.0, 1.0, s)
        for i in tl.static_range(0, N // BLOCK):
            _normalise_chunk(x_row, y_row, N - (i + 1) * BLOCK, cols, N, ref, inv, True, True)


def persistent_variant(programs, block=16384, warps=32):
    def run(x, y):
        softmax_persistent[(min(programs, x.shape[0]),)](x, y, x.shape[0], x.shape[1], BLOCK=block, num_warps=warps)
        return y
    return f"persistent {programs:3d} programs chunk {block:5d} warps {warps:2d}", run


def check() -> None:
    """Under TRITON_INTERPRET=1 (or on a GPU): the persistent variant against torch (rows of 64K, one with a large value
    late in the row, so the online pass runs)."""
    x = torch.randn(6, 65536, device="cuda" if torch.cuda.is_available() else "cpu") * 4
    x[2, 60000] = 300.0
    y = torch.empty_like(x)
    persistent_variant(4, block=16384, warps=4)[1](x, y)
    err = ((y.double() - torch.softmax(x.double(), -1)).norm() / torch.softmax(x.double(), -1).norm()).item()
    assert err < 1e-5, err
    print(f"persistent softmax, 6 rows x 65536 on 4 programs: rel.err {err:.1e}")


def ptr_variant(block, warps, stages):
    def run(x, y):
        softmax_ptr[(x.shape[0],)](x, y, x.shape[1], BLOCK=block, STAGES=stages, num_warps=warps)
        return y
    return f"ptr   chunk {block:5d} warps {warps:2d} stages {stages}", run


def tma_variant(r, warps, stages, tma_store):
    def run(x, y):
        from triton.tools.tensor_descriptor import TensorDescriptor
        xv, yv = x.view(-1, W), y.view(-1, W)
        xd = TensorDescriptor(xv, list(xv.shape), list(xv.stride()), [r, W])
        yd = TensorDescriptor(yv, list(yv.shape), list(yv.stride()), [r, W])
        softmax_tma[(x.shape[0],)](xd, yd, x, x.shape[1], R=r, STAGES=stages, TMA_STORE=tma_store, Y=y,
                                   num_warps=warps)
        return y
    return f"tma   chunk {r * W:5d} warps {warps:2d} stages {stages} {'tma' if tma_store else 'ptr'}-store", run


def variants():
    out = [persistent_variant(g) for g in (128, 132, 256, 264)] + [persistent_variant(128, 8192, 16)]
    for block, warps in ((4096, 4), (4096, 8), (8192, 8), (8192, 16), (16384, 16)):
        for stages in (2, 3, 4):
            out.append(ptr_variant(block, warps, stages))
    for r, warps in ((8, 4), (16, 4), (16, 8), (32, 8), (32, 16)):
        for stages in (2, 3, 4):
            for tma_store in (True, False):
                out.append(tma_variant(r, warps, stages, tma_store))
    return out


def aot() -> None:
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from benchmarks.kernels_aot import ptxas_info
    target = GPUTarget("cuda", 90, 32)
    for block, warps, stages in ((4096, 8, 3), (8192, 16, 3)):
        sig = {"X": "*bf16", "Y": "*bf16", "N": "constexpr", "BLOCK": "constexpr", "STAGES": "constexpr"}
        k = triton.compile(ASTSource(softmax_ptr, sig, constexprs=dict(N=65536, BLOCK=block, STAGES=stages),
                                     attrs={(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]]}),
                           target=target, options=dict(num_warps=warps))
        ptx = k.asm["ptx"]
        print(f"ptr {block} w{warps} s{stages}: cp.async {ptx.count('cp.async.cg') + ptx.count('cp.async.ca')}, "
              f"bulk {ptx.count('cp.async.bulk')}, smem {k.metadata.shared} B, {ptxas_info(ptx, 90)}")
    for r, warps, stages, st in ((16, 4, 3, True), (16, 8, 3, False), (32, 8, 4, True)):
        d = f"tensordesc<bf16[{r}, {W}]>"
        sig = {"xd": d, "yd": d, "X": "*bf16", "N": "constexpr", "R": "constexpr", "STAGES": "constexpr",
               "TMA_STORE": "constexpr", "Y": "*bf16"}
        try:
            k = triton.compile(ASTSource(softmax_tma, sig, constexprs=dict(N=65536, R=r, STAGES=stages, TMA_STORE=st)),
                               target=target, options=dict(num_warps=warps))
        except Exception as e:  # noqa: BLE001 - a variant that does not compile is a result
            print(f"tma {r} w{warps} s{stages}: FAILED {type(e).__name__}: {str(e)[:300]}")
            continue
        ptx = k.asm["ptx"]
        print(f"tma R{r} w{warps} s{stages} store={'tma' if st else 'ptr'}: bulk tensor loads "
              f"{ptx.count('cp.async.bulk.tensor')}, mbarrier waits {ptx.count('mbarrier.try_wait')}, "
              f"smem {k.metadata.shared} B, {ptxas_info(ptx, 90)}")


def bench(rows_list=(2048, 4096), only=None) -> None:
    from triton.testing import do_bench
    n = 1 << 30
    a = torch.randn(n // 2, device="cuda", dtype=torch.bfloat16)
    b = torch.empty_like(a)
    copy = 2 * n / do_bench(lambda: b.copy_(a), warmup=50, rep=200) / 1e9
    del a, b
    print(f"copy {copy:.2f} TB/s (1 GiB bf16)", flush=True)
    N = 65536
    x = torch.randn(max(rows_list), N, device="cuda", dtype=torch.bfloat16) * 4
    y = torch.empty_like(x)
    for rows in rows_list:
        xs, ys = x[:rows], y[:rows]
        ref = torch.softmax(xs.double(), -1)
        nbytes = 2 * rows * N * 2
        cands = [("shipped (chunked)", lambda xs, ys: softmax.softmax(xs, out=ys))] + [
            v for v in variants() if not only or v[0].startswith(only)]
        for name, fn in cands:
            try:
                ys.fill_(float("nan"))
                fn(xs, ys)
                torch.cuda.synchronize()
                err = ((ys.double() - ref).norm() / ref.norm()).item()
                ms = do_bench(lambda: fn(xs, ys), warmup=50, rep=200)
                print(f"  {rows}x{N} {name:44s} {ms:.4f} ms {nbytes / ms / 1e9 / copy * 100:5.1f}% of copy "
                      f"rel.err {err:.1e}", flush=True)
            except Exception as e:  # noqa: BLE001 - a variant that fails is a result
                print(f"  {rows}x{N} {name:44s} FAILED {type(e).__name__}: {str(e)[:200]}", flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--aot", action="store_true")
    ap.add_argument("--check", action="store_true", help="correctness of the persistent variant (interpreter)")
    ap.add_argument("--only", help="time only the variants whose name starts with this")
    a = ap.parse_args()
    check() if a.check else aot() if a.aot else bench(only=a.only)
