"""Attention forward in Gluon, the designs that led to the shipped warp-specialised kernel, against SDPA
cuDNN and the package on an H200 (B4 H16 S4096 D128 bf16).

    PYTHONPATH=. python3 benchmarks/attention_gluon.py --aot     # compile for sm_90, no GPU needed
    PYTHONPATH=. python3 benchmarks/attention_gluon.py           # check and time on a GPU, a child each

Why: issue 7 aims at 0.9x of cuDNN. The Triton kernel (flash_attention, FlashAttention-2's design) waits
for every wgmma at once, and Triton 3.6 neither overlaps two dependent dots on sm_90 nor runs its
automatic warp specialisation there (benchmarks/attention_experiments.py). Gluon, Triton's lower-level
language shipped with Triton 3.6, issues wgmma asynchronously and waits on a count of outstanding groups.

* `attn_fwd_gluon` (not shipped): FlashAttention-3's intra-warpgroup pipelining alone. Each iteration
  issues S_j = Q K_j^T and O += P_{j-1} V_{j-1} together, waits for the first only, runs tile j's softmax
  while the second is on the tensor cores, then waits and rescales O. K/V arrive by TMA into a ring of
  STAGES slots; every warp issues and a CTA barrier guards slot reuse, so the warpgroups run in step.
* the package's `flash_attention_ws` (shipped; index 100+ below): the same loop in two consumer
  warpgroups of 64 rows fed by a producer warp through ready/empty mbarriers, so one warpgroup's softmax
  overlaps the other's matrix products.

Session 10 (H200, torch 2.11, triton 3.6; one run, min of 3 do_bench calls, TFLOP/s non-causal / causal):
SDPA cuDNN 643.7 / 544.0; the package's Triton kernel 491.5 / 448.2; attn_fwd_gluon best (64 rows, 64
keys, 4 warps, 2 stages: two programs per SM) 497.4 / 464.0, 128x128 tiles 486.3 / 447.9; warp-specialised
128-key tiles 2 stages 584.5 / 517.9, 3 stages 585.0 / 519.9 (0.91x / 0.96x of cuDNN), 64-key tiles
530.5 / 480.4 (3 stages) and 525.9 / 476.7 (4). A first attn_fwd_gluon hung on the GPU (tile STAGES of
K was never loaded), hence one child process per variant with a time limit.
"""

from __future__ import annotations

import argparse
import math
import os
import sys

import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import fence_async_shared, mbarrier, tma, warpgroup_mma, \
    warpgroup_mma_wait

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from compilelint.kernels.flash_attention_ws import _softmax_tile  # noqa: E402 - the shipped kernel's step

B, H, S, D = 4, 16, 4096, 128
LOG2E = 1.4426950408889634


@gluon.jit
def _issue_kv(desc, bars, bufs, tile, bh, BLOCK_N: gl.constexpr, STAGES: gl.constexpr, pred):
    slot = tile % STAGES
    mbarrier.expect(bars.index(slot), desc.block_type.nbytes, pred=pred)
    tma.async_copy_global_to_shared(desc, [bh, tile * BLOCK_N, 0], bars.index(slot), bufs.index(slot), pred=pred)


@gluon.jit
def attn_fwd_gluon(desc_q, desc_k, desc_v, desc_o, sm_scale, SQ, SK,
                   HEAD_DIM: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, STAGES: gl.constexpr,
                   IS_CAUSAL: gl.constexpr, num_warps: gl.constexpr):
    """One program: BLOCK_M queries of one (batch, head); descriptors over (B*H, S, D), blocks [1, rows, D]."""
    gl.static_assert(BLOCK_M % BLOCK_N == 0)  # causal: tiles below `full` lie wholly below the diagonal
    if IS_CAUSAL:  # heaviest query blocks first
        start_m = gl.num_programs(0) - 1 - gl.program_id(0)
    else:
        start_m = gl.program_id(0)
    bh = gl.program_id(1)
    dtype: gl.constexpr = desc_q.dtype

    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                                       instr_shape=[16, BLOCK_N, 16])
    o_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1],
                                                       instr_shape=[16, HEAD_DIM, 16])
    p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)

    q_smem = gl.allocate_shared_memory(dtype, [1, BLOCK_M, HEAD_DIM], desc_q.layout)
    k_smem = gl.allocate_shared_memory(dtype, [STAGES, 1, BLOCK_N, HEAD_DIM], desc_k.layout)
    v_smem = gl.allocate_shared_memory(dtype, [STAGES, 1, BLOCK_N, HEAD_DIM], desc_v.layout)
    q_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    k_bars = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    v_bars = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    mbarrier.init(q_bar, count=1)
    for i in gl.static_range(STAGES):
        mbarrier.init(k_bars.index(i), count=1)
        mbarrier.init(v_bars.index(i), count=1)
    fence_async_shared()

    kv_len = SK
    hi = kv_len
    full = (kv_len // BLOCK_N) * BLOCK_N
    if IS_CAUSAL:
        hi = gl.minimum(hi, (start_m + 1) * BLOCK_M)
        full = gl.minimum(full, start_m * BLOCK_M)
    n_tiles = gl.cdiv(hi, BLOCK_N)

    mbarrier.expect(q_bar, desc_q.block_type.nbytes)
    tma.async_copy_global_to_shared(desc_q, [bh, start_m * BLOCK_M, 0], q_bar, q_smem)
    for i in gl.static_range(STAGES):
        _issue_kv(desc_k, k_bars, k_smem, i, bh, BLOCK_N, STAGES, i < n_tiles)
        _issue_kv(desc_v, v_bars, v_smem, i, bh, BLOCK_N, STAGES, i < n_tiles)

    offs_m = start_m * BLOCK_M + gl.arange(0, BLOCK_M, layout=gl.SliceLayout(1, s_layout))
    qk_scale = sm_scale * 1.4426950408889634
    q2 = q_smem.reshape([BLOCK_M, HEAD_DIM])
    s_zero = gl.zeros([BLOCK_M, BLOCK_N], gl.float32, s_layout)
    acc = gl.zeros([BLOCK_M, HEAD_DIM], gl.float32, o_layout)
    m_i = gl.full([BLOCK_M], -float("inf"), gl.float32, gl.SliceLayout(1, s_layout))
    l_i = gl.zeros([BLOCK_M], gl.float32, gl.SliceLayout(1, s_layout))
    mbarrier.wait(q_bar, 0)

    if n_tiles > 0:
        # tile 0: scores and softmax, nothing to overlap with yet
        mbarrier.wait(k_bars.index(0), 0)
        kT = k_smem.index(0).reshape([BLOCK_N, HEAD_DIM]).permute((1, 0))
        s_tok = warpgroup_mma(q2, kT, s_zero, use_acc=False, is_async=True)
        s = warpgroup_mma_wait(0, deps=[s_tok])
        p, m_i, l_i, alpha = _softmax_tile(s, m_i, l_i, 0, full, offs_m, kv_len, qk_scale, s_layout, IS_CAUSAL,
                                           BLOCK_N)
        gl.thread_barrier()  # K slot 0 is read by every warpgroup: refill it
        _issue_kv(desc_k, k_bars, k_smem, STAGES, bh, BLOCK_N, STAGES, STAGES < n_tiles)
        for j in range(1, n_tiles):
            slot = j % STAGES
            prev = (j - 1) % STAGES
            mbarrier.wait(k_bars.index(slot), (j // STAGES) & 1)
            kT = k_smem.index(slot).reshape([BLOCK_N, HEAD_DIM]).permute((1, 0))
            s_tok = warpgroup_mma(q2, kT, s_zero, use_acc=False, is_async=True)
            mbarrier.wait(v_bars.index(prev), ((j - 1) // STAGES) & 1)
            p_op = gl.convert_layout(p.to(dtype), p_layout)
            vt = v_smem.index(prev).reshape([BLOCK_N, HEAD_DIM])
            o_tok = warpgroup_mma(p_op, vt, acc, is_async=True)
            s = warpgroup_mma_wait(1, deps=[s_tok])  # Q K_j^T done; P_{j-1} V_{j-1} may still run
            p, m_i, l_i, alpha = _softmax_tile(s, m_i, l_i, j * BLOCK_N, full, offs_m, kv_len, qk_scale, s_layout,
                                               IS_CAUSAL, BLOCK_N)
            acc, p_op = warpgroup_mma_wait(0, deps=[o_tok, p_op])
            acc = acc * gl.convert_layout(alpha, gl.SliceLayout(1, o_layout))[:, None]
            # K slot `slot` and V slot `prev` are read by every warpgroup now: refill them
            gl.thread_barrier()
            _issue_kv(desc_k, k_bars, k_smem, j + STAGES, bh, BLOCK_N, STAGES, j + STAGES < n_tiles)
            _issue_kv(desc_v, v_bars, v_smem, j - 1 + STAGES, bh, BLOCK_N, STAGES, j - 1 + STAGES < n_tiles)
        last = n_tiles - 1
        mbarrier.wait(v_bars.index(last % STAGES), (last // STAGES) & 1)
        p_op = gl.convert_layout(p.to(dtype), p_layout)
        vt = v_smem.index(last % STAGES).reshape([BLOCK_N, HEAD_DIM])
        o_tok = warpgroup_mma(p_op, vt, acc, is_async=True)
        acc, p_op = warpgroup_mma_wait(0, deps=[o_tok, p_op])

    mbarrier.invalidate(q_bar)
    for i in gl.static_range(STAGES):
        mbarrier.invalidate(k_bars.index(i))
        mbarrier.invalidate(v_bars.index(i))
    l_o = gl.convert_layout(l_i, gl.SliceLayout(1, o_layout))
    l_safe = gl.where(l_o == 0.0, 1.0, l_o)
    out = (acc / l_safe[:, None]).to(dtype)
    q2.store(out)  # Q's buffer stages the output tile
    fence_async_shared()
    tma.async_copy_shared_to_global(desc_o, [bh, start_m * BLOCK_M, 0], q_smem)
    tma.store_wait(0)


def _layout(rows, dt=None):
    dt = dt or gl.bfloat16
    return gl.NVMMASharedLayout.get_default_for([1, rows, D], dt)


def aot(configs) -> None:
    """Compile for sm_90: registers, spills, shared memory and the wgmma waits the PTX keeps."""
    import collections
    import re

    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    from benchmarks.kernels_aot import ptxas_info

    for causal in (False, True):
        for bm, bn, w, st in configs:
            dq = f"tensordesc<bf16[1, {bm}, {D}],{_layout(bm)!r}>"
            dk = f"tensordesc<bf16[1, {bn}, {D}],{_layout(bn)!r}>"
            sig = {"desc_q": dq, "desc_k": dk, "desc_v": dk, "desc_o": dq, "sm_scale": "fp32", "SQ": "i32",
                   "SK": "i32", "HEAD_DIM": "constexpr", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr",
                   "STAGES": "constexpr", "IS_CAUSAL": "constexpr", "num_warps": "constexpr"}
            consts = {"HEAD_DIM": D, "BLOCK_M": bm, "BLOCK_N": bn, "STAGES": st, "IS_CAUSAL": causal, "num_warps": w}
            label = f"{'causal' if causal else 'full  '} BM {bm} BN {bn} warps {w} stages {st}"
            try:
                k = triton.compile(GluonASTSource(attn_fwd_gluon, sig, constexprs=consts),
                                   target=GPUTarget("cuda", 90, 32), options={"num_warps": w})
            except Exception as e:  # noqa: BLE001 - a config that does not compile is a result
                msg = [ln for ln in str(e).strip().splitlines() if ln.strip()]
                print(f"{label}: does not compile: {' | '.join(msg[-3:])[:400]}")
                continue
            ptx = k.asm["ptx"]
            waits = dict(collections.Counter(re.findall(r"wgmma.wait_group.sync.aligned (\d+)", ptx)))
            print(f"{label}: {ptxas_info(ptx, 90)}; smem {k.metadata.shared} B; wgmma waits {waits}; "
                  f"st.shared {ptx.count('st.shared')} stmatrix {ptx.count('stmatrix')} bar.sync {ptx.count('bar.sync')}",
                  flush=True)


def gluon_attention(q, k, v, causal, bm=128, bn=128, warps=8, stages=2, out=None):
    import torch  # noqa: F401
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

    b, h, sq, d = q.shape
    sk = k.shape[2]
    out = torch.empty_like(q) if out is None else out
    dt = gl.bfloat16 if q.dtype == torch.bfloat16 else gl.float16

    def desc(t, rows):
        t3 = t.view(b * h, t.shape[2], d)
        return TensorDescriptor(t3, list(t3.shape), list(t3.stride()), [1, rows, d], _layout(rows, dt))

    grid = (triton.cdiv(sq, bm), b * h)
    attn_fwd_gluon[grid](desc(q, bm), desc(k, bn), desc(v, bn), desc(out, bm), 1.0 / math.sqrt(d), sq, sk,
                         HEAD_DIM=d, BLOCK_M=bm, BLOCK_N=bn, STAGES=stages, IS_CAUSAL=causal, num_warps=warps)
    return out


# (BLOCK_M, BLOCK_N, num_warps, STAGES); 64-row programs of one warpgroup fit two per SM, so one's softmax
# can overlap the other's matrix products with no barrier between them
CONFIGS = [(128, 128, 8, 2), (128, 128, 8, 3), (128, 64, 8, 3), (128, 64, 8, 4), (64, 64, 4, 2), (64, 64, 4, 3),
           (64, 32, 4, 3)]

# the package's warp-specialised kernel (flash_attention_ws) with this many K/V ring slots
WS_STAGES = [2, 3]


def run_one(causal: bool, index: int) -> None:
    """Check one config on odd shapes, then time it (index -2: SDPA cuDNN, -1: the package)."""
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from triton.testing import do_bench

    from compilelint.kernels import flash_attention as fa

    torch.manual_seed(0)
    if index >= 100:
        from compilelint.kernels.flash_attention_ws import attention_ws

        cfg = (WS_STAGES[index - 100],)

        def launch(q, k, v, causal, stages, out=None):
            return attention_ws(q, k, v, causal=causal, out=out, stages=stages)
    elif index >= 0:
        cfg = CONFIGS[index]
        launch = gluon_attention
    if index >= 0:
        worst = 0.0
        # partial tiles (zero-filled loads, clipped stores), several tiles per program, both masks
        for (b, h, sq, sk) in [(2, 3, 200, 200), (2, 3, 200, 333), (1, 2, 77, 77), (1, 1, 1, 300), (2, 2, 1024, 1000)]:
            q, k, v = (torch.randn(b, h, n, D, device="cuda", dtype=torch.bfloat16) for n in (sq, sk, sk))
            ref = fa.reference(q.double(), k.double(), v.double(), causal=causal)
            y = launch(q, k, v, causal, *cfg)
            worst = max(worst, ((y.double() - ref).abs().max() / ref.abs().max()).item())
        name = f"{'package ws, stages' if index >= 100 else 'gluon'} {cfg} (checks: worst rel.err {worst:.1e})"
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    out = torch.empty_like(q)
    if index == -2:
        name = "SDPA cuDNN"

        def fn():
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    elif index == -1:
        name = "package"

        def fn():
            return fa.attention(q, k, v, causal=causal, out=out)
    else:
        def fn():
            return launch(q, k, v, causal, *cfg, out=out)
    ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal)
    y = fn()
    err = ((y.float() - ref).abs().max() / ref.abs().max()).item()
    ms = min(do_bench(fn, warmup=50, rep=300) for _ in range(3))
    tf = fa.flops(B, H, S, S, D, causal) / ms / 1e9
    print(f"{'causal' if causal else 'full  '} {name:50s} {ms:.3f} ms {tf:6.1f} TFLOP/s rel.err {err:.1e}", flush=True)


def main() -> None:
    from benchmarks.gpu_runs import run_child

    ap = argparse.ArgumentParser()
    ap.add_argument("--aot", action="store_true", help="compile for sm_90 only (no GPU)")
    ap.add_argument("--limit", type=float, default=60.0, help="seconds per child (a wrong barrier phase hangs)")
    ap.add_argument("--configs", type=int, nargs="*", help="indices into CONFIGS, 100+i into WS_STAGES (default: all)")
    ap.add_argument("--causal", type=int, nargs="*", default=[0, 1], help="0: non-causal, 1: causal")
    ap.add_argument("--one", nargs=2, type=int, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.aot:
        aot(CONFIGS)
        return
    if a.one:
        run_one(bool(a.one[0]), a.one[1])
        return
    for causal in a.causal:
        for index in [-2, -1, *range(len(CONFIGS)), *range(100, 100 + len(WS_STAGES))]:
            if index >= 0 and a.configs and index not in a.configs:
                continue
            run_child([__file__, "--one", str(causal), str(index)], "TFLOP/s",
                      f"{'causal' if causal else 'full  '} {index}", a.limit, last_only=True)


if __name__ == "__main__":
    main()
