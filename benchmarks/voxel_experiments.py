"""Voxel scatter without a sort: each pillar's first CAP points go to fixed slots, the rest to an overflow list.

Why: the shipped kernel (compilelint/kernels/voxel_scatter.py) groups points by pillar with a counting sort:
bin and count, a prefix sum, an atomic placement, then one pass over the pillars. On the H200 (2M points x 64
channels, 8 x 496 x 432 pillars; docs/bench/kernels_h200.txt, runs 9-10) it takes 0.311 ms, 75.6% of copy,
while a gather of the same rows in pillar order alone runs at 95%: the pillar pass is near that bound, and the
prefix sum and the placement cost most of the rest. Here neither exists:

  1. `_bin_slots`: each point's pillar; its rank in the pillar is the old value of the pillar's counter (one
     integer atomic, as the shipped binning already does); ranks below CAP write the point's index to
     SLOTS[pillar * CAP + rank], the others append (point, pillar) to an overflow list (one more atomic).
  2. `_pillar_slots`: every pillar once, its first min(count, CAP) points read from its own slots (contiguous),
     mean (sum / count) or max written, 0 where empty: the shipped pillar pass, minus the perm indirection.
  3. `_overflow_add`: each overflow point adds feature / count into its pillar's mean with a float atomic (or
     an atomic max), over a fixed grid. With the bench's uniform points (2M in 1.7M pillars, Poisson) and CAP 4
     about 1% of the points overflow; clustered clouds overflow more (the bench times both).

Sums are in no fixed order (as the shipped non-deterministic path). Checked against the float64 reference under
TRITON_INTERPRET=1 (`--check`). Timed on the H200 in session 9 (docs/bench/kernels_h200.txt): best uniform 0.3125
ms vs the package's 0.3174; on a clustered cloud every config is slower (best 0.3510 vs 0.3353 ms). Not shipped:
benchmarks/voxel_stages.py shows why removing the prefix sum and the placement gains so little.

    TRITON_INTERPRET=1 PYTHONPATH=. python3 benchmarks/voxel_experiments.py --check   # CPU, small sizes
    PYTHONPATH=. python3 benchmarks/voxel_experiments.py                           # GPU: time against the package
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
from compilelint.kernels import voxel_scatter  # noqa: E402
from compilelint.kernels.voxel_scatter import _f32  # noqa: E402


@triton.jit
def bin_points(XYZ, BIDX, p, N, stride_xyz, ny, nx, B, x0, y0, z0, z1, inv_vx, inv_vy, HAS_BIDX: tl.constexpr,
               BLOCK: tl.constexpr):
    """(cell, ok) of points p: the binning of voxel_scatter._cell_ids (pillar (b * ny + iy) * nx + ix, ok where the
    point is in range and has a valid batch index), shared by the experiments' binning kernels here and in
    benchmarks/voxel_stages.py."""
    pm = p < N
    x = tl.load(XYZ + p * stride_xyz, mask=pm, other=0.0).to(tl.float32)
    y = tl.load(XYZ + p * stride_xyz + 1, mask=pm, other=0.0).to(tl.float32)
    z = tl.load(XYZ + p * stride_xyz + 2, mask=pm, other=0.0).to(tl.float32)
    fx = tl.math.floor((x - x0) * inv_vx)
    fy = tl.math.floor((y - y0) * inv_vy)
    ok = pm & (fx >= 0) & (fx < nx) & (fy >= 0) & (fy < ny) & (z >= z0) & (z < z1)
    ix = tl.where(ok, fx, 0).to(tl.int32)
    iy = tl.where(ok, fy, 0).to(tl.int32)
    if HAS_BIDX:
        b = tl.load(BIDX + p, mask=pm, other=0)
        ok = ok & (b >= 0) & (b < B)
        b = tl.where(ok, b, 0).to(tl.int32)
    else:
        b = tl.zeros([BLOCK], tl.int32)
    return (b * ny + iy) * nx + ix, ok


@triton.jit
def _bin_slots(XYZ, BIDX, CNT, SLOTS, OVF, OVF_N, N, stride_xyz, ny, nx, B, x0, y0, z0, z1, inv_vx, inv_vy,
               CAP: tl.constexpr, HAS_BIDX: tl.constexpr, BLOCK: tl.constexpr):
    """Binning as voxel_scatter._cell_ids, then each kept point's slot: SLOTS[cell * CAP + rank] for the first
    CAP points of a pillar, else the overflow list OVF[k] = (point, cell), k from the OVF_N counter."""
    p = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    cell, ok = bin_points(XYZ, BIDX, p, N, stride_xyz, ny, nx, B, x0, y0, z0, z1, inv_vx, inv_vy, HAS_BIDX, BLOCK)
    rank = tl.atomic_add(CNT + cell, tl.full([BLOCK], 1, tl.int32), mask=ok, sem="relaxed")
    slotted = ok & (rank < CAP)
    tl.store(SLOTS + cell.to(tl.int64) * CAP + rank, p.to(tl.int32), mask=slotted)
    spill = ok & (rank >= CAP)
    k = tl.atomic_add(OVF_N + tl.zeros([BLOCK], tl.int32), tl.full([BLOCK], 1, tl.int32), mask=spill,
                      sem="relaxed")
    tl.store(OVF + 2 * k.to(tl.int64), p.to(tl.int32), mask=spill)
    tl.store(OVF + 2 * k.to(tl.int64) + 1, cell, mask=spill)


@triton.jit
def _pillar_slots(F, SLOTS, CNT, OUT, n_cells, C, stride_f, CAP: tl.constexpr, BLOCK_V: tl.constexpr,
                  BLOCK_C: tl.constexpr, IS_MAX: tl.constexpr):
    v = tl.program_id(0).to(tl.int64) * BLOCK_V + tl.arange(0, BLOCK_V)
    vm = v < n_cells
    cnt = tl.load(CNT + v, mask=vm, other=0)
    for c0 in range(0, C, BLOCK_C):
        cc = c0 + tl.arange(0, BLOCK_C)
        cm = cc < C
        if IS_MAX:
            acc = tl.full([BLOCK_V, BLOCK_C], -float("inf"), tl.float32)
        else:
            acc = tl.zeros([BLOCK_V, BLOCK_C], tl.float32)
        for j in tl.static_range(CAP):
            has = j < cnt
            pt = tl.load(SLOTS + v * CAP + j, mask=has, other=0).to(tl.int64)
            m = has[:, None] & cm[None, :]
            if IS_MAX:
                f = tl.load(F + pt[:, None] * stride_f + cc[None, :], mask=m, other=-float("inf"))
                acc = tl.maximum(acc, f.to(tl.float32))
            else:
                f = tl.load(F + pt[:, None] * stride_f + cc[None, :], mask=m, other=0.0)
                acc += f.to(tl.float32)
        if IS_MAX:
            y = tl.where((cnt > 0)[:, None], acc, 0.0)
        else:
            y = acc / tl.maximum(cnt, 1).to(tl.float32)[:, None]
        tl.store(OUT + v[:, None] * C + cc[None, :], y, mask=vm[:, None] & cm[None, :])


@triton.jit
def _overflow_add(F, OVF, OVF_N, CNT, OUT, C, stride_f, BLOCK: tl.constexpr, BLOCK_C: tl.constexpr,
                  IS_MAX: tl.constexpr):
    """Grid-stride over the overflow list, whose length (OVF_N) is known only on the GPU: a fixed grid, so an
    empty list costs one small launch, not one program per point."""
    n_ovf = tl.load(OVF_N)
    for start in range(tl.program_id(0) * BLOCK, n_ovf, tl.num_programs(0) * BLOCK):
        i = start + tl.arange(0, BLOCK)
        im = i < n_ovf
        pt = tl.load(OVF + 2 * i.to(tl.int64), mask=im, other=0).to(tl.int64)
        cell = tl.load(OVF + 2 * i.to(tl.int64) + 1, mask=im, other=0).to(tl.int64)
        cnt = tl.load(CNT + cell, mask=im, other=1).to(tl.float32)
        for c0 in range(0, C, BLOCK_C):
            cc = c0 + tl.arange(0, BLOCK_C)
            m = im[:, None] & (cc < C)[None, :]
            f = tl.load(F + pt[:, None] * stride_f + cc[None, :], mask=m, other=0.0).to(tl.float32)
            if IS_MAX:
                tl.atomic_max(OUT + cell[:, None] * C + cc[None, :], f, mask=m, sem="relaxed")
            else:
                tl.atomic_add(OUT + cell[:, None] * C + cc[None, :], f / cnt[:, None], mask=m, sem="relaxed")


def voxel_scatter_slots(xyz, feats, pc_range, voxel_size, batch_idx=None, batch_size=1, is_max=False, cap=4,
                        block_v=16, block_c=64, warps=4):
    """Same results as voxel_scatter.voxel_scatter_mean / _max (mean or max, counts); channels-last."""
    ny, nx = voxel_scatter.grid_shape(pc_range, voxel_size)
    N, C = feats.shape
    n_cells = batch_size * ny * nx
    dev = feats.device
    out = torch.empty(batch_size, C, ny, nx, dtype=torch.float32, device=dev, memory_format=torch.channels_last)
    counts = torch.zeros(batch_size, ny, nx, dtype=torch.int32, device=dev)
    slots = torch.empty(n_cells * cap, dtype=torch.int32, device=dev)  # read only below each pillar's count
    ovf = torch.empty(2 * N, dtype=torch.int32, device=dev)
    ovf_n = torch.zeros(1, dtype=torch.int32, device=dev)
    x0, y0, z0, _, _, z1 = (float(v) for v in pc_range)
    inv = [_f32(1.0 / voxel_size[0]), _f32(1.0 / voxel_size[1])]
    bidx = batch_idx.contiguous() if batch_idx is not None else xyz
    blk = 1024
    _bin_slots[(triton.cdiv(N, blk),)](xyz, bidx, counts, slots, ovf, ovf_n, N, xyz.stride(0), ny, nx, batch_size,
                                      x0, y0, z0, z1, inv[0], inv[1], CAP=cap, HAS_BIDX=batch_idx is not None,
                                      BLOCK=blk, num_warps=4)
    _pillar_slots[(triton.cdiv(n_cells, block_v),)](feats, slots, counts, out, n_cells, C, feats.stride(0), CAP=cap,
                                                    BLOCK_V=block_v, BLOCK_C=min(block_c, triton.next_power_of_2(C)),
                                                    IS_MAX=is_max, num_warps=warps)
    ob = 64
    grid = (max(1, min(triton.cdiv(N, ob), 1056)),)  # 8 programs per SM of an H200, looping over the list
    _overflow_add[grid](feats, ovf, ovf_n, counts, out, C, feats.stride(0), BLOCK=ob,
                        BLOCK_C=min(64, triton.next_power_of_2(C)), IS_MAX=is_max, num_warps=4)
    return out, counts


def check() -> None:
    """Under TRITON_INTERPRET=1 (or on a GPU): results against the float64 reference, uniform and clustered."""
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    pc, vs = (0.0, -4.0, -3.0, 6.4, 4.0, 1.0), (0.4, 0.5)
    torch.manual_seed(0)
    for n, c, b, clustered in ((600, 5, 2, False), (900, 7, 1, True), (1, 3, 1, False)):
        xyz = torch.rand(n, 3, device=dev) * torch.tensor([8.0, 10.0, 5.0], device=dev) + torch.tensor(
            [-1.0, -5.0, -3.5], device=dev)
        if clustered:  # most points in a few pillars: many past CAP
            xyz[: n // 2, :2] = torch.tensor([1.05, 0.3], device=dev) + 0.01 * torch.rand(n // 2, 2, device=dev)
        feats = torch.randn(n, c, device=dev)
        bidx = torch.randint(0, b + 1, (n,), device=dev) if b > 1 else None
        for is_max in (False, True):
            out, counts = voxel_scatter_slots(xyz, feats, pc, vs, bidx, b, is_max=is_max)
            ref, rcounts = voxel_scatter.reference(xyz, feats.double(), pc, vs, bidx, b,
                                                   reduce="amax" if is_max else "mean")
            assert torch.equal(counts.cpu(), rcounts.cpu())
            err = ((out.double() - ref).norm() / ref.norm().clamp_min(1e-30)).item()
            assert err < 1e-5, (n, c, b, clustered, is_max, err)
            print(f"N={n} C={c} B={b} clustered={clustered} max={is_max}: counts equal, rel.err {err:.1e}, "
                  f"most points in a pillar {counts.max().item()}")


def bench() -> None:
    from triton.testing import do_bench

    pc, vs = (0.0, -39.68, -3.0, 69.12, 39.68, 1.0), (0.16, 0.16)  # as benchmarks/kernels.py b_voxel
    B, C, N = 8, 64, 2_000_000
    n = 1 << 30
    a = torch.randn(n // 2, device="cuda", dtype=torch.bfloat16)
    bb = torch.empty_like(a)
    copy = 2 * n / do_bench(lambda: bb.copy_(a), warmup=50, rep=200) / 1e9
    del a, bb
    print(f"copy {copy:.2f} TB/s", flush=True)
    torch.manual_seed(0)
    for clustered in (False, True):
        xyz = torch.rand(N, 3, device="cuda") * torch.tensor([74.0, 84.0, 6.0], device="cuda") + torch.tensor(
            [-2.0, -42.0, -4.0], device="cuda")
        if clustered:  # a LiDAR-like cloud: half the points within 10 m of the sensor
            xyz[: N // 2, :2] = torch.randn(N // 2, 2, device="cuda") * 5.0 + torch.tensor([10.0, 0.0], device="cuda")
        feats = torch.randn(N, C, device="cuda")
        bidx = torch.randint(0, B, (N,), device="cuda")
        ny, nx = voxel_scatter.grid_shape(pc, vs)
        nbytes = N * (12 + 4 * C + 8) + B * C * ny * nx * 4 + B * ny * nx * 4
        ref, _ = voxel_scatter.reference(xyz, feats, pc, vs, bidx, B)
        rows = [("package (counting sort)", lambda: voxel_scatter.voxel_scatter_mean(xyz, feats, pc, vs, bidx, B))]
        for cap in (2, 4, 8):
            for bv, w in ((16, 4), (32, 4), (64, 8)):
                rows.append((f"slots CAP {cap} BLOCK_V {bv} warps {w}",
                             lambda cap=cap, bv=bv, w=w: voxel_scatter_slots(xyz, feats, pc, vs, bidx, B, cap=cap,
                                                                             block_v=bv, warps=w)))
        for name, fn in rows:
            out = fn()[0]
            err = ((out.double() - ref.double()).norm() / ref.double().norm()).item()
            ms = statistics.median(do_bench(fn, warmup=20, rep=100) for _ in range(3))
            print(f"  {'clustered' if clustered else 'uniform  '} {name:36s} {ms:.4f} ms "
                  f"{nbytes / ms / 1e9 / copy * 100:5.1f}% of copy  rel.err {err:.1e}", flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="correctness only (works under TRITON_INTERPRET=1)")
    a = ap.parse_args()
    check() if a.check else bench()
