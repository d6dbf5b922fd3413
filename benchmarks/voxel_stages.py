"""Where the shipped voxel scatter's time goes, stage by stage, on a GPU.

Why: the scatter (compilelint/kernels/voxel_scatter.py) reaches 75.6% of the copy ceiling end to end while a
gather of the same rows in pillar order runs at 95% (docs/bench/kernels_h200.txt, run 10), and removing the
prefix sum and the placement (benchmarks/voxel_experiments.py, sort-free slots) gained under 2% on uniform
clouds and lost 5-10% on clustered ones. This times the shipped path in two parts, the prep (zero the counts,
bin + count, prefix sum, placement) and the pillar pass, with the bytes each must move at least, and as bounds
a write of the grid alone and a copy of the features. Then prep variants: counting with `red` (inline PTX; Triton
emits `atom` even when the old value is unused), binning that keeps each point's rank so the placement needs no
atomics (`_cell_rank` + `_place_rank`), binning block sizes; and `_pillar_slots2`, the sort-free slots read
without waiting for the count (two dependent memory round trips per point instead of three).

Session 9 on the H200 (docs/bench/kernels_h200.txt): end to end 310.4 us = prep 72.4 us + pillar pass 242.8 us
(94.3% of copy on its own bytes); none of the variants gained enough to ship.

    PYTHONPATH=. python3 benchmarks/voxel_stages.py             # GPU
    TRITON_INTERPRET=1 PYTHONPATH=. python3 benchmarks/voxel_stages.py --check   # CPU: the variants' results
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

import torch
import triton
import triton.language as tl

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from benchmarks.voxel_experiments import _bin_slots, _overflow_add, bin_points  # noqa: E402
from compilelint.kernels import voxel_scatter  # noqa: E402
from compilelint.kernels.voxel_scatter import _cell_ids, _f32, _place, _pillar_reduce  # noqa: E402


@triton.jit
def _pillar_slots2(F, SLOTS, CNT, OUT, n_cells, C, stride_f, CAP: tl.constexpr, BLOCK_V: tl.constexpr,
                   BLOCK_C: tl.constexpr):
    """voxel_experiments._pillar_slots (mean only), but every slot id is loaded with the count, unmasked (a
    slot past the count holds garbage: clamped, and its row is masked out), so a row's load waits for one
    round trip, not two."""
    v = tl.program_id(0).to(tl.int64) * BLOCK_V + tl.arange(0, BLOCK_V)
    vm = v < n_cells
    cnt = tl.load(CNT + v, mask=vm, other=0)
    j = tl.arange(0, CAP)
    ids = tl.load(SLOTS + v[:, None] * CAP + j[None, :], mask=vm[:, None], other=0)
    for c0 in range(0, C, BLOCK_C):
        cc = c0 + tl.arange(0, BLOCK_C)
        cm = cc < C
        acc = tl.zeros([BLOCK_V, BLOCK_C], tl.float32)
        for k in tl.static_range(CAP):
            pt = tl.sum(tl.where(j[None, :] == k, ids, 0), axis=1).to(tl.int64)
            has = k < cnt
            m = has[:, None] & cm[None, :]
            f = tl.load(F + tl.where(has, pt, 0)[:, None] * stride_f + cc[None, :], mask=m, other=0.0)
            acc += f.to(tl.float32)
        y = acc / tl.maximum(cnt, 1).to(tl.float32)[:, None]
        tl.store(OUT + v[:, None] * C + cc[None, :], y, mask=vm[:, None] & cm[None, :])


@triton.jit
def _cell_ids_red(XYZ, BIDX, IDS, CNT, N, stride_xyz, ny, nx, B, x0, y0, z0, z1, inv_vx, inv_vy,
                  BLOCK: tl.constexpr):
    """voxel_scatter._cell_ids (with a batch index) counting with `red` (no value returned) instead of the
    `atom` Triton emits for tl.atomic_add even when its result is unused. GPU only (inline PTX)."""
    p = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    pm = p < N
    cell, ok = bin_points(XYZ, BIDX, p, N, stride_xyz, ny, nx, B, x0, y0, z0, z1, inv_vx, inv_vy, True, BLOCK)
    tl.inline_asm_elementwise(
        "{ .reg .pred p; setp.ne.b32 p, $2, 0; @p red.global.gpu.relaxed.add.u32 [$1], 1; mov.u32 $0, 0; }",
        "=r,l,r", [CNT + cell, ok.to(tl.int32)], dtype=tl.int32, is_pure=False, pack=1)
    tl.store(IDS + p, tl.where(ok, cell, B * ny * nx), mask=pm)


@triton.jit
def _cell_rank(XYZ, BIDX, IDS, RANK, CNT, N, stride_xyz, ny, nx, B, x0, y0, z0, z1, inv_vx, inv_vy,
               BLOCK: tl.constexpr):
    """Binning that keeps each point's rank in its pillar (the old count its atomic returns), so the
    placement needs no atomics: slot = end[cell] - 1 - rank."""
    p = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    pm = p < N
    cell, ok = bin_points(XYZ, BIDX, p, N, stride_xyz, ny, nx, B, x0, y0, z0, z1, inv_vx, inv_vy, True, BLOCK)
    rank = tl.atomic_add(CNT + cell, tl.full([BLOCK], 1, tl.int32), mask=ok, sem="relaxed")
    tl.store(IDS + p, tl.where(ok, cell, B * ny * nx), mask=pm)
    tl.store(RANK + p, rank, mask=ok)


@triton.jit
def _place_rank(IDS, RANK, ENDS, PERM, N, n_cells, BLOCK: tl.constexpr):
    p = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    cell = tl.load(IDS + p, mask=p < N, other=n_cells)
    keep = cell < n_cells
    rank = tl.load(RANK + p, mask=keep, other=0)
    end = tl.load(ENDS + cell, mask=keep, other=0)
    tl.store(PERM + end - 1 - rank, p.to(tl.int32), mask=keep)


def slots2(xyz, feats, pc_range, voxel_size, batch_idx, batch_size, cap=4, block_v=16, warps=4):
    """The sort-free mean with _pillar_slots2 as its pillar pass: (mean channels-last, counts)."""
    ny, nx = voxel_scatter.grid_shape(pc_range, voxel_size)
    N, C = feats.shape
    n_cells = batch_size * ny * nx
    dev = feats.device
    out = torch.empty(batch_size, C, ny, nx, dtype=torch.float32, device=dev, memory_format=torch.channels_last)
    counts = torch.zeros(batch_size, ny, nx, dtype=torch.int32, device=dev)
    slots = torch.empty(n_cells * cap, dtype=torch.int32, device=dev)
    ovf = torch.empty(2 * N, dtype=torch.int32, device=dev)
    ovf_n = torch.zeros(1, dtype=torch.int32, device=dev)
    x0, y0, z0, _, _, z1 = (float(v) for v in pc_range)
    inv = [_f32(1.0 / voxel_size[0]), _f32(1.0 / voxel_size[1])]
    _bin_slots[(triton.cdiv(N, 1024),)](xyz, batch_idx, counts, slots, ovf, ovf_n, N, xyz.stride(0), ny, nx,
                                       batch_size, x0, y0, z0, z1, inv[0], inv[1], CAP=cap, HAS_BIDX=True,
                                       BLOCK=1024, num_warps=4)
    _pillar_slots2[(triton.cdiv(n_cells, block_v),)](feats, slots, counts, out, n_cells, C, feats.stride(0),
                                                     CAP=cap, BLOCK_V=block_v,
                                                     BLOCK_C=min(64, triton.next_power_of_2(C)), num_warps=warps)
    _overflow_add[(max(1, min(triton.cdiv(N, 64), 1056)),)](feats, ovf, ovf_n, counts, out, C, feats.stride(0),
                                                           BLOCK=64, BLOCK_C=min(64, triton.next_power_of_2(C)),
                                                           IS_MAX=False, num_warps=4)
    return out, counts


def cloud(n, clustered, dev, span=(74.0, 84.0, 6.0), lo=(-2.0, -42.0, -4.0), centre=(10.0, 0.0), sigma=5.0):
    xyz = torch.rand(n, 3, device=dev) * torch.tensor(span, device=dev) + torch.tensor(lo, device=dev)
    if clustered:  # LiDAR-like: half the points near the sensor
        xyz[: n // 2, :2] = torch.randn(n // 2, 2, device=dev) * sigma + torch.tensor(centre, device=dev)
    return xyz


def mean_by_rank(xyz, feats, pc_range, voxel_size, batch_idx, batch_size):
    """The shipped mean with the rank-keeping binning and the atomic-free placement (prep_rank in bench)."""
    ny, nx = voxel_scatter.grid_shape(pc_range, voxel_size)
    N, C = feats.shape
    n_cells = batch_size * ny * nx
    dev = feats.device
    mean = torch.empty(batch_size, C, ny, nx, dtype=torch.float32, device=dev, memory_format=torch.channels_last)
    counts = torch.zeros(batch_size, ny, nx, dtype=torch.int32, device=dev)
    ids, rank, perm = (torch.empty(N, dtype=torch.int32, device=dev) for _ in range(3))
    x0, y0, z0, _, _, z1 = (float(v) for v in pc_range)
    inv = [_f32(1.0 / voxel_size[0]), _f32(1.0 / voxel_size[1])]
    g = (triton.cdiv(N, 1024),)
    _cell_rank[g](xyz, batch_idx, ids, rank, counts, N, xyz.stride(0), ny, nx, batch_size, x0, y0, z0, z1, inv[0],
                  inv[1], BLOCK=1024, num_warps=4)
    ends = torch.cumsum(counts.view(-1), 0, dtype=torch.int32)
    _place_rank[g](ids, rank, ends, perm, N, n_cells, BLOCK=1024, num_warps=4)
    starts = ends - counts.view(-1)
    _pillar_reduce[(triton.cdiv(n_cells, 16),)](feats, perm, counts, starts, mean, n_cells, C, feats.stride(0),
                                                BLOCK_V=16, BLOCK_C=min(64, triton.next_power_of_2(C)), UNROLL=2,
                                                num_warps=4)
    return mean, counts


def check() -> None:
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    pc, vs = (0.0, -4.0, -3.0, 6.4, 4.0, 1.0), (0.4, 0.5)
    torch.manual_seed(0)
    for n, c, b, clustered in ((600, 5, 2, False), (900, 7, 1, True)):
        xyz = cloud(n, clustered, dev, span=(8.0, 10.0, 5.0), lo=(-1.0, -5.0, -3.5), centre=(1.0, 0.0), sigma=0.3)
        feats = torch.randn(n, c, device=dev)
        bidx = torch.randint(0, b, (n,), device=dev)
        ref, rcounts = voxel_scatter.reference(xyz, feats.double(), pc, vs, bidx, b)
        for fn in (slots2, mean_by_rank):
            out, counts = fn(xyz, feats, pc, vs, bidx, b)
            assert torch.equal(counts.cpu(), rcounts.cpu())
            err = ((out.double() - ref).norm() / ref.norm()).item()
            assert err < 1e-5, (fn.__name__, n, c, b, clustered, err)
        print(f"N={n} C={c} B={b} clustered={clustered}: rel.err {err:.1e}, most in a pillar {counts.max().item()}")


def bench() -> None:
    from triton.testing import do_bench

    def t(fn):
        fn()
        torch.cuda.synchronize()
        return statistics.median(do_bench(fn, warmup=20, rep=100) for _ in range(3))

    pc, vs = (0.0, -39.68, -3.0, 69.12, 39.68, 1.0), (0.16, 0.16)  # as benchmarks/kernels.py b_voxel
    B, C, N = 8, 64, 2_000_000
    n = 1 << 30
    a = torch.randn(n // 2, device="cuda", dtype=torch.bfloat16)
    bb = torch.empty_like(a)
    copy = 2 * n / t(lambda: bb.copy_(a)) / 1e9
    del a, bb
    print(f"copy {copy:.2f} TB/s", flush=True)
    ny, nx = voxel_scatter.grid_shape(pc, vs)
    n_cells = B * ny * nx
    x0, y0, z0, _, _, z1 = pc
    inv = [_f32(1.0 / vs[0]), _f32(1.0 / vs[1])]
    g = (triton.cdiv(N, 1024),)
    torch.manual_seed(0)
    for clustered in (False, True):
        kind = "clustered" if clustered else "uniform"
        xyz = cloud(N, clustered, "cuda")
        feats = torch.randn(N, C, device="cuda")
        bidx = torch.randint(0, B, (N,), device="cuda")
        total_bytes = N * (12 + 4 * C + 8) + n_cells * (4 * C + 4)  # the figure benchmarks/kernels.py uses
        mean = torch.empty(B, C, ny, nx, device="cuda", memory_format=torch.channels_last)
        counts = torch.zeros(B, ny, nx, device="cuda", dtype=torch.int32)
        ref, rcounts = voxel_scatter.reference(xyz, feats.double(), pc, vs, bidx, B)
        e2e = t(lambda: voxel_scatter.voxel_scatter_mean(xyz, feats, pc, vs, bidx, B, out=(mean, counts)))
        cfg = next(iter(voxel_scatter._tuned.cache.values()))
        ids = torch.empty(N, dtype=torch.int32, device="cuda")
        rank = torch.empty(N, dtype=torch.int32, device="cuda")
        perm = torch.empty(N, dtype=torch.int32, device="cuda")
        cargs = (N, xyz.stride(0), ny, nx, B, x0, y0, z0, z1, inv[0], inv[1])

        def binning(block=1024, warps=4):
            _cell_ids[(triton.cdiv(N, block),)](xyz, bidx, ids, counts, *cargs, HAS_BIDX=True, BLOCK=block,
                                                num_warps=warps)

        def prep():  # the shipped path up to the pillar pass: (perm, starts)
            counts.zero_()
            binning()
            starts = torch.cumsum(counts.view(-1), 0, dtype=torch.int32)
            _place[g](ids, starts, perm, N, n_cells, BLOCK=1024, num_warps=4)
            return starts

        def prep_rank():  # binning keeps ranks; a placement without atomics: (perm, starts)
            counts.zero_()
            _cell_rank[g](xyz, bidx, ids, rank, counts, *cargs, BLOCK=1024, num_warps=4)
            ends = torch.cumsum(counts.view(-1), 0, dtype=torch.int32)
            _place_rank[g](ids, rank, ends, perm, N, n_cells, BLOCK=1024, num_warps=4)
            return ends - counts.view(-1)

        def prep_red():  # the shipped path with a `red` count
            counts.zero_()
            _cell_ids_red[g](xyz, bidx, ids, counts, *cargs, BLOCK=1024, num_warps=4)
            starts = torch.cumsum(counts.view(-1), 0, dtype=torch.int32)
            _place[g](ids, starts, perm, N, n_cells, BLOCK=1024, num_warps=4)
            return starts

        def pillar(starts):
            _pillar_reduce[(triton.cdiv(n_cells, cfg.kwargs["BLOCK_V"]),)](
                feats, perm, counts, starts, mean, n_cells, C, feats.stride(0), IS_MAX=False,
                num_warps=cfg.num_warps, **cfg.kwargs)

        for name, fn in (("rank", prep_rank), ("red", prep_red), ("shipped", prep)):
            starts = fn()
            pillar(starts)
            err = ((mean.double() - ref).norm() / ref.norm()).item()
            assert torch.equal(counts.cpu(), rcounts.cpu()) and err < 1e-5, (name, err)
        starts = prep()  # what the pillar pass reads below
        rows = [  # (stage, ms, fewest bytes it must move)
            ("end to end (voxel_scatter_mean)", e2e, total_bytes),
            ("prep, shipped: zero + bin + cumsum + place", t(prep), N * (12 + 8 + 4 + 8) + 16 * n_cells),
            ("prep, ranks kept: zero + bin/rank + cumsum + place", t(prep_rank), None),
            ("prep, shipped with `red` counts", t(prep_red), None),
            (f"pillar pass ({cfg.kwargs}, {cfg.num_warps} warps)", t(lambda: pillar(starts)),
             N * (4 * C + 4) + n_cells * (4 * C + 8)),
            ("  zero counts", t(lambda: counts.zero_()), 4 * n_cells),
            ("  prefix sum (torch.cumsum)", t(lambda: torch.cumsum(counts.view(-1), 0, dtype=torch.int32)),
             8 * n_cells),
            ("bound: write the grid (mean.zero_())", t(lambda: mean.zero_()), n_cells * 4 * C),
            ("bound: copy the features", t(lambda: torch.empty_like(feats).copy_(feats)), 2 * N * 4 * C),
        ]
        for block in (512, 1024, 2048, 4096):
            for warps in (4, 8):
                def bw(block=block, warps=warps):
                    counts.zero_()
                    binning(block, warps)
                rows.append((f"  zero + bin, BLOCK {block}, {warps} warps", t(bw), None))
        for k in (16,):
            rows.append((f"sort-free slots, parallel slot loads (BLOCK_V {k})",
                         t(lambda k=k: slots2(xyz, feats, pc, vs, bidx, B, block_v=k)), total_bytes))
        err = ((slots2(xyz, feats, pc, vs, bidx, B)[0].double() - ref).norm() / ref.norm()).item()
        print(f"{kind}: most points in a pillar {rcounts.max().item()}, non-empty pillars "
              f"{int((rcounts > 0).sum())} of {n_cells}; slots2 rel.err {err:.1e}", flush=True)
        for name, ms, nbytes in rows:
            frac = f"{nbytes / 1e6:7.1f} MB  {nbytes / ms / 1e9 / copy * 100:5.1f}% of copy" if nbytes else ""
            print(f"  {kind:9s} {name:70s} {ms * 1e3:8.1f} us  {frac}", flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="correctness of the new pass only (TRITON_INTERPRET=1)")
    check() if ap.parse_args().check else bench()
