"""PointPillars-style voxel scatter: the mean feature of the points in each BEV pillar, in one pass.

What it does: for points ``xyz`` (N, 3), features ``feats`` (N, C) and an optional ``batch_idx`` (N,),
each point inside ``pc_range = (x0, y0, z0, x1, y1, z1)`` falls into pillar
``ix = floor((x - x0) * (1 / vx))``, ``iy = floor((y - y0) * (1 / vy))``, computed in float32 with the
reciprocal rounded to float32 first (a subtraction and a multiplication, each exactly rounded, so every
device and the reference agree on points that sit on a bin edge; PyTorch's CUDA ``tensor / scalar``
also multiplies by the reciprocal, its CPU one divides). The result is ``mean`` (B, C, ny, nx) float32
in channels-last memory (the layout the usual ``index_add_(...).view(B, ny, nx, C).permute(0, 3, 1, 2)``
code produces), the mean feature of each pillar (0 where empty), and ``counts`` (B, ny, nx) int32.
Points outside the range or with a batch index outside [0, B) are dropped. N may change every call.
``voxel_scatter_max`` is the same scatter with PointPillars' max-pool instead of the mean (atomic max;
0 where a pillar is empty; exact, order-independent).

Why: the usual PyTorch code builds a flat index, masks the valid points (a data-dependent shape), then
runs ``index_add_`` for the sums and again for the counts and divides; here each point is read once and
added with atomics (a warp's adds land on contiguous channels of one pillar), then one pass over the
grid divides. Accumulation order varies (float32 atomics), so sums agree with a float64 reference to
rounding, not bit for bit.

Example::

    mean, counts = voxel_scatter_mean(xyz, feats, (0, -40, -3, 70.4, 40, 1), (0.16, 0.16), batch_idx, B)
"""

from __future__ import annotations


import torch
import triton
import triton.language as tl

from ._common import launch

__all__ = ["reference", "voxel_scatter_mean", "voxel_scatter_max", "grid_shape", "CONFIGS"]


def grid_shape(pc_range, voxel_size):
    x0, y0, _, x1, y1, _ = pc_range
    return int(round((y1 - y0) / voxel_size[1])), int(round((x1 - x0) / voxel_size[0]))


def reference(xyz, feats, pc_range, voxel_size, batch_idx=None, batch_size=1, reduce="mean"):
    """Plain PyTorch: flat pillar index, mask, index_add_ of sums and counts, divide (``reduce="amax"``:
    scatter_reduce max, 0 where empty). Bins in float32 as in the module docstring; sums in feats'
    dtype (float64 feats: exact reference)."""
    ny, nx = grid_shape(pc_range, voxel_size)
    x0, y0, z0, x1, y1, z1 = pc_range
    C = feats.shape[1]
    inv = torch.tensor([1.0 / voxel_size[0], 1.0 / voxel_size[1]], dtype=torch.float32, device=xyz.device)
    p = xyz[:, :2].float()
    ix = torch.floor((p[:, 0] - torch.tensor(x0, dtype=torch.float32)) * inv[0]).long()
    iy = torch.floor((p[:, 1] - torch.tensor(y0, dtype=torch.float32)) * inv[1]).long()
    b = batch_idx.long() if batch_idx is not None else torch.zeros_like(ix)
    z = xyz[:, 2].float()
    keep = (ix >= 0) & (ix < nx) & (iy >= 0) & (iy < ny) & (z >= z0) & (z < z1) & (b >= 0) & (b < batch_size)
    flat = (b * ny + iy) * nx + ix
    flat, f = flat[keep], feats[keep]
    sums = torch.zeros(batch_size * ny * nx, C, dtype=feats.dtype, device=feats.device).index_add_(0, flat, f)
    counts = torch.zeros(batch_size * ny * nx, dtype=torch.int64, device=feats.device).index_add_(
        0, flat, torch.ones_like(flat))
    if reduce == "amax":
        mean = torch.zeros_like(sums).scatter_reduce(0, flat[:, None].expand_as(f), f, "amax", include_self=False)
    else:
        mean = sums / counts.clamp(min=1).unsqueeze(1).to(sums.dtype)
    mean = mean.view(batch_size, ny, nx, C).permute(0, 3, 1, 2)
    return mean, counts.view(batch_size, ny, nx).to(torch.int32)


@triton.jit
def _scatter_add(XYZ, F, BIDX, SUM, CNT, N, C, stride_xyz, stride_f, ny, nx, B,
                 x0, y0, z0, z1, inv_vx, inv_vy,
                 HAS_BIDX: tl.constexpr, BLOCK_P: tl.constexpr, BLOCK_C: tl.constexpr, IS_MAX: tl.constexpr = False):
    # A flat 1-D tile of BLOCK_P points x BLOCK_C channels, channel fastest: the feature loads and the
    # atomic adds of neighbouring lanes hit neighbouring addresses (SUM is (B, ny, nx, C)).
    pid = tl.program_id(0)
    e = tl.arange(0, BLOCK_P * BLOCK_C)
    c = e % BLOCK_C
    p64 = pid.to(tl.int64) * BLOCK_P + e // BLOCK_C
    pm = p64 < N
    x = tl.load(XYZ + p64 * stride_xyz, mask=pm, other=0.0).to(tl.float32)
    y = tl.load(XYZ + p64 * stride_xyz + 1, mask=pm, other=0.0).to(tl.float32)
    z = tl.load(XYZ + p64 * stride_xyz + 2, mask=pm, other=0.0).to(tl.float32)
    fx = tl.math.floor((x - x0) * inv_vx)
    fy = tl.math.floor((y - y0) * inv_vy)
    ok = pm & (fx >= 0) & (fx < nx) & (fy >= 0) & (fy < ny) & (z >= z0) & (z < z1)
    ix = tl.where(ok, fx, 0).to(tl.int64)
    iy = tl.where(ok, fy, 0).to(tl.int64)
    if HAS_BIDX:
        b = tl.load(BIDX + p64, mask=pm, other=0).to(tl.int64)
        ok = ok & (b >= 0) & (b < B)
        b = tl.where(ok, b, 0)
    else:
        b = tl.zeros([BLOCK_P * BLOCK_C], tl.int64)
    cell = (b * ny + iy) * nx + ix
    tl.atomic_add(CNT + cell, tl.full([BLOCK_P * BLOCK_C], 1, tl.int32), mask=ok & (c == 0), sem="relaxed")
    for c0 in range(0, C, BLOCK_C):
        cc = c0 + c
        m = ok & (cc < C)
        f = tl.load(F + p64 * stride_f + cc, mask=m, other=0.0)
        if IS_MAX:  # SUM starts at -inf
            tl.atomic_max(SUM + cell * C + cc, f.to(tl.float32), mask=m, sem="relaxed")
        else:
            tl.atomic_add(SUM + cell * C + cc, f.to(tl.float32), mask=m, sem="relaxed")


@triton.jit
def _divide(SUM, CNT, n, C, BLOCK: tl.constexpr, IS_MAX: tl.constexpr = False):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)  # over (B, ny, nx, C), C fastest
    m = offs < n
    cnt = tl.load(CNT + offs // C, mask=m, other=1)
    s = tl.load(SUM + offs, mask=m, other=0.0)
    if IS_MAX:  # empty pillars (still -inf) are 0
        y = tl.where(cnt > 0, s, 0.0)
    else:
        y = s / tl.maximum(cnt, 1).to(tl.float32)
    tl.store(SUM + offs, y, mask=m)


def _prune(configs, named_args, **kwargs):
    C = {**named_args, **kwargs}["C"]
    keep = [cf for cf in configs if cf.kwargs["BLOCK_C"] <= max(8, triton.next_power_of_2(C))]
    return keep or configs[:1]


CONFIGS = [triton.Config({"BLOCK_P": p, "BLOCK_C": c}, num_warps=w)
           for p, c in ((32, 64), (64, 64), (16, 64), (128, 16), (256, 16), (256, 8)) for w in (4, 8)]
_tuned = triton.autotune(CONFIGS, key=["C", "HAS_BIDX"], reset_to_zero=["SUM", "CNT"],
                         prune_configs_by={"early_config_prune": _prune})(_scatter_add)
# max mode: SUM starts at -inf, so the tuner must restore it (not zero it) between its timing runs
_tuned_max = triton.autotune(CONFIGS, key=["C", "HAS_BIDX", "IS_MAX"], restore_value=["SUM", "CNT"],
                             prune_configs_by={"early_config_prune": _prune})(_scatter_add)
_DIV_CONFIGS = [triton.Config({"BLOCK": b}, num_warps=w) for b in (1024, 4096) for w in (4, 8)]
_tuned_div = triton.autotune(_DIV_CONFIGS, key=["C", "IS_MAX"], restore_value=["SUM"])(_divide)


def voxel_scatter_mean(xyz, feats, pc_range, voxel_size, batch_idx=None, batch_size=1, out=None, config=None):
    """Pillar means (B, C, ny, nx) float32, channels-last, and counts (B, ny, nx) int32; see the module
    docstring. ``out=(mean, counts)`` may be given (mean channels-last; any contents: both are zeroed)."""
    return _voxel_scatter(xyz, feats, pc_range, voxel_size, batch_idx, batch_size, out, config, False)


def voxel_scatter_max(xyz, feats, pc_range, voxel_size, batch_idx=None, batch_size=1, out=None, config=None):
    """Like ``voxel_scatter_mean`` but each pillar keeps the elementwise max of its points' features
    (PointPillars' max-pool; 0 where empty): ``(maxed (B, C, ny, nx) float32 channels-last, counts)``."""
    return _voxel_scatter(xyz, feats, pc_range, voxel_size, batch_idx, batch_size, out, config, True)


def _voxel_scatter(xyz, feats, pc_range, voxel_size, batch_idx, batch_size, out, config, is_max):
    ny, nx = grid_shape(pc_range, voxel_size)
    N, C = feats.shape
    if xyz.shape[0] != N or xyz.shape[1] < 3:
        raise ValueError("xyz must be (N, >=3) with one row per feature row")
    xyz = xyz if xyz.stride(1) == 1 else xyz.contiguous()
    feats = feats if feats.stride(1) == 1 else feats.contiguous()
    if out is None:
        mean = torch.empty(batch_size, C, ny, nx, dtype=torch.float32, device=feats.device,
                           memory_format=torch.channels_last)
        counts = torch.zeros(batch_size, ny, nx, dtype=torch.int32, device=feats.device)
    else:
        mean, counts = out
        if not mean.is_contiguous(memory_format=torch.channels_last) or mean.dtype != torch.float32:
            raise ValueError("out mean must be float32 (B, C, ny, nx) in channels_last memory format")
        counts.zero_()
    mean.fill_(-float("inf") if is_max else 0.0)
    x0, y0, z0, x1, y1, z1 = (float(v) for v in pc_range)
    bidx = batch_idx.contiguous() if batch_idx is not None else xyz
    if N > 0:
        inv = torch.tensor([1.0 / voxel_size[0], 1.0 / voxel_size[1]], dtype=torch.float32).tolist()
        args = dict(XYZ=xyz, F=feats, BIDX=bidx, SUM=mean, CNT=counts, N=N, C=C, stride_xyz=xyz.stride(0),
                    stride_f=feats.stride(0), ny=ny, nx=nx, B=batch_size, x0=x0, y0=y0, z0=z0, z1=z1,
                    inv_vx=inv[0], inv_vy=inv[1], HAS_BIDX=batch_idx is not None)
        if is_max:
            args["IS_MAX"] = True
        grid = lambda meta: (triton.cdiv(N, meta["BLOCK_P"]),)
        launch(_tuned_max if is_max else _tuned, _scatter_add, grid, args, config,
               triton.Config({"BLOCK_P": 16, "BLOCK_C": min(16, max(2, triton.next_power_of_2(C)))}, num_warps=4))
    n = mean.numel()
    if n:
        dargs = dict(SUM=mean, CNT=counts, n=n, C=C)
        if is_max:
            dargs["IS_MAX"] = True
        grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
        launch(_tuned_div, _divide, grid, dargs, None, triton.Config({"BLOCK": 1024}, num_warps=4))
    return mean, counts
