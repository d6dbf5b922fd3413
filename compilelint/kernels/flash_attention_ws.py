"""Hopper (sm_90) attention forward in Gluon: FlashAttention-3's warp-specialised design.

What it does: the same function as ``flash_attention.attention`` (causal or not, per-batch ``kv_lens``;
no key-padding mask) for q (B, H, Sq, D), k and v (B, H, Sk, D) in fp16 or bf16 with D of 64 or 128.
``flash_attention.attention`` sends such calls here on an sm_90 GPU; call ``attention_ws`` directly only
to force it.

Why: the Triton kernel in ``flash_attention`` waits for each matrix product before it starts the softmax,
so the tensor cores idle while the exponentials run (Triton 3.6 neither overlaps two dependent dots on
sm_90 nor runs its automatic warp specialisation there: docs/bench/kernels_h200.txt). Gluon,
Triton's lower-level language, lets the kernel say how the work overlaps:

* one producer warp moves Q once and K/V tiles into a ring of ``STAGES`` shared-memory slots with TMA;
  each slot has a "ready" mbarrier (TMA byte count) and an "empty" one (one arrive per consumer);
* two consumer warpgroups (the kernel's own 4 warps and one 4-warp worker; 240 registers each through
  ``setmaxnreg``, the producer 24) take 64 query rows each of a 128-row block, so while one runs its
  softmax the other's wgmma keeps the tensor cores busy;
* inside a consumer, tile j's ``S = Q K_j^T`` and tile j-1's ``O += P V`` are issued together as async
  wgmma; the consumer waits for the first only (``warpgroup_mma_wait(1)``), runs tile j's softmax while
  ``P V`` is still on the tensor cores, then waits for it and rescales O.

On an H200 (B4 H16 S4096 D128 bf16, docs/bench/kernels_h200.txt): 585 / 520 TFLOP/s
non-causal / causal, 0.91x / 0.96x of cuDNN in the same run, against 492 / 448 for the Triton kernel.

Example::

    o = attention_ws(q, k, v, causal=True, kv_lens=lens)   # == flash_attention.reference(...)
"""

from __future__ import annotations

import math

import torch
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import fence_async_shared, mbarrier, tma, warpgroup_mma, \
    warpgroup_mma_wait

__all__ = ["attention_ws", "supports", "BLOCK_M", "BLOCK_N", "HEAD_DIMS"]

BLOCK_M = 128  # query rows per program: two consumer warpgroups of 64
BLOCK_N = 128  # keys per tile
HEAD_DIMS = (64, 128)  # D=256 would not fit a consumer's S, P and O in 240 registers
CONSUMER_REGS = 240
_SMEM_LIMIT = 232448  # bytes of shared memory one sm_90 block may use


def _stages(head_dim: int, elem: int = 2) -> int:
    """Ring slots for K and V: as many as fit beside the two query halves (3 at D=128: 224 KB)."""
    q_bytes = BLOCK_M * head_dim * elem
    slot = 2 * BLOCK_N * head_dim * elem
    return max(2, min(4, (_SMEM_LIMIT - q_bytes - 1024) // slot))


@gluon.jit
def _softmax_tile(s, m_i, l_i, start_n, full, offs_m, kv_len, qk_scale, s_layout: gl.constexpr,
                  IS_CAUSAL: gl.constexpr, BLOCK_N: gl.constexpr):
    """Online-softmax step for one tile of raw scores: (p, new running max, new running sum, alpha)."""
    if start_n >= full:  # a tile that crosses the diagonal or the end of the keys
        cols = start_n + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(0, s_layout))
        keep = (cols < kv_len)[None, :] & (offs_m >= 0)[:, None]
        if IS_CAUSAL:
            keep = keep & (offs_m[:, None] >= cols[None, :])
        s = gl.where(keep, s * qk_scale, -float("inf"))
        m_new = gl.maximum(m_i, gl.max(s, 1))
        m_sub = gl.where(m_new == -float("inf"), 0.0, m_new)  # a row with nothing visible yet
        p = gl.exp2(s - m_sub[:, None])
        alpha = gl.exp2(m_i - m_sub)
    else:
        m_new = gl.maximum(m_i, gl.max(s, 1) * qk_scale)
        p = gl.exp2(s * qk_scale - m_new[:, None])
        alpha = gl.exp2(m_i - m_new)
    l_i = l_i * alpha + gl.sum(p, 1)
    return p, m_new, l_i, alpha


@gluon.jit
def _producer(desc_q, desc_k, desc_v, q_smem, k_smem, v_smem, q_bars, k_ready, v_ready, k_empty, v_empty,
              b, h, start_m, n_tiles, BLOCK_N: gl.constexpr, STAGES: gl.constexpr):
    """One warp: both query halves, then each K and V tile once its slot's previous tile was consumed."""
    HALF_M: gl.constexpr = desc_q.block_type.shape[2]
    for half in gl.static_range(2):
        mbarrier.expect(q_bars.index(half), desc_q.block_type.nbytes)
        tma.async_copy_global_to_shared(desc_q, [b, h, start_m * 2 * HALF_M + half * HALF_M, 0], q_bars.index(half),
                                        q_smem.index(half))
    for t in range(n_tiles):
        slot = t % STAGES
        reuse = t // STAGES
        mbarrier.wait(k_empty.index(slot), (reuse - 1) & 1, pred=reuse > 0)
        mbarrier.expect(k_ready.index(slot), desc_k.block_type.nbytes)
        tma.async_copy_global_to_shared(desc_k, [b, h, t * BLOCK_N, 0], k_ready.index(slot), k_smem.index(slot))
        mbarrier.wait(v_empty.index(slot), (reuse - 1) & 1, pred=reuse > 0)
        mbarrier.expect(v_ready.index(slot), desc_v.block_type.nbytes)
        tma.async_copy_global_to_shared(desc_v, [b, h, t * BLOCK_N, 0], v_ready.index(slot), v_smem.index(slot))


@gluon.jit
def _consumer(desc_o, q_smem, k_smem, v_smem, q_bars, k_ready, v_ready, k_empty, v_empty, sm_scale, kv_len, full,
              n_tiles, start_m, b, h, HALF: gl.constexpr, HEAD_DIM: gl.constexpr, BLOCK_N: gl.constexpr,
              STAGES: gl.constexpr, IS_CAUSAL: gl.constexpr):
    """One warpgroup, 64 query rows (half HALF of the block). A slot goes back to the producer by one
    arrive per warpgroup once the wgmma reading it has been waited for."""
    HALF_M: gl.constexpr = desc_o.block_type.shape[2]
    dtype: gl.constexpr = desc_o.dtype
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, BLOCK_N, 16])
    o_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, HEAD_DIM, 16])
    p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)
    row0 = start_m * 2 * HALF_M + HALF * HALF_M
    offs_m = row0 + gl.arange(0, HALF_M, layout=gl.SliceLayout(1, s_layout))
    qk_scale = sm_scale * 1.4426950408889634  # softmax in base 2
    q = q_smem.index(HALF).reshape([HALF_M, HEAD_DIM])
    s_zero = gl.zeros([HALF_M, BLOCK_N], gl.float32, s_layout)
    acc = gl.zeros([HALF_M, HEAD_DIM], gl.float32, o_layout)
    m_i = gl.full([HALF_M], -float("inf"), gl.float32, gl.SliceLayout(1, s_layout))
    l_i = gl.zeros([HALF_M], gl.float32, gl.SliceLayout(1, s_layout))
    mbarrier.wait(q_bars.index(HALF), 0)
    if n_tiles > 0:
        mbarrier.wait(k_ready.index(0), 0)
        kT = k_smem.index(0).reshape([BLOCK_N, HEAD_DIM]).permute((1, 0))
        s = warpgroup_mma_wait(0, deps=[warpgroup_mma(q, kT, s_zero, use_acc=False, is_async=True)])
        mbarrier.arrive(k_empty.index(0))
        p, m_i, l_i, alpha = _softmax_tile(s, m_i, l_i, 0, full, offs_m, kv_len, qk_scale, s_layout, IS_CAUSAL,
                                           BLOCK_N)
        for j in range(1, n_tiles):
            slot = j % STAGES
            prev = (j - 1) % STAGES
            mbarrier.wait(k_ready.index(slot), (j // STAGES) & 1)
            kT = k_smem.index(slot).reshape([BLOCK_N, HEAD_DIM]).permute((1, 0))
            s_tok = warpgroup_mma(q, kT, s_zero, use_acc=False, is_async=True)
            mbarrier.wait(v_ready.index(prev), ((j - 1) // STAGES) & 1)
            p_op = gl.convert_layout(p.to(dtype), p_layout)
            o_tok = warpgroup_mma(p_op, v_smem.index(prev).reshape([BLOCK_N, HEAD_DIM]), acc, is_async=True)
            s = warpgroup_mma_wait(1, deps=[s_tok])  # S_j is done; P_{j-1} V_{j-1} may still run
            mbarrier.arrive(k_empty.index(slot))
            p, m_i, l_i, alpha = _softmax_tile(s, m_i, l_i, j * BLOCK_N, full, offs_m, kv_len, qk_scale, s_layout,
                                               IS_CAUSAL, BLOCK_N)
            acc, p_op = warpgroup_mma_wait(0, deps=[o_tok, p_op])
            mbarrier.arrive(v_empty.index(prev))
            acc = acc * gl.convert_layout(alpha, gl.SliceLayout(1, o_layout))[:, None]
        last = (n_tiles - 1) % STAGES
        mbarrier.wait(v_ready.index(last), ((n_tiles - 1) // STAGES) & 1)
        p_op = gl.convert_layout(p.to(dtype), p_layout)
        o_tok = warpgroup_mma(p_op, v_smem.index(last).reshape([BLOCK_N, HEAD_DIM]), acc, is_async=True)
        acc, p_op = warpgroup_mma_wait(0, deps=[o_tok, p_op])
    l_o = gl.convert_layout(l_i, gl.SliceLayout(1, o_layout))
    l_safe = gl.where(l_o == 0.0, 1.0, l_o)  # no key at all (kv_len 0): zeros
    q.store((acc / l_safe[:, None]).to(dtype))  # this half's query buffer stages its output
    fence_async_shared()
    tma.async_copy_shared_to_global(desc_o, [b, h, row0, 0], q_smem.index(HALF))  # rows past Sq are clipped
    tma.store_wait(0)


@gluon.jit
def _attn_fwd_ws(desc_q, desc_k, desc_v, desc_o, LENS, sm_scale, H, SK,
                 HEAD_DIM: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, STAGES: gl.constexpr,
                 IS_CAUSAL: gl.constexpr, HAS_LENS: gl.constexpr, CONSUMER_REGS: gl.constexpr):
    """Grid (query blocks, B*H). Descriptors over (B, H, S, D); q/o blocks [1, 1, 64, D], k/v [1, 1, BLOCK_N, D]."""
    gl.static_assert(BLOCK_M == 2 * desc_q.block_type.shape[2])
    gl.static_assert(BLOCK_M % BLOCK_N == 0)  # causal: tiles below `full` lie wholly below the diagonal
    if IS_CAUSAL:  # heaviest query blocks first: better balance at the end of the grid
        start_m = gl.num_programs(0) - 1 - gl.program_id(0)
    else:
        start_m = gl.program_id(0)
    b = gl.program_id(1) // H
    h = gl.program_id(1) % H
    dtype: gl.constexpr = desc_q.dtype
    HALF_M: gl.constexpr = BLOCK_M // 2
    q_smem = gl.allocate_shared_memory(dtype, [2, 1, 1, HALF_M, HEAD_DIM], desc_q.layout)
    k_smem = gl.allocate_shared_memory(dtype, [STAGES, 1, 1, BLOCK_N, HEAD_DIM], desc_k.layout)
    v_smem = gl.allocate_shared_memory(dtype, [STAGES, 1, 1, BLOCK_N, HEAD_DIM], desc_v.layout)
    q_bars = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    k_ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    v_ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    k_empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    v_empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(2):
        mbarrier.init(q_bars.index(i), count=1)
    for i in gl.static_range(STAGES):
        mbarrier.init(k_ready.index(i), count=1)
        mbarrier.init(v_ready.index(i), count=1)
        mbarrier.init(k_empty.index(i), count=2)  # one arrive per consumer warpgroup
        mbarrier.init(v_empty.index(i), count=2)
    fence_async_shared()
    kv_len = SK
    if HAS_LENS:
        kv_len = gl.minimum(gl.maximum(gl.load(LENS + b).to(gl.int32), 0), SK)
    hi = kv_len
    full = (kv_len // BLOCK_N) * BLOCK_N  # key tiles with no key past kv_len
    if IS_CAUSAL:
        hi = gl.minimum(hi, (start_m + 1) * BLOCK_M)
        full = gl.minimum(full, start_m * BLOCK_M)  # and wholly below the diagonal
    n_tiles = gl.cdiv(hi, BLOCK_N)
    gl.warp_specialize([
        (_consumer, (desc_o, q_smem, k_smem, v_smem, q_bars, k_ready, v_ready, k_empty, v_empty, sm_scale, kv_len,
                     full, n_tiles, start_m, b, h, 0, HEAD_DIM, BLOCK_N, STAGES, IS_CAUSAL)),
        (_consumer, (desc_o, q_smem, k_smem, v_smem, q_bars, k_ready, v_ready, k_empty, v_empty, sm_scale, kv_len,
                     full, n_tiles, start_m, b, h, 1, HEAD_DIM, BLOCK_N, STAGES, IS_CAUSAL)),
        (_producer, (desc_q, desc_k, desc_v, q_smem, k_smem, v_smem, q_bars, k_ready, v_ready, k_empty, v_empty,
                     b, h, start_m, n_tiles, BLOCK_N, STAGES)),
    ], [4, 1], [CONSUMER_REGS, 24])


def _gl_dtype(dtype):
    return {torch.bfloat16: gl.bfloat16, torch.float16: gl.float16}[dtype]


def shared_layout(rows: int, head_dim: int, dtype):
    """The swizzled shared-memory layout of a [1, 1, rows, D] tile (TMA writes it, wgmma reads it)."""
    return gl.NVMMASharedLayout.get_default_for([1, 1, rows, head_dim], _gl_dtype(dtype))


def supports(q, k, v, out, key_padding_mask=None) -> bool:
    """Whether ``attention_ws`` takes these tensors: an sm_90 GPU, fp16/bf16, D in HEAD_DIMS, at least one key,
    no key-padding mask, and strides TMA accepts (unit last stride, 16-byte aligned rows and base)."""
    if key_padding_mask is not None or not q.is_cuda or q.shape[-1] not in HEAD_DIMS or k.shape[2] == 0:
        return False  # (no keys: a TMA descriptor needs a positive extent; the Triton kernels return zeros)
    if q.dtype not in (torch.float16, torch.bfloat16) or torch.cuda.get_device_capability(q.device) != (9, 0):
        return False
    for t in (q, k, v, out):
        if t.stride(-1) != 1 or t.data_ptr() % 16 or any((st * t.element_size()) % 16 for st in t.stride()[:-1]):
            return False
    return True


def attention_ws(q, k, v, causal=False, kv_lens=None, sm_scale=None, out=None, stages=None):
    """The warp-specialised forward; the caller checks ``supports(q, k, v, out)`` first. ``stages``: K/V
    ring slots (default: as many as fit, up to 4; docs/bench/kernels_h200.txt has other counts)."""
    if out is None and stages is None and torch.compiler.is_compiling():  # one op call in the graph
        from .flash_attention import attention_op

        return attention_op(q, k, v, causal, kv_lens, None, sm_scale, "ws")
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

    B, H, SQ, D = q.shape
    SK = k.shape[2]
    if out is None:
        out = torch.empty_like(q)
    if B * H * SQ == 0:
        return out

    def desc(t, rows):
        return TensorDescriptor(t, list(t.shape), list(t.stride()), [1, 1, rows, D], shared_layout(rows, D, t.dtype))

    lens = kv_lens.to(device=q.device, dtype=torch.int32).contiguous() if kv_lens is not None else q
    scale = sm_scale if sm_scale is not None else 1.0 / math.sqrt(D)
    grid = (triton.cdiv(SQ, BLOCK_M), B * H)
    stages = stages or _stages(D, q.element_size())
    _attn_fwd_ws[grid](desc(q, BLOCK_M // 2), desc(k, BLOCK_N), desc(v, BLOCK_N), desc(out, BLOCK_M // 2), lens,
                       scale, H, SK, HEAD_DIM=D, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, STAGES=stages,
                       IS_CAUSAL=bool(causal), HAS_LENS=kv_lens is not None, CONSUMER_REGS=CONSUMER_REGS,
                       num_warps=4)
    return out


def compile_sm90(head_dim: int = 128, dtype=torch.bfloat16, causal: bool = False, has_lens: bool = False):
    """Compile the kernel for sm_90 without a GPU (Triton's compiler and bundled ptxas); tests read the PTX
    (async wgmma waits, setmaxnreg) and ptxas's register and spill report from the result."""
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    ty = {torch.bfloat16: "bf16", torch.float16: "fp16"}[dtype]

    def desc(rows):
        return f"tensordesc<{ty}[1, 1, {rows}, {head_dim}],{shared_layout(rows, head_dim, dtype)!r}>"

    sig = {"desc_q": desc(BLOCK_M // 2), "desc_k": desc(BLOCK_N), "desc_v": desc(BLOCK_N),
           "desc_o": desc(BLOCK_M // 2), "LENS": "*i32", "sm_scale": "fp32", "H": "i32", "SK": "i32",
           "HEAD_DIM": "constexpr", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "STAGES": "constexpr",
           "IS_CAUSAL": "constexpr", "HAS_LENS": "constexpr", "CONSUMER_REGS": "constexpr"}
    consts = {"HEAD_DIM": head_dim, "BLOCK_M": BLOCK_M, "BLOCK_N": BLOCK_N, "STAGES": _stages(head_dim),
              "IS_CAUSAL": causal, "HAS_LENS": has_lens, "CONSUMER_REGS": CONSUMER_REGS}
    return triton.compile(GluonASTSource(_attn_fwd_ws, sig, constexprs=consts), target=GPUTarget("cuda", 90, 32),
                          options={"num_warps": 4})
