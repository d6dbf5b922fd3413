"""CO805: tensor data read as a Python value inside a `torch.autograd.Function`'s forward that compiled code applies."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc, brief
from compilelint.rules.custom_ops._common import CustomOpRule
from compilelint.semantic.breaks import tensor_data_read

FUNCTION_BASES = frozenset({"torch.autograd.Function", "torch.autograd.function.Function"})


def _is_autograd_function(cls: cst.ClassDef | None, ctx) -> bool:  # noqa: ANN001
    return cls is not None and any(ctx.qualify(b.value) in FUNCTION_BASES for b in cls.bases if b.keyword is None)


def _applied_from_compiled_code(index, scope) -> dict[str, frozenset[str]]:  # noqa: ANN001
    """{class key: the compile paths of the functions that call `<Class>.apply(...)`}, once per lint run."""
    cached = getattr(index, "_autograd_function_reach", None)
    if cached is not None:
        return cached
    reach: dict[str, frozenset[str]] = {}
    for key, targets in scope.items():
        fn = index.functions.get(key)
        if fn is None:
            continue
        module = key.partition(":")[0]
        summary = index.modules.get(module)
        for kind, name in fn.calls:
            if kind != "name" or not name.endswith(".apply"):
                continue
            owner = name[: -len(".apply")]
            cls = f"{module}:{owner}" if summary is not None and owner in summary.classes else index.resolve(owner)
            if cls in index.classes:
                reach[cls] = reach.get(cls, frozenset()) | targets
    index._autograd_function_reach = reach
    return reach


class AutogradFunctionDataRead(CustomOpRule):
    code = "CO805"
    file_gate = (b"Function",)  # FUNCTION_BASES, a base of this file's class
    body_gate = frozenset({"Function"})  # in the header of the method's class
    name = "autograd-function-data-read"
    targets = ("dynamo",)
    severity = "warning"
    applies_to = "anywhere"  # its forward is reached through `.apply`, which scope does not follow: settled below
    tree_facts = True
    message = "tensor data read in a compiled autograd.Function's forward breaks the graph"
    version_note = ("Verified on 2.13 (CPU): Dynamo traces an autograd.Function's forward (and its backward) into the"
                    " graph; `.item()` and `int(t.sum())` there break it with GB0124 at their line, a branch on "
                    "tensor data with GB0170 (torch's graph-break log). With fullgraph=True the branch raises "
                    "Unsupported \"Data-dependent branching\", and the `.item()` raises InternalTorchDynamoError "
                    "PendingUnbackedSymbolNotFound at the `.apply` call. torch.export (non-strict) runs the forward "
                    "on fake tensors: a bare `.item()` exports, an `int()` of it or a branch on data fails with "
                    "GuardOnDataDependentSymNode (EX703 / EX701's claims). Saving a non-tensor with "
                    "`ctx.save_for_backward` raises in eager already, so it is no compile hazard; `ctx.<attr> = <a "
                    "shape or a Python number>` compiles.")
    doc = RuleDoc(
        what=("Flags `.item()`, `.tolist()`, `int()` / `float()` / `bool()` of tensor data and `if` / `while` on "
              "tensor data in the `forward` of a `torch.autograd.Function` subclass whose `.apply` is called from code "
              "torch.compile runs (in any file of the linted tree)."),
        why=(('torch.compile does not run an autograd.Function as a black box: Dynamo traces its forward and '
              'backward into the graph. A Python number read out of a tensor there (a scale for quantisation, a '
              "count of valid points) breaks the graph inside the Function, and the Function's forward and what "
              'follows run as separate graphs, or fail under fullgraph=True. Custom-gradient ops of perception '
              'models (straight-through quantisers, clipped-gradient losses, voxel pooling) are where this sits. '
              'Keep the value a tensor (`amax()`, `torch.where`, `clamp`).')),
        example=("class Quantize(torch.autograd.Function):\n"
                 "    @staticmethod\n"
                 "    def forward(ctx, x):\n"
                 "        scale = x.abs().max().item() / 127\n"
                 "        return (x / scale).round() * scale"),
        use_instead=("class Quantize(torch.autograd.Function):\n"
                     "    @staticmethod\n"
                     "    def forward(ctx, x):\n"
                     "        scale = x.abs().amax() / 127  # a 0-d tensor\n"
                     "        return (x / scale).round() * scale"),
        fix_safety=("No fix is offered: keeping the value a tensor changes what `ctx` saves and what backward "
                    "receives."),
    )
    bad = (
        Example('''import torch


class Quantize(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        scale = x.abs().max().item() / 127  # <-
        return (x / scale).round() * scale

    @staticmethod
    def backward(ctx, grad):
        return grad


class M(torch.nn.Module):
    def forward(self, x):
        return Quantize.apply(x) + 1
''', inputs="[(torch.randn(8, requires_grad=True),)]", check="custom-op-break", gb_id="GB0124"),
        Example('''import torch


class ClipGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, limit):
        if x.abs().max() > limit:  # <-
            x = x.clamp(-limit, limit)
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        return grad.clamp(-1, 1), None


class M(torch.nn.Module):
    def forward(self, x):
        return ClipGrad.apply(x, 2.0) * 2
''', inputs="[(torch.randn(8, requires_grad=True) * 3,)]", check="custom-op-break", gb_id="GB0170"),
    )
    good = (
        Example('''import torch


class Quantize(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        scale = x.abs().amax() / 127
        return (x / scale).round() * scale

    @staticmethod
    def backward(ctx, grad):
        return grad


class M(torch.nn.Module):
    def forward(self, x):
        return Quantize.apply(x) + 1
''', inputs="[(torch.randn(8, requires_grad=True),)]", check="custom-op-break"),
        Example('''import torch


class ClipGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, limit):
        return x.clamp(-limit, limit)

    @staticmethod
    def backward(ctx, grad):
        return grad.clamp(-1, 1), None


class M(torch.nn.Module):
    def forward(self, x):
        return ClipGrad.apply(x, 2.0) * 2
''', inputs="[(torch.randn(8, requires_grad=True) * 3,)]", check="custom-op-break"),
    )

    def _in_forward(self, ctx) -> bool:  # noqa: ANN001
        fn = ctx.function
        return fn is not None and fn.name.value == "forward" and _is_autograd_function(ctx.class_node, ctx)

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if not self._in_forward(ctx):
            return
        gb_id = tensor_data_read(node, ctx)  # `.item()`, `.tolist()`, `int(t)`: what the GB rules say breaks there
        if gb_id:
            ctx.report(node, self._message(ctx, gb_id), gb_id=gb_id)

    def _branch(self, node: cst.CSTNode, ctx) -> None:  # noqa: ANN001
        if self._in_forward(ctx):
            gb_id = tensor_data_read(node, ctx)  # a branch on tensor data
            if gb_id:
                ctx.report(node.test, self._message(ctx, gb_id), gb_id=gb_id)

    def visit_If(self, node: cst.If, ctx) -> None:  # noqa: ANN001
        self._branch(node, ctx)

    def visit_While(self, node: cst.While, ctx) -> None:  # noqa: ANN001
        self._branch(node, ctx)

    def _message(self, ctx, gb_id: str) -> str:  # noqa: ANN001
        what = "branch on tensor data" if gb_id == "GB0170" else "tensor data read"
        return f"{what} in autograd.Function `{brief(ctx.class_name or '', 24)}.forward` breaks the graph"

    @classmethod
    def settle(cls, finding, index, scope):  # noqa: ANN001, ANN206
        """Keep the finding where some function that torch.compile runs calls `<this Function>.apply`."""
        owner = finding.context.partition(".")[0]
        summary = index.summary_at(finding.path)
        if summary is None:
            return None
        reach = _applied_from_compiled_code(index, scope).get(f"{summary.module}:{owner}", frozenset())
        return finding if "dynamo" in reach else None
