"""TS164: an annotation TorchScript cannot parse (`Tuple[int, ...]`, `Sequence[int]`, `torch.Size`)."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.names import qualify
from compilelint.analysis.nodes import iter_nodes
from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.torchapi.script import UNKNOWN_ANNOTATION_TYPES


def _unparsable(annotation: cst.BaseExpression, aliases: dict[str, str]) -> tuple[cst.CSTNode, str] | None:
    """The part of an annotation TorchScript rejects, and what it is."""
    for node in iter_nodes(annotation):
        if type(node) is cst.Subscript:
            if any(type(e.slice) is cst.Index and type(e.slice.value) is cst.Ellipsis for e in node.slice):
                return node, "`...` (a tuple of any length)"
        if type(node) in (cst.Name, cst.Attribute):
            name = qualify(node, aliases)
            if name in UNKNOWN_ANNOTATION_TYPES:
                return node, f"`{name}`"
    return None


class AnnotationUnparsable(Rule):
    code = "TS164"
    name = "annotation-torchscript-cannot-parse"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = 'annotation {what} is not scriptable; use `List[T]`'
    doc = RuleDoc(
        what=("Flags annotations of compiled functions (parameters, return, locals) that TorchScript cannot read as a "
              "type: `Tuple[int, ...]`, `Sequence`/`Iterable`/`Mapping`/`Callable`/`Type`/`Set`, `torch.Size`."),
        why=("TorchScript parses every annotation of the functions it compiles: `Tuple[int, ...]` fails with "
             "`Expression of type dots cannot be used in a type expression`, `Sequence[int]` with `Unknown type "
             "constructor Sequence`, `torch.Size` with `Unknown type name 'torch.Size'`."),
        example="def forward(self, x, size: Tuple[int, ...]):\n    return x.reshape(size)",
        use_instead="def forward(self, x, size: List[int]):\n    return x.reshape(size)",
    )
    bad = (
        Example('''
import torch
from typing import Tuple
class M(torch.nn.Module):
    def forward(self, x, size: Tuple[int, ...] = (3, 2)):  # <-
        return x.reshape(size)
'''),
        Example('''
import torch
from typing import Sequence
def total(xs: Sequence[torch.Tensor]) -> torch.Tensor:  # <-
    return xs[0] + xs[1]
class M(torch.nn.Module):
    def forward(self, x):
        return total([x, x])
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x) -> tuple[torch.Tensor, ...]:  # <-
        return (x, x)
'''),
        Example('''
import torch
def flat_size(shape: torch.Size) -> int:  # <-
    return shape[0] * shape[1]
class M(torch.nn.Module):
    def forward(self, x):
        return x.reshape(flat_size(x.shape))
'''),
    )
    good = (
        Example('''
import torch
from typing import List, Tuple
def total(xs: List[torch.Tensor]) -> torch.Tensor:
    return xs[0] + xs[1]
class M(torch.nn.Module):
    def forward(self, x, size: List[int]) -> Tuple[torch.Tensor, torch.Tensor]:
        return x.reshape(size), total([x, x])
''', inputs="[(torch.randn(2, 3), [3, 2])]", check="script-call"),
    )

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx) -> None:  # noqa: ANN001
        if node is not ctx.function:
            return
        params = node.params
        annotations = [p.annotation for p in [*params.posonly_params, *params.params, *params.kwonly_params]]
        for annotation in [*annotations, node.returns]:
            if annotation is not None:
                self._check(annotation.annotation, ctx)

    def visit_AnnAssign(self, node: cst.AnnAssign, ctx) -> None:  # noqa: ANN001
        if ctx.function is not None:
            self._check(node.annotation.annotation, ctx)

    def _check(self, annotation: cst.BaseExpression, ctx) -> None:  # noqa: ANN001
        found = _unparsable(annotation, ctx.facts.aliases)
        if found is not None:
            ctx.report(found[0], self.message.format(what=found[1]))
