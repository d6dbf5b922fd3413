"""TS138: `isinstance` against a type TorchScript cannot name."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.script_support import ISINSTANCE_BARE_GENERICS, ISINSTANCE_UNSUPPORTED
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule


class IsinstanceType(SemanticScriptRule):
    code = "TS138"
    call_gate = gate(bare={"isinstance"})
    name = "isinstance-type-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`isinstance(..., {name})` is not scriptable'
    doc = RuleDoc(
        what="Flags `isinstance` checks against types TorchScript does not know: `dict`, `set`, `frozenset`, "
             "`bytes`, `type`, `object`, `Callable`, `typing`/`collections.abc` protocols (`Mapping`, "
             "`Sequence`, ...), `torch.Size`, numpy types, and bare `List`/`Dict`/"
             "`Tuple` without element types.",
        why="Scripting fails with `Unknown type name 'dict'` (numpy: `Unknown type name 'np.ndarray'`; bare "
            "generics: `Attempted to use List without a contained type`). `isinstance(x, (list, tuple))`, "
            "`torch.Tensor`, `str`, `int`, `Dict[str, Tensor]` and user classes script.",
        example="if isinstance(feats, dict):\n    feats = feats['out']",
        use_instead="# type the parameter: feats: Dict[str, Tensor], and drop the check\n"
                    "if isinstance(feats, Dict[str, torch.Tensor]):",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        if isinstance(x, dict):  # <-
            return x
        return x * 2
'''),
        Example('''
import numpy as np
import torch
class M(torch.nn.Module):
    def forward(self, x):
        if isinstance(x, (np.ndarray, list)):  # <-
            return x
        return x * 2
'''),
        Example('''
import torch
from typing import List
class M(torch.nn.Module):
    def forward(self, x):
        if isinstance(x, List):  # <-
            return x[0]
        return x * 2
'''),
    )
    good = (
        Example('''
import torch
from typing import Dict, List
class M(torch.nn.Module):
    def forward(self, x):
        if isinstance(x, (list, tuple)) or isinstance(x, Dict[str, torch.Tensor]):
            return x
        if isinstance(x, torch.Tensor) and not isinstance(x, str):
            return x * 2
        return x
''', check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if not (ctx.function is not None and type(func) is cst.Name and func.value == "isinstance"
                and len(node.args) == 2 and "isinstance" not in ctx.facts.env):
            return
        spec = node.args[1].value
        for t in ([e.value for e in spec.elements] if type(spec) is cst.Tuple else [spec]):
            if type(t) is cst.Subscript:
                continue
            name = ctx.qualify(t)
            if name is None:
                continue
            if type(t) is cst.Name and t.value in ctx.facts.env:
                continue
            if name in ISINSTANCE_UNSUPPORTED:
                ctx.report(node, self.message.format(name=name, fix="type the value precisely (`Dict[str, Tensor]`, "
                                                     "`List[int]`) and drop the check, or check a scriptable type"))
                return
            if name in ISINSTANCE_BARE_GENERICS:
                ctx.report(node, self.message.format(name=name, fix=f"give the element types (`{name.split('.')[-1]}[...]`)"))
                return
            if name.startswith("numpy."):
                ctx.report(node, self.message.format(name=name, fix="numpy values never reach scripted code; drop the check"))
                return
