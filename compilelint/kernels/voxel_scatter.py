"""PointPillars-style voxel scatter: the mean (or max) feature of the points in each BEV pillar.

What it does: for points ``xyz`` (N, 3), features ``feats`` (N, C) and an optional ``batch_idx`` (N,),
each point inside ``pc_range = (x0, y0, z0, x1, y1, z1)`` falls into pillar
``ix = floor((x - x0) * (1 / vx))``, ``iy = floor((y - y0) * (1 / vy))``, computed in float32 with the
reciprocal rounded to float32 first (a subtraction and a multiplication, each exactly rounded, so every
device and the reference agree on points that sit on a bin edge; PyTorch's CUDA ``tensor / scalar``
also multiplies by the reciprocal, its CPU one divides). The result is ``mean`` (B, C, ny, nx) float32
in channels-last memory (the layout the usual ``index_add_(...).view(B, ny, nx, C).permute(0, 3, 1, 2)``
code produces), the mean feature of each pillar (0 where empty), and ``counts`` (B, ny, nx) int32.
Points outside the range or with a batch index outside [0, B) are dropped. N may change every call.
``voxel_scatter_max`` is the same scatter with PointPillars' max-pool instead of the mean (0 where a
pillar is empty; exact, and the same on every run).

Why: the usual PyTorch code builds a flat index, masks the valid points (a data-dependent shape), then
runs ``index_add_`` for the sums and again for the counts and divides. Here the points are grouped by
pillar instead (a counting sort: one pass bins and counts them, a prefix sum of the counts gives each
pillar its slots, atomics place each point), and one pass over the pillars gathers each pillar's points
and writes its mean, or 0, once: every feature is read once and every output written once, with no fill
of the grid beforehand and no division pass after. Atomics decide the order of the points inside a
pillar, so sums agree with a float64 reference to rounding, not bit for bit; ``deterministic=True``
(or ``torch.use_deterministic_algorithms(True)``) groups them with a stable sort instead, so they are
summed in point order and repeated calls give the same bits. On an H200 (2M points, 64 channels, an
8 x 496 x 432 grid; docs/bench/kernels_h200.txt, runs 8 and 10): mean 0.311 ms (76% of the copy ceiling;
6.46x torch.compile; 0.329 ms before the pillar loop's first points were unrolled), max 0.324 ms and
deterministic mean 0.459 ms in run 8, against 0.720 / 0.872 ms for the design this replaced (every feature
added with float atomics into a grid zeroed first, then a division pass).

Example::

    mean, counts = voxel_scatter_mean(xyz, feats, (0, -40, -3, 70.4, 40, 1), (0.16, 0.16), batch_idx, B)

Inside torch.compile and torch.export: ``voxel_scatter_op(xyz, feats, pc_range, voxel_size, batch_idx,
batch_size, is_max, deterministic)`` is a ``torch.library.custom_op`` (``compilelint::voxel_scatter``) with
a fake implementation, so ``torch.compile(fullgraph=True)`` keeps it in one graph and ``torch.export``
records one call of it; ``voxel_scatter_mean`` / ``voxel_scatter_max`` (no ``out``, no ``config``) call it
by themselves while being compiled or exported, and the launchers directly otherwise (an op call costs more
CPU time than the launch). The output sizes depend only on ``pc_range``, ``voxel_size`` and ``batch_size``
(the grid; not on how many points fall inside it), so the fake needs no data-dependent size. Forward only
(no autograd). Outputs: new tensors, as above (mean channels-last, counts contiguous).
"""

from __future__ import annotations

import struct

import torch
import triton
import triton.language as tl

from ._common import launch

__all__ = ["reference", "voxel_scatter_mean", "voxel_scatter_max", "voxel_scatter_op", "grid_shape", "CONFIGS"]


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
def _cell_ids(XYZ, BIDX, IDS, CNT, N, stride_xyz, ny, nx, B, x0, y0, z0, z1, inv_vx, inv_vy,
              HAS_BIDX: tl.constexpr, BLOCK: tl.constexpr):
    """Each point's flat pillar index (b * ny + iy) * nx + ix into IDS, or B * ny * nx (one past the
    last pillar, so dropped points sort last) where it is outside the range; CNT counts the points of
    each pillar (integer atomics: exact, order-independent)."""
    p = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
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
    cell = (b * ny + iy) * nx + ix
    tl.atomic_add(CNT + cell, tl.full([BLOCK], 1, tl.int32), mask=ok, sem="relaxed")
    tl.store(IDS + p, tl.where(ok, cell, B * ny * nx), mask=pm)


@triton.jit
def _pillar_reduce(F, PERM, CNT, STARTS, OUT, n_cells, C, stride_f,
                   BLOCK_V: tl.constexpr, BLOCK_C: tl.constexpr, IS_MAX: tl.constexpr = False,
                   UNROLL: tl.constexpr = 0):
    """BLOCK_V pillars x BLOCK_C channels: each pillar's points are PERM[STARTS : STARTS + CNT] (point
    ids grouped by pillar), gathered in that order. Every pillar is written once, empty ones as 0: no
    fill and no second pass over the grid. UNROLL: the first UNROLL points of every pillar are taken in
    an unrolled loop, so their loads (a point id, then its row) can be issued together instead of one
    point after another; the rest in a loop, in the same order (sums stay in point order)."""
    v = tl.program_id(0).to(tl.int64) * BLOCK_V + tl.arange(0, BLOCK_V)
    vm = v < n_cells
    cnt = tl.load(CNT + v, mask=vm, other=0)
    start = tl.load(STARTS + v, mask=vm, other=0).to(tl.int64)
    most = tl.max(cnt, axis=0)
    for c0 in range(0, C, BLOCK_C):
        cc = c0 + tl.arange(0, BLOCK_C)
        cm = cc < C
        if IS_MAX:
            acc = tl.full([BLOCK_V, BLOCK_C], -float("inf"), tl.float32)
        else:
            acc = tl.zeros([BLOCK_V, BLOCK_C], tl.float32)
        for j in tl.static_range(UNROLL):
            acc = _take_point(F, PERM, start, cnt, j, cc, cm, stride_f, acc, IS_MAX)
        for j in range(UNROLL, most):
            acc = _take_point(F, PERM, start, cnt, j, cc, cm, stride_f, acc, IS_MAX)
        if IS_MAX:
            y = tl.where((cnt > 0)[:, None], acc, 0.0)
        else:
            y = acc / tl.maximum(cnt, 1).to(tl.float32)[:, None]
        tl.store(OUT + v[:, None] * C + cc[None, :], y, mask=vm[:, None] & cm[None, :])


@triton.jit
def _take_point(F, PERM, start, cnt, j, cc, cm, stride_f, acc, IS_MAX: tl.constexpr):
    """acc with the j-th point of every pillar (where it has one) summed, or maxed, in."""
    has = j < cnt
    pt = tl.load(PERM + start + j, mask=has, other=0).to(tl.int64)  # N * C may pass 2**31
    m = has[:, None] & cm[None, :]
    if IS_MAX:
        f = tl.load(F + pt[:, None] * stride_f + cc[None, :], mask=m, other=-float("inf"))
        return tl.maximum(acc, f.to(tl.float32))
    f = tl.load(F + pt[:, None] * stride_f + cc[None, :], mask=m, other=0.0)
    return acc + f.to(tl.float32)


@triton.jit
def _place(IDS, CURSOR, PERM, N, n_cells, BLOCK: tl.constexpr):
    """Counting sort's placement: CURSOR holds each pillar's end (the inclusive prefix sum of the counts);
    every kept point takes the slot before it (an atomic decrement), so afterwards CURSOR holds each
    pillar's start. The order within a pillar is whatever order the atomics ran in."""
    p = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    cell = tl.load(IDS + p, mask=p < N, other=n_cells)
    keep = cell < n_cells
    slot = tl.atomic_add(CURSOR + cell, tl.full([BLOCK], -1, tl.int32), mask=keep, sem="relaxed") - 1
    tl.store(PERM + slot, p.to(tl.int32), mask=keep)


def _prune(configs, named_args, **kwargs):
    C = {**named_args, **kwargs}["C"]
    keep = [cf for cf in configs if cf.kwargs["BLOCK_C"] <= max(8, triton.next_power_of_2(C))]
    return keep or configs[:1]


CONFIGS = [triton.Config({"BLOCK_V": v, "BLOCK_C": c, "UNROLL": u}, num_warps=w)
           for v, c in ((16, 64), (32, 64), (64, 64), (128, 16), (64, 16), (256, 8)) for w in (4, 8)
           for u in (0, 2, 4)]
_tuned = triton.autotune(CONFIGS, key=["C", "IS_MAX"], prune_configs_by={"early_config_prune": _prune})(_pillar_reduce)
_IDS_BLOCK = 1024


def voxel_scatter_mean(xyz, feats, pc_range, voxel_size, batch_idx=None, batch_size=1, out=None, config=None,
                       deterministic=None):
    """Pillar means (B, C, ny, nx) float32, channels-last, and counts (B, ny, nx) int32; see the module
    docstring. ``out=(mean, counts)`` may be given (mean channels-last; any contents: every pillar is
    written). ``deterministic``: sum each pillar's points in point order, so repeated calls agree bit for
    bit (a stable sort; slower); None follows ``torch.are_deterministic_algorithms_enabled()``. Compiled or
    exported (no ``out``, no ``config``): the registered op ``voxel_scatter_op``, one call in the graph."""
    if out is None and config is None and torch.compiler.is_compiling():
        return voxel_scatter_op(xyz, feats, _floats(pc_range), _floats(voxel_size), batch_idx, batch_size, False,
                                deterministic)
    return _voxel_scatter(xyz, feats, pc_range, voxel_size, batch_idx, batch_size, out, config, False, deterministic)


def voxel_scatter_max(xyz, feats, pc_range, voxel_size, batch_idx=None, batch_size=1, out=None, config=None):
    """Like ``voxel_scatter_mean`` but each pillar keeps the elementwise max of its points' features
    (PointPillars' max-pool; 0 where empty): ``(maxed (B, C, ny, nx) float32 channels-last, counts)``.
    A max does not depend on the order, so the result is always the same on every run. Compiled or exported
    (no ``out``, no ``config``): the registered op ``voxel_scatter_op``, one call in the graph."""
    if out is None and config is None and torch.compiler.is_compiling():
        return voxel_scatter_op(xyz, feats, _floats(pc_range), _floats(voxel_size), batch_idx, batch_size, True, False)
    return _voxel_scatter(xyz, feats, pc_range, voxel_size, batch_idx, batch_size, out, config, True, False)


def _f32(v: float) -> float:
    """v rounded to float32 (to nearest, as torch.tensor(v, dtype=torch.float32)), without a tensor."""
    return struct.unpack("f", struct.pack("f", v))[0]


def _floats(values) -> list[float]:
    """A range or voxel size as the op's float[] argument (ints allowed, as the launchers take them)."""
    return [float(v) for v in values]


def _check(xyz, feats, pc_range, voxel_size):
    """(ny, nx, N, C) of a call, or a ValueError naming what is wrong with its shapes."""
    if len(pc_range) != 6 or len(voxel_size) < 2:
        raise ValueError(f"pc_range must be (x0, y0, z0, x1, y1, z1) and voxel_size (vx, vy); got {len(pc_range)} "
                         f"and {len(voxel_size)} values")
    if feats.dim() != 2 or xyz.dim() != 2:
        raise ValueError(f"feats must be (N, C) and xyz (N, >=3); got {tuple(feats.shape)} and {tuple(xyz.shape)}")
    ny, nx = grid_shape(pc_range, voxel_size)
    N, C = feats.shape
    if xyz.shape[0] != N or xyz.shape[1] < 3:
        raise ValueError("xyz must be (N, >=3) with one row per feature row")
    return ny, nx, N, C


def _voxel_scatter(xyz, feats, pc_range, voxel_size, batch_idx, batch_size, out, config, is_max, deterministic):
    ny, nx, N, C = _check(xyz, feats, pc_range, voxel_size)
    n_cells = batch_size * ny * nx
    if n_cells >= 2**31 - 1 or N >= 2**31:
        raise ValueError(f"{n_cells} pillars, {N} points: pillar and point indices are int32 (below 2**31 - 1)")
    if deterministic is None:
        deterministic = torch.are_deterministic_algorithms_enabled()
    xyz = xyz if xyz.stride(1) == 1 else xyz.contiguous()
    feats = feats if feats.stride(1) == 1 else feats.contiguous()
    if out is None:
        mean = torch.empty(batch_size, C, ny, nx, dtype=torch.float32, device=feats.device,
                           memory_format=torch.channels_last)
        counts = torch.zeros(batch_size, ny, nx, dtype=torch.int32, device=feats.device)
    else:
        mean, counts = out
        if tuple(mean.shape) != (batch_size, C, ny, nx) or tuple(counts.shape) != (batch_size, ny, nx):
            raise ValueError(f"out must be (mean {(batch_size, C, ny, nx)}, counts {(batch_size, ny, nx)}); got "
                             f"{tuple(mean.shape)}, {tuple(counts.shape)}")
        if not mean.is_contiguous(memory_format=torch.channels_last) or mean.dtype != torch.float32:
            raise ValueError("out mean must be float32 (B, C, ny, nx) in channels_last memory format")
        if not counts.is_contiguous() or counts.dtype != torch.int32:
            raise ValueError("out counts must be a contiguous int32 (B, ny, nx) tensor")
        counts.zero_()
    x0, y0, z0, x1, y1, z1 = (float(v) for v in pc_range)
    if N > 0:
        ids = torch.empty(N, dtype=torch.int32, device=feats.device)
        inv = [_f32(1.0 / voxel_size[0]), _f32(1.0 / voxel_size[1])]  # as the reference rounds them
        bidx = batch_idx.contiguous() if batch_idx is not None else xyz
        _cell_ids[(triton.cdiv(N, _IDS_BLOCK),)](xyz, bidx, ids, counts, N, xyz.stride(0), ny, nx, batch_size,
                                                 x0, y0, z0, z1, inv[0], inv[1], HAS_BIDX=batch_idx is not None,
                                                 BLOCK=_IDS_BLOCK, num_warps=4)
        starts = torch.cumsum(counts.view(-1), 0, dtype=torch.int32)  # each pillar's end, for now
        if deterministic:  # point order within a pillar: the same sums, bit for bit, on every run
            perm = torch.argsort(ids, stable=True)
            starts -= counts.view(-1)
        else:  # atomics place each point (H200, 2M points: 53 us, against 162 us for the stable sort)
            perm = torch.empty(N, dtype=torch.int32, device=feats.device)
            _place[(triton.cdiv(N, _IDS_BLOCK),)](ids, starts, perm, N, n_cells, BLOCK=_IDS_BLOCK, num_warps=4)
    else:  # every count is 0: nothing is gathered
        perm = starts = torch.zeros(n_cells, dtype=torch.int32, device=feats.device)
    if n_cells and C:
        args = dict(F=feats, PERM=perm, CNT=counts, STARTS=starts, OUT=mean, n_cells=n_cells, C=C,
                    stride_f=feats.stride(0), IS_MAX=is_max)
        grid = lambda meta: (triton.cdiv(n_cells, meta["BLOCK_V"]),)
        launch(_tuned, _pillar_reduce, grid, args, config,
               triton.Config({"BLOCK_V": 16, "BLOCK_C": min(16, max(2, triton.next_power_of_2(C)))}, num_warps=4))
    return mean, counts


# The supported way to call the kernels from compiled and exported code (as norms.rms_norm_op): an op whose
# fake implementation states the outputs (the grid's shapes, mean channels-last), so no compiler traces the
# launchers. Integer atomics and the point-count-sized scratch buffers stay inside the op.
@torch.library.custom_op("compilelint::voxel_scatter", mutates_args=())
def voxel_scatter_op(xyz: torch.Tensor, feats: torch.Tensor, pc_range: list[float], voxel_size: list[float],
                     batch_idx: torch.Tensor | None, batch_size: int, is_max: bool,
                     deterministic: bool | None) -> tuple[torch.Tensor, torch.Tensor]:
    """voxel_scatter_mean (is_max False) or voxel_scatter_max (True) as an op: one node of a graph."""
    return _voxel_scatter(xyz, feats, pc_range, voxel_size, batch_idx, batch_size, None, None, is_max,
                          False if is_max else deterministic)


@voxel_scatter_op.register_fake
def _(xyz, feats, pc_range, voxel_size, batch_idx, batch_size, is_max, deterministic):
    ny, nx, _, C = _check(xyz, feats, pc_range, voxel_size)
    mean = torch.empty(batch_size, C, ny, nx, dtype=torch.float32, device=feats.device,
                       memory_format=torch.channels_last)
    return mean, torch.empty(batch_size, ny, nx, dtype=torch.int32, device=feats.device)
