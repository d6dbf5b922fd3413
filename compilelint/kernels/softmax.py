"""Row-wise softmax over the last dimension, one read and one write per element.

What it does: ``softmax(x, dim=-1)`` with max-subtraction and the sum in float32, output in x's dtype.
As for the norms (``norms.py``; the config space is shared, ``_common.rowwise_configs``), the autotuner
picks per width: several whole rows per program, one whole row in registers (1-D, unmasked at power-of-
two widths), or one row in chunks: a sum of exponentials against one reference per row (the max of its
first chunk; one exponential and one add per element, no running max and no reduction inside the loop),
with a safe online pass for the rare row it would overflow or underflow, then a normalising pass over
the chunks in reverse (the ones read last by the first pass are the likeliest still in L2).

Why: eager softmax on half-precision rows reaches about a quarter of memory bandwidth on an H200
(issue 7's figures); a fused row kernel is limited only by the read and the write.

Example::

    p = softmax(scores)            # == torch.softmax(scores, dim=-1)

Inside torch.compile and torch.export: ``softmax_op(x)`` is a ``torch.library.custom_op``
(``compilelint::softmax``) with a fake implementation, so ``torch.compile(fullgraph=True)`` keeps it in one
graph and ``torch.export`` records one call of it; ``softmax(x)`` (no ``out``, no ``config``) calls it by
itself while being compiled or exported, and the launcher directly otherwise (an op call costs more CPU
time than the launch). Forward only (no autograd). Output: a new contiguous tensor of x's shape and dtype.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from ._common import as_rows, launch, next_pow2, rowwise_configs, rowwise_grid, rowwise_interp_config, rowwise_keep

__all__ = ["reference", "softmax", "softmax_op", "CONFIGS", "MAX_FUSED_N"]

MAX_FUSED_N = 32768


def reference(x):
    return torch.softmax(x, dim=-1)


@triton.jit
def _softmax_tile(X, Y, M, N, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  X_POLICY: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    rows64 = rows.to(tl.int64)
    x = tl.load(X + rows64[:, None] * stride_xm + cols[None, :], mask=mask, other=-float("inf"),
                eviction_policy=X_POLICY).to(tl.float32)
    m = tl.max(x, axis=1)
    m = tl.where(m == -float("inf"), 0.0, m)  # fully padded row (M tail): avoid inf - inf
    e = tl.math.exp2((x - m[:, None]) * 1.4426950408889634)
    s = tl.sum(e, axis=1)
    s = tl.where(s == 0.0, 1.0, s)
    y = e * (1.0 / s)[:, None]
    tl.store(Y + rows64[:, None] * stride_ym + cols[None, :], y.to(Y.dtype.element_ty), mask=mask)


@triton.jit
def _load_row(ptr, cols, N, EVEN: tl.constexpr, POLICY: tl.constexpr):
    if EVEN:
        x = tl.load(ptr + cols, eviction_policy=POLICY)
    else:
        x = tl.load(ptr + cols, mask=cols < N, other=-float("inf"), eviction_policy=POLICY)
    return x.to(tl.float32)


@triton.jit
def _store_row(ptr, cols, N, y, EVEN: tl.constexpr):
    if EVEN:
        tl.store(ptr + cols, y.to(ptr.dtype.element_ty))
    else:
        tl.store(ptr + cols, y.to(ptr.dtype.element_ty), mask=cols < N)


@triton.jit
def _softmax_row(X, Y, N, stride_xm, stride_ym, EVEN_N: tl.constexpr, BLOCK_N: tl.constexpr,
                 X_POLICY: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    x = _load_row(X + row * stride_xm, cols, N, EVEN_N, X_POLICY)
    m = tl.max(x, axis=0)
    m = tl.where(m == -float("inf"), 0.0, m)
    e = tl.math.exp2((x - m) * 1.4426950408889634)
    s = tl.sum(e, axis=0)
    s = tl.where(s == 0.0, 1.0, s)
    _store_row(Y + row * stride_ym, cols, N, e * (1.0 / s), EVEN_N)


@triton.jit
def _online_stats(x_row, cols, N, EVEN_N: tl.constexpr, BLOCK_N: tl.constexpr):
    """The row's max m and sum of exp2(x2 - m) (base-2 units: x2 = x * log2(e)), safe for any values: per
    lane, a running max and a sum rescaled when the max moves, with no reduction (no barrier) inside the
    loop and still one exponential per element: e = exp2(-|x2 - m|) is either the new value's term
    (x2 <= m) or the factor that rescales the sum to a new max (x2 > m)."""
    m_vec = tl.full([BLOCK_N], -float("inf"), tl.float32)
    s_vec = tl.zeros([BLOCK_N], tl.float32)
    for start in range(0, N, BLOCK_N):
        x2 = _load_row(x_row + start, cols, N - start, EVEN_N, "") * 1.4426950408889634
        d = x2 - m_vec
        e = tl.math.exp2(-tl.abs(d))
        e = tl.where(x2 == -float("inf"), 0.0, e)  # -inf - -inf is nan: a -inf score adds nothing
        up = d > 0.0
        s_vec = tl.where(up, s_vec * e + 1.0, s_vec + e)
        m_vec = tl.where(up, x2, m_vec)
    m = tl.max(m_vec, axis=0)
    m = tl.where(m == -float("inf"), 0.0, m)  # a row of -inf only: every term is 0
    return m, tl.sum(s_vec * tl.math.exp2(m_vec - m), axis=0)


@triton.jit
def _softmax_chunked(X, Y, N, stride_xm, stride_ym, EVEN_N: tl.constexpr, BLOCK_N: tl.constexpr,
                     HINTS: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = X + row * stride_xm
    y_row = Y + row * stride_ym
    cols = tl.arange(0, BLOCK_N)
    # One reference k for the whole row, the max of its first chunk: the sum of exp2(x2 - k) needs one
    # exponential and one add per element, no running max. It overflows only where a later value exceeds
    # k by more than 127 (base 2; 88 in x) or the row holds inf/nan; then the sum is not finite and the
    # row takes the online pass instead (_online_stats: one more read, from L2). k's own term is 1, so
    # terms that underflow (below 2^-126, flushed to zero on the GPU) are negligible; but where the whole
    # first chunk is -inf, k is 0, not a value of the row, and a sum under 2^-64 may have lost every term
    # that mattered: the online pass again (so rows of -inf only take it too).
    if HINTS:
        first = _load_row(x_row, cols, N, EVEN_N, "evict_last") * 1.4426950408889634
    else:
        first = _load_row(x_row, cols, N, EVEN_N, "") * 1.4426950408889634
    k = tl.max(first, axis=0)
    k = tl.where(k == -float("inf"), 0.0, k)  # a first chunk of -inf (masked): any finite reference
    s_vec = tl.math.exp2(first - k)
    # a width known at compile time (EVEN_N) unrolls both loops (they were `range` loops over it): H200,
    # 4096x65536 bf16, 89.0-89.1% -> 89.7-90.2% of copy bandwidth (docs/bench/kernels_h200.txt, run 7)
    if EVEN_N:
        for start in tl.static_range(BLOCK_N, N, BLOCK_N):
            s_vec += _exp2_chunk(x_row, start, cols, N, k, EVEN_N, HINTS)
    else:
        for start in range(BLOCK_N, N, BLOCK_N):
            s_vec += _exp2_chunk(x_row, start, cols, N, k, EVEN_N, HINTS)
    s = tl.sum(s_vec, axis=0)
    ref = k
    if not ((s < float("inf")) & (s >= 5.421010862427522e-20)):  # inf, nan, or under 2^-64
        ref, s = _online_stats(x_row, cols, N, EVEN_N, BLOCK_N)
    inv = 1.0 / tl.where(s == 0.0, 1.0, s)
    # last chunk first: the likeliest still in L2
    if EVEN_N:
        for i in tl.static_range(0, N // BLOCK_N):
            _normalise_chunk(x_row, y_row, N - (i + 1) * BLOCK_N, cols, N, ref, inv, EVEN_N, HINTS)
    else:
        n_chunks = tl.cdiv(N, BLOCK_N)
        for i in range(0, n_chunks):
            _normalise_chunk(x_row, y_row, (n_chunks - 1 - i) * BLOCK_N, cols, N, ref, inv, EVEN_N, HINTS)


@triton.jit
def _exp2_chunk(x_row, start, cols, N, k, EVEN_N: tl.constexpr, HINTS: tl.constexpr):
    """exp2(x2 - k) over the chunk at `start` (x2 = x * log2(e)); HINTS: keep it in L2 for the second pass."""
    if HINTS:
        x = _load_row(x_row + start, cols, N - start, EVEN_N, "evict_last")
    else:
        x = _load_row(x_row + start, cols, N - start, EVEN_N, "")
    return tl.math.exp2(x * 1.4426950408889634 - k)


@triton.jit
def _normalise_chunk(x_row, y_row, start, cols, N, ref, inv, EVEN_N: tl.constexpr, HINTS: tl.constexpr):
    """y = exp2(x2 - ref) * inv over the chunk at `start`; HINTS: x is not read again."""
    if HINTS:
        x = _load_row(x_row + start, cols, N - start, EVEN_N, "evict_first")
    else:
        x = _load_row(x_row + start, cols, N - start, EVEN_N, "")
    _store_row(y_row + start, cols, N - start, tl.math.exp2(x * 1.4426950408889634 - ref) * inv, EVEN_N)


@triton.jit
def _softmax_kernel(X, Y, M, N, stride_xm, stride_ym, NP2: tl.constexpr, EVEN_N: tl.constexpr,
                    TILE: tl.constexpr, CHUNKED: tl.constexpr, HINTS: tl.constexpr):
    """As _norm_kernel (norms.py): NP2 = next_pow2(N), EVEN_N = (N == NP2); TILE // NP2 whole rows per
    program, or one row in chunks of TILE when CHUNKED."""
    if CHUNKED:
        if EVEN_N:  # the width as a compile-time constant (H200, 2048x65536 bf16, chunks of 16384, 32
            # warps: 74% -> 86% of copy bandwidth; with chunks of 8192 it is slower, 84% -> 78%: timed)
            _softmax_chunked(X, Y, NP2, stride_xm, stride_ym, EVEN_N, TILE, HINTS)
        else:
            _softmax_chunked(X, Y, N, stride_xm, stride_ym, EVEN_N, TILE, HINTS)
    elif TILE // NP2 == 1:
        if HINTS:
            _softmax_row(X, Y, N, stride_xm, stride_ym, EVEN_N, NP2, "evict_first")
        else:
            _softmax_row(X, Y, N, stride_xm, stride_ym, EVEN_N, NP2, "")
    else:
        if HINTS:
            _softmax_tile(X, Y, M, N, stride_xm, stride_ym, TILE // NP2, NP2, "evict_first")
        else:
            _softmax_tile(X, Y, M, N, stride_xm, stride_ym, TILE // NP2, NP2, "")


CONFIGS = rowwise_configs()


def _prune(configs, named_args, **kwargs):
    np2 = {**named_args, **kwargs}["NP2"]  # launchers pass arguments by keyword
    return [c for c in configs if rowwise_keep(c, np2)] or [rowwise_interp_config(np2, MAX_FUSED_N)]


# tuned per power-of-two bucket of the width (and whether it is one), not per width
_tuned = triton.autotune(CONFIGS, key=["NP2", "EVEN_N"], prune_configs_by={"early_config_prune": _prune})(
    _softmax_kernel)


def softmax(x: torch.Tensor, out=None, config=None):
    """Softmax over the last dim of x (any leading shape). Compiled or exported (no ``out``, no ``config``):
    the registered op ``softmax_op``, so the graph holds one call instead of a trace of the launcher."""
    if out is None and config is None and torch.compiler.is_compiling():
        return softmax_op(x)
    return _softmax(x, out, config)


def _softmax(x, out, config):
    x2, y2, out, M, N = as_rows(x, out)
    if M == 0 or N == 0:
        return out
    np2 = next_pow2(N)
    args = dict(X=x2, Y=y2, M=M, N=N, stride_xm=x2.stride(0), stride_ym=y2.stride(0), NP2=np2, EVEN_N=N == np2)
    launch(_tuned, _softmax_kernel, rowwise_grid(M, np2), args, config, rowwise_interp_config(np2, MAX_FUSED_N))
    return out


# The supported way to call the kernel from compiled and exported code (as norms.rms_norm_op): an op whose
# fake implementation states the output (x's shape and dtype, contiguous), so no compiler traces the launcher.
@torch.library.custom_op("compilelint::softmax", mutates_args=())
def softmax_op(x: torch.Tensor) -> torch.Tensor:
    """softmax as an op: one node of a torch.compile / torch.export graph."""
    return _softmax(x, None, None)


@softmax_op.register_fake
def _(x):
    return torch.empty(x.shape, dtype=x.dtype, device=x.device)
