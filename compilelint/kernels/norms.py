"""LayerNorm and RMSNorm forward over the last dimension, one read and one write per element.

What it does: ``layer_norm(x, w, b, eps)`` = (x - mean) / sqrt(var + eps) * w + b and
``rms_norm(x, w, eps)`` = x / sqrt(mean(x^2) + eps) * w, statistics in float32, output in x's dtype.
Rows up to ``MAX_FUSED_N`` columns are held in registers (one pass over memory); longer rows take a
chunked path that reads the row three times (mostly from L2).

Why: the statistics, the normalisation and the affine are fused, and several short rows share one
program so that narrow hidden sizes still issue wide loads.

Example::

    y = layer_norm(x, ln.weight, ln.bias, ln.eps)   # == F.layer_norm(x, x.shape[-1:], ...)
    y = rms_norm(x, rms.weight, 1e-6)               # == reference_rms(x, rms.weight, 1e-6)
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

from ._common import as_rows, launch, next_pow2

__all__ = ["reference_layer_norm", "reference_rms", "layer_norm", "rms_norm", "CONFIGS", "MAX_FUSED_N"]

MAX_FUSED_N = 32768


def reference_layer_norm(x, weight=None, bias=None, eps=1e-5):
    return F.layer_norm(x, x.shape[-1:], weight, bias, eps)


def reference_rms(x, weight=None, eps=1e-6):
    """RMSNorm as written in most model code (statistics in float32, cast back to x's dtype)."""
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    if weight is not None:
        y = y * weight
    return y.to(x.dtype)


@triton.jit
def _norm_fused(X, Y, W, B, M, N, stride_xm, stride_ym, eps,
                IS_RMS: tl.constexpr, HAS_W: tl.constexpr, HAS_B: tl.constexpr,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    rmask = rows < M
    cmask = cols < N
    mask = rmask[:, None] & cmask[None, :]
    rows64 = rows.to(tl.int64)
    x = tl.load(X + rows64[:, None] * stride_xm + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    if IS_RMS:
        rstd = tl.math.rsqrt(tl.sum(x * x, axis=1) / N + eps)
        y = x * rstd[:, None]
    else:
        mean = tl.sum(x, axis=1) / N
        xc = tl.where(mask, x - mean[:, None], 0.0)
        rstd = tl.math.rsqrt(tl.sum(xc * xc, axis=1) / N + eps)
        y = xc * rstd[:, None]
    if HAS_W:
        w = tl.load(W + cols, mask=cmask, other=0.0).to(tl.float32)
        y = y * w[None, :]
    if HAS_B:
        b = tl.load(B + cols, mask=cmask, other=0.0).to(tl.float32)
        y = y + b[None, :]
    tl.store(Y + rows64[:, None] * stride_ym + cols[None, :], y.to(Y.dtype.element_ty), mask=mask)


@triton.jit
def _norm_chunked(X, Y, W, B, M, N, stride_xm, stride_ym, eps,
                  IS_RMS: tl.constexpr, HAS_W: tl.constexpr, HAS_B: tl.constexpr, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = X + row * stride_xm
    y_row = Y + row * stride_ym
    cols = tl.arange(0, BLOCK_N)
    mean = 0.0
    if not IS_RMS:
        acc = tl.zeros([BLOCK_N], dtype=tl.float32)
        for start in range(0, N, BLOCK_N):
            x = tl.load(x_row + start + cols, mask=start + cols < N, other=0.0).to(tl.float32)
            acc += x
        mean = tl.sum(acc, axis=0) / N
    acc2 = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        m = start + cols < N
        x = tl.load(x_row + start + cols, mask=m, other=0.0).to(tl.float32)
        xc = tl.where(m, x - mean, 0.0)
        acc2 += xc * xc
    rstd = tl.math.rsqrt(tl.sum(acc2, axis=0) / N + eps)
    for start in range(0, N, BLOCK_N):
        m = start + cols < N
        x = tl.load(x_row + start + cols, mask=m, other=0.0).to(tl.float32)
        y = (x - mean) * rstd
        if HAS_W:
            y = y * tl.load(W + start + cols, mask=m, other=0.0).to(tl.float32)
        if HAS_B:
            y = y + tl.load(B + start + cols, mask=m, other=0.0).to(tl.float32)
        tl.store(y_row + start + cols, y.to(Y.dtype.element_ty), mask=m)


def _fused_configs():
    out = []
    for elems in (1024, 2048, 4096, 8192, 16384, 32768):
        for w in (4, 8, 16):
            out.append(triton.Config({"ELEMS": elems}, num_warps=w))
    return out


def _prune(configs, named_args, **kwargs):
    """Keep configs whose tile (BLOCK_M rows x BLOCK_N) holds the whole row and is not too wide per thread."""
    bn = {**named_args, **kwargs}["BLOCK_N"]  # launchers pass arguments by keyword
    keep = []
    for c in configs:
        elems = c.kwargs["ELEMS"]
        if elems < bn:
            continue
        per_thread = elems // (32 * c.num_warps)
        if per_thread > 64 or per_thread < 2:
            continue
        keep.append(c)
    return keep or [triton.Config({"ELEMS": bn}, num_warps=16 if bn >= 16384 else 8)]


CONFIGS = _fused_configs()


@triton.jit
def _norm_fused_elems(X, Y, W, B, M, N, stride_xm, stride_ym, eps,
                      IS_RMS: tl.constexpr, HAS_W: tl.constexpr, HAS_B: tl.constexpr,
                      BLOCK_N: tl.constexpr, ELEMS: tl.constexpr):
    _norm_fused(X, Y, W, B, M, N, stride_xm, stride_ym, eps, IS_RMS, HAS_W, HAS_B, ELEMS // BLOCK_N, BLOCK_N)


_tuned = triton.autotune(CONFIGS, key=["N", "IS_RMS", "BLOCK_N"],
                         prune_configs_by={"early_config_prune": _prune})(_norm_fused_elems)
_CHUNK_CONFIGS = [triton.Config({"BLOCK_N": 4096}, num_warps=8), triton.Config({"BLOCK_N": 8192}, num_warps=16)]
_tuned_chunked = triton.autotune(_CHUNK_CONFIGS, key=["N", "IS_RMS"])(_norm_chunked)


def _norm(x, weight, bias, eps, is_rms, out, config):
    x2, y2, out, M, N = as_rows(x, out)
    if M == 0 or N == 0:
        return out
    w = weight.contiguous() if weight is not None else x2  # dummy pointer when absent
    b = bias.contiguous() if bias is not None else x2
    args = dict(X=x2, Y=y2, W=w, B=b, M=M, N=N, stride_xm=x2.stride(0), stride_ym=y2.stride(0), eps=eps,
                IS_RMS=is_rms, HAS_W=weight is not None, HAS_B=bias is not None)
    if N > MAX_FUSED_N:
        launch(_tuned_chunked, _norm_chunked, (M,), args, config,
               triton.Config({"BLOCK_N": 1024}, num_warps=4))
        return out
    bn = next_pow2(N)
    args["BLOCK_N"] = bn
    grid = lambda meta: (triton.cdiv(M, meta["ELEMS"] // bn),)
    launch(_tuned, _norm_fused_elems, grid, args, config,
           triton.Config({"ELEMS": max(bn, 4 * bn if bn <= 64 else bn)}, num_warps=4))
    return out


def layer_norm(x, weight=None, bias=None, eps=1e-5, out=None, config=None):
    """LayerNorm over the last dim of x (any leading shape), weight/bias of shape (N,) or None."""
    return _norm(x, weight, bias, eps, False, out, config)


def rms_norm(x, weight=None, eps=1e-6, out=None, config=None):
    """RMSNorm over the last dim of x, weight of shape (N,) or None."""
    return _norm(x, weight, None, eps, True, out, config)
