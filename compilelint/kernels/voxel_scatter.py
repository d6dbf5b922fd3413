"""PointPillars-style voxel scatter: the mean feature of the points in each BEV pillar, in one pass.

What it does: for points ``xyz`` (N, 3), features ``feats`` (N, C) and an optional ``batch_idx`` (N,),
each point inside ``pc_range = (x0, y0, z0, x1, y1, z1)`` falls into pillar
``ix = floor((x - x0) / vx)``, ``iy = floor((y - y0) / vy)`` (computed in xyz's dtype, IEEE division,
so the kernel and the reference agree on every boundary); the result is ``mean`` (B, C, ny, nx)
float32, the mean feature of each pillar (0 where empty), and ``counts`` (B, ny, nx) int32. Points
outside the range or with a batch index outside [0, B) are dropped. N may change from call to call.

Why: the usual PyTorch code builds a flat index, masks the valid points (a data-dependent shape), then
runs ``index_add_`` for the sums and again for the counts and divides; here each point is read once and
added with atomics, then one pass over the grid divides. Accumulation order varies (float32 atomics),
so the sums agree with a float64 reference to rounding, not bit for bit.

Example::

    mean, counts = voxel_scatter_mean(xyz, feats, (0, -40, -3, 70.4, 40, 1), (0.16, 0.16), batch_idx, B)
"""

from __future__ import annotations

import math

import torch
import triton
import triton.language as tl

from ._common import launch

__all__ = ["reference", "voxel_scatter_mean", "grid_shape", "CONFIGS"]


def grid_shape(pc_range, voxel_size):
    x0, y0, _, x1, y1, _ = pc_range
    return int(round((y1 - y0) / voxel_size[1])), int(round((x1 - x0) / voxel_size[0]))


def reference(xyz, feats, pc_range, voxel_size, batch_idx=None, batch_size=1):
    """Plain PyTorch: flat pillar index, mask, index_add_ of sums and counts, divide.
    Indices in xyz's dtype; sums in feats' dtype (pass float64 feats for an exact reference)."""
    ny, nx = grid_shape(pc_range, voxel_size)
    x0, y0, z0, x1, y1, z1 = pc_range
    C = feats.shape[1]
    ix = torch.floor((xyz[:, 0] - x0) / voxel_size[0]).long()
    iy = torch.floor((xyz[:, 1] - y0) / voxel_size[1]).long()
    b = batch_idx.long() if batch_idx is not None else torch.zeros_like(ix)
    z = xyz[:, 2]
    keep = (ix >= 0) & (ix < nx) & (iy >= 0) & (iy < ny) & (z >= z0) & (z < z1) & (b >= 0) & (b < batch_size)
    flat = (b * ny + iy) * nx + ix
    flat, f = flat[keep], feats[keep]
    sums = torch.zeros(batch_size * ny * nx, C, dtype=feats.dtype, device=feats.device).index_add_(0, flat, f)
    counts = torch.zeros(batch_size * ny * nx, dtype=torch.int64, device=feats.device).index_add_(
        0, flat, torch.ones_like(flat))
    mean = sums / counts.clamp(min=1).unsqueeze(1).to(sums.dtype)
    mean = mean.view(batch_size, ny, nx, C).permute(0, 3, 1, 2)
    return mean, counts.view(batch_size, ny, nx).to(torch.int32)


@triton.jit
def _scatter_add(XYZ, F, BIDX, SUM, CNT, N, C, stride_xyz, stride_f, ny, nx, plane, B,
                 x0, y0, z0, z1, vx, vy,
                 HAS_BIDX: tl.constexpr, BLOCK_P: tl.constexpr):
    pid = tl.program_id(0)
    p = pid * BLOCK_P + tl.arange(0, BLOCK_P)
    pm = p < N
    p64 = p.to(tl.int64)
    x = tl.load(XYZ + p64 * stride_xyz, mask=pm, other=0.0)
    y = tl.load(XYZ + p64 * stride_xyz + 1, mask=pm, other=0.0)
    z = tl.load(XYZ + p64 * stride_xyz + 2, mask=pm, other=0.0)
    fx = tl.math.floor(tl.math.div_rn(x - x0, vx))  # IEEE division: same bins as torch
    fy = tl.math.floor(tl.math.div_rn(y - y0, vy))
    ok = pm & (fx >= 0) & (fx < nx) & (fy >= 0) & (fy < ny) & (z >= z0) & (z < z1)
    ix = tl.where(ok, fx, 0).to(tl.int64)
    iy = tl.where(ok, fy, 0).to(tl.int64)
    if HAS_BIDX:
        b = tl.load(BIDX + p64, mask=pm, other=0).to(tl.int64)
        ok = ok & (b >= 0) & (b < B)
        b = tl.where(ok, b, 0)
    else:
        b = tl.zeros([BLOCK_P], tl.int64)
    cell = iy * nx + ix
    tl.atomic_add(CNT + b * plane + cell, tl.full([BLOCK_P], 1, tl.int32), mask=ok, sem="relaxed")
    # one channel at a time: 1-D atomics (2-D atomic tiles crashed Triton 3.6's layout pass on sm_90)
    f_ptr = F + p64 * stride_f
    dst = SUM + b * C * plane + cell
    for c in range(0, C):
        f = tl.load(f_ptr + c, mask=ok, other=0.0)
        tl.atomic_add(dst + c * plane, f.to(tl.float32), mask=ok, sem="relaxed")


@triton.jit
def _divide(SUM, CNT, n_cells, C, plane, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)  # over (B, C, plane)
    m = offs < n_cells
    bc = offs // plane
    cell = offs - bc * plane
    b = bc // C
    cnt = tl.load(CNT + b * plane + cell, mask=m, other=1)
    s = tl.load(SUM + offs, mask=m, other=0.0)
    tl.store(SUM + offs, s / tl.maximum(cnt, 1).to(tl.float32), mask=m)


CONFIGS = [triton.Config({"BLOCK_P": p}, num_warps=w) for p in (128, 256, 512, 1024) for w in (4, 8)]
_tuned = triton.autotune(CONFIGS, key=["C", "HAS_BIDX"], reset_to_zero=["SUM", "CNT"])(_scatter_add)
_DIV_CONFIGS = [triton.Config({"BLOCK": b}, num_warps=w) for b in (1024, 4096) for w in (4, 8)]
_tuned_div = triton.autotune(_DIV_CONFIGS, key=["C"], restore_value=["SUM"])(_divide)


def voxel_scatter_mean(xyz, feats, pc_range, voxel_size, batch_idx=None, batch_size=1, out=None, config=None):
    """Pillar means (B, C, ny, nx) float32 and counts (B, ny, nx) int32; see the module docstring.
    ``out=(mean, counts)`` may be given (any contents: both are zeroed first)."""
    ny, nx = grid_shape(pc_range, voxel_size)
    N, C = feats.shape
    if xyz.shape[0] != N or xyz.shape[1] < 3:
        raise ValueError("xyz must be (N, >=3) with one row per feature row")
    xyz = xyz if xyz.stride(1) == 1 else xyz.contiguous()
    feats = feats if feats.stride(1) == 1 else feats.contiguous()
    if out is None:
        mean = torch.zeros(batch_size, C, ny, nx, dtype=torch.float32, device=feats.device)
        counts = torch.zeros(batch_size, ny, nx, dtype=torch.int32, device=feats.device)
    else:
        mean, counts = out
        mean.zero_()
        counts.zero_()
    x0, y0, z0, x1, y1, z1 = (float(v) for v in pc_range)
    bidx = batch_idx.contiguous() if batch_idx is not None else xyz
    if N > 0:
        args = dict(XYZ=xyz, F=feats, BIDX=bidx, SUM=mean, CNT=counts, N=N, C=C, stride_xyz=xyz.stride(0),
                    stride_f=feats.stride(0), ny=ny, nx=nx, plane=ny * nx, B=batch_size, x0=x0, y0=y0, z0=z0, z1=z1,
                    vx=float(voxel_size[0]), vy=float(voxel_size[1]), HAS_BIDX=batch_idx is not None)
        grid = lambda meta: (triton.cdiv(N, meta["BLOCK_P"]),)
        launch(_tuned, _scatter_add, grid, args, config,
               triton.Config({"BLOCK_P": 64}, num_warps=4))
    n_cells = mean.numel()
    if n_cells:
        dargs = dict(SUM=mean, CNT=counts, n_cells=n_cells, C=C, plane=ny * nx)
        grid = lambda meta: (triton.cdiv(n_cells, meta["BLOCK"]),)
        launch(_tuned_div, _divide, grid, dargs, None, triton.Config({"BLOCK": 1024}, num_warps=4))
    return mean, counts
