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


# Bare containers inside another annotation that TorchScript parses (torch 2.13): `List[tuple]` and `List[list]`.
# As a parameter's type they take no list that has elements (the scripted call fails: `Expected a value of type
# 'List[tuple]' for argument 'shapes' but instead found type 'list'`); a local so annotated scripts and runs.
# `List[Tuple]`, `List[dict]`, `Optional[list]`, `Dict[str, list]` and `Tuple[Tensor, tuple]` fail to script.
_PARSED_INSIDE = {"typing.List": ("tuple", "list"), "list": ("tuple", "list")}


def _bare_name(node: cst.BaseExpression, aliases: dict[str, str]) -> str | None:
    """`List`, `Dict`, `Tuple` (and the Sequence/Mapping aliases) or builtin `list`, `dict`, `tuple` with no
    element types: its key in `_BARE`."""
    if type(node) not in (cst.Name, cst.Attribute):
        return None
    q = qualify(node, aliases) or ""
    if type(node) is cst.Name and node.value in ("list", "dict", "tuple"):
        return q if q == node.value else None
    return q if q in _BARE else None


def _nested_bare(annotation: cst.Subscript, aliases: dict[str, str], local: bool) -> cst.BaseExpression | None:
    """The first bare container among the element types of a subscripted annotation, at any depth, that
    TorchScript rejects (`Optional[Dict]`, `List[Tuple]`; `List[tuple]` only where it is no local's,
    `_PARSED_INSIDE`)."""
    outer = qualify(annotation.value, aliases) or ""
    for element in annotation.slice:
        if type(element.slice) is not cst.Index:
            continue
        value = element.slice.value
        if type(value) is cst.Subscript:
            found = _nested_bare(value, aliases, local)
            if found is not None:
                return found
            continue
        name = _bare_name(value, aliases)
        if name is not None and name not in ("typing.Sequence", "typing.Mapping") and \
                not (local and name in _PARSED_INSIDE.get(outer, ())):
            return value
    return None


class BareContainerAnnotation(Rule):
    code = "TA210"
    name = "bare-container-annotation"
    family = "annotations"
    targets = ("torchscript",)
    severity = "error"
    message = '`{ann}` needs element types, e.g. `{example}`'
    doc = RuleDoc(
        what=("Flags `List`, `Dict`, `Tuple`, `list`, `dict`, `tuple` annotations without element types in compiled "
              "code, also inside another annotation (`List[Tuple]`, `Optional[Dict]`, `Dict[str, list]`)."),
        why=("TorchScript needs the contained types: `xs: List` fails with `Attempted to use List without a "
             "contained type`, `xs: list` with `'list' object is not subscriptable`. Inside another annotation too: "
             "`List[Tuple]` fails with `Attempted to use Tuple without a contained type`, `Optional[list]` with "
             "`Unsupported annotation typing.Optional[list] could not be resolved`, `Dict[str, list]` with "
             "`Unknown type annotation` (torch 2.13). `List[tuple]` parses, but a parameter of that type takes no list "
             "that has elements: the scripted call fails with `Expected a value of type 'List[tuple]' for argument`; "
             "a local so annotated works and is not flagged."),
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
        Example('''
import torch
from typing import List, Tuple
class M(torch.nn.Module):
    def forward(self, x, sizes: List[Tuple]):  # <-
        return x.view(sizes[0][0], -1)
''', inputs="[(torch.randn(2, 3), [(2, 3)])]"),
        Example('''
import torch
from typing import List
class M(torch.nn.Module):
    def forward(self, x, shapes: List[tuple]):  # <-
        return x * len(shapes)
''', inputs="[(torch.randn(2, 3), [(2, 3)])]", check="script-call"),
        Example('''
import torch
from typing import Dict, Optional
class M(torch.nn.Module):
    def forward(self, x, extra: Optional[Dict] = None):  # <-
        return x if extra is None else x + extra["bias"]
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
        Example('''
import torch
from typing import Dict, List, Optional, Tuple
class M(torch.nn.Module):
    def forward(self, x, sizes: List[Tuple[int, int]], extra: Optional[Dict[str, torch.Tensor]] = None):
        seen: List[tuple] = []
        seen.append((1, 2))
        y = x.view(sizes[0][0], -1) * len(seen)
        return y if extra is None else y + extra["bias"]
''', inputs="[(torch.randn(2, 3), [(2, 3)], {'bias': torch.ones(1)})]", check="script-call"),
    )

    def _check(self, annotation: cst.Annotation | None, ctx, local: bool = False) -> None:  # noqa: ANN001
        if annotation is None:
            return
        ann = annotation.annotation
        if type(ann) is cst.Subscript:
            found = _nested_bare(ann, ctx.facts.aliases, local)
            if found is not None:
                ctx.report(found, self.message.format(ann=ctx.code_for(found),
                                                      example=_BARE[_bare_name(found, ctx.facts.aliases)]))
            return
        if type(ann) not in (cst.Name, cst.Attribute):
            return
        q = _bare_name(ann, ctx.facts.aliases)
        if q is None:
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
            self._check(node.annotation, ctx, local=True)
