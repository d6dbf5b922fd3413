"""Correctness of the bundled Triton kernels (compilelint/kernels/).

Without a GPU the kernels run in Triton's CPU interpreter (TRITON_INTERPRET=1, set only while the kernel
modules are imported) on small shapes; with CUDA they are compiled and autotuned, and the `gpu` tests
add GPU-sized shapes. Every check draws fresh random inputs, compares with a float64 reference by
relative error ||out - ref|| / ||ref||, and poisons the output (NaN, or -1 for integers) before the
launch so that an element the kernel never wrote fails the check.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
triton = pytest.importorskip("triton")

CUDA = torch.cuda.is_available()
# Interpreter mode must be on before triton is first imported: triton decorates its own @jit helpers
# (tl.sum, tl.max, ...) at import, and `import torch._dynamo` (any compile test) imports triton. So
# without a GPU, unless TRITON_INTERPRET=1 was set for this process, the tests below are skipped here
# and test_kernels_in_interpreter_subprocess runs this file again in a fresh process with it set.
SPAWN = not CUDA and os.environ.get("TRITON_INTERPRET") != "1"
if not SPAWN:
    bn_relu = importlib.import_module("compilelint.kernels.bn_relu")
    norms = importlib.import_module("compilelint.kernels.norms")
    softmax = importlib.import_module("compilelint.kernels.softmax")
    attn = importlib.import_module("compilelint.kernels.flash_attention")
    gating = importlib.import_module("compilelint.kernels.moe_gating")
    voxel = importlib.import_module("compilelint.kernels.voxel_scatter")
    N_ATTN_CONFIGS = len(attn.CONFIGS)
else:
    N_ATTN_CONFIGS = 1

DEV = "cuda" if CUDA else "cpu"
gpu = pytest.mark.skipif(not CUDA, reason="needs a CUDA GPU")
TOL = {torch.float32: 1e-5, torch.float16: 2e-3, torch.bfloat16: 1e-2}  # relative error vs float64
# fp32 inputs on a GPU: plain float32 arithmetic, still far under 1e-5 for these reductions


def rel_err(out, ref):
    out = out.double().cpu()
    ref = ref.double().cpu()
    assert not torch.isnan(out).any(), "NaN in output: an element was not written (poisoned) or overflowed"
    return ((out - ref).norm() / ref.norm().clamp_min(1e-300)).item()


def poisoned(shape, dtype, device=DEV, **kw):
    t = torch.empty(shape, dtype=dtype, device=device, **kw)
    return t.fill_(float("nan") if dtype.is_floating_point else -1)


# ---------------------------------------------------------------- folded BN + bias + ReLU


def _bn_case(shape, dtype, channels_last=False, config=None):
    C = shape[1]
    x = (torch.randn(shape) * 2).to(DEV, dtype)
    if channels_last:
        x = x.to(memory_format=torch.channels_last)
    cb, mu, w, b = (torch.randn(C, device=DEV) for _ in range(4))
    var = torch.rand(C, device=DEV) + 0.5
    scale, shift = bn_relu.fold_bn(w, b, mu, var, 1e-5, cb)
    out = poisoned(shape, dtype)
    if channels_last:
        out = out.to(memory_format=torch.channels_last).fill_(float("nan"))
    y = bn_relu.bn_relu(x, scale, shift, out=out, config=config)
    assert y.data_ptr() == out.data_ptr()
    ref = bn_relu.reference(x.double(), cb.double(), mu.double(), var.double(), w.double(), b.double())
    # the kernel rounds once (to dtype) from float32; the reference is exact
    assert rel_err(y, ref) < TOL[dtype], (shape, dtype)
    assert (y >= 0).all()


@pytest.mark.parametrize("shape,dtype,cl", [
    ((2, 5, 7, 9), torch.float32, False),
    ((3, 6, 5, 5), torch.float32, True),
    ((2, 4, 11, 3), torch.bfloat16, False),
    ((37, 19), torch.float16, False),
])
def test_bn_relu(shape, dtype, cl):
    _bn_case(shape, dtype, cl)


def test_bn_relu_fold_matches_module():
    bn = torch.nn.BatchNorm2d(6).eval()
    with torch.no_grad():
        bn.running_mean.normal_()
        bn.running_var.uniform_(0.5, 2)
        bn.weight.normal_()
        bn.bias.normal_()
    conv_bias = torch.randn(6)
    x = torch.randn(2, 6, 4, 4)
    scale, shift = bn_relu.fold_bn(bn.weight, bn.bias, bn.running_mean, bn.running_var, bn.eps, conv_bias)
    with torch.no_grad():
        expect = torch.relu(bn(x + conv_bias.view(1, -1, 1, 1)))
    assert torch.allclose(torch.relu(x * scale.view(1, -1, 1, 1) + shift.view(1, -1, 1, 1)), expect, atol=1e-5)


# ---------------------------------------------------------------- LayerNorm / RMSNorm


@pytest.mark.parametrize("shape,dtype", [((7, 33), torch.float32), ((3, 5, 64), torch.bfloat16),
                                         ((5, 300), torch.float16), ((2, 70000), torch.float32)])
def test_layer_norm(shape, dtype):
    N = shape[-1]
    x = (torch.randn(shape) * 3 + 1).to(DEV, dtype)
    w = torch.randn(N, device=DEV, dtype=dtype)
    b = torch.randn(N, device=DEV, dtype=dtype)
    y = norms.layer_norm(x, w, b, 1e-5, out=poisoned(shape, dtype))
    assert rel_err(y, norms.reference_layer_norm(x.double(), w.double(), b.double(), 1e-5)) < TOL[dtype]
    y = norms.layer_norm(x, None, None, 1e-5, out=poisoned(shape, dtype))
    assert rel_err(y, norms.reference_layer_norm(x.double(), None, None, 1e-5)) < TOL[dtype]


@pytest.mark.parametrize("shape,dtype", [((9, 48), torch.float32), ((4, 130), torch.bfloat16),
                                         ((2, 70000), torch.float16)])
def test_rms_norm(shape, dtype):
    N = shape[-1]
    x = (torch.randn(shape) * 2).to(DEV, dtype)
    w = torch.randn(N, device=DEV, dtype=dtype)
    y = norms.rms_norm(x, w, 1e-6, out=poisoned(shape, dtype))
    assert rel_err(y, norms.reference_rms(x.double(), w.double(), 1e-6)) < TOL[dtype]


@pytest.mark.parametrize("N,tile,chunked,hints", [
    (64, 64, False, False),  # one whole row per program, 1-D, unmasked (N a power of two)
    (50, 64, False, True),  # 1-D, masked tail, eviction hints
    (50, 256, False, False),  # four rows per program (2-D tile), 7 rows: a partial last tile
    (64, 16, True, False),  # chunked: per-lane LayerNorm statistics, reverse second pass
    (70, 16, True, True),  # chunked with a partial last chunk, hints
])
def test_norm_every_path(N, tile, chunked, hints):
    """Each shape of work the autotuner may pick computes the same function (explicit configs)."""
    cfg = norms._cfg(tile, 4, chunked, hints)
    x = (torch.randn(7, N) * 3 + 40).to(DEV)  # mean far from 0: one-pass variance must not cancel
    w, b = torch.randn(N, device=DEV), torch.randn(N, device=DEV)
    y = norms.layer_norm(x, w, b, 1e-5, out=poisoned((7, N), torch.float32), config=cfg)
    assert rel_err(y, norms.reference_layer_norm(x.double(), w.double(), b.double(), 1e-5)) < 1e-5
    y = norms.layer_norm(x, None, None, 1e-5, out=poisoned((7, N), torch.float32), config=cfg)
    assert rel_err(y, norms.reference_layer_norm(x.double(), None, None, 1e-5)) < 1e-5
    y = norms.rms_norm(x, w, 1e-6, out=poisoned((7, N), torch.float32), config=cfg)
    assert rel_err(y, norms.reference_rms(x.double(), w.double(), 1e-6)) < 1e-5


@pytest.mark.parametrize("N", [64, 70])
def test_norm_chunked_drifting_rows(N):
    """Chunked LayerNorm's statistics with rows whose values drift far from each lane's first value (the
    shift of its per-lane sums), and rows of tiny variance on a large offset (cancellation: F.layer_norm in
    float32 is off by up to 2e-2 on the last row; the kernel keeps x - x[0] exact)."""
    cfg = norms._cfg(16, 4, True, False)
    ramp = torch.arange(N, dtype=torch.float32)
    x = torch.stack([ramp * 10.0, 1000.0 + ramp * 1e-2, -ramp ** 2, 500.0 + torch.randn(N) * 1e-3]).to(DEV)
    y = norms.layer_norm(x, None, None, 1e-5, out=poisoned(x.shape, torch.float32), config=cfg)
    assert rel_err(y, norms.reference_layer_norm(x.double(), None, None, 1e-5)) < 1e-5


@pytest.mark.parametrize("is_rms,affine", [(False, True), (False, False), (True, True), (True, False)])
def test_norm_resident_rows(is_rms, affine):
    """The register-resident path (bf16 rows held as packed pairs; layer_norm/rms_norm take it for rows of
    RESIDENT_N columns) on small rows: the reference's function, with rows on a large offset, drifting,
    and of tiny spread, and every output rounded to bf16 as torch rounds (nearest even)."""
    N = 256
    x = torch.randn(5, N) * 3 + 1
    x[1] = 500 + torch.randn(N)
    x[2] = torch.arange(N) * 10.0
    x[3] = 7 + torch.randn(N) * 1e-2
    x = x.to(DEV, torch.bfloat16)
    w = torch.randn(N, device=DEV, dtype=torch.bfloat16) if affine else None
    b = torch.randn(N, device=DEV, dtype=torch.bfloat16) if affine and not is_rms else None
    y = poisoned((5, N), torch.bfloat16)
    norms.launch_resident(x, y, w if w is not None else x, b if b is not None else x, 1e-5, is_rms,
                          w is not None, b is not None, num_warps=4)
    if is_rms:
        ref = norms.reference_rms(x.double(), None if w is None else w.double(), 1e-5)
    else:
        ref = norms.reference_layer_norm(x.double(), None if w is None else w.double(),
                                         None if b is None else b.double(), 1e-5)
    for r in range(5):
        assert rel_err(y[r], ref[r]) < 5e-3, r
    # bf16 rounding: at most one bf16 step from the float64 result rounded once
    step = (ref.to(torch.bfloat16).double() - ref).abs().max()
    assert (y.double() - ref).abs().max() <= 2 * step + 1e-6


def test_norm_resident_fits():
    """The launcher takes the resident path only for bf16 rows (and weights) of RESIDENT_N columns whose
    rows and vectors are 4-byte aligned; anything else keeps the autotuned kernel."""
    N = norms.RESIDENT_N
    base = torch.randn(2, N + 2, dtype=torch.bfloat16)
    w = torch.randn(N, dtype=torch.bfloat16)
    x = base[:, :N]
    y = torch.empty(2, N, dtype=torch.bfloat16)
    assert norms.resident_fits(x, y, w, w)
    assert not norms.resident_fits(base[:, 1:N + 1], y, w, w)  # rows 2 bytes off
    assert not norms.resident_fits(x, y, w.float(), w)  # float32 weight
    assert not norms.resident_fits(x.half(), y.half(), w.half(), w.half())
    assert not norms.resident_fits(base[:, :N - 8], y[:, :N - 8], w[:N - 8], w[:N - 8])


def test_norm_config_space():
    """The autotuner's prune leaves configs for every width, and each kept config covers the row."""
    for n in (1, 33, 1000, 4096, 8192, 32768, 65536, 262144):
        np2 = triton.next_power_of_2(n)
        kept = [c for c in norms.CONFIGS if norms.keep_config(c, np2)]
        assert kept, n
        for c in kept:
            assert c.kwargs["CHUNKED"] or c.kwargs["TILE"] >= np2


def test_norm_strided_rows():
    x = torch.randn(6, 80, device=DEV)[:, :50]  # row stride 80, last dim contiguous
    y = norms.layer_norm(x, None, None, 1e-5, out=poisoned((6, 50), torch.float32))
    assert rel_err(y, norms.reference_layer_norm(x.double(), None, None, 1e-5)) < 1e-5


# ---------------------------------------------------------------- softmax


@pytest.mark.parametrize("shape,dtype", [((7, 33), torch.float32), ((2, 3, 128), torch.bfloat16),
                                         ((5, 1000), torch.float16), ((2, 70000), torch.float32)])
def test_softmax(shape, dtype):
    x = (torch.randn(shape) * 4).to(DEV, dtype)
    x.view(-1)[0] = -float("inf")  # a masked score, as attention code writes them
    y = softmax.softmax(x, out=poisoned(shape, dtype))
    assert rel_err(y, softmax.reference(x.double())) < TOL[dtype]
    assert torch.allclose(y.double().sum(-1), torch.ones(shape[:-1], dtype=torch.float64, device=DEV),
                          atol=TOL[dtype] * 10)


@pytest.mark.parametrize("N,tile,chunked,hints", [
    (64, 64, False, False), (50, 64, False, True), (50, 256, False, False), (64, 16, True, False),
    (70, 16, True, True),
])
def test_softmax_every_path(N, tile, chunked, hints):
    """Each shape of work the autotuner may pick (see test_norm_every_path), with -inf scores: a whole
    chunk of them first (the running max starts at -inf) and one scattered."""
    from compilelint.kernels._common import rowwise_config

    x = torch.randn(7, N, device=DEV) * 4
    x[:, :20] = -float("inf")
    x[3, 40] = -float("inf")
    y = softmax.softmax(x, out=poisoned((7, N), torch.float32), config=rowwise_config(tile, 4, chunked, hints))
    assert rel_err(y, softmax.reference(x.double())) < 1e-5


@pytest.mark.parametrize("N,tile", [(64, 16), (70, 16)])
def test_softmax_chunked_overflow_fallback(N, tile):
    """The chunked path sums exp2(x - k) against one reference per row (the max of its first chunk). A
    later value more than 88 above k overflows that sum: the row must take the safe online pass (GPU-checked
    on the H200). Rows: such a value (in the last chunk and in a middle one), a first chunk of -inf then
    large values, a row of -inf only (zeros, as the other paths), an inf score (nan, as torch), a first
    chunk of -inf then scores so low that their terms against the stand-in reference 0 underflow, and
    plain rows."""
    from compilelint.kernels._common import rowwise_config

    x = torch.randn(9, N, device=DEV) * 4
    x[1, -1] = 200.0
    x[2, 40] = 150.0  # (the base-2 exponent of 1e4 would carry a 1e-5 rounding error, as before this path)
    x[3, :16] = -float("inf")
    x[3, 30] = 95.0
    x[4] = -float("inf")
    x[5, 33] = float("inf")
    x[7, :16] = -float("inf")  # then only scores whose terms against k = 0 underflow: all of them ...
    x[7, 16:] = -1e4
    x[8, :16] = -float("inf")  # ... or most of them (exp2 flushes below 2^-126 on the GPU)
    x[8, 16:] = torch.linspace(-90.0, -87.0, N - 16)
    y = softmax.softmax(x, out=poisoned(x.shape, torch.float32), config=rowwise_config(tile, 4, True, False))
    ref = softmax.reference(x.double())
    for r in (0, 1, 2, 3, 6, 7, 8):
        assert rel_err(y[r], ref[r]) < 1e-5, r
    assert torch.equal(y[4].cpu(), torch.zeros(N))
    assert y[5].isnan().all() and ref[5].isnan().all()


# ---------------------------------------------------------------- attention


def _qkv(B, H, SQ, SK, D, dtype):
    q = torch.randn(B, H, SQ, D, device=DEV, dtype=dtype)
    k = torch.randn(B, H, SK, D, device=DEV, dtype=dtype)
    v = torch.randn(B, H, SK, D, device=DEV, dtype=dtype)
    return q, k, v


def _check_attn(q, k, v, dtype, config=None, impl="auto", **opts):
    out = attn.attention(q, k, v, out=poisoned(q.shape, dtype), config=config, impl=impl, **opts)
    ref = attn.reference(q.double(), k.double(), v.double(), **opts)
    err = rel_err(out, ref)
    assert err < TOL[dtype], (opts, err)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("causal", [False, True])
def test_attention_dense(dtype, causal):
    q, k, v = _qkv(2, 2, 48, 80, 32, dtype)  # Sq != Sk, neither a multiple of the tile
    _check_attn(q, k, v, dtype, causal=causal)


@pytest.mark.parametrize("causal", [False, True])
def test_attention_kv_lens(causal):
    dtype = torch.bfloat16
    q, k, v = _qkv(3, 2, 40, 72, 16, dtype)
    lens = torch.tensor([72, 23, 1], device=DEV)
    _check_attn(q, k, v, dtype, causal=causal, kv_lens=lens)


def test_attention_key_padding_mask():
    dtype = torch.float16
    q, k, v = _qkv(2, 2, 33, 64, 32, dtype)
    kpm = torch.rand(2, 64, device=DEV) < 0.4
    kpm[:, 0] = False
    _check_attn(q, k, v, dtype, key_padding_mask=kpm)
    _check_attn(q, k, v, dtype, key_padding_mask=kpm, causal=True)


def test_attention_fully_masked_rows_are_zero():
    dtype = torch.float16
    q, k, v = _qkv(1, 1, 16, 32, 16, dtype)
    kpm = torch.zeros(1, 32, dtype=torch.bool, device=DEV)
    kpm[0, :5] = True  # causal rows 0..4 see only padded keys
    out = attn.attention(q, k, v, causal=True, key_padding_mask=kpm, out=poisoned(q.shape, dtype))
    assert torch.equal(out[0, 0, :5].float().cpu(), torch.zeros(5, 16))
    ref = attn.reference(q.double(), k.double(), v.double(), causal=True, key_padding_mask=kpm)
    assert rel_err(out, ref) < TOL[dtype]


def test_attention_strided_inputs():
    dtype = torch.bfloat16
    qkv = torch.randn(2, 40, 3, 2, 32, device=DEV, dtype=dtype)  # (B, S, 3, H, D) packed projection
    q, k, v = (qkv[:, :, i].transpose(1, 2) for i in range(3))  # (B, H, S, D) views, not contiguous
    _check_attn(q, k, v, dtype, causal=True)


@pytest.mark.parametrize("causal", [False, True])
def test_attention_tma_descriptors(causal):
    """The TMA-descriptor kernel (Hopper's default) computes the same function, also on ragged tiles."""
    dtype = torch.bfloat16
    q, k, v = _qkv(2, 2, 40, 72, 32, dtype)
    _check_attn(q, k, v, dtype, causal=causal, impl="tma")
    _check_attn(q, k, v, dtype, causal=causal, impl="tma", kv_lens=torch.tensor([72, 9], device=DEV))


def test_attention_second_config():
    """A config with other tile sizes than the default one computes the same function."""
    dtype = torch.float16
    q, k, v = _qkv(1, 2, 70, 130, 32, dtype)
    cfg = attn.CONFIGS[5] if CUDA else attn._cfg(64, 32, 4, 1)
    _check_attn(q, k, v, dtype, causal=True, config=cfg, kv_lens=torch.tensor([101], device=DEV))


_WS_COMPILE = """
import json, re, sys, torch
from benchmarks.kernels_aot import ptxas_info
from compilelint.kernels import flash_attention_ws as ws
out = []
for head_dim, dtype, causal, lens in [(128, torch.bfloat16, True, True), (64, torch.float16, False, False)]:
    k = ws.compile_sm90(head_dim, dtype, causal, lens)
    ptx = k.asm["ptx"]
    out.append({"ptxas": ptxas_info(ptx, 90), "waits": sorted(set(re.findall(r"wgmma.wait_group.sync.aligned (\\d+)", ptx))),
                "regs": sorted(set(re.findall(r"setmaxnreg.\\w+.sync.aligned.u32\\s+(\\d+)", ptx))),
                "smem": k.metadata.shared, "warps": k.metadata.num_warps, "limit": ws._SMEM_LIMIT,
                "consumer_regs": ws.CONSUMER_REGS})
print(json.dumps(out))
"""


def test_attention_ws_compiles_for_sm90():
    """The Gluon warp-specialised kernel (Hopper's default; it cannot run in the interpreter) compiles for
    sm_90 here too: ptxas reports at most one spilled word (at D=128 the persistent loop leaves one predicate
    word on the stack, stored and reloaded once per tile, outside the loop over key tiles; a spill of the
    softmax state would run to hundreds of bytes), the loop keeps one wgmma in flight across the softmax
    (wait_group 1), and the producer / consumer register split (setmaxnreg 24 / 240) is in the PTX. In a
    process without TRITON_INTERPRET, which would turn triton's own helpers (tl.max's combine) into
    interpreted functions that the compiler refuses."""
    import json

    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[1]), *sys.path])
    r = subprocess.run([sys.executable, "-c", _WS_COMPILE], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    for k in json.loads(r.stdout.strip().splitlines()[-1]):
        spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", k["ptxas"])
        assert spill and int(spill[1]) <= 4 and int(spill[2]) <= 4, k
        assert k["waits"] == ["0", "1"], k
        assert {"24", str(k["consumer_regs"])} <= set(k["regs"]), k
        assert k["smem"] <= k["limit"] and k["warps"] == 12, k


def test_attention_ws_refused_where_it_does_not_apply():
    dtype = torch.bfloat16
    q, k, v = _qkv(1, 1, 8, 8, 32, dtype)
    with pytest.raises(ValueError, match="impl='ws'"):
        attn.attention(q, k, v, impl="ws")  # D=32 (and, here, maybe no GPU)
    with pytest.raises(ValueError, match="impl must be"):
        attn.attention(q, k, v, impl="fast")


# ---------------------------------------------------------------- MoE top-k gating


def _check_gating(T, E, k, renorm, dtype, config=None):
    x = torch.randn(T, E, device=DEV).to(dtype)
    out = (poisoned((T, k), torch.float32), poisoned((T, k), torch.int64))
    w, idx = gating.topk_gating(x, k, renorm, out=out, config=config)
    rw, ridx = gating.reference(x.double(), k, renorm)
    assert rel_err(w, rw) < 1e-5
    assert (idx >= 0).all() and (idx < E).all()
    assert (idx.sort(-1).values.diff(dim=-1) != 0).all(), "an expert chosen twice"
    # low-precision logits tie; any tied choice is right: compare the chosen logits, not the ids
    assert torch.equal(x.double().gather(1, idx), x.double().gather(1, ridx))


@pytest.mark.parametrize("T,E,k,renorm,dtype", [(300, 8, 2, True, torch.bfloat16), (77, 8, 2, False, torch.float32),
                                                (50, 6, 3, True, torch.float16), (33, 64, 4, True, torch.float32)])
def test_topk_gating(T, E, k, renorm, dtype):
    _check_gating(T, E, k, renorm, dtype)


# ---------------------------------------------------------------- voxel scatter-mean


PC_RANGE = (0.0, -4.0, -3.0, 6.4, 4.0, 1.0)
VOXEL = (0.4, 0.5)


def _check_voxel(N, C, B, dtype=torch.float32, config=None, is_max=False, deterministic=False):
    lo = torch.tensor([-1.0, -5.0, -3.5])
    xyz = (torch.rand(N, 3) * torch.tensor([8.0, 10.0, 5.0]) + lo).to(DEV)  # some points outside the range
    k = torch.randint(-2, 20, (N // 5, 2), device=DEV).float()  # on (or a rounding away from) bin edges
    xyz[: N // 5, :2] = torch.tensor(PC_RANGE[:2], device=DEV) + k * torch.tensor(VOXEL, device=DEV)
    feats = torch.randn(N, C, device=DEV).to(dtype)
    bidx = torch.randint(0, B + 1, (N,), device=DEV) if B > 1 else None  # index B: dropped
    ny, nx = voxel.grid_shape(PC_RANGE, VOXEL)
    mean = torch.full((B, C, ny, nx), float("nan"), device=DEV).to(memory_format=torch.channels_last)
    counts = torch.full((B, ny, nx), -1, dtype=torch.int32, device=DEV)
    if is_max:
        mean, counts = voxel.voxel_scatter_max(xyz, feats, PC_RANGE, VOXEL, bidx, B, out=(mean, counts),
                                               config=config)
    else:
        mean, counts = voxel.voxel_scatter_mean(xyz, feats, PC_RANGE, VOXEL, bidx, B, out=(mean, counts),
                                                config=config, deterministic=deterministic)
    rmean, rcounts = voxel.reference(xyz, feats.double(), PC_RANGE, VOXEL, bidx, B, reduce="amax" if is_max else "mean")
    assert torch.equal(counts.cpu(), rcounts.cpu())
    assert 0 < counts.sum().item() < N
    assert rel_err(mean, rmean) < 1e-5
    assert mean.is_contiguous(memory_format=torch.channels_last)


@pytest.mark.parametrize("N,C,B", [(500, 5, 2), (301, 20, 1), (1, 3, 1)])
def test_voxel_scatter_mean(N, C, B):
    if N == 1:  # a lone point inside the grid
        xyz = torch.tensor([[1.0, 0.2, 0.0]], device=DEV)
        f = torch.randn(1, C, device=DEV)
        mean, counts = voxel.voxel_scatter_mean(xyz, f, PC_RANGE, VOXEL)
        assert counts.sum().item() == 1 and counts[0, 8, 2].item() == 1
        assert torch.allclose(mean[0, :, 8, 2], f[0])
        return
    _check_voxel(N, C, B)


def test_voxel_scatter_deterministic_mean_repeats_bit_for_bit():
    """deterministic=True sums each pillar's points in point order (a stable sort): the same bits every
    call, and the same values as the reference; torch's deterministic mode selects it by default."""
    _check_voxel(400, 6, 2, deterministic=True)
    xyz = torch.rand(3000, 3, device=DEV) * torch.tensor([6.4, 8.0, 4.0], device=DEV) + torch.tensor(
        [0.0, -4.0, -3.0], device=DEV)
    feats = torch.randn(3000, 7, device=DEV) * torch.logspace(-6, 6, 3000, device=DEV)[:, None]  # order matters
    first, _ = voxel.voxel_scatter_mean(xyz, feats, PC_RANGE, VOXEL, deterministic=True)
    first = first.clone()
    for _ in range(3):
        again, _ = voxel.voxel_scatter_mean(xyz, feats, PC_RANGE, VOXEL, deterministic=True)
        assert torch.equal(again, first)
    was = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        default, _ = voxel.voxel_scatter_mean(xyz, feats, PC_RANGE, VOXEL)
    finally:
        torch.use_deterministic_algorithms(was)
    assert torch.equal(default, first)


@pytest.mark.parametrize("N,C,B", [(500, 5, 2), (301, 20, 1)])
def test_voxel_scatter_max(N, C, B):
    """Max-pool mode: features of both signs, empty pillars 0."""
    _check_voxel(N, C, B, is_max=True)


@pytest.mark.parametrize("unroll", [2, 4])
def test_voxel_scatter_unrolled_pillar_loop(unroll):
    """The autotuner may pick configs that take each pillar's first points in an unrolled loop: the same
    means, maxes and counts (2000 points in 256 pillars: most hold more than 4, so both loops run)."""
    cfg = _pick(voxel.CONFIGS, BLOCK_V=16, BLOCK_C=64, num_warps=4, UNROLL=unroll)
    _check_voxel(2000, 5, 1, config=cfg)
    _check_voxel(301, 20, 1, config=cfg, is_max=True)
    _check_voxel(400, 6, 2, config=cfg, deterministic=True)


def test_voxel_scatter_rejects_out_tensors_of_the_wrong_shape():
    """The kernels index `out` by pillar: a buffer of another grid would be written out of bounds."""
    xyz = torch.rand(10, 3, device=DEV)
    feats = torch.randn(10, 4, device=DEV)
    ny, nx = voxel.grid_shape(PC_RANGE, VOXEL)
    mean = torch.zeros(1, 4, ny, nx - 1, device=DEV).to(memory_format=torch.channels_last)
    counts = torch.zeros(1, ny, nx - 1, dtype=torch.int32, device=DEV)
    with pytest.raises(ValueError, match="out must be"):
        voxel.voxel_scatter_mean(xyz, feats, PC_RANGE, VOXEL, out=(mean, counts))


def test_voxel_scatter_variable_point_count():
    for n in (37, 211):  # the fixture's point count changes call to call
        _check_voxel(n, 4, 1)


# ---------------------------------------------------------------- fixture pairs' make_fused


FUSED = {"vision_stem": 1e-5, "moe_router": 1e-2, "vl_cross_attn": 1e-3, "voxelize": 1e-5, "policy_head": 1e-5}
"""Pairs with a `make_fused` factory -> tolerance of the comparison with `make_fixed` (bench._close:
allclose with atol = rtol = tol); vl_cross_attn's attention runs in fp16 (the bench's CUDA tolerance);
moe_router is bf16 (torch._grouped_mm's dtype), where the kernel's float32 gate weights, rounded, may
differ from the fixed model's by one bf16 step."""


def test_every_make_fused_is_checked():
    from fixtures.models import PAIRS

    have = {n for n in PAIRS if hasattr(importlib.import_module(f"fixtures.models.{n}"), "make_fused")}
    assert have == set(FUSED)


@pytest.mark.parametrize("name", sorted(FUSED))
def test_fused_fixture_matches_fixed(name):
    """make_fused (the fixed model with the bundled kernels, the bench's fused_fixed column) computes what
    make_fixed computes, on every input set, from the same weights and inputs."""
    from compilelint.runtime_probe.bench import _close

    mod = importlib.import_module(f"fixtures.models.{name}")
    fixed, inputs = mod.make_fixed(device=DEV)
    fused, inputs_f = mod.make_fused(device=DEV)
    assert type(fused) is not type(fixed) and isinstance(fused, type(fixed))
    assert len(inputs) == len(inputs_f) >= 2
    with torch.no_grad():
        for i, (a, b) in enumerate(zip(inputs, inputs_f)):
            assert all(torch.equal(x, y) for x, y in zip(a, b)), f"{name}: input set {i} differs"
            want, got = fixed(*a), fused(*b)
            assert got.shape == want.shape and got.dtype == want.dtype, (name, i)
            err = ((got.double() - want.double()).abs() / (want.double().abs() + 1)).max().item()
            assert _close(want, got, FUSED[name]), f"{name}: input set {i}: max scaled error {err:.2e}"


# ---------------------------------------------------------------- hygiene


def test_kernels_package_imports_nothing_heavy():
    code = ("import sys, compilelint, compilelint.kernels; "
            "bad = [m for m in ('torch', 'triton') if m in sys.modules]; assert not bad, bad")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=60)


# ---------------------------------------------------------------- GPU-sized (compiled, autotuned)


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("impl", ["tma", "pointer"])
@pytest.mark.parametrize("causal", [False, True])
def test_gpu_attention_large(causal, impl):
    """GPU-sized, one fixed config (the autotuned path is checked by benchmarks/kernels.py)."""
    cfg = attn.CONFIGS[0]
    q, k, v = _qkv(2, 8, 1000, 1000, 128, torch.bfloat16)
    _check_attn(q, k, v, torch.bfloat16, causal=causal, config=cfg, impl=impl)
    _check_attn(q, k, v, torch.bfloat16, causal=causal, kv_lens=torch.tensor([1000, 333], device=DEV), config=cfg,
                impl=impl)
    if impl == "pointer":
        kpm = torch.rand(2, 1000, device=DEV) < 0.3
        _check_attn(q, k, v, torch.bfloat16, causal=causal, key_padding_mask=kpm, config=cfg)
    q, k, v = _qkv(2, 8, 1000, 1000, 128, torch.float16)
    _check_attn(q, k, v, torch.float16, causal=causal, config=cfg, impl=impl)


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
def test_gpu_attention_ws(causal, head_dim, monkeypatch):
    """The warp-specialised Gluon kernel: ragged lengths (zero-filled loads, clipped stores), many tiles,
    kv_lens down to 0, fp16 and bf16; and impl="auto" picks it on an sm_90 GPU."""
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the warp-specialised kernel is sm_90 only")
    from compilelint.kernels import flash_attention_ws as ws

    for dtype in (torch.bfloat16, torch.float16):
        for B, H, SQ, SK in [(2, 3, 200, 333), (1, 2, 77, 77), (1, 1, 1, 300), (2, 4, 1030, 777), (1, 2, 513, 4096)]:
            q, k, v = _qkv(B, H, SQ, SK, head_dim, dtype)
            _check_attn(q, k, v, dtype, causal=causal, impl="ws")
            lens = torch.tensor([SK, 0, 5][:B] if B > 1 else [SK // 3], device=DEV)
            _check_attn(q, k, v, dtype, causal=causal, impl="ws", kv_lens=lens)
    calls = []
    real = ws.attention_ws
    monkeypatch.setattr(ws, "attention_ws", lambda *a, **kw: calls.append(1) or real(*a, **kw))
    q, k, v = _qkv(1, 2, 300, 300, head_dim, torch.bfloat16)
    _check_attn(q, k, v, torch.bfloat16, causal=causal)
    assert calls == [1]


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("persistent,separate_o", [(True, True), (True, False), (False, True), (False, False)])
@pytest.mark.parametrize("causal", [False, True])
def test_gpu_attention_ws_schedules(causal, persistent, separate_o, monkeypatch):
    """Both schedules of the warp-specialised kernel (persistent: one program per SM taking tile after tile, the
    producer loading the next tile's Q and K/V while the consumers finish this one; or one program per tile), the
    output staged in its own buffer or in the query's: kv_lens down to 0, causal, several tiles per program
    (B*H*blocks well past the SM count, and the same with the GPU taken for 7 SMs, so that the K/V ring's
    slots and phases carry over from tile to tile at every offset)."""
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the warp-specialised kernel is sm_90 only")
    from compilelint.kernels import flash_attention_ws as ws

    def check(q, k, v, dtype, **opts):
        out = ws.attention_ws(q, k, v, causal=causal, out=poisoned(q.shape, dtype), persistent=persistent,
                              separate_o=separate_o, **opts)
        ref = attn.reference(q.double(), k.double(), v.double(), causal=causal, **opts)
        assert rel_err(out, ref) < TOL[dtype], (q.shape, k.shape, opts)

    cases = [(torch.bfloat16, 128, (4, 16, 1024, 1024)), (torch.float16, 64, (2, 3, 200, 333)),
             (torch.bfloat16, 128, (3, 5, 300, 520)), (torch.bfloat16, 128, (1, 1, 1, 300))]  # first: 512 tiles
    for sms in (None, 7):
        if sms:
            monkeypatch.setitem(ws._SM_COUNT, torch.cuda.current_device(), sms)
        for dtype, D, (B, H, SQ, SK) in cases:
            q, k, v = _qkv(B, H, SQ, SK, D, dtype)
            check(q, k, v, dtype)
            lens = torch.tensor(([SK, 0, 5, SK // 2] * 2)[:B] if B > 1 else [SK // 3], device=DEV)
            check(q, k, v, dtype, kv_lens=lens)


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("cfg", range(N_ATTN_CONFIGS))
def test_gpu_attention_every_config(cfg):
    q, k, v = _qkv(2, 4, 777, 1030, 128, torch.bfloat16)
    for impl in ("tma", "pointer"):
        _check_attn(q, k, v, torch.bfloat16, causal=True, kv_lens=torch.tensor([1030, 900], device=DEV),
                    config=attn.CONFIGS[cfg], impl=impl)


@gpu
@pytest.mark.gpu
@pytest.mark.parametrize("N,dtype", [(127, torch.bfloat16), (1000, torch.float32), (4096, torch.bfloat16),
                                     (40000, torch.bfloat16)])
def test_gpu_rowwise_large(N, dtype):
    M = max(8, 2**22 // N)
    x = (torch.randn(M, N, device=DEV) * 3 + 1).to(dtype)
    w = torch.randn(N, device=DEV, dtype=dtype)
    b = torch.randn(N, device=DEV, dtype=dtype)
    y = norms.layer_norm(x, w, b, out=poisoned((M, N), dtype))
    assert rel_err(y, norms.reference_layer_norm(x.double(), w.double(), b.double())) < TOL[dtype]
    y = norms.rms_norm(x, w, out=poisoned((M, N), dtype))
    assert rel_err(y, norms.reference_rms(x.double(), w.double())) < TOL[dtype]
    y = softmax.softmax(x, out=poisoned((M, N), dtype))
    assert rel_err(y, softmax.reference(x.double())) < TOL[dtype]


@gpu
@pytest.mark.gpu
def test_gpu_norm_resident_64k():
    """Rows of RESIDENT_N bf16 columns take the register-resident path (inline asm conversions, L2
    prefetch for LayerNorm); a view 2 bytes off alignment takes the autotuned kernel. Both must match."""
    N = norms.RESIDENT_N
    base = (torch.randn(300, N + 2, device=DEV) * 3 + 1).to(torch.bfloat16)
    w = torch.randn(N, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(N, device=DEV, dtype=torch.bfloat16)
    for x, resident in ((base[:, :N], True), (base[:, 1:N + 1], False)):
        assert norms.resident_fits(x, x, w, b) == resident
        y = norms.layer_norm(x, w, b, out=poisoned(x.shape, torch.bfloat16))
        assert rel_err(y, norms.reference_layer_norm(x.double(), w.double(), b.double())) < 5e-3
        y = norms.layer_norm(x, None, None, out=poisoned(x.shape, torch.bfloat16))
        assert rel_err(y, norms.reference_layer_norm(x.double())) < 5e-3
        y = norms.rms_norm(x, w, out=poisoned(x.shape, torch.bfloat16))
        assert rel_err(y, norms.reference_rms(x.double(), w.double())) < 5e-3


@gpu
@pytest.mark.gpu
def test_gpu_launch_after_tuning():
    """After its first call for a key, a launcher finds the autotuner's choice itself (_common.tuned_config,
    which computes Autotuner.run's key: checked here against the entry the autotuner added) and launches
    the kernel with it; calls that Triton specialises differently (a data pointer 2 bytes off 16-byte
    alignment, other row counts and strides) still compute the right result."""
    from compilelint.kernels._common import tuned_config, tuned_key

    base = torch.randn(64, 2064, device=DEV, dtype=torch.float16)
    before = dict(softmax._tuned.cache)
    for x in (base[:, :2048], base[:, :2048], torch.randn(48, 2048, device=DEV).half(), base[:, 1:2049]):
        y = softmax.softmax(x, out=poisoned(x.shape, torch.float16))
        assert rel_err(y, softmax.reference(x.double())) < TOL[torch.float16]
    added = [k for k in softmax._tuned.cache if k not in before]
    args = dict(X=x, Y=y, M=64, N=2048, stride_xm=2064, stride_ym=2048, NP2=2048, EVEN_N=True)
    assert tuned_config(softmax._tuned, args) is not None
    if added:  # tuned here (not by an earlier test): the key is the one the autotuner wrote
        assert added == [tuned_key(softmax._tuned, args)]


def _pick(configs, **want):
    return next(c for c in configs if all(c.kwargs.get(k) == v or getattr(c, k, None) == v for k, v in want.items()))


@gpu
@pytest.mark.gpu
def test_gpu_elementwise_gating_voxel_large():
    """GPU-sized, fixed configs (the ones the H200 autotuner chose; autotuning all of them here took
    minutes): the autotuned path is checked by benchmarks/kernels.py."""
    bn_cfg = _pick(bn_relu.CONFIGS, BLOCK=1024, num_warps=4)
    _bn_case((8, 64, 56, 56), torch.bfloat16, config=bn_cfg)
    _bn_case((8, 64, 56, 56), torch.bfloat16, channels_last=True, config=bn_cfg)
    _bn_case((4096, 1000), torch.float32, config=bn_cfg)
    g_cfg = _pick(gating.CONFIGS, BLOCK_T=256, FLAT=True, num_warps=8)
    _check_gating(1_000_003, 8, 2, True, torch.bfloat16, config=g_cfg)
    _check_gating(100_000, 8, 2, False, torch.float32, config=g_cfg)
    _check_gating(50_000, 6, 3, True, torch.float32, config=_pick(gating.CONFIGS, BLOCK_T=256, FLAT=False))
    v_cfg = _pick(voxel.CONFIGS, BLOCK_V=64, BLOCK_C=64, num_warps=4)
    _check_voxel(200_000, 64, 4, config=v_cfg)
    _check_voxel(200_000, 64, 4, config=v_cfg, deterministic=True)
    _check_voxel(12_345, 9, 1, torch.bfloat16, config=v_cfg)
    _check_voxel(100_000, 33, 2, config=v_cfg, is_max=True)


# ---------------------------------------------------------------- CPU: rerun in interpreter mode


# ---------------------------------------------------------------- the kernels as registered ops


class _RmsHead(torch.nn.Module):
    def __init__(self, width=48, op=True):
        super().__init__()
        self.w = torch.nn.Parameter(torch.rand(width) + 0.5)
        self.proj = torch.nn.Linear(width, width)
        self.op = op

    def forward(self, x):
        y = norms.rms_norm_op(x, self.w, 1e-6) if self.op else norms.rms_norm(x, self.w, 1e-6)
        return self.proj(y)


def test_rms_norm_op_compiles_whole_and_exports():
    """compilelint::rms_norm (a torch.library.custom_op with a fake): torch.compile(fullgraph=True, dynamic=True) keeps
    it in one graph over two input shapes, torch.export records one call of it, and both give RMSNorm's result;
    the Triton launcher called directly is traced into and fails export (its fake tensors have no data pointer)."""
    from compilelint.runtime_probe import observe

    model = _RmsHead().to(DEV).eval()
    inputs = [(torch.randn(3, 5, 48, device=DEV),), (torch.randn(2, 7, 48, device=DEV),)]
    with torch.no_grad():
        report = observe.run_dynamo(model, inputs, fullgraph=True, dynamic=True)
        assert report.error is None and not report.breaks and not report.recompiles, report
        assert report.graph_count == 1
        compiled = torch.compile(model, fullgraph=True, dynamic=True)
        program = torch.export.export(model, inputs[0])
        calls = [str(n.target) for n in program.graph.nodes if n.op == "call_function"]
        assert calls.count("compilelint.rms_norm.default") == 1, calls
        for (x,) in inputs:
            ref = model.proj(norms.reference_rms(x.double(), model.w.double(), 1e-6).float())
            assert rel_err(compiled(x), ref) < 1e-5
        ref = model.proj(norms.reference_rms(inputs[0][0].double(), model.w.double(), 1e-6).float())
        assert rel_err(program.module()(*inputs[0]), ref) < 1e-5
        direct = _RmsHead(op=False).to(DEV).eval()
        failed = observe.run_export(direct, inputs[0])
        assert not failed.ok and "data pointer" in failed.error, failed.error


def test_norm_ops_pass_opcheck():
    """torch.library.opcheck: schema, fake implementation against the real kernel, and AOT dispatch."""
    x = torch.randn(4, 40, device=DEV)
    w, b = torch.rand(40, device=DEV) + 0.5, torch.randn(40, device=DEV)
    torch.library.opcheck(norms.rms_norm_op, (x, w, 1e-6))
    torch.library.opcheck(norms.rms_norm_op, (x, None, 1e-6))
    torch.library.opcheck(norms.layer_norm_op, (x, w, b, 1e-5))


def test_softmax_op_passes_opcheck():
    """opcheck on contiguous rows and on a transposed input (the launcher copies it to rows)."""
    torch.library.opcheck(softmax.softmax_op, (torch.randn(3, 20, device=DEV),))
    torch.library.opcheck(softmax.softmax_op, (torch.randn(2, 3, 8, device=DEV).transpose(1, 2),))


def test_bn_relu_op_passes_opcheck():
    """The fake's layout matches the launcher's for NCHW, channels-last, a transposed (rows, C) input (read as
    if contiguous before: wrong values) and a permuted 4-D one, and each gives relu(x * scale + shift)."""
    C = 3
    scale, shift = torch.randn(C, device=DEV), torch.randn(C, device=DEV)
    nchw = torch.randn(2, C, 4, 5, device=DEV)
    for x in (nchw, nchw.to(memory_format=torch.channels_last), torch.randn(C, 6, device=DEV).t(),
              torch.randn(2, 4, C, 5, device=DEV).transpose(1, 2)):
        torch.library.opcheck(bn_relu.bn_relu_op, (x, scale, shift))
        per_channel = (1, C, *[1] * (x.dim() - 2))
        ref = torch.relu(x.double() * scale.double().view(per_channel) + shift.double().view(per_channel))
        assert rel_err(bn_relu.bn_relu_op(x, scale, shift), ref) < 1e-6, x.stride()


def test_topk_gating_op_passes_opcheck():
    """opcheck with renormalised and plain weights, a 3-D input; the fake rejects a k the launcher rejects."""
    torch.library.opcheck(gating.topk_gating_op, (torch.randn(5, 8, device=DEV), 2, True))
    torch.library.opcheck(gating.topk_gating_op, (torch.randn(2, 3, 6, device=DEV), 3, False))
    # the fake checks what the launcher checks: a compile-time error names the bad k
    with pytest.raises(RuntimeError, match="k=9 must be between 1 and the number of experts 8"):
        torch.compile(lambda t: gating.topk_gating(t, k=9), backend="eager", fullgraph=True)(
            torch.randn(4, 8, device=DEV))


def test_voxel_scatter_op_passes_opcheck():
    """Some points outside the grid, batch indices, both reductions; the mean against the reference, in float64."""
    pc_range, voxel_size = [0.0, 0.0, -1.0, 4.0, 3.0, 1.0], [1.0, 1.0]
    span, low = torch.tensor([5.0, 4.0, 2.5], device=DEV), torch.tensor([0.5, 0.5, 1.2], device=DEV)
    xyz = torch.rand(20, 3, device=DEV) * span - low
    feats, bidx = torch.randn(20, 3, device=DEV), torch.randint(0, 2, (20,), device=DEV)
    torch.library.opcheck(voxel.voxel_scatter_op, (xyz, feats, pc_range, voxel_size, bidx, 2, True, False))
    torch.library.opcheck(voxel.voxel_scatter_op, (xyz, feats, pc_range, voxel_size, None, 1, False, True))
    mean, counts = voxel.voxel_scatter_op(xyz, feats.double(), pc_range, voxel_size, bidx, 2, False, True)
    ref_mean, ref_counts = voxel.reference(xyz, feats.double(), pc_range, voxel_size, bidx, 2)
    assert torch.equal(counts, ref_counts) and rel_err(mean, ref_mean) < 1e-6
    assert mean.is_contiguous(memory_format=torch.channels_last)


def test_attention_op_passes_opcheck():
    """opcheck causal with kv_lens, and with a key-padding mask on a strided q; the op against the reference."""
    q, k, v = (torch.randn(1, 2, 16, 16, device=DEV, dtype=torch.float16) for _ in range(3))
    lens = torch.tensor([11], device=DEV)
    torch.library.opcheck(attn.attention_op, (q, k, v, True, lens, None, None, "auto"))
    kpm = torch.zeros(1, 16, dtype=torch.bool, device=DEV)
    kpm[0, 5:9] = True
    torch.library.opcheck(attn.attention_op, (q.transpose(1, 2).contiguous().transpose(1, 2), k, v, False, None, kpm,
                                              0.3, "pointer"))
    got = attn.attention_op(q, k, v, False, None, kpm, 0.3, "pointer")
    want = attn.reference(q.double(), k.double(), v.double(), key_padding_mask=kpm, sm_scale=0.3)
    assert rel_err(got, want) < TOL[torch.float16]


FUSED_OPS = {"policy_head": "compilelint.softmax.default", "vision_stem": "compilelint.bn_relu.default",
             "moe_router": "compilelint.topk_gating.default", "voxelize": "compilelint.voxel_scatter.default",
             "vl_cross_attn": "compilelint.attention.default"}
"""Fused twins whose kernel is a registered op -> the op's call target in their compiled and exported graphs."""


def _fused_outputs(mod, input_sets, run):
    """`run(model, input_set)` on each set in order, from a fresh fused model (the twins may keep state: the
    policy head counts its steps)."""
    model, _ = mod.make_fused(device=DEV)
    model.eval()
    with torch.no_grad():
        return [run(model, args) for args in input_sets]


@pytest.mark.parametrize("name", sorted(FUSED_OPS))
def test_fused_fixture_compiles_whole_and_exports(name):
    """A fixture's fused twin, unchanged: torch.compile(fullgraph=True) gives one graph over two input sets
    with the bundled kernel as one call of its op and eager's result; torch.export (non-strict) records
    one call of the op, and the exported program gives eager's result too."""
    mod = importlib.import_module(f"fixtures.models.{name}")
    _, inputs = mod.make_fused(device=DEV)
    inputs = inputs[:2]
    want = _fused_outputs(mod, inputs, lambda m, a: m(*a))
    graphs = []

    def keep_graph(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    torch._dynamo.reset()
    got = _fused_outputs(mod, inputs, lambda m, a: torch.compile(m, backend=keep_graph, fullgraph=True,
                                                                 dynamic=mod.DYNAMIC)(*a))
    torch._dynamo.reset()
    assert len(graphs) == 1, [g.code for g in graphs]
    calls = [str(n.target) for n in graphs[0].graph.nodes if n.op == "call_function"]
    assert calls.count(FUSED_OPS[name]) == 1, calls
    for w, g in zip(want, got):
        assert torch.equal(w, g), (w - g).abs().max()
    exported = _fused_outputs(mod, inputs[:1], lambda m, a: torch.export.export(m, a, strict=False))[0]
    calls = [str(n.target) for n in exported.graph.nodes if n.op == "call_function"]
    assert calls.count(FUSED_OPS[name]) == 1, calls
    with torch.no_grad():
        assert torch.equal(exported.module()(*inputs[0]), want[0])


def test_kernels_in_interpreter_subprocess():
    if not SPAWN:
        pytest.skip("this process already runs the kernels (GPU, or TRITON_INTERPRET=1)")
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": os.pathsep.join([str(root), *sys.path])}
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", str(Path(__file__).resolve())],
                       cwd=root, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-3000:]
    assert " passed" in r.stdout and " failed" not in r.stdout, r.stdout[-2000:]


for _name, _obj in list(globals().items()):
    if _name.startswith("test_") and _name != "test_kernels_in_interpreter_subprocess" and callable(_obj):
        globals()[_name] = pytest.mark.skipif(SPAWN, reason="run by test_kernels_in_interpreter_subprocess")(_obj)
