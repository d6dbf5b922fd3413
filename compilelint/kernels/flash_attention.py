"""Flash-style attention forward: causal or not, variable key length by lengths or a padding mask.

What it does: ``softmax(q @ k^T * scale + mask) @ v`` for q (B, H, Sq, D), k and v (B, H, Sk, D) in
fp16 or bf16, without ever writing the (Sq, Sk) score matrix: each program keeps one block of queries
in registers and streams key/value tiles through an online softmax (running max and sum, exp2 with the
scale folded in). Options:

* ``causal=True``: query i sees keys j <= i (top-left aligned, as ``scaled_dot_product_attention``'s
  ``is_causal``); tiles wholly above the diagonal are skipped, those wholly below run unmasked.
* ``kv_lens`` (B,) ints: batch b attends to its first ``kv_lens[b]`` keys; tiles past it are skipped.
* ``key_padding_mask`` (B, Sk) bool, True where a key is padding (``nn.MultiheadAttention``'s
  convention; the opposite of SDPA's boolean ``attn_mask``).
* A query row that sees no key at all gets zeros (SDPA gives NaN there).

Why: the fused forward reads q, k, v once per query block and writes o once; the matrix products run
on the tensor cores. On an sm_90 GPU (Hopper), head dim 64 or 128 and no key-padding mask, ``attention``
runs ``flash_attention_ws`` instead: the same function in Gluon with FlashAttention-3's warp
specialisation and persistent tile schedule, 1.01x / 1.05x of cuDNN non-causal / causal on an H200 (B4 H16
S4096 D128 bf16, set 13 of docs/bench/kernels_h200.txt) where this module's Triton kernel reached 0.80x /
0.85x (set 10). Example::

    o = attention(q, k, v, causal=True)                       # == reference(q, k, v, causal=True)
    o = attention(q, k, v, kv_lens=torch.tensor([77, 12]))    # per-sequence key lengths

Inside torch.compile and torch.export: ``attention_op(q, k, v, causal, kv_lens, key_padding_mask, sm_scale,
impl)`` is a ``torch.library.custom_op`` (``compilelint::attention``) with a fake implementation, so
``torch.compile(fullgraph=True)`` keeps it in one graph and ``torch.export`` records one call of it;
``attention(...)`` and ``flash_attention_ws.attention_ws(...)`` (no ``out``, ``config``, ``stages`` or
non-default schedule) call it by themselves while being compiled or exported, and the launchers directly
otherwise (an op call costs more CPU time than the launch). Forward only (no autograd). Output: a new tensor
like q (its strides).
"""

from __future__ import annotations

import math

import torch
import triton
import triton.language as tl

from ._common import interpreting, launch, next_pow2

__all__ = ["reference", "attention", "attention_op", "CONFIGS", "flops"]


def reference(q, k, v, causal=False, kv_lens=None, key_padding_mask=None, sm_scale=None):
    """Plain PyTorch attention with the same semantics (compute in the inputs' dtype)."""
    B, H, SQ, D = q.shape
    SK = k.shape[-2]
    scale = sm_scale if sm_scale is not None else 1.0 / math.sqrt(D)
    s = torch.matmul(q, k.transpose(-1, -2)) * scale
    keep = torch.ones(SQ, SK, dtype=torch.bool, device=q.device)
    if causal:
        keep = torch.tril(keep)
    keep = keep.view(1, 1, SQ, SK)
    cols = torch.arange(SK, device=q.device)
    if kv_lens is not None:
        keep = keep & (cols[None, :] < kv_lens.to(q.device)[:, None]).view(B, 1, 1, SK)
    if key_padding_mask is not None:
        keep = keep & ~key_padding_mask.view(B, 1, 1, SK)
    s = s.masked_fill(~keep, float("-inf"))
    p = torch.softmax(s, dim=-1).nan_to_num(0.0)  # rows with no visible key: zeros
    return torch.matmul(p, v)


def flops(B, H, SQ, SK, D, causal=False):
    """Matrix-product FLOPs of the forward (2 products of 2*Sq*Sk*D each); halved when causal."""
    f = 4.0 * B * H * SQ * SK * D
    return f / 2 if causal else f


@triton.jit
def _attn_inner(acc, l_i, m_i, q, K_base, V_base, stride_kn, stride_kd, stride_vn, stride_vd,
                P_base, stride_pn, lo, hi, offs_m, kv_len, qk_scale,
                MASKED: tl.constexpr, IS_CAUSAL: tl.constexpr, HAS_KPM: tl.constexpr,
                BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        cols = start_n + offs_n
        kT_ptrs = K_base + cols[None, :] * stride_kn + offs_d[:, None] * stride_kd
        v_ptrs = V_base + cols[:, None] * stride_vn + offs_d[None, :] * stride_vd
        if MASKED:
            valid = cols < kv_len
            kT = tl.load(kT_ptrs, mask=valid[None, :], other=0.0)
        else:
            kT = tl.load(kT_ptrs)
        qk = tl.dot(q, kT)
        if MASKED or HAS_KPM:
            keep = offs_m[:, None] >= 0  # all-true [BLOCK_M, 1]
            if MASKED:
                keep = keep & (cols < kv_len)[None, :]
                if IS_CAUSAL:
                    keep = keep & (offs_m[:, None] >= cols[None, :])
            if HAS_KPM:
                pad = tl.load(P_base + cols * stride_pn, mask=cols < kv_len, other=1)
                keep = keep & (pad == 0)[None, :]
            qk = tl.where(keep, qk * qk_scale, -float("inf"))
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            m_sub = tl.where(m_ij == -float("inf"), 0.0, m_ij)  # a row with nothing visible yet
            p = tl.math.exp2(qk - m_sub[:, None])
            alpha = tl.math.exp2(m_i - m_sub)
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
            alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        if MASKED:
            v = tl.load(v_ptrs, mask=valid[:, None], other=0.0)
        else:
            v = tl.load(v_ptrs)
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def _attn_fwd(Q, K, V, O, LENS, KPM, sm_scale,
              stride_qb, stride_qh, stride_qm, stride_qd,
              stride_kb, stride_kh, stride_kn, stride_kd,
              stride_vb, stride_vh, stride_vn, stride_vd,
              stride_ob, stride_oh, stride_om, stride_od,
              stride_pb, stride_pn,
              H, SQ, SK, SQ_KEY, SK_KEY,
              HEAD_DIM: tl.constexpr, IS_CAUSAL: tl.constexpr, HAS_LENS: tl.constexpr, HAS_KPM: tl.constexpr,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    tl.static_assert(BLOCK_M % BLOCK_N == 0)
    if IS_CAUSAL:  # heaviest query blocks first: better balance at the end of the grid
        start_m = tl.num_programs(0) - 1 - tl.program_id(0)
    else:
        start_m = tl.program_id(0)
    off_bh = tl.program_id(1)
    b = (off_bh // H).to(tl.int64)
    h = (off_bh % H).to(tl.int64)
    Q_base = Q + b * stride_qb + h * stride_qh
    K_base = K + b * stride_kb + h * stride_kh
    V_base = V + b * stride_vb + h * stride_vh
    O_base = O + b * stride_ob + h * stride_oh
    P_base = KPM + b * stride_pb
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    row_ok = (offs_m < SQ)[:, None]
    q = tl.load(Q_base + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qd, mask=row_ok, other=0.0)

    kv_len = SK
    if HAS_LENS:
        kv_len = tl.minimum(tl.maximum(tl.load(LENS + b).to(tl.int32), 0), SK)
    hi = kv_len
    full = (kv_len // BLOCK_N) * BLOCK_N  # key tiles with no out-of-range key
    if IS_CAUSAL:
        hi = tl.minimum(hi, (start_m + 1) * BLOCK_M)
        full = tl.minimum(full, start_m * BLOCK_M)  # and wholly below the diagonal

    m_i = tl.full([BLOCK_M], -float("inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    qk_scale = sm_scale * 1.4426950408889634  # softmax in base 2
    acc, l_i, m_i = _attn_inner(acc, l_i, m_i, q, K_base, V_base, stride_kn, stride_kd, stride_vn, stride_vd,
                                P_base, stride_pn, 0, full, offs_m, kv_len, qk_scale,
                                False, IS_CAUSAL, HAS_KPM, BLOCK_N, HEAD_DIM)
    acc, l_i, m_i = _attn_inner(acc, l_i, m_i, q, K_base, V_base, stride_kn, stride_kd, stride_vn, stride_vd,
                                P_base, stride_pn, full, hi, offs_m, kv_len, qk_scale,
                                True, IS_CAUSAL, HAS_KPM, BLOCK_N, HEAD_DIM)
    l_safe = tl.where(l_i == 0.0, 1.0, l_i)
    out = acc / l_safe[:, None]
    tl.store(O_base + offs_m[:, None] * stride_om + offs_d[None, :] * stride_od, out.to(O.dtype.element_ty),
             mask=row_ok)


@triton.jit
def _attn_inner_tma(acc, l_i, m_i, q, desc_k, desc_v, b, h, lo, hi, offs_m, kv_len, qk_scale,
                    MASKED: tl.constexpr, IS_CAUSAL: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    offs_n = tl.arange(0, BLOCK_N)
    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        cols = start_n + offs_n
        k = desc_k.load([b, h, start_n, 0]).reshape(BLOCK_N, HEAD_DIM)  # past Sk: zero-filled by the TMA unit
        qk = tl.dot(q, k.T)
        if MASKED:
            keep = (cols < kv_len)[None, :] & (offs_m[:, None] >= 0)
            if IS_CAUSAL:
                keep = keep & (offs_m[:, None] >= cols[None, :])
            qk = tl.where(keep, qk * qk_scale, -float("inf"))
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            m_sub = tl.where(m_ij == -float("inf"), 0.0, m_ij)
            p = tl.math.exp2(qk - m_sub[:, None])
            alpha = tl.math.exp2(m_i - m_sub)
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
            alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = desc_v.load([b, h, start_n, 0]).reshape(BLOCK_N, HEAD_DIM)
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def _attn_fwd_tma(desc_q, desc_k, desc_v, desc_o, LENS, sm_scale, H, SQ, SK, SQ_KEY, SK_KEY,
                  HEAD_DIM: tl.constexpr, IS_CAUSAL: tl.constexpr, HAS_LENS: tl.constexpr,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Same function as _attn_fwd (no key-padding mask), tiles moved by the Hopper TMA unit through
    4-D descriptors over (B, H, S, D): out-of-range rows read as zeros and are never stored."""
    tl.static_assert(BLOCK_M % BLOCK_N == 0)
    if IS_CAUSAL:
        start_m = tl.num_programs(0) - 1 - tl.program_id(0)
    else:
        start_m = tl.program_id(0)
    off_bh = tl.program_id(1)
    b = off_bh // H
    h = off_bh % H
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    q = desc_q.load([b, h, start_m * BLOCK_M, 0]).reshape(BLOCK_M, HEAD_DIM)
    kv_len = SK
    if HAS_LENS:
        kv_len = tl.minimum(tl.maximum(tl.load(LENS + b).to(tl.int32), 0), SK)
    hi = kv_len
    full = (kv_len // BLOCK_N) * BLOCK_N
    if IS_CAUSAL:
        hi = tl.minimum(hi, (start_m + 1) * BLOCK_M)
        full = tl.minimum(full, start_m * BLOCK_M)
    m_i = tl.full([BLOCK_M], -float("inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    qk_scale = sm_scale * 1.4426950408889634
    acc, l_i, m_i = _attn_inner_tma(acc, l_i, m_i, q, desc_k, desc_v, b, h, 0, full, offs_m, kv_len, qk_scale,
                                    False, IS_CAUSAL, BLOCK_N, HEAD_DIM)
    acc, l_i, m_i = _attn_inner_tma(acc, l_i, m_i, q, desc_k, desc_v, b, h, full, hi, offs_m, kv_len, qk_scale,
                                    True, IS_CAUSAL, BLOCK_N, HEAD_DIM)
    l_safe = tl.where(l_i == 0.0, 1.0, l_i)
    out = acc / l_safe[:, None]
    desc_o.store([b, h, start_m * BLOCK_M, 0], out.to(desc_o.dtype).reshape(1, 1, BLOCK_M, HEAD_DIM))


def _cfg(bm, bn, w, s):
    return triton.Config({"BLOCK_M": bm, "BLOCK_N": bn}, num_warps=w, num_stages=s)


CONFIGS = [_cfg(128, 64, 4, 3), _cfg(128, 64, 8, 3), _cfg(128, 128, 8, 2), _cfg(128, 128, 8, 3),
           _cfg(64, 64, 4, 3), _cfg(128, 32, 4, 4)]
_INTERP_CONFIG = _cfg(32, 16, 4, 1)
# Tuned per power-of-two bucket of the lengths (SQ_KEY, SK_KEY; unused in the kernels), not per length:
# variable-length inputs would otherwise re-run the autotuner for every new length.
_tuned = triton.autotune(CONFIGS, key=["SQ_KEY", "SK_KEY", "HEAD_DIM", "IS_CAUSAL", "HAS_LENS", "HAS_KPM"])(_attn_fwd)


def _tma_hook(nargs):
    bm, bn, d = nargs["BLOCK_M"], nargs["BLOCK_N"], nargs["HEAD_DIM"]
    nargs["desc_q"].block_shape = [1, 1, bm, d]
    nargs["desc_o"].block_shape = [1, 1, bm, d]
    nargs["desc_k"].block_shape = [1, 1, bn, d]
    nargs["desc_v"].block_shape = [1, 1, bn, d]


def _tma_cfg(c):
    return triton.Config(dict(c.kwargs), num_warps=c.num_warps, num_stages=c.num_stages, pre_hook=_tma_hook)


TMA_CONFIGS = [_tma_cfg(c) for c in CONFIGS]
_tuned_tma = triton.autotune(TMA_CONFIGS, key=["SQ_KEY", "SK_KEY", "HEAD_DIM", "IS_CAUSAL", "HAS_LENS"])(_attn_fwd_tma)


def _tma_ok(*ts):
    for t in ts:
        if t.stride(-1) != 1 or t.data_ptr() % 16 or any((st * t.element_size()) % 16 for st in t.stride()[:-1]):
            return False
    return True


def _use_ws(q, k, v, out, key_padding_mask, impl, config) -> bool:
    """The Gluon warp-specialised kernel (flash_attention_ws): forced by impl="ws", chosen by "auto" on an
    sm_90 GPU for the shapes it takes, unless a Triton config was asked for."""
    if impl == "auto" and (config is not None or not q.is_cuda or interpreting(_attn_fwd)
                           or torch.cuda.get_device_capability(q.device) != (9, 0)):
        return False
    if impl not in ("auto", "ws"):
        return False
    from . import flash_attention_ws

    ok = flash_attention_ws.supports(q, k, v, out, key_padding_mask)
    if impl == "ws" and not ok:
        raise ValueError("impl='ws' needs an sm_90 GPU, fp16/bf16, head dim 64 or 128, no key_padding_mask and "
                         "TMA-aligned strides")
    return ok


def _use_tma(q, k, v, out, key_padding_mask, impl):
    if impl == "pointer" or key_padding_mask is not None:
        if impl == "tma":
            raise ValueError("impl='tma' does not take a key_padding_mask")
        return False
    if impl == "tma":
        return True
    if not q.is_cuda or torch.cuda.get_device_capability(q.device)[0] < 9:
        return False
    return _tma_ok(q, k, v, out)


def attention(q, k, v, causal=False, kv_lens=None, key_padding_mask=None, sm_scale=None, out=None, config=None,
              impl="auto"):
    """Fused attention forward; see the module docstring for the options. Returns (B, H, Sq, D).

    ``impl``: "ws" (the Gluon warp-specialised kernel of ``flash_attention_ws``: sm_90, D 64 or 128, no
    key_padding_mask), "tma" (tiles through Hopper's TMA unit; no key_padding_mask), "pointer" (plain
    loads, any strides, any GPU), or "auto" (ws where it applies and no ``config`` is given, else tma on
    sm_90+ when strides allow and no key_padding_mask, else pointer)."""
    if out is None and config is None and torch.compiler.is_compiling():
        return attention_op(q, k, v, causal, kv_lens, key_padding_mask, sm_scale, impl)
    return _attention(q, k, v, causal, kv_lens, key_padding_mask, sm_scale, out, config, impl)


def _check(q, k, v, key_padding_mask, impl):
    """(B, H, SQ, SK, D) of a call, or the error that names what is wrong with it."""
    if impl not in ("auto", "ws", "tma", "pointer"):
        raise ValueError(f"impl must be 'auto', 'ws', 'tma' or 'pointer', not {impl!r}")
    if q.dim() != 4 or k.dim() != 4 or v.dim() != 4:
        raise ValueError("attention expects (B, H, S, D) tensors")
    B, H, SQ, D = q.shape
    SK = k.shape[2]
    if k.shape != (B, H, SK, D) or v.shape != (B, H, SK, D):
        raise ValueError(f"k and v must be (B, H, Sk, D) = {(B, H, SK, D)}; got {tuple(k.shape)}, {tuple(v.shape)}")
    if q.dtype not in (torch.float16, torch.bfloat16) or k.dtype != q.dtype or v.dtype != q.dtype:
        raise TypeError("attention takes fp16 or bf16 q, k, v of one dtype")
    if D not in (16, 32, 64, 128, 256):
        raise ValueError(f"head dim {D} not supported (16, 32, 64, 128, 256)")
    if key_padding_mask is not None and key_padding_mask.shape != (B, SK):
        raise ValueError(f"key_padding_mask must be (B, Sk) = {(B, SK)}")
    return B, H, SQ, SK, D


def _attention(q, k, v, causal, kv_lens, key_padding_mask, sm_scale, out, config, impl):
    B, H, SQ, SK, D = _check(q, k, v, key_padding_mask, impl)
    if out is None:
        out = torch.empty_like(q)
    scale = sm_scale if sm_scale is not None else 1.0 / math.sqrt(D)
    lens = kv_lens.to(device=q.device, dtype=torch.int32).contiguous() if kv_lens is not None else q
    if key_padding_mask is not None:
        kpm = key_padding_mask.to(device=q.device, dtype=torch.bool).contiguous().view(torch.uint8)
        spb, spn = kpm.stride()
    else:
        kpm, spb, spn = q, 0, 0
    args = dict(Q=q, K=k, V=v, O=out, LENS=lens, KPM=kpm, sm_scale=scale,
                stride_qb=q.stride(0), stride_qh=q.stride(1), stride_qm=q.stride(2), stride_qd=q.stride(3),
                stride_kb=k.stride(0), stride_kh=k.stride(1), stride_kn=k.stride(2), stride_kd=k.stride(3),
                stride_vb=v.stride(0), stride_vh=v.stride(1), stride_vn=v.stride(2), stride_vd=v.stride(3),
                stride_ob=out.stride(0), stride_oh=out.stride(1), stride_om=out.stride(2), stride_od=out.stride(3),
                stride_pb=spb, stride_pn=spn, H=H, SQ=SQ, SK=SK, SQ_KEY=next_pow2(SQ), SK_KEY=next_pow2(SK),
                HEAD_DIM=D, IS_CAUSAL=bool(causal), HAS_LENS=kv_lens is not None,
                HAS_KPM=key_padding_mask is not None)
    if B * H * SQ == 0:
        return out
    if _use_ws(q, k, v, out, key_padding_mask, impl, config):
        from .flash_attention_ws import attention_ws

        return attention_ws(q, k, v, causal=causal, kv_lens=kv_lens, sm_scale=scale, out=out)
    grid = lambda meta: (triton.cdiv(SQ, meta["BLOCK_M"]), B * H)
    if _use_tma(q, k, v, out, key_padding_mask, impl):
        from triton.tools.tensor_descriptor import TensorDescriptor

        def desc(t, rows):
            return TensorDescriptor(t, list(t.shape), list(t.stride()), [1, 1, rows, D])

        targs = dict(desc_q=desc(q, 16), desc_k=desc(k, 16), desc_v=desc(v, 16), desc_o=desc(out, 16), LENS=lens,
                     sm_scale=scale, H=H, SQ=SQ, SK=SK, SQ_KEY=next_pow2(SQ), SK_KEY=next_pow2(SK),
                     HEAD_DIM=D, IS_CAUSAL=bool(causal),
                     HAS_LENS=kv_lens is not None)
        cfg = config if config is None else _tma_cfg(config)
        launch(_tuned_tma, _attn_fwd_tma, grid, targs, cfg, _tma_cfg(_INTERP_CONFIG))
        return out
    launch(_tuned, _attn_fwd, grid, args, config, _INTERP_CONFIG)
    return out


# The supported way to call the kernels from compiled and exported code (as norms.rms_norm_op): an op whose
# fake implementation states the output (like q), so no compiler traces the launchers (the autotuner, the
# TMA descriptors, the Gluon kernel's choice by device).
@torch.library.custom_op("compilelint::attention", mutates_args=())
def attention_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False,
                 kv_lens: torch.Tensor | None = None, key_padding_mask: torch.Tensor | None = None,
                 sm_scale: float | None = None, impl: str = "auto") -> torch.Tensor:
    """attention as an op: one node of a torch.compile / torch.export graph."""
    return _attention(q, k, v, causal, kv_lens, key_padding_mask, sm_scale, None, None, impl)


@attention_op.register_fake
def _(q, k, v, causal=False, kv_lens=None, key_padding_mask=None, sm_scale=None, impl="auto"):
    _check(q, k, v, key_padding_mask, impl)
    return torch.empty_like(q)
