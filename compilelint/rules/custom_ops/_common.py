"""What the CO rules share. They are about operators the compilers cannot see into: ops registered through
`torch.library` (compilelint/semantic/custom_ops.py says which a file defines and which have fakes), functions of
C++ extension modules, and `torch.autograd.Function`s. Not a rule itself (no `code`), so the registry skips it."""
from __future__ import annotations

import sys

import libcst as cst

from compilelint.rules.base import Rule
from compilelint.semantic.custom_ops import CUSTOM_OP, TRITON_OP

# Callees whose head is one of these are never an op of the linted tree: no candidate for the tree to settle.
NOT_TREE_HEADS = frozenset(sys.stdlib_module_names) | {
    "torch", "numpy", "triton", "einops", "scipy", "typing_extensions", "torchvision", "transformers", "timm"}


class CustomOpRule(Rule):
    family = "custom-op"
    targets = ("dynamo", "export")
    severity = "error"


def custom_op_decorator(fn: cst.FunctionDef, ctx) -> cst.Call | None:  # noqa: ANN001
    """The `@torch.library.custom_op(...)` (or triton_op) call decorating `fn`, or None."""
    for deco in fn.decorators:
        call = deco.decorator
        if type(call) is cst.Call and ctx.qualify(call.func) in CUSTOM_OP | TRITON_OP:
            return call
    return None


def keyword(call: cst.Call, name: str) -> cst.BaseExpression | None:
    return next((a.value for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def param_names(fn: cst.FunctionDef) -> list[str]:
    params = fn.params
    return [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]
