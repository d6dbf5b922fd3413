"""Folded BatchNorm (eval) + conv bias + ReLU: the epilogue of a conv stem, in one pass.

What it does: ``relu(batch_norm(x + conv_bias, mean, var, gamma, beta, eps))`` with the statistics
folded into one per-channel ``scale`` and ``shift`` (``y = relu(x * scale[c] + shift[c])``), reading x
once and writing y once. Works on NCHW-contiguous and channels-last tensors and on (rows, C) tensors.

Why: eager PyTorch runs the bias add, the BatchNorm and the ReLU as separate kernels, moving the
activation through memory three times; this is the same function at one read and one write.

Example::

    scale, shift = fold_bn(bn.weight, bn.bias, bn.running_mean, bn.running_var, bn.eps, conv.bias)
    y = bn_relu(conv_out, scale, shift)       # == reference(conv_out, conv.bias, bn...)

Inside torch.compile and torch.export: ``bn_relu_op(x, scale, shift)`` is a ``torch.library.custom_op``
(``compilelint::bn_relu``) with a fake implementation, so ``torch.compile(fullgraph=True)`` keeps it in one
graph and ``torch.export`` records one call of it; ``bn_relu(x, scale, shift)`` (no ``out``, no ``config``)
calls it by itself while being compiled or exported, and the launcher directly otherwise (an op call costs
more CPU time than the launch). Forward only (no autograd). Output: a new tensor of x's shape and dtype,
in x's memory format where the kernel reads x as it is (contiguous, channels-last), else contiguous.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

from ._common import launch, next_pow2

__all__ = ["reference", "fold_bn", "bn_relu", "bn_relu_op", "CONFIGS"]


def reference(x, conv_bias, running_mean, running_var, weight, bias, eps=1e-5):
    """The unfused PyTorch chain: bias add, BatchNorm in eval mode, ReLU. Channel dim is 1."""
    shape = [1, -1] + [1] * (x.dim() - 2)
    if conv_bias is not None:
        x = x + conv_bias.view(shape)
    x = F.batch_norm(x, running_mean, running_var, weight, bias, training=False, eps=eps)
    return F.relu(x)


def fold_bn(weight, bias, running_mean, running_var, eps=1e-5, conv_bias=None):
    """Per-channel (scale, shift) in float32 such that bn(x + conv_bias) == x * scale + shift."""
    w = weight.double() if weight is not None else torch.ones_like(running_var, dtype=torch.float64)
    b = bias.double() if bias is not None else torch.zeros_like(running_mean, dtype=torch.float64)
    scale = w / torch.sqrt(running_var.double() + eps)
    shift = b - running_mean.double() * scale
    if conv_bias is not None:
        shift = shift + conv_bias.double() * scale
    return scale.float().contiguous(), shift.float().contiguous()


@triton.jit
def _bn_relu_kernel(X, Y, SCALE, SHIFT, n_elements, N_KEY, C, INNER,
                    CHANNEL_LAST: tl.constexpr, USE_INT64: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if USE_INT64:
        offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    if CHANNEL_LAST:
        c = offs % C
    else:
        c = (offs // INNER) % C
    x = tl.load(X + offs, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(SCALE + c, mask=mask, other=0.0)
    b = tl.load(SHIFT + c, mask=mask, other=0.0)
    y = tl.maximum(x * s + b, 0.0, propagate_nan=tl.PropagateNan.ALL)
    tl.store(Y + offs, y.to(Y.dtype.element_ty), mask=mask)


CONFIGS = [triton.Config({"BLOCK": b}, num_warps=w) for b in (1024, 2048, 4096, 8192) for w in (4, 8)]
_INTERP_CONFIG = triton.Config({"BLOCK": 256}, num_warps=4)
# tuned per power-of-two bucket of the size (N_KEY, unused in the kernel): a new batch size re-uses the tuning
_tuned = triton.autotune(CONFIGS, key=["N_KEY", "CHANNEL_LAST"])(_bn_relu_kernel)


def bn_relu(x: torch.Tensor, scale: torch.Tensor, shift: torch.Tensor, out=None, config=None):
    """``relu(x * scale[c] + shift[c])`` with c the channel (dim 1), in x's dtype, one pass. Compiled or
    exported (no ``out``, no ``config``): the registered op ``bn_relu_op``, one call in the graph."""
    if out is None and config is None and torch.compiler.is_compiling():
        return bn_relu_op(x, scale, shift)
    return _bn_relu(x, scale, shift, out, config)


def _layout(x):
    """(x as the kernel reads it, channels last?, elements per channel plane): the kernel walks x's memory
    in order, so x must be contiguous, channels-last (4-D) or (rows, C) contiguous; other strides are copied."""
    if x.dim() < 2:
        raise ValueError(f"bn_relu expects (N, C, ...) input, got {x.dim()}-D")
    if x.dim() == 2:
        return (x if x.is_contiguous() else x.contiguous()), True, 1
    if x.is_contiguous():
        return x, False, x[0, 0].numel()
    if x.dim() == 4 and x.is_contiguous(memory_format=torch.channels_last):
        return x, True, 1
    x = x.contiguous()
    return x, False, x[0, 0].numel()


def _bn_relu(x, scale, shift, out, config):
    x, channel_last, inner = _layout(x)
    C = x.shape[1]
    if out is None:
        out = torch.empty_like(x)  # keeps x's memory format
    scale = scale.to(device=x.device, dtype=torch.float32).contiguous()
    shift = shift.to(device=x.device, dtype=torch.float32).contiguous()
    n = x.numel()
    if n == 0:
        return out
    args = dict(X=x, Y=out, SCALE=scale, SHIFT=shift, n_elements=n, N_KEY=next_pow2(n), C=C, INNER=max(inner, 1),
                CHANNEL_LAST=channel_last, USE_INT64=n + 16384 >= 2**31)
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
    launch(_tuned, _bn_relu_kernel, grid, args, config, _INTERP_CONFIG)
    return out


# The supported way to call the kernel from compiled and exported code (as norms.rms_norm_op): an op whose
# fake implementation states the output (x's shape, dtype and the layout the launcher allocates), so no
# compiler traces the launcher.
@torch.library.custom_op("compilelint::bn_relu", mutates_args=())
def bn_relu_op(x: torch.Tensor, scale: torch.Tensor, shift: torch.Tensor) -> torch.Tensor:
    """bn_relu as an op: one node of a torch.compile / torch.export graph."""
    return _bn_relu(x, scale, shift, None, None)


@bn_relu_op.register_fake
def _(x, scale, shift):
    return torch.empty_like(_layout(x)[0])
