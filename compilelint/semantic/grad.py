"""Where autograd records: writes into tensors computed from trainable state, outside `torch.no_grad()`."""

from __future__ import annotations

import libcst as cst

from compilelint.analysis.tensors import Kind

_GRAD_OFF = {"torch.no_grad"}


def grad_recorded_slice_bound(target: cst.BaseExpression, value: cst.BaseExpression,
                              ctx) -> cst.BaseExpression | None:  # noqa: ANN001
    """The bound EX713 reports on in `target = value` (or `target op= value`), or None: a slice bound read
    from tensor data with no lower bound stated, in a write that autograd records (into, or of, a tensor
    computed from trainable state, with grad mode on: under torch.no_grad() it exports)."""
    facts = ctx.facts
    if type(target) is not cst.Subscript or not facts.is_tensor(target.value):
        return None
    bound = next((b for element in target.slice if type(element.slice) is cst.Slice
                  for b in (element.slice.lower, element.slice.upper)
                  if b is not None and facts.kind(b) is Kind.VALUE and not facts.is_lower_bounded(b)), None)
    if bound is None or not (facts.carries_grad(target.value) or facts.carries_grad(value)) or _grad_off(ctx):
        return None
    return bound


def _grad_off(ctx) -> bool:  # noqa: ANN001
    """Inside `with torch.no_grad():`, or in a function decorated with `@torch.no_grad()`."""
    if any(d in _GRAD_OFF for d in ctx.decorators):
        return True
    for anc in ctx.ancestors:
        if type(anc) is cst.With:
            for item in anc.items:
                call = item.item
                if ctx.qualify(call.func if type(call) is cst.Call else call) in _GRAD_OFF:
                    return True
    return False
