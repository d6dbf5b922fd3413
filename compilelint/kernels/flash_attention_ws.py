"""Hopper (sm_90) attention forward in Gluon: FlashAttention-3's warp-specialised design.

What it does: the same function as ``flash_attention.attention`` (causal or not, per-batch ``kv_lens``;
no key-padding mask) for q (B, H, Sq, D), k and v (B, H, Sk, D) in fp16 or bf16 with D of 64 or 128.
``flash_attention.attention`` sends such calls here on an sm_90 GPU; call ``attention_ws`` directly only
to force it.

Why: the Triton kernel in ``flash_attention`` waits for each matrix product before it starts the softmax,
so the tensor cores idle while the exponentials run (Triton 3.6 neither overlaps two dependent dots on
sm_90 nor runs its automatic warp specialisation there: docs/bench/kernels_h200.txt). Gluon,
Triton's lower-level language, lets the kernel say how the work overlaps:

* one producer warp moves each tile's two query halves and its K/V tiles into shared memory with TMA, the
  K/V tiles through a ring of ``STAGES`` slots; each buffer has a "ready" mbarrier (TMA byte count) and an
  "empty" one (one arrive per consumer that reads it);
* two consumer warpgroups (the kernel's own 4 warps and one 4-warp worker; 240 registers each through
  ``setmaxnreg``, the producer 24) take 64 query rows each of a 128-row tile, so while one runs its
  softmax the other's wgmma keeps the tensor cores busy;
* inside a consumer, tile j's ``S = Q K_j^T`` and tile j-1's ``O += P V`` are issued together as async
  wgmma; the consumer waits for the first only (``warpgroup_mma_wait(1)``), runs tile j's softmax while
  ``P V`` is still on the tensor cores, then waits for it and rescales O;
* persistent (FlashAttention-3's static tile scheduler): one program per SM takes tile after tile (of
  B*H*ceil(Sq/128), query blocks fastest; causal: each head's heaviest block first, the programs taking each
  round of tiles in alternating order so that heavy and light tiles even out). The output leaves through its
  own shared-memory buffer, so a consumer hands its query half back once the tile's last ``Q K^T`` is done:
  the producer loads the next tile's Q and first K/V while the consumers finish this tile's last ``P V``
  and store its output, and that store overlaps the next tile. The ring's slots and phases run on across
  tiles. ``persistent=False`` launches one program per tile; ``separate_o=False`` stages the output in the
  query buffer instead (one more ring slot at D=128, but the next Q waits for the store).

On an H200 (B4 H16 S4096 D128 bf16; docs/bench/kernels_h200.txt, set 13; 6 interleaved rounds, medians):
600 / 546 TFLOP/s non-causal / causal, 1.01x / 1.05x of cuDNN in the same run; one program per tile (this
kernel's previous schedule) 577 / 507 (0.97x / 0.98x); the Triton kernel 492 / 448 (set 10).

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

BLOCK_M = 128  # query rows per tile: two consumer warpgroups of 64
BLOCK_N = 128  # keys per tile
HEAD_DIMS = (64, 128)  # D=256 would not fit a consumer's S, P and O in 240 registers
CONSUMER_REGS = 240
_SMEM_LIMIT = 232448  # bytes of shared memory one sm_90 block may use


def _stages(head_dim: int, elem: int = 2, separate_o: bool = True) -> int:
    """Ring slots for K and V: as many as fit beside the two query halves and the output buffer (2 at D=128,
    192 KB; 4 at D=64), or beside the query halves alone when they stage the output (3 at D=128, 224 KB)."""
    q_bytes = BLOCK_M * head_dim * elem
    slot = 2 * BLOCK_N * head_dim * elem
    return max(2, min(4, (_SMEM_LIMIT - q_bytes * (2 if separate_o else 1) - 1024) // slot))


@gluon.jit
def _softmax_tile(s, m_i, l_i, start_n, full, row0, kv_len, qk_scale, s_layout: gl.constexpr,
                  IS_CAUSAL: gl.constexpr, BLOCK_N: gl.constexpr):
    """Online-softmax step for one tile of raw scores (query rows from row0): (p, new running max, new
    running sum, alpha)."""
    if start_n >= full:  # a tile that crosses the diagonal or the end of the keys
        offs_m = row0 + gl.arange(0, s.shape[0], layout=gl.SliceLayout(1, s_layout))
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
def _tile(t, n_blocks, H, LENS, SK, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, IS_CAUSAL: gl.constexpr,
          HAS_LENS: gl.constexpr):
    """Tile t: (b * H + h, query block, kv_len, keys below which no tile needs a mask, key tiles). Query blocks
    run fastest (a head's K and V stay in L2 while its blocks run); causal: the heaviest block first."""
    bh = t // n_blocks
    if IS_CAUSAL:
        start_m = n_blocks - 1 - t % n_blocks
    else:
        start_m = t % n_blocks
    kv_len = SK
    if HAS_LENS:
        kv_len = gl.minimum(gl.maximum(gl.load(LENS + bh // H).to(gl.int32), 0), SK)
    hi = kv_len
    full = (kv_len // BLOCK_N) * BLOCK_N  # key tiles with no key past kv_len
    if IS_CAUSAL:
        hi = gl.minimum(hi, (start_m + 1) * BLOCK_M)
        full = gl.minimum(full, start_m * BLOCK_M)  # and wholly below the diagonal
    return bh, start_m, kv_len, full, gl.cdiv(hi, BLOCK_N)


@gluon.jit
def _round_tile(r):
    """The tile program p of G takes in round r: p, 2G-1-p, 2G+p, 4G-1-p, ... (zigzag: in causal attention the
    rounds' heavy and light tiles even out over the programs)."""
    nprog = gl.num_programs(0)
    pid = gl.program_id(0)
    if r % 2 == 0:
        return r * nprog + pid
    return r * nprog + nprog - 1 - pid


@gluon.jit
def _load_kv(desc_k, desc_v, k_smem, v_smem, k_ready, v_ready, k_empty, v_empty, b, h, j, g,
             BLOCK_N: gl.constexpr, STAGES: gl.constexpr):
    """K_j and V_j, the program's g-th K/V tile, into ring slot g % STAGES once the consumers released the tile
    before it there (on the first pass, a wait for parity 1 of a fresh mbarrier returns at once)."""
    slot = g % STAGES
    phase = (g // STAGES) & 1
    mbarrier.wait(k_empty.index(slot), phase ^ 1)
    mbarrier.expect(k_ready.index(slot), desc_k.block_type.nbytes)
    tma.async_copy_global_to_shared(desc_k, [b, h, j * BLOCK_N, 0], k_ready.index(slot), k_smem.index(slot))
    mbarrier.wait(v_empty.index(slot), phase ^ 1)
    mbarrier.expect(v_ready.index(slot), desc_v.block_type.nbytes)
    tma.async_copy_global_to_shared(desc_v, [b, h, j * BLOCK_N, 0], v_ready.index(slot), v_smem.index(slot))


@gluon.jit
def _producer(desc_q, desc_k, desc_v, q_smem, k_smem, v_smem, q_ready, q_empty, k_ready, v_ready, k_empty, v_empty,
              LENS, H, SK, n_blocks, total, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, STAGES: gl.constexpr,
              IS_CAUSAL: gl.constexpr, HAS_LENS: gl.constexpr):
    """One warp. Per tile: K_0 and V_0 (their slots free up while the consumers finish the previous tile), both
    query halves once the consumers released the previous ones, then the other K/V tiles."""
    HALF_M: gl.constexpr = desc_q.block_type.shape[2]
    g = 0  # K/V tiles loaded so far
    for r in range(gl.cdiv(total, gl.num_programs(0))):  # one tile a round; the last round may have none
        t = _round_tile(r)
        if t < total:
            bh, start_m, _, _, n_tiles = _tile(t, n_blocks, H, LENS, SK, BLOCK_M, BLOCK_N, IS_CAUSAL, HAS_LENS)
            b = bh // H
            h = bh % H
            if n_tiles > 0:
                _load_kv(desc_k, desc_v, k_smem, v_smem, k_ready, v_ready, k_empty, v_empty, b, h, 0, g, BLOCK_N,
                         STAGES)
            for half in gl.static_range(2):
                mbarrier.wait(q_empty.index(half), (r & 1) ^ 1)
                mbarrier.expect(q_ready.index(half), desc_q.block_type.nbytes)
                tma.async_copy_global_to_shared(desc_q, [b, h, start_m * BLOCK_M + half * HALF_M, 0],
                                                q_ready.index(half), q_smem.index(half))
            for j in range(1, n_tiles):
                _load_kv(desc_k, desc_v, k_smem, v_smem, k_ready, v_ready, k_empty, v_empty, b, h, j, g + j, BLOCK_N,
                         STAGES)
            g += n_tiles


@gluon.jit
def _consumer(desc_o, q_smem, o_smem, k_smem, v_smem, q_ready, q_empty, k_ready, v_ready, k_empty, v_empty,
              LENS, sm_scale, H, SK, n_blocks, total, HALF: gl.constexpr, HEAD_DIM: gl.constexpr,
              BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, STAGES: gl.constexpr, IS_CAUSAL: gl.constexpr,
              HAS_LENS: gl.constexpr, SEPARATE_O: gl.constexpr):
    """One warpgroup, 64 query rows (half HALF) of each of its program's tiles. A ring slot goes back to the
    producer by one arrive per warpgroup once the wgmma reading it has been waited for; so does the query
    half, once the last S of the tile is done (SEPARATE_O) or once the output staged in it has been stored."""
    HALF_M: gl.constexpr = desc_o.block_type.shape[2]
    dtype: gl.constexpr = desc_o.dtype
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, BLOCK_N, 16])
    o_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, HEAD_DIM, 16])
    p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)
    qk_scale = sm_scale * 1.4426950408889634  # softmax in base 2
    q = q_smem.index(HALF).reshape([HALF_M, HEAD_DIM])
    s_zero = gl.zeros([HALF_M, BLOCK_N], gl.float32, s_layout)
    g = 0  # K/V tiles consumed so far
    for r in range(gl.cdiv(total, gl.num_programs(0))):
        t = _round_tile(r)
        if t < total:
            bh, start_m, kv_len, full, n_tiles = _tile(t, n_blocks, H, LENS, SK, BLOCK_M, BLOCK_N, IS_CAUSAL,
                                                       HAS_LENS)
            row0 = start_m * BLOCK_M + HALF * HALF_M
            acc = gl.zeros([HALF_M, HEAD_DIM], gl.float32, o_layout)
            m_i = gl.full([HALF_M], -float("inf"), gl.float32, gl.SliceLayout(1, s_layout))
            l_i = gl.zeros([HALF_M], gl.float32, gl.SliceLayout(1, s_layout))
            mbarrier.wait(q_ready.index(HALF), r & 1)
            if n_tiles > 0:
                slot = g % STAGES
                mbarrier.wait(k_ready.index(slot), (g // STAGES) & 1)
                kT = k_smem.index(slot).reshape([BLOCK_N, HEAD_DIM]).permute((1, 0))
                s = warpgroup_mma_wait(0, deps=[warpgroup_mma(q, kT, s_zero, use_acc=False, is_async=True)])
                mbarrier.arrive(k_empty.index(slot))
                p, m_i, l_i, alpha = _softmax_tile(s, m_i, l_i, 0, full, row0, kv_len, qk_scale, s_layout, IS_CAUSAL,
                                                   BLOCK_N)
                for j in range(1, n_tiles):
                    slot = (g + j) % STAGES
                    prev = (g + j - 1) % STAGES
                    mbarrier.wait(k_ready.index(slot), ((g + j) // STAGES) & 1)
                    kT = k_smem.index(slot).reshape([BLOCK_N, HEAD_DIM]).permute((1, 0))
                    s_tok = warpgroup_mma(q, kT, s_zero, use_acc=False, is_async=True)
                    mbarrier.wait(v_ready.index(prev), ((g + j - 1) // STAGES) & 1)
                    p_op = gl.convert_layout(p.to(dtype), p_layout)
                    o_tok = warpgroup_mma(p_op, v_smem.index(prev).reshape([BLOCK_N, HEAD_DIM]), acc, is_async=True)
                    s = warpgroup_mma_wait(1, deps=[s_tok])  # S_j is done; P_{j-1} V_{j-1} may still run
                    mbarrier.arrive(k_empty.index(slot))
                    p, m_i, l_i, alpha = _softmax_tile(s, m_i, l_i, j * BLOCK_N, full, row0, kv_len, qk_scale, s_layout,
                                                       IS_CAUSAL, BLOCK_N)
                    acc, p_op = warpgroup_mma_wait(0, deps=[o_tok, p_op])
                    mbarrier.arrive(v_empty.index(prev))
                    acc = acc * gl.convert_layout(alpha, gl.SliceLayout(1, o_layout))[:, None]
                if SEPARATE_O:
                    mbarrier.arrive(q_empty.index(HALF))  # every S of the tile has been waited for
                last = (g + n_tiles - 1) % STAGES
                mbarrier.wait(v_ready.index(last), ((g + n_tiles - 1) // STAGES) & 1)
                p_op = gl.convert_layout(p.to(dtype), p_layout)
                o_tok = warpgroup_mma(p_op, v_smem.index(last).reshape([BLOCK_N, HEAD_DIM]), acc, is_async=True)
                acc, p_op = warpgroup_mma_wait(0, deps=[o_tok, p_op])
                mbarrier.arrive(v_empty.index(last))
            elif SEPARATE_O:
                mbarrier.arrive(q_empty.index(HALF))
            l_o = gl.convert_layout(l_i, gl.SliceLayout(1, o_layout))
            l_safe = gl.where(l_o == 0.0, 1.0, l_o)  # no key at all (kv_len 0): zeros
            o = (acc / l_safe[:, None]).to(dtype)
            b = bh // H
            h = bh % H
            if SEPARATE_O:
                tma.store_wait(0)  # the previous tile's output has left o_smem
                o_smem.index(HALF).reshape([HALF_M, HEAD_DIM]).store(o)
                fence_async_shared()
                tma.async_copy_shared_to_global(desc_o, [b, h, row0, 0], o_smem.index(HALF))  # rows past Sq: clipped
            else:
                q.store(o)  # this half's query buffer stages its output
                fence_async_shared()
                tma.async_copy_shared_to_global(desc_o, [b, h, row0, 0], q_smem.index(HALF))
                tma.store_wait(0)
                mbarrier.arrive(q_empty.index(HALF))
            g += n_tiles
    tma.store_wait(0)


@gluon.jit
def _attn_fwd_ws(desc_q, desc_k, desc_v, desc_o, LENS, sm_scale, H, SK, n_blocks, total,
                 HEAD_DIM: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, STAGES: gl.constexpr,
                 IS_CAUSAL: gl.constexpr, HAS_LENS: gl.constexpr, SEPARATE_O: gl.constexpr,
                 CONSUMER_REGS: gl.constexpr):
    """1-D grid over ``total`` = B*H*n_blocks tiles of 128 query rows; each program takes tiles p, 2G-1-p,
    2G+p, ... (G programs; one tile each when G == total). Descriptors over (B, H, S, D); q/o blocks
    [1, 1, 64, D], k/v [1, 1, BLOCK_N, D]."""
    gl.static_assert(BLOCK_M == 2 * desc_q.block_type.shape[2])
    gl.static_assert(BLOCK_M % BLOCK_N == 0)  # causal: tiles below `full` lie wholly below the diagonal
    dtype: gl.constexpr = desc_q.dtype
    HALF_M: gl.constexpr = BLOCK_M // 2
    q_smem = gl.allocate_shared_memory(dtype, [2, 1, 1, HALF_M, HEAD_DIM], desc_q.layout)
    if SEPARATE_O:
        o_smem = gl.allocate_shared_memory(dtype, [2, 1, 1, HALF_M, HEAD_DIM], desc_o.layout)
    else:
        o_smem = q_smem
    k_smem = gl.allocate_shared_memory(dtype, [STAGES, 1, 1, BLOCK_N, HEAD_DIM], desc_k.layout)
    v_smem = gl.allocate_shared_memory(dtype, [STAGES, 1, 1, BLOCK_N, HEAD_DIM], desc_v.layout)
    q_ready = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    q_empty = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    k_ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    v_ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    k_empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    v_empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(2):
        mbarrier.init(q_ready.index(i), count=1)
        mbarrier.init(q_empty.index(i), count=1)  # its consumer warpgroup's arrive
    for i in gl.static_range(STAGES):
        mbarrier.init(k_ready.index(i), count=1)
        mbarrier.init(v_ready.index(i), count=1)
        mbarrier.init(k_empty.index(i), count=2)  # one arrive per consumer warpgroup
        mbarrier.init(v_empty.index(i), count=2)
    fence_async_shared()
    gl.warp_specialize([
        (_consumer, (desc_o, q_smem, o_smem, k_smem, v_smem, q_ready, q_empty, k_ready, v_ready, k_empty, v_empty,
                     LENS, sm_scale, H, SK, n_blocks, total, 0, HEAD_DIM, BLOCK_M, BLOCK_N, STAGES, IS_CAUSAL,
                     HAS_LENS, SEPARATE_O)),
        (_consumer, (desc_o, q_smem, o_smem, k_smem, v_smem, q_ready, q_empty, k_ready, v_ready, k_empty, v_empty,
                     LENS, sm_scale, H, SK, n_blocks, total, 1, HEAD_DIM, BLOCK_M, BLOCK_N, STAGES, IS_CAUSAL,
                     HAS_LENS, SEPARATE_O)),
        (_producer, (desc_q, desc_k, desc_v, q_smem, k_smem, v_smem, q_ready, q_empty, k_ready, v_ready, k_empty,
                     v_empty, LENS, H, SK, n_blocks, total, BLOCK_M, BLOCK_N, STAGES, IS_CAUSAL, HAS_LENS)),
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


_SM_COUNT: dict = {}  # device index -> multiprocessors (a test sets fewer, to give each program more tiles)


def _programs(device, total: int, persistent: bool) -> int:
    """Programs to launch: one per SM when persistent (at most one per tile), else one per tile."""
    if not persistent:
        return total
    idx = device.index if device.index is not None else torch.cuda.current_device()
    if idx not in _SM_COUNT:
        _SM_COUNT[idx] = torch.cuda.get_device_properties(idx).multi_processor_count
    return min(total, _SM_COUNT[idx])


def attention_ws(q, k, v, causal=False, kv_lens=None, sm_scale=None, out=None, stages=None, persistent=True,
                 separate_o=True):
    """The warp-specialised forward; the caller checks ``supports(q, k, v, out)`` first. ``stages``: K/V
    ring slots (default: as many as fit, up to 4; docs/bench/kernels_h200.txt has other counts).
    ``persistent``: one program per SM taking tile after tile (else one program per tile); ``separate_o``:
    the output staged in its own shared-memory buffer (else in the query's); see the module docstring."""
    if out is None and stages is None and persistent and separate_o and \
            torch.compiler.is_compiling():  # one op call in the graph
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
    n_blocks = triton.cdiv(SQ, BLOCK_M)
    total = n_blocks * B * H
    stages = stages or _stages(D, q.element_size(), separate_o)
    grid = (_programs(q.device, total, persistent),)
    _attn_fwd_ws[grid](desc(q, BLOCK_M // 2), desc(k, BLOCK_N), desc(v, BLOCK_N), desc(out, BLOCK_M // 2), lens,
                       scale, H, SK, n_blocks, total, HEAD_DIM=D, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, STAGES=stages,
                       IS_CAUSAL=bool(causal), HAS_LENS=kv_lens is not None, SEPARATE_O=bool(separate_o),
                       CONSUMER_REGS=CONSUMER_REGS, num_warps=4)
    return out


def compile_sm90(head_dim: int = 128, dtype=torch.bfloat16, causal: bool = False, has_lens: bool = False,
                 separate_o: bool = True):
    """Compile the kernel for sm_90 without a GPU (Triton's compiler and bundled ptxas); tests read the PTX
    (async wgmma waits, setmaxnreg) and ptxas's register and spill report from the result."""
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    ty = {torch.bfloat16: "bf16", torch.float16: "fp16"}[dtype]

    def desc(rows):
        return f"tensordesc<{ty}[1, 1, {rows}, {head_dim}],{shared_layout(rows, head_dim, dtype)!r}>"

    sig = {"desc_q": desc(BLOCK_M // 2), "desc_k": desc(BLOCK_N), "desc_v": desc(BLOCK_N),
           "desc_o": desc(BLOCK_M // 2), "LENS": "*i32", "sm_scale": "fp32", "H": "i32", "SK": "i32",
           "n_blocks": "i32", "total": "i32", "HEAD_DIM": "constexpr", "BLOCK_M": "constexpr",
           "BLOCK_N": "constexpr", "STAGES": "constexpr", "IS_CAUSAL": "constexpr", "HAS_LENS": "constexpr",
           "SEPARATE_O": "constexpr", "CONSUMER_REGS": "constexpr"}
    consts = {"HEAD_DIM": head_dim, "BLOCK_M": BLOCK_M, "BLOCK_N": BLOCK_N,
              "STAGES": _stages(head_dim, 2, separate_o), "IS_CAUSAL": causal, "HAS_LENS": has_lens,
              "SEPARATE_O": bool(separate_o), "CONSUMER_REGS": CONSUMER_REGS}
    return triton.compile(GluonASTSource(_attn_fwd_ws, sig, constexprs=consts), target=GPUTarget("cuda", 90, 32),
                          options={"num_warps": 4})
