"""Top-k gating for a mixture-of-experts router: softmax over E experts, top-k, renormalise.

What it does: for router logits (T, E) returns ``weights`` (T, k) float32 and ``experts`` (T, k) int64,
the k largest experts per token in descending order with weights ``softmax(logits)[top] /
sum(softmax(logits)[top])`` (``renormalize=True``, equal to a softmax over the k chosen logits) or the
plain softmax probabilities of the chosen experts (``renormalize=False``). Ties go to the lower expert
index. Default: top-2 of 8.

Why: eager PyTorch runs softmax, topk, sum and divide as four kernels over the logits; here each token's
row is read once into registers and k argmax passes pick the experts.

Example::

    w, idx = topk_gating(router_logits, k=2)      # == reference(router_logits, k=2)

Inside torch.compile and torch.export: ``topk_gating_op(logits, k, renormalize)`` is a
``torch.library.custom_op`` (``compilelint::topk_gating``) with a fake implementation, so
``torch.compile(fullgraph=True)`` keeps it in one graph and ``torch.export`` records one call of it;
``topk_gating(...)`` (no ``out``, no ``config``) calls it by itself while being compiled or exported, and
the launcher directly otherwise (an op call costs more CPU time than the launch). Forward only (no
autograd). Outputs: new contiguous tensors, weights (..., k) float32 and expert ids (..., k) int64.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from ._common import launch, next_pow2

__all__ = ["reference", "topk_gating", "topk_gating_op", "CONFIGS"]


def reference(logits, k=2, renormalize=True):
    probs = torch.softmax(logits.float() if logits.dtype != torch.float64 else logits, dim=-1)
    w, idx = torch.topk(probs, k, dim=-1)
    if renormalize:
        w = w / w.sum(dim=-1, keepdim=True)
    return w, idx


@triton.jit
def _topk_gating(L, W, I, T, T_KEY, E, stride_lt, n_in, n_out, K: tl.constexpr, RENORM: tl.constexpr,
                 BLOCK_E: tl.constexpr, BLOCK_K: tl.constexpr, BLOCK_T: tl.constexpr, FLAT: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_T + tl.arange(0, BLOCK_T)
    cols = tl.arange(0, BLOCK_E)
    rmask = rows < T
    rows64 = rows.to(tl.int64)
    if FLAT:
        # rows of exactly BLOCK_E contiguous logits: one flat, fully vectorised load of the whole tile
        flat = pid.to(tl.int64) * (BLOCK_T * BLOCK_E) + tl.arange(0, BLOCK_T * BLOCK_E)
        x = tl.load(L + flat, mask=flat < n_in, other=-float("inf"))
        x = tl.reshape(x, [BLOCK_T, BLOCK_E]).to(tl.float32)
    else:
        x = tl.load(L + rows64[:, None] * stride_lt + cols[None, :], mask=rmask[:, None] & (cols < E)[None, :],
                    other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=1)
    m = tl.where(m == -float("inf"), 0.0, m)
    kcols = tl.arange(0, BLOCK_K)
    top_v = tl.full([BLOCK_T, BLOCK_K], -float("inf"), tl.float32)
    top_i = tl.zeros([BLOCK_T, BLOCK_K], tl.int32)
    work = x
    for j in tl.static_range(K):
        v = tl.max(work, axis=1)
        idx = tl.argmax(work, axis=1, tie_break_left=True)
        top_v = tl.where(kcols[None, :] == j, v[:, None], top_v)
        top_i = tl.where(kcols[None, :] == j, idx[:, None], top_i)
        work = tl.where(cols[None, :] == idx[:, None], -float("inf"), work)
    e_top = tl.where(kcols[None, :] < K, tl.math.exp2((top_v - m[:, None]) * 1.4426950408889634), 0.0)
    if RENORM:
        denom = tl.sum(e_top, axis=1)
    else:
        denom = tl.sum(tl.math.exp2((x - m[:, None]) * 1.4426950408889634), axis=1)
    denom = tl.where(denom == 0.0, 1.0, denom)
    w = e_top / denom[:, None]
    if FLAT and BLOCK_K == K:
        oflat = pid.to(tl.int64) * (BLOCK_T * K) + tl.arange(0, BLOCK_T * K)
        omask = oflat < n_out
        tl.store(W + oflat, tl.reshape(w, [BLOCK_T * K]), mask=omask)
        tl.store(I + oflat, tl.reshape(top_i.to(tl.int64), [BLOCK_T * K]), mask=omask)
    else:
        omask = rmask[:, None] & (kcols < K)[None, :]
        optr = rows64[:, None] * K + kcols[None, :]
        tl.store(W + optr, w, mask=omask)
        tl.store(I + optr, top_i.to(tl.int64), mask=omask)


CONFIGS = [triton.Config({"BLOCK_T": t, "FLAT": f}, num_warps=w)
           for t in (128, 256, 512, 1024, 2048) for w in (4, 8) for f in (False, True)]


def _prune(configs, named_args, **kwargs):
    a = {**named_args, **kwargs}
    flat_ok = a["E"] == a["BLOCK_E"] and a["stride_lt"] == a["E"]
    keep = [c for c in configs if flat_ok or not c.kwargs["FLAT"]]
    return keep


# tuned per power-of-two bucket of the token count (T_KEY, unused in the kernel), not per count
_tuned = triton.autotune(CONFIGS, key=["T_KEY", "E", "K"], prune_configs_by={"early_config_prune": _prune})(
    _topk_gating)


def topk_gating(logits, k=2, renormalize=True, out=None, config=None):
    """Router weights (T, k) float32 and expert ids (T, k) int64 for logits (..., E). Compiled or exported
    (no ``out``, no ``config``): the registered op ``topk_gating_op``, one call in the graph."""
    if out is None and config is None and torch.compiler.is_compiling():
        return topk_gating_op(logits, k, renormalize)
    return _topk_gating_launch(logits, k, renormalize, out, config)


def _check(logits, k):
    E = logits.shape[-1]
    if not 1 <= k <= E:
        raise ValueError(f"k={k} must be between 1 and the number of experts {E}")
    if E > 256:
        raise ValueError("topk_gating supports up to 256 experts")
    return E


def _topk_gating_launch(logits, k, renormalize, out, config):
    E = _check(logits, k)
    x = logits.reshape(-1, E)
    if x.stride(-1) != 1:
        x = x.contiguous()
    T = x.shape[0]
    lead = logits.shape[:-1]
    if out is None:
        w = torch.empty(*lead, k, dtype=torch.float32, device=logits.device)
        idx = torch.empty(*lead, k, dtype=torch.int64, device=logits.device)
    else:
        w, idx = out
    if T == 0:
        return w, idx
    args = dict(L=x, W=w, I=idx, T=T, T_KEY=next_pow2(T), E=E, stride_lt=x.stride(0), n_in=T * E, n_out=T * k,
                K=k, RENORM=bool(renormalize),
                BLOCK_E=max(next_pow2(E), 2), BLOCK_K=max(next_pow2(k), 2))
    grid = lambda meta: (triton.cdiv(T, meta["BLOCK_T"]),)
    flat = E == args["BLOCK_E"] and x.stride(0) == E
    launch(_tuned, _topk_gating, grid, args, config, triton.Config({"BLOCK_T": 16, "FLAT": flat}, num_warps=4))
    return w, idx


# The supported way to call the kernel from compiled and exported code (as norms.rms_norm_op): an op whose
# fake implementation states the outputs' shapes and dtypes, so no compiler traces the launcher.
@torch.library.custom_op("compilelint::topk_gating", mutates_args=())
def topk_gating_op(logits: torch.Tensor, k: int = 2, renormalize: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
    """topk_gating as an op: one node of a torch.compile / torch.export graph."""
    return _topk_gating_launch(logits, k, renormalize, None, None)


@topk_gating_op.register_fake
def _(logits, k=2, renormalize=True):
    _check(logits, k)
    shape = (*logits.shape[:-1], k)
    return (torch.empty(shape, dtype=torch.float32, device=logits.device),
            torch.empty(shape, dtype=torch.int64, device=logits.device))
