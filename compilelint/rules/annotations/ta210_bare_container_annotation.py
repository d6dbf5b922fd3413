"""annotations rules: one rule per file."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.names import qualify
from compilelint.analysis.pytypes import never_compiled_init
from compilelint.rules.base import Example, Rule, RuleDoc

_BARE = {"typing.List": "List[torch.Tensor]", "typing.Dict": "Dict[str, torch.Tensor]",
         "typing.Tuple": "Tuple[torch.Tensor, ...]", "list": "List[torch.Tensor]", "dict": "Dict[str, torch.Tensor]",
         "tuple": "Tuple[torch.Tensor, ...]", "typing.Sequence": "List[torch.Tensor]",
         "typing.Mapping": "Dict[str, torch.Tensor]"}


class BareContainerAnnotation(Rule):
    code = "TA210"
    name = "bare-container-annotation"
    family = "annotations"
    targets = ("torchscript",)
    severity = "error"
    message = '`{ann}` needs element types, e.g. `{example}`'
    doc = RuleDoc(
        what="Flags `List`, `Dict`, `Tuple`, `list`, `dict`, `tuple` annotations without element types in compiled code.",
        why=("TorchScript needs the contained types: `xs: List` fails with `Attempted to use List without a "
             "contained type`, `xs: list` with `'list' object is not subscriptable`."),
        example="def forward(self, feats: List):",
        use_instead="def forward(self, feats: List[torch.Tensor]):",
    )
    bad = (
        Example('''
import torch
from typing import List
class M(torch.nn.Module):
    def forward(self, feats: List):  # <-
        return feats[0] + feats[-1]
''', inputs="[([torch.randn(3), torch.randn(3)],)]"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x, sizes: tuple):  # <-
        return x.view(sizes[0], -1)
''', inputs="[(torch.randn(2, 3), (2, 3))]"),
        Example('''
import torch
from typing import Dict
class M(torch.nn.Module):
    def forward(self, x):
        out: Dict = {"y": x}  # <-
        return out["y"]
'''),
    )
    good = (
        Example('''
import torch
from typing import Dict, List, Tuple
class M(torch.nn.Module):
    def forward(self, feats: List[torch.Tensor], sizes: Tuple[int, int]):
        out: Dict[str, torch.Tensor] = {"y": feats[0].view(sizes[0], -1)}
        return out["y"]
''', inputs="[([torch.randn(2, 3)], (2, 3))]", check="script-call"),
    )

    def _check(self, annotation: cst.Annotation | None, ctx) -> None:  # noqa: ANN001
        if annotation is None:
            return
        ann = annotation.annotation
        if type(ann) not in (cst.Name, cst.Attribute):
            return
        q = qualify(ann, ctx.facts.aliases) or ""
        if type(ann) is cst.Name and ann.value in ("list", "dict", "tuple") and q == ann.value:
            pass
        elif q not in _BARE:
            return
        ctx.report(annotation, self.message.format(ann=ctx.code_for(ann), example=_BARE.get(q, "List[torch.Tensor]")))

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx) -> None:  # noqa: ANN001
        if ctx.function is not node or never_compiled_init(node, ctx.class_node, ctx.facts.aliases):
            return
        for param in [*node.params.posonly_params, *node.params.params, *node.params.kwonly_params]:
            self._check(param.annotation, ctx)
        self._check(node.returns, ctx)

    def visit_AnnAssign(self, node: cst.AnnAssign, ctx) -> None:  # noqa: ANN001
        if ctx.function is not None:
            self._check(node.annotation, ctx)
