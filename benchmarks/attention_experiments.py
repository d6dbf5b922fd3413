"""Attention forward designs not shipped, against the package and SDPA on an H200 (B4 H16 S4096 D128 bf16).

    PYTHONPATH=. python3 benchmarks/attention_experiments.py --aot   # compile for sm_90, no GPU needed
    PYTHONPATH=. python3 benchmarks/attention_experiments.py         # time on a GPU, one child per variant

Why it is here: issue 7 aims at 0.9x of cuDNN, which runs FlashAttention-3's design (a producer warp
feeding TMA loads, two consumer warpgroups in ping-pong, the next tile's q @ k^T issued before this tile's
softmax). The package's kernel (flash_attention._attn_fwd_tma) is FlashAttention-2's design: each wgmma is
waited for at once (`wgmma.wait_group 0`), so the tensor cores idle during the softmax. Two ways to get
the overlap from Triton 3.6 were tried (session 7, H200, torch 2.11):

* `attn_2d(WS=True)`: Triton's automatic warp specialisation (`tl.range(..., warp_specialize=True)`). It
  compiles on sm_90 only with num_warps=4 (setmaxnreg 40 for the producer, 232 for the consumers), and
  then: 3 stages with 128-key tiles need 246 KB of shared memory (the limit is 227 KB); 2 stages, or
  64-key tiles with 3 stages, hang on the GPU (killed after 45 s; non-causal and causal alike). Hence the
  child processes with a time limit below.
* `attn_pipe`: the loop software-pipelined by hand (the next tile's q @ k^T before this tile's softmax).
  Compiled for sm_90 every wgmma is still waited for at once (`--aot` prints the waits), so there is no
  overlap to time; with 128-key tiles and 3 stages it needs 262 KB of shared memory.

Timed (session 7, one run, TFLOP/s non-causal / causal): SDPA cuDNN 624.4 / 548.2, the package 482.8 /
440.9 (0.77x / 0.80x of cuDNN in that run), attn_2d without specialisation (128x128 tiles, 8 warps, 3
stages) 497.8 / 442.9.
"""

from __future__ import annotations

import argparse
import collections
import math
import os
import re
import subprocess
import sys
import time

import triton
import triton.language as tl

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

B, H, S, D = 4, 16, 4096, 128
# (name, kernel, BLOCK_M, BLOCK_N, num_warps, num_stages, WS); WS variants store through pointers
VARIANTS = [("2-D descriptors", "attn_2d", 128, 128, 8, 3, False),
            ("warp-specialised, 2 stages", "attn_2d", 128, 128, 4, 2, True),
            ("warp-specialised, 3 stages", "attn_2d", 128, 128, 4, 3, True),
            ("warp-specialised, 64-key tiles", "attn_2d", 128, 64, 4, 3, True),
            ("pipelined by hand", "attn_pipe", 128, 128, 8, 2, False),
            # session 8: 256-row tiles over 4 warpgroups (16 warps): no spills at 124-128 registers (--aot);
            # more warpgroups per SM to take turns on the tensor cores while others run their softmax
            ("256-row tiles, 64 keys, 16 warps, 2 stages", "attn_2d", 256, 64, 16, 2, False),
            ("256-row tiles, 64 keys, 16 warps, 3 stages", "attn_2d", 256, 64, 16, 3, False),
            ("256-row tiles, 32 keys, 16 warps, 3 stages", "attn_2d", 256, 32, 16, 3, False)]


@triton.jit
def _inner(acc, l_i, m_i, q, desc_k, desc_v, row0, lo, hi, offs_m, qk_scale,
           MASKED: tl.constexpr, BLOCK_N: tl.constexpr, WS: tl.constexpr, DT: tl.constexpr):
    offs_n = tl.arange(0, BLOCK_N)
    for start_n in tl.range(lo, hi, BLOCK_N, warp_specialize=WS):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        k = desc_k.load([row0 + start_n, 0])
        qk = tl.dot(q, k.T)
        if MASKED:
            qk = qk * qk_scale + tl.where(offs_m[:, None] >= (start_n + offs_n)[None, :], 0.0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = desc_v.load([row0 + start_n, 0])
        acc = tl.dot(p.to(DT), v, acc)
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def attn_2d(desc_q, desc_k, desc_v, desc_o, sm_scale, S, HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr,
            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, WS: tl.constexpr, O=None, PTR_STORE: tl.constexpr = False,
            ONE_LOOP: tl.constexpr = False):
    """Attention over (B*H*S, D) 2-D descriptors (S a multiple of BLOCK_M; no lengths). WS: Triton's
    automatic warp specialisation on the key loop (on sm_90 it needs num_warps=4: one producer and two
    consumer warpgroups); it cannot lower the descriptor store of the partitioned tile, so PTR_STORE
    stores the output with plain pointers. ONE_LOOP (causal): one loop, masked throughout, as two
    specialised loops crash the pass (MLIR dominance assertion)."""
    start_m = tl.program_id(0)
    if CAUSAL:
        start_m = tl.num_programs(0) - 1 - start_m
    bh = tl.program_id(1)
    row0 = bh * S
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    q = desc_q.load([row0 + start_m * BLOCK_M, 0])
    DT: tl.constexpr = desc_q.dtype
    m_i = tl.full([BLOCK_M], -float("inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    qk_scale = sm_scale * 1.4426950408889634
    if CAUSAL and ONE_LOOP:
        acc, l_i, m_i = _inner(acc, l_i, m_i, q, desc_k, desc_v, row0, 0, (start_m + 1) * BLOCK_M, offs_m, qk_scale,
                               True, BLOCK_N, WS, DT)
    elif CAUSAL:
        acc, l_i, m_i = _inner(acc, l_i, m_i, q, desc_k, desc_v, row0, 0, start_m * BLOCK_M, offs_m, qk_scale,
                               False, BLOCK_N, WS, DT)
        acc, l_i, m_i = _inner(acc, l_i, m_i, q, desc_k, desc_v, row0, start_m * BLOCK_M, (start_m + 1) * BLOCK_M,
                               offs_m, qk_scale, True, BLOCK_N, WS, DT)
    else:
        acc, l_i, m_i = _inner(acc, l_i, m_i, q, desc_k, desc_v, row0, 0, S, offs_m, qk_scale, False, BLOCK_N, WS, DT)
    out = acc / l_i[:, None]
    if PTR_STORE:
        offs_d = tl.arange(0, HEAD_DIM)
        tl.store(O + (row0 + offs_m).to(tl.int64)[:, None] * HEAD_DIM + offs_d[None, :], out.to(DT))
    else:
        desc_o.store([row0 + start_m * BLOCK_M, 0], out.to(DT))


@triton.jit
def _inner_pipe(acc, l_i, m_i, q, desc_k, desc_v, row0, lo, hi, qk_scale, BLOCK_N: tl.constexpr, DT: tl.constexpr):
    """Software-pipelined by hand: the next tile's q @ k^T is issued before this tile's softmax, so the
    tensor cores work while the softmax runs (FA3's intra-warpgroup overlap)."""
    k = desc_k.load([row0 + lo, 0])
    qk = tl.dot(q, k.T)
    for start_n in range(lo, hi - BLOCK_N, BLOCK_N):
        k_n = desc_k.load([row0 + start_n + BLOCK_N, 0])
        qk_n = tl.dot(q, k_n.T)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = desc_v.load([row0 + start_n, 0])
        acc = tl.dot(p.to(DT), v, acc)
        m_i = m_ij
        qk = qk_n
    m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
    p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
    alpha = tl.math.exp2(m_i - m_ij)
    l_i = l_i * alpha + tl.sum(p, 1)
    acc = acc * alpha[:, None]
    v = desc_v.load([row0 + hi - BLOCK_N, 0])
    acc = tl.dot(p.to(DT), v, acc)
    return acc, l_i, m_ij


@triton.jit
def attn_pipe(desc_q, desc_k, desc_v, desc_o, sm_scale, S, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
              BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0)
    bh = tl.program_id(1)
    row0 = bh * S
    q = desc_q.load([row0 + start_m * BLOCK_M, 0])
    DT: tl.constexpr = desc_q.dtype
    m_i = tl.full([BLOCK_M], -float("inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    qk_scale = sm_scale * 1.4426950408889634
    acc, l_i, m_i = _inner_pipe(acc, l_i, m_i, q, desc_k, desc_v, row0, 0, S, qk_scale, BLOCK_N, DT)
    out = acc / l_i[:, None]
    desc_o.store([row0 + start_m * BLOCK_M, 0], out.to(DT))


def _descs(bm, bn):
    d, dk = f"tensordesc<bf16[{bm}, {D}]>", f"tensordesc<bf16[{bn}, {D}]>"
    return {"desc_q": d, "desc_k": dk, "desc_v": dk, "desc_o": d, "sm_scale": "fp32", "S": "i32"}


def aot() -> None:
    """Compile every variant for sm_90 (no GPU): registers, spills, shared memory, whether the loop was
    warp-specialised (setmaxnreg) and how many wgmma groups each wait leaves in flight."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from benchmarks.kernels_aot import ptxas_info

    for causal in (False, True):
        for name, kern, bm, bn, w, st, ws in VARIANTS:
            if kern == "attn_pipe" and causal:
                continue
            sig = _descs(bm, bn) | {"HEAD_DIM": "constexpr", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr"}
            consts = {"HEAD_DIM": D, "BLOCK_M": bm, "BLOCK_N": bn}
            if kern == "attn_2d":
                sig |= {"CAUSAL": "constexpr", "WS": "constexpr", "O": "*bf16", "PTR_STORE": "constexpr",
                        "ONE_LOOP": "constexpr"}
                consts |= {"CAUSAL": causal, "WS": ws, "PTR_STORE": ws, "ONE_LOOP": ws}
            fn = attn_2d if kern == "attn_2d" else attn_pipe
            label = f"{'causal' if causal else 'full  '} {name:32s}"
            try:
                k = triton.compile(ASTSource(fn, sig, constexprs=consts), target=GPUTarget("cuda", 90, 32),
                                   options={"num_warps": w, "num_stages": st})
            except Exception as e:  # noqa: BLE001 - a variant that does not compile is a result
                print(f"{label} does not compile: {str(e).strip().splitlines()[-1][:120]}")
                continue
            ptx = k.asm["ptx"]
            waits = dict(collections.Counter(re.findall(r"wgmma.wait_group.sync.aligned (\d+)", ptx)))
            regs = sorted(set(re.findall(r"setmaxnreg.\w+.sync.aligned.u32\s+(\d+)", ptx)))
            print(f"{label} {ptxas_info(ptx, 90)}; smem {k.metadata.shared} B; wgmma waits {waits}; "
                  f"setmaxnreg {regs or 'none'}")


def run_one(causal: bool, index: int) -> None:
    """Time one variant (index -2: SDPA cuDNN, -1: the package) and print one line."""
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from triton.testing import do_bench
    from triton.tools.tensor_descriptor import TensorDescriptor

    from compilelint.kernels import flash_attention as fa

    torch.manual_seed(0)
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    scale = 1 / math.sqrt(D)
    out = torch.empty_like(q)
    if index == -2:
        name = "SDPA cuDNN"

        def fn():
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    elif index == -1:
        name = "package (flash_attention.attention)"

        def fn():
            return fa.attention(q, k, v, causal=causal, out=out)
    else:
        name, kern, bm, bn, w, st, ws = VARIANTS[index]
        q2, k2, v2, o2 = (t.view(B * H * S, D) for t in (q, k, v, out))
        shape = [B * H * S, D]
        dq, do = (TensorDescriptor(t, shape, [D, 1], [bm, D]) for t in (q2, o2))
        dk, dv = (TensorDescriptor(t, shape, [D, 1], [bn, D]) for t in (k2, v2))

        def fn():
            if kern == "attn_pipe":
                attn_pipe[(S // bm, B * H)](dq, dk, dv, do, scale, S, HEAD_DIM=D, BLOCK_M=bm, BLOCK_N=bn,
                                            num_warps=w, num_stages=st)
            else:
                attn_2d[(S // bm, B * H)](dq, dk, dv, do, scale, S, HEAD_DIM=D, CAUSAL=causal, BLOCK_M=bm,
                                          BLOCK_N=bn, WS=ws, O=o2, PTR_STORE=ws, ONE_LOOP=ws, num_warps=w,
                                          num_stages=st)
            return out
    with torch.no_grad():
        ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal)
    y = fn()
    err = ((y.float() - ref).abs().max() / ref.abs().max()).item()
    ms = min(do_bench(fn, warmup=50, rep=300) for _ in range(3))
    tflops = fa.flops(B, H, S, S, D, causal) / ms / 1e9
    print(f"{'causal' if causal else 'full  '} {name:36s} {ms:.3f} ms {tflops:6.1f} TFLOP/s rel.err {err:.1e}",
          flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--aot", action="store_true", help="compile for sm_90 only (no GPU)")
    ap.add_argument("--limit", type=float, default=45.0, help="seconds per variant (warp-specialised ones hang)")
    ap.add_argument("--variants", type=int, nargs="*", help="indices into VARIANTS to time (default: all)")
    ap.add_argument("--one", nargs=2, type=int, metavar=("CAUSAL", "INDEX"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.aot:
        aot()
        return
    if a.one:
        run_one(bool(a.one[0]), a.one[1])
        return
    for causal in (0, 1):
        for index in range(-2, len(VARIANTS)):
            if index >= 0 and (VARIANTS[index][1] == "attn_pipe" or (a.variants and index not in a.variants)):
                continue  # every wgmma waited for at once (--aot): nothing to time
            t0 = time.time()
            try:
                r = subprocess.run([sys.executable, __file__, "--one", str(causal), str(index)], capture_output=True,
                                   text=True, timeout=a.limit)
                line = [ln for ln in r.stdout.splitlines() if "TFLOP/s" in ln]
                print(line[-1] if line else f"{'causal' if causal else 'full  '} variant {index} failed: "
                      f"{(r.stderr.strip().splitlines() or ['?'])[-1][:160]}", flush=True)
            except subprocess.TimeoutExpired:
                print(f"{'causal' if causal else 'full  '} variant {index} ({VARIANTS[index][0]}): no result in "
                      f"{time.time() - t0:.0f} s (killed)", flush=True)


if __name__ == "__main__":
    main()
