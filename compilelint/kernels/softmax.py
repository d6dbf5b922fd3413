"""Row-wise softmax over the last dimension, one read and one write per element.

What it does: ``softmax(x, dim=-1)`` with max-subtraction and the sum in float32, output in x's dtype.
Rows up to ``MAX_FUSED_N`` columns are held in registers (one pass over memory, several short rows
per program); longer rows use an online (running max and sum) pass, then a normalising pass.

Why: eager softmax on half-precision rows reaches about a quarter of memory bandwidth on an H200
(issue 7's figures); a fused row kernel is limited only by the read and the write.

Example::

    p = softmax(scores)            # == torch.softmax(scores, dim=-1)
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from ._common import as_rows, launch, next_pow2

__all__ = ["reference", "softmax", "CONFIGS", "MAX_FUSED_N"]

MAX_FUSED_N = 32768


def reference(x):
    return torch.softmax(x, dim=-1)


@triton.jit
def _softmax_fused(X, Y, M, N, stride_xm, stride_ym, BLOCK_N: tl.constexpr, ELEMS: tl.constexpr):
    BLOCK_M: tl.constexpr = ELEMS // BLOCK_N
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    rows64 = rows.to(tl.int64)
    x = tl.load(X + rows64[:, None] * stride_xm + cols[None, :], mask=mask, other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=1)
    m = tl.where(m == -float("inf"), 0.0, m)  # fully padded row (M tail): avoid inf - inf
    e = tl.math.exp2((x - m[:, None]) * 1.4426950408889634)
    s = tl.sum(e, axis=1)
    s = tl.where(s == 0.0, 1.0, s)
    y = e * (1.0 / s)[:, None]
    tl.store(Y + rows64[:, None] * stride_ym + cols[None, :], y.to(Y.dtype.element_ty), mask=mask)


@triton.jit
def _softmax_online(X, Y, M, N, stride_xm, stride_ym, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = X + row * stride_xm
    y_row = Y + row * stride_ym
    cols = tl.arange(0, BLOCK_N)
    m_vec = tl.full([BLOCK_N], -float("inf"), tl.float32)
    s_vec = tl.zeros([BLOCK_N], tl.float32)
    for start in range(0, N, BLOCK_N):
        x = tl.load(x_row + start + cols, mask=start + cols < N, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m_vec, x)
        m_safe = tl.where(m_new == -float("inf"), 0.0, m_new)
        s_vec = s_vec * tl.math.exp2((m_vec - m_safe) * 1.4426950408889634) + \
            tl.math.exp2((x - m_safe) * 1.4426950408889634)
        m_vec = m_new
    m = tl.max(m_vec, axis=0)
    s = tl.sum(s_vec * tl.math.exp2((m_vec - m) * 1.4426950408889634), axis=0)
    inv = 1.0 / s
    for start in range(0, N, BLOCK_N):
        msk = start + cols < N
        x = tl.load(x_row + start + cols, mask=msk, other=-float("inf")).to(tl.float32)
        y = tl.math.exp2((x - m) * 1.4426950408889634) * inv
        tl.store(y_row + start + cols, y.to(Y.dtype.element_ty), mask=msk)


CONFIGS = [triton.Config({"ELEMS": e}, num_warps=w) for e in (1024, 2048, 4096, 8192, 16384, 32768)
           for w in (4, 8, 16)]


def _prune(configs, named_args, **kwargs):
    bn = {**named_args, **kwargs}["BLOCK_N"]  # launchers pass arguments by keyword
    keep = [c for c in configs
            if c.kwargs["ELEMS"] >= bn and 2 <= c.kwargs["ELEMS"] // (32 * c.num_warps) <= 64]
    return keep or [triton.Config({"ELEMS": bn}, num_warps=16 if bn >= 16384 else 8)]


_tuned = triton.autotune(CONFIGS, key=["N", "BLOCK_N"], prune_configs_by={"early_config_prune": _prune})(
    _softmax_fused)
_ONLINE_CONFIGS = [triton.Config({"BLOCK_N": 4096}, num_warps=8), triton.Config({"BLOCK_N": 8192}, num_warps=16)]
_tuned_online = triton.autotune(_ONLINE_CONFIGS, key=["N"])(_softmax_online)


def softmax(x: torch.Tensor, out=None, config=None):
    """Softmax over the last dim of x (any leading shape)."""
    x2, y2, out, M, N = as_rows(x, out)
    if M == 0 or N == 0:
        return out
    args = dict(X=x2, Y=y2, M=M, N=N, stride_xm=x2.stride(0), stride_ym=y2.stride(0))
    if N > MAX_FUSED_N:
        launch(_tuned_online, _softmax_online, (M,), args, config, triton.Config({"BLOCK_N": 1024}, num_warps=4))
        return out
    bn = next_pow2(N)
    args["BLOCK_N"] = bn
    grid = lambda meta: (triton.cdiv(M, meta["ELEMS"] // bn),)
    launch(_tuned, _softmax_fused, grid, args, config,
           triton.Config({"ELEMS": 4 * bn if bn <= 64 else bn}, num_warps=4))
    return out
