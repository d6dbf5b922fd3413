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

Session 10: the overlap came from Gluon instead (benchmarks/attention_gluon.py); the warp-specialised
kernel ships as compilelint/kernels/flash_attention_ws.py.

Timed (session 7, one run, TFLOP/s non-causal / causal): SDPA cuDNN 624.4 / 548.2, the package 482.8 /
440.9 (0.77x / 0.80x of cuDNN in that run), attn_2d without specialisation (128x128 tiles, 8 warps, 3
stages) 497.8 / 442.9.

Session 8 (H200, torch 2.11; one run each, TFLOP/s non-causal / causal):
* 256-row tiles over 4 warpgroups (16 warps), so more warpgroups take turns on the tensor cores: 64 keys
  and 3 stages 463.7 / 384.4, 2 stages 388.8 / 327.5, 32 keys 393.4 / 329.1; 2-D descriptors 497.5 / 443.3.
* `attn_poly`: part of the exponentials on the FMA units (`_exp2_fma`, FlashAttention-4's trick), if the
  special-function unit were the limit: half of every tile 468.2 / 423.4, half of every other tile
  480.3 / 428.9, all 431.2 / 382.4; 2-D descriptors 494.7 / 442.9, cuDNN 655.8 / 549.3 in that run. The
  exponentials are not the limit: what FlashAttention-3 has and this design lacks is the overlap of the
  tensor cores with the softmax, which Triton 3.6 does not give on sm_90 (above).
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
# (name, kernel, BLOCK_M, BLOCK_N, num_warps, num_stages, WS); WS variants store through pointers;
# for attn_poly the last field is POLY instead
VARIANTS = [("2-D descriptors", "attn_2d", 128, 128, 8, 3, False),
            ("warp-specialised, 2 stages", "attn_2d", 128, 128, 4, 2, True),
            ("warp-specialised, 3 stages", "attn_2d", 128, 128, 4, 3, True),
            ("warp-specialised, 64-key tiles", "attn_2d", 128, 64, 4, 3, True),
            ("pipelined by hand", "attn_pipe", 128, 128, 8, 2, False),
            # session 8: 256-row tiles over 4 warpgroups (16 warps): no spills at 124-128 registers (--aot);
            # more warpgroups per SM to take turns on the tensor cores while others run their softmax
            ("256-row tiles, 64 keys, 16 warps, 2 stages", "attn_2d", 256, 64, 16, 2, False),
            ("256-row tiles, 64 keys, 16 warps, 3 stages", "attn_2d", 256, 64, 16, 3, False),
            ("256-row tiles, 32 keys, 16 warps, 3 stages", "attn_2d", 256, 32, 16, 3, False),
            # session 8: exponentials partly on the FMA units (attn_poly; the last field is POLY here)
            ("exp2: half of every tile on FMA", "attn_poly", 128, 128, 8, 3, 1),
            ("exp2: half of every other tile on FMA", "attn_poly", 128, 128, 8, 3, 2),
            ("exp2: all on FMA", "attn_poly", 128, 128, 8, 3, 3)]


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
def _exp2_fma(x):
    """2**x for x <= 0 on the FMA and integer units, not the special-function unit (MUFU, 16 results per
    clock per SM against 128 FMAs): x = j + f with j = round(x) (the 1.5 * 2**23 trick puts j in the low
    mantissa bits, no conversion instruction), 2**f on [-0.5, 0.5] by a degree-4 polynomial (Taylor; relative
    error about 4e-5, far below bf16's 4e-3), then j added to the exponent field. x below -127 is clamped
    (2**-127, not 0: a term that small is lost in any sum that matters)."""
    x = tl.maximum(x, -127.0)
    t = x + 12582912.0
    j = t - 12582912.0
    f = x - j
    p = 0.009618129107628477
    p = p * f + 0.05550410866482158
    p = p * f + 0.2402265069591007
    p = p * f + 0.6931471805599453
    p = p * f + 1.0
    bits = p.to(tl.int32, bitcast=True) + (t.to(tl.int32, bitcast=True) << 23)
    return bits.to(tl.float32, bitcast=True)


@triton.jit
def _exp2_split(x, BM: tl.constexpr, BN: tl.constexpr):
    """exp2 of a [BM, BN] tile: even columns on MUFU, odd columns by _exp2_fma (in the wgmma accumulator
    layout each thread holds column pairs, so the split and the join stay in registers)."""
    a, b = tl.split(tl.reshape(x, [BM, BN // 2, 2]))
    return tl.reshape(tl.join(tl.math.exp2(a), _exp2_fma(b)), [BM, BN])


@triton.jit
def _inner_poly(acc, l_i, m_i, q, desc_k, desc_v, row0, lo, hi, offs_m, qk_scale,
                MASKED: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, DT: tl.constexpr,
                POLY: tl.constexpr):
    """_inner with part of the exponentials off MUFU. POLY 1: half of every tile; 2: half of every other
    tile (a quarter in all); 3: all of them."""
    offs_n = tl.arange(0, BLOCK_N)
    for start_n in range(lo, hi, BLOCK_N):
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
        if POLY == 1:
            p = _exp2_split(qk, BLOCK_M, BLOCK_N)
        elif POLY == 2:
            if (start_n // BLOCK_N) % 2 == 1:
                p = _exp2_split(qk, BLOCK_M, BLOCK_N)
            else:
                p = tl.math.exp2(qk)
        else:
            p = _exp2_fma(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = desc_v.load([row0 + start_n, 0])
        acc = tl.dot(p.to(DT), v, acc)
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def attn_poly(desc_q, desc_k, desc_v, desc_o, sm_scale, S, HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, POLY: tl.constexpr):
    """attn_2d (no warp specialisation) with _inner_poly's exponentials."""
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
    if CAUSAL:
        acc, l_i, m_i = _inner_poly(acc, l_i, m_i, q, desc_k, desc_v, row0, 0, start_m * BLOCK_M, offs_m, qk_scale,
                                    False, BLOCK_M, BLOCK_N, DT, POLY)
        acc, l_i, m_i = _inner_poly(acc, l_i, m_i, q, desc_k, desc_v, row0, start_m * BLOCK_M,
                                    (start_m + 1) * BLOCK_M, offs_m, qk_scale, True, BLOCK_M, BLOCK_N, DT, POLY)
    else:
        acc, l_i, m_i = _inner_poly(acc, l_i, m_i, q, desc_k, desc_v, row0, 0, S, offs_m, qk_scale, False,
                                    BLOCK_M, BLOCK_N, DT, POLY)
    out = acc / l_i[:, None]
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
            if kern == "attn_poly":
                sig |= {"CAUSAL": "constexpr", "POLY": "constexpr"}
                consts |= {"CAUSAL": causal, "POLY": ws}
            fn = {"attn_2d": attn_2d, "attn_pipe": attn_pipe, "attn_poly": attn_poly}[kern]
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
                  f"setmaxnreg {regs or 'none'}; ex2 {ptx.count('ex2.approx')}; "
                  f"layout moves through shared memory {ptx.count('st.shared') + ptx.count('stmatrix')}")


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
            if kern == "attn_poly":
                attn_poly[(S // bm, B * H)](dq, dk, dv, do, scale, S, HEAD_DIM=D, CAUSAL=causal, BLOCK_M=bm,
                                            BLOCK_N=bn, POLY=ws, num_warps=w, num_stages=st)
            elif kern == "attn_pipe":
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
