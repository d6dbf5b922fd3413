"""EX710: a lazy module (`nn.LazyLinear`, `nn.LazyConv2d`, ...) built in `__init__` of a module torch.export
traces, with no forward pass run to initialise it."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.export._common import ExportRule

_LAZY = {f"torch.nn.{name}" for name in (
    "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
    "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
    "LazyInstanceNorm2d", "LazyInstanceNorm3d")}


class ExportUninitializedLazyModule(ExportRule):
    code = "EX710"
    call_gate = gate(names=_LAZY)
    name = "export-uninitialized-lazy-module"
    severity = "warning"  # right unless the model runs once before it is exported, which a linter cannot see
    precision = "medium"
    torch_error = ("uninitialized parameter",)
    torch_names_line = False  # raised from inside torch's tracing, not at a line of the model
    message = '`{fn}` has no parameters yet; use `nn.{eager}`'
    version_note = ("Verified on 2.13 and 2.11 with torch.export.export(strict=False). strict=True (2.13) exports "
                    "the same module; after one forward pass both do.")
    doc = RuleDoc(
        what=("Flags lazy modules (`nn.LazyLinear`, `nn.LazyConv*d`, `nn.LazyConvTranspose*d`, `nn.LazyBatchNorm*d`, "
              "`nn.LazyInstanceNorm*d`) built in `__init__` of a module, unless `__init__` itself runs a forward "
              "pass (`self(...)`). A warning: the model may be run once elsewhere before it is exported."),
        why=("A lazy module's parameters are `UninitializedParameter`s until the first forward pass shows the input "
             "size. Non-strict torch.export traces with fake tensors and stops on them: `ValueError: Attempted to "
             "use an uninitialized parameter in <method '_is_view' ...>`, with no line of the model named. "
             "Training code usually runs the model first, so the failure appears only in the export script that "
             "builds a fresh model and loads a checkpoint."),
        example="self.proj = nn.LazyLinear(256)",
        use_instead="self.proj = nn.Linear(in_features, 256)   # or: model(example_input) before torch.export",
    )
    bad = (
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.LazyLinear(8)  # <-

    def forward(self, x):
        return self.proj(x).relu()
''', inputs="[(torch.randn(5, 4),)]"),
        Example('''import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(
            nn.LazyConv2d(16, 3, padding=1),  # <-
            nn.LazyBatchNorm2d(),  # <-
            nn.ReLU(),
        )

    def forward(self, x):
        return self.stem(x)
''', inputs="[(torch.randn(2, 3, 8, 8),)]"),
    )
    good = (
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4, 8)

    def forward(self, x):
        return self.proj(x).relu()
''', inputs="[(torch.randn(5, 4),)]"),
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self, in_shape=(1, 4)):
        super().__init__()
        self.proj = torch.nn.LazyLinear(8)
        self(torch.zeros(in_shape))  # materialise the lazy parameters

    def forward(self, x):
        return self.proj(x).relu()
''', inputs="[(torch.randn(5, 4),)]"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        name = ctx.qualify(node.func)
        if name not in _LAZY or ctx.function is None or ctx.function.name.value != "__init__" or not ctx.class_name:
            return
        if _runs_forward(ctx.function):
            return
        short = name.rsplit(".", 1)[1]
        eager = short.replace("Lazy", "", 1) + ("(in_features, ...)" if short == "LazyLinear" else "(in_channels, ...)"
                                                if "Conv" in short else "(num_features)")
        ctx.report(node, self.message.format(fn=f"nn.{short}", eager=eager), in_class=True)


def _runs_forward(init: cst.FunctionDef) -> bool:
    """Whether `__init__` calls `self(...)` or `self.forward(...)` (a dry run that initialises lazy modules)."""
    class _Finder(cst.CSTVisitor):
        found = False

        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            if (type(func) is cst.Name and func.value == "self") or (
                    type(func) is cst.Attribute and func.attr.value == "forward"
                    and type(func.value) is cst.Name and func.value.value == "self"):
                self.found = True

    finder = _Finder()
    init.body.visit(finder)
    return finder.found
