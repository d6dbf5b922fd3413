"""TS105: list / dict defaults of annotated parameters."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc


class MutableDefault(Rule):
    code = "TS105"
    name = "mutable-default-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = 'mutable default is not scriptable; use a tuple or `None`'
    doc = RuleDoc(
        what="Flags list, dict and set defaults of parameters in code `torch.jit.script` compiles.",
        why="Scripting fails with `Mutable default parameters are not supported because Python binds them "
            "to the function and they persist across function calls`.",
        example="def forward(self, x, dims: List[int] = [0]):",
        use_instead="def forward(self, x, dims: Tuple[int] = (0,)):   # or Optional[List[int]] = None",
    )
    bad = (
        Example('''
import torch
from typing import List
class M(torch.nn.Module):
    def forward(self, x, dims: List[int] = [0]):  # <-
        return x.sum(dims)
'''),
        Example('''
import torch
from typing import Dict
class M(torch.nn.Module):
    def forward(self, x, extra: Dict[str, int] = {}):  # <-
        return x
'''),
    )
    good = (
        Example('''
import torch
from typing import List, Optional
class M(torch.nn.Module):
    def forward(self, x, dims: Optional[List[int]] = None):
        if dims is None:
            dims = [0]
        return x.sum(dims)
''', check="script-call"),
    )

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx) -> None:  # noqa: ANN001
        if node is not ctx.function:
            return
        p = node.params
        for param in [*p.posonly_params, *p.params, *p.kwonly_params]:
            # Unannotated parameters with such defaults fail as Tensor-typed: the annotation rules' case.
            if param.annotation is not None and type(param.default) in (cst.List, cst.Dict, cst.ListComp,
                                                                           cst.DictComp, cst.Set, cst.SetComp):
                ctx.report(param.default)
