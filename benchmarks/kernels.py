"""Benchmark the bundled Triton kernels on a GPU against eager PyTorch, torch.compile of the same
reference, and the best library op where one exists (SDPA flash / cuDNN / efficient for attention,
F.layer_norm / F.rms_norm for the norms).

    python benchmarks/kernels.py [--only NAME ...] [--json OUT.json] [--quick] [--rounds K]

Measures the ceilings first, in the same run: device-to-device copy bandwidth (bytes read + written)
and a dense bf16 matmul rate (8192^3, random data). Memory-bound rows report TB/s over the fewest bytes
the function must move (each input read once, each output written once) and the fraction of the copy
bandwidth; attention reports TFLOP/s (4*B*H*Sq*Sk*D, halved when causal) and the fraction of the matmul
rate. Times are medians of triton.testing.do_bench (CUDA events, L2 flushed between repetitions).
Every kernel's output is checked against the eager reference before it is timed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F
import triton
import triton.language as tl
from triton.testing import do_bench

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from compilelint.kernels import bn_relu, flash_attention, moe_gating, norms, softmax, voxel_scatter  # noqa: E402

ROWS: list[dict] = []
CEIL = {}
ROUNDS = 1  # --rounds


def bench(fn, rep=200):
    fn()
    torch.cuda.synchronize()
    return do_bench(fn, warmup=50, rep=rep, return_mode="median")


def rel(a, b):
    a, b = a.double(), b.double()
    return ((a - b).norm() / b.norm()).item()


def add(kernel, shape, variant, ms, nbytes=None, flop=None, err=None, note=""):
    row = dict(kernel=kernel, shape=shape, variant=variant, ms=ms, note=note)
    if nbytes is not None:
        row["TBps"] = nbytes / ms / 1e9
        row["frac"] = row["TBps"] / CEIL["copy_TBps"]
    if flop is not None:
        row["TFLOPs"] = flop / ms / 1e9
        row["frac"] = row["TFLOPs"] / CEIL["mm_TFLOPs"]
    if err is not None:
        row["err"] = err
    ROWS.append(row)
    rate = f"{row['TBps']:6.2f} TB/s" if nbytes is not None else f"{row['TFLOPs']:6.1f} TFLOP/s"
    e = f"  rel.err {err:.1e}" if err is not None else ""
    print(f"  {kernel:16s} {shape:28s} {variant:22s} {ms:8.3f} ms  {rate}  {row['frac']*100:5.1f}% of ceiling"
          f"{e} {note}", flush=True)


def run_variants(kernel, shape, variants, ref_out, nbytes=None, flop=None, compare=None):
    """variants: list of (name, fn). ref_out: eager output for the correctness check of each variant.
    Each variant is timed ROUNDS times, the variants taking turns (A B C A B C ...), and reports the
    median of its rounds: variants within a percent of each other are then not ranked by drift."""
    compare = compare or (lambda out: rel(out, ref_out))
    ready = []
    for name, fn in variants:
        try:
            t0 = time.perf_counter()
            out = fn()
            torch.cuda.synchronize()
            first = time.perf_counter() - t0
            ready.append((name, fn, first, compare(out) if ref_out is not None else None))
        except Exception as e:  # a backend that is unavailable for this shape is a result, not a crash
            print(f"  {kernel:16s} {shape:28s} {name:22s} FAILED: {type(e).__name__}: {str(e)[:160]}", flush=True)
            ROWS.append(dict(kernel=kernel, shape=shape, variant=name, error=f"{type(e).__name__}: {e}"[:400]))
    times = {name: [] for name, *_ in ready}
    for _ in range(ROUNDS):
        for name, fn, *_ in ready:
            times[name].append(bench(fn))
    for name, fn, first, err in ready:
        note = f"(first call {first:.1f}s)" if first > 2 else ""
        if ROUNDS > 1:
            note += f" rounds {min(times[name]):.4f}-{max(times[name]):.4f} ms"
        add(kernel, shape, name, statistics.median(times[name]), nbytes, flop, err, note=note.strip())


def ceilings():
    n = 1 << 30  # 1 GiB of bf16 each way: ~18x the L2
    a = torch.randn(n // 2, device="cuda", dtype=torch.bfloat16)
    b = torch.empty_like(a)
    ms = bench(lambda: b.copy_(a))
    CEIL["copy_TBps"] = 2 * n / ms / 1e9
    del a, b
    m = 8192
    x = torch.randn(m, m, device="cuda", dtype=torch.bfloat16)
    y = torch.randn(m, m, device="cuda", dtype=torch.bfloat16)
    ms = bench(lambda: x @ y, rep=300)
    CEIL["mm_TFLOPs"] = 2 * m**3 / ms / 1e9
    print(f"ceilings: copy {CEIL['copy_TBps']:.2f} TB/s (1 GiB bf16 d2d, read+write); "
          f"bf16 matmul {CEIL['mm_TFLOPs']:.0f} TFLOP/s (8192^3, random)", flush=True)


def b_bn_relu(quick):
    for shape, cl in [((128, 256, 56, 56), False), ((128, 256, 56, 56), True)]:
        if quick:
            shape = (32,) + shape[1:]
        C = shape[1]
        x = torch.randn(shape, device="cuda", dtype=torch.bfloat16)
        if cl:
            x = x.to(memory_format=torch.channels_last)
        cb, mu, w, b = (torch.randn(C, device="cuda") for _ in range(4))
        var = torch.rand(C, device="cuda") + 0.5
        scale, shift = bn_relu.fold_bn(w, b, mu, var, 1e-5, cb)
        # the unfused model runs in bf16 end to end (model.to(bfloat16)): parameters in bf16 too
        pb = [t.to(torch.bfloat16) for t in (cb, mu, var, w, b)]
        ref = lambda: bn_relu.reference(x, *pb)
        cref = torch.compile(bn_relu.reference)
        out = torch.empty_like(x)
        ref_out = bn_relu.reference(x.double(), cb.double(), mu.double(), var.double(), w.double(), b.double())
        nbytes = 2 * x.numel() * x.element_size()
        run_variants("bn_relu", f"{tuple(shape)} bf16{' CL' if cl else ''}", [
            ("eager", ref),
            ("torch.compile", lambda: cref(x, *pb)),
            ("triton", lambda: bn_relu.bn_relu(x, scale, shift, out=out)),
        ], ref_out, nbytes=nbytes)
        del x, out, ref_out


def b_norms(quick):
    shapes = [(16384, 8192), (65536, 1024), (4096, 65536)]
    if quick:
        shapes = [(4096, 8192)]
    for M, N in shapes:
        x = torch.randn(M, N, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(N, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(N, device="cuda", dtype=torch.bfloat16)
        out = torch.empty_like(x)
        nbytes = 2 * x.numel() * 2 + 2 * N * 2
        ref_out = norms.reference_layer_norm(x.double(), w.double(), b.double())
        cln = torch.compile(norms.reference_layer_norm)
        run_variants("layer_norm", f"{M}x{N} bf16", [
            ("eager F.layer_norm", lambda: F.layer_norm(x, (N,), w, b, 1e-5)),
            ("torch.compile", lambda: cln(x, w, b)),
            ("triton", lambda: norms.layer_norm(x, w, b, 1e-5, out=out)),
        ], ref_out, nbytes=nbytes)
        ref_out = norms.reference_rms(x.double(), w.double())
        crms = torch.compile(norms.reference_rms)
        run_variants("rms_norm", f"{M}x{N} bf16", [
            ("eager (model code)", lambda: norms.reference_rms(x, w)),
            ("F.rms_norm", lambda: F.rms_norm(x, (N,), w, 1e-6)),
            ("torch.compile", lambda: crms(x, w)),
            ("triton", lambda: norms.rms_norm(x, w, 1e-6, out=out)),
        ], ref_out, nbytes=2 * x.numel() * 2 + N * 2)
        del x, out, ref_out


def b_softmax(quick):
    cases = [(16384, 8192, torch.bfloat16), (16384, 8192, torch.float32), (262144, 512, torch.bfloat16),
             (2048, 65536, torch.bfloat16), (4096, 65536, torch.bfloat16)]  # the last: as many bytes as LayerNorm's
    if quick:
        cases = [(4096, 8192, torch.bfloat16)]
    for M, N, dt in cases:
        x = torch.randn(M, N, device="cuda", dtype=dt) * 4
        out = torch.empty_like(x)
        ref_out = softmax.reference(x.double())
        csm = torch.compile(softmax.reference)
        run_variants("softmax", f"{M}x{N} {str(dt)[6:]}", [
            ("eager", lambda: torch.softmax(x, -1)),
            ("torch.compile", lambda: csm(x)),
            ("triton", lambda: softmax.softmax(x, out=out)),
        ], ref_out, nbytes=2 * x.numel() * x.element_size())
        del x, out, ref_out


def b_attention(quick):
    from torch.nn.attention import SDPBackend, sdpa_kernel

    B, H, S, D = (4, 16, 4096, 128) if not quick else (2, 16, 2048, 128)
    dt = torch.bfloat16
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=dt) for _ in range(3))
    out = torch.empty_like(q)

    def sdpa(backend, **kw):
        def f():
            with sdpa_kernel([backend]):
                return F.scaled_dot_product_attention(q, k, v, **kw)
        return f

    cref = torch.compile(flash_attention.reference)
    for causal in (False, True):
        fl = flash_attention.flops(B, H, S, S, D, causal)
        # reference: SDPA math in float32 on a slice would be slow; flash in bf16 is the ref for the
        # check here (tests/test_kernels.py checks against float64 at smaller sizes)
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
            ref_out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        run_variants("attention", f"B{B} H{H} S{S} D{D} bf16{' causal' if causal else ''}", [
            ("SDPA flash", sdpa(SDPBackend.FLASH_ATTENTION, is_causal=causal)),
            ("SDPA cuDNN", sdpa(SDPBackend.CUDNN_ATTENTION, is_causal=causal)),
            ("SDPA efficient", sdpa(SDPBackend.EFFICIENT_ATTENTION, is_causal=causal)),
            ("eager reference", lambda: flash_attention.reference(q, k, v, causal=causal)),
            ("torch.compile ref", lambda: cref(q, k, v, causal=causal)),
            ("triton", lambda: flash_attention.attention(q, k, v, causal=causal, out=out)),
            ("triton tma (FA2-style)", lambda: flash_attention.attention(q, k, v, causal=causal, out=out, impl="tma")),
            ("triton pointer", lambda: flash_attention.attention(q, k, v, causal=causal, out=out, impl="pointer")),
        ], ref_out, flop=fl)
    # variable key length: per-sequence lengths (triton) vs SDPA with the equivalent boolean mask
    g = torch.Generator(device="cpu").manual_seed(0)
    lens = torch.randint(S // 4, S + 1, (B,), generator=g).cuda()
    keep = (torch.arange(S, device="cuda")[None, :] < lens[:, None]).view(B, 1, 1, S)
    ref_out = flash_attention.reference(q, k, v, kv_lens=lens)
    kpm = ~keep.view(B, S)
    useful = sum(4.0 * H * S * int(n) * D for n in lens.tolist())
    run_variants("attention varlen", f"B{B} H{H} S{S} D{D} kv_lens", [
        ("SDPA cuDNN + mask", sdpa(SDPBackend.CUDNN_ATTENTION, attn_mask=keep)),
        ("SDPA efficient + mask", sdpa(SDPBackend.EFFICIENT_ATTENTION, attn_mask=keep)),
        ("triton kv_lens", lambda: flash_attention.attention(q, k, v, kv_lens=lens, out=out)),
        ("triton kv_lens tma", lambda: flash_attention.attention(q, k, v, kv_lens=lens, out=out, impl="tma")),
        ("triton kv_lens pointer", lambda: flash_attention.attention(q, k, v, kv_lens=lens, out=out, impl="pointer")),
        ("triton key_padding_mask", lambda: flash_attention.attention(q, k, v, key_padding_mask=kpm, out=out)),
    ], ref_out, flop=useful)
    del q, k, v, out


def b_gating(quick):
    T = (1 << 24) if not quick else (1 << 22)
    E, K = 8, 2
    x = torch.randn(T, E, device="cuda", dtype=torch.bfloat16)
    w = torch.empty(T, K, device="cuda", dtype=torch.float32)
    i = torch.empty(T, K, device="cuda", dtype=torch.int64)
    rw, ri = moe_gating.reference(x, K)
    cref = torch.compile(moe_gating.reference)
    nbytes = T * E * 2 + T * K * (4 + 8)
    run_variants("moe top-2/8", f"T={T} E={E} bf16", [
        ("eager", lambda: moe_gating.reference(x, K)),
        ("torch.compile", lambda: cref(x, K)),
        ("triton", lambda: moe_gating.topk_gating(x, K, out=(w, i))),
    ], rw, nbytes=nbytes, compare=lambda o: rel(o[0], rw))
    del x, w, i


@triton.jit
def _gather_rows(F, PERM, OUT, N, C: tl.constexpr, BLOCK: tl.constexpr):
    """OUT[i] = F[PERM[i]]: rows of C float32, read in PERM's order and written in order."""
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = i < N
    src = tl.load(PERM + i, mask=keep, other=0).to(tl.int64)
    c = tl.arange(0, C)
    v = tl.load(F + src[:, None] * C + c[None, :], mask=keep[:, None])
    tl.store(OUT + i.to(tl.int64)[:, None] * C + c[None, :], v, mask=keep[:, None])


def b_voxel(quick):
    pc, vs = (0.0, -39.68, -3.0, 69.12, 39.68, 1.0), (0.16, 0.16)  # KITTI PointPillars grid 432 x 496
    B, C = 8, 64
    N = 2_000_000 if not quick else 500_000
    lo = torch.tensor([-2.0, -42.0, -4.0], device="cuda")
    span = torch.tensor([74.0, 84.0, 6.0], device="cuda")
    xyz = torch.rand(N, 3, device="cuda") * span + lo
    feats = torch.randn(N, C, device="cuda")
    bidx = torch.randint(0, B, (N,), device="cuda")
    ny, nx = voxel_scatter.grid_shape(pc, vs)
    mean = torch.empty(B, C, ny, nx, device="cuda", memory_format=torch.channels_last)
    counts = torch.empty(B, ny, nx, device="cuda", dtype=torch.int32)
    rm, rc = voxel_scatter.reference(xyz, feats, pc, vs, bidx, B)
    cref = torch.compile(voxel_scatter.reference)
    # fewest bytes: points and features read once, grid (means + counts) written once
    nbytes = N * (12 + 4 * C + 8) + B * C * ny * nx * 4 + B * ny * nx * 4
    run_variants("voxel scatter", f"N={N} C={C} B={B} {ny}x{nx}", [
        ("eager (index_add_)", lambda: voxel_scatter.reference(xyz, feats, pc, vs, bidx, B)),
        ("torch.compile", lambda: cref(xyz, feats, pc, vs, bidx, B)),
        ("triton", lambda: voxel_scatter.voxel_scatter_mean(xyz, feats, pc, vs, bidx, B, out=(mean, counts))),
    ], rm, nbytes=nbytes, compare=lambda o: rel(o[0], rm))
    # The pillar pass's unrolled first points (UNROLL) against the plain loop, with the autotuner's blocks
    chosen = next(iter(voxel_scatter._tuned.cache.values()), None)
    if chosen is not None:
        for u in (0, 2, 4):
            cfg = triton.Config({**chosen.kwargs, "UNROLL": u}, num_warps=chosen.num_warps)
            fn = lambda cfg=cfg: voxel_scatter.voxel_scatter_mean(xyz, feats, pc, vs, bidx, B, out=(mean, counts),
                                                                  config=cfg)
            ms = statistics.median(bench(fn) for _ in range(ROUNDS))
            add("voxel scatter", f"N={N} C={C} B={B} {ny}x{nx}", f"triton UNROLL={u}", ms, nbytes=nbytes,
                err=rel(fn()[0], rm), note=f"(BLOCK_V {chosen.kwargs['BLOCK_V']}, BLOCK_C {chosen.kwargs['BLOCK_C']}, "
                                           f"{chosen.num_warps} warps)")
    # What reading the points in pillar order costs by itself: the kernel's last pass gathers each
    # pillar's feature rows (C * 4 bytes, scattered over the input) and writes the grid in order. The same
    # access pattern with nothing else, a gather of the rows in pillar order (random reads of C * 4 bytes,
    # sequential writes), bounds that pass better than the copy does. torch's index_select is timed too,
    # but the Triton gather (_gather_rows, best of its configs) is the bound.
    ix = ((xyz[:, 0] - pc[0]) / vs[0]).floor().long().clamp(0, nx)
    iy = ((xyz[:, 1] - pc[1]) / vs[1]).floor().long().clamp(0, ny)
    perm = torch.argsort((bidx * (ny + 1) + iy) * (nx + 1) + ix).to(torch.int32)
    rows = torch.empty_like(feats)
    gather_bytes = N * (4 + 2 * 4 * C)
    ms = statistics.median(bench(lambda: torch.index_select(feats, 0, perm, out=rows)) for _ in range(ROUNDS))
    add("voxel gather bound", f"N={N} C={C} rows in pillar order", "index_select", ms, nbytes=gather_bytes,
        note="(not a kernel: the gather pattern alone)")
    best = None
    for block, warps in ((16, 2), (32, 4), (64, 4), (128, 8)):
        def g(block=block, warps=warps):
            _gather_rows[(triton.cdiv(N, block),)](feats, perm, rows, N, C=C, BLOCK=block, num_warps=warps)
        g()
        assert torch.equal(rows, feats[perm.long()])
        ms = statistics.median(bench(g) for _ in range(ROUNDS))
        if best is None or ms < best[0]:
            best = (ms, block, warps)
    add("voxel gather bound", f"N={N} C={C} rows in pillar order", "triton gather", best[0], nbytes=gather_bytes,
        note=f"(the gather pattern alone; best of 4 configs: {best[1]} rows, {best[2]} warps)")
    del xyz, feats, mean, counts, perm, rows


BENCHES = {"bn_relu": b_bn_relu, "norms": b_norms, "softmax": b_softmax, "attention": b_attention,
           "gating": b_gating, "voxel": b_voxel}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*", choices=list(BENCHES))
    ap.add_argument("--json")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int, default=1, help="time each variant this many times, in turns")
    a = ap.parse_args()
    global ROUNDS
    ROUNDS = max(1, a.rounds)
    torch.manual_seed(0)
    props = torch.cuda.get_device_properties(0)
    print(f"device {props.name}, {props.multi_processor_count} SMs; torch {torch.__version__}, "
          f"triton {triton.__version__}", flush=True)
    ceilings()
    for name in a.only or BENCHES:
        t0 = time.perf_counter()
        BENCHES[name](a.quick)
        torch.cuda.empty_cache()
        print(f"[{name}: {time.perf_counter() - t0:.0f} s]", flush=True)
    print("\nautotuned configs chosen (key -> config):")
    for mod, names in [(flash_attention, ["_tuned", "_tuned_tma"]), (norms, ["_tuned"]),
                       (softmax, ["_tuned"]), (bn_relu, ["_tuned"]), (moe_gating, ["_tuned"]),
                       (voxel_scatter, ["_tuned"])]:
        for n in names:
            for key, cfg in getattr(getattr(mod, n), "cache", {}).items():
                print(f"  {mod.__name__.split('.')[-1]}.{n} {key[:8]} -> {cfg}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(ceilings=CEIL, device=props.name, torch=torch.__version__, triton=triton.__version__,
                           rows=ROWS), f, indent=1)
    print("\nsummary (triton vs best other variant of the same row group):")
    groups = {}
    for r in ROWS:
        if "ms" in r:
            groups.setdefault((r["kernel"], r["shape"]), []).append(r)
    for (k, s), rs in groups.items():
        tr = [r for r in rs if r["variant"].startswith("triton")]
        others = [r for r in rs if not r["variant"].startswith("triton")]
        if not tr or not others:
            continue
        t = min(tr, key=lambda r: r["ms"])
        o = min(others, key=lambda r: r["ms"])
        comp = [r for r in others if r["variant"].startswith("torch.compile")]
        cs = f", vs torch.compile {comp[0]['ms'] / t['ms']:.2f}x" if comp else ""
        print(f"  {k:16s} {s:28s} triton {t['ms']:.3f} ms ({t['frac']*100:.0f}% of ceiling) vs best other "
              f"'{o['variant']}' {o['ms']:.3f} ms: {o['ms'] / t['ms']:.2f}x{cs}")


if __name__ == "__main__":
    main()
