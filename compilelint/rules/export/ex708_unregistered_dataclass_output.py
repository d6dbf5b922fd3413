"""EX708: `forward` returns an instance of a dataclass that is not registered with torch's pytree, under
torch.export."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.export._common import ExportRule


class ExportUnregisteredDataclassOutput(ExportRule):
    code = "EX708"
    name = "export-unregistered-dataclass-output"
    # 2.13 non-strict, 2.13 strict, and 2.11 non-strict for a dataclass that is not frozen (eq=True, so unhashable:
    # "unhashable type: 'Detections'"; the quote keeps out EX703's "unhashable type: non-nested SymInt")
    torch_error = ("in output, which is not a known type", "Encountered unrecognized type", "unhashable type: '")
    torch_names_line = False  # raised after tracing, about the program's outputs
    message = '`forward` returns dataclass `{cls}`, unknown to pytree; register it'
    version_note = ("Verified on 2.13 with torch.export.export, strict=False (the default: the error above) and "
                    "strict=True (`Encountered unrecognized type UserDefinedObjectVariable`), and on 2.11 "
                    "(strict=False), where a dataclass that is not frozen fails earlier with `TypeError: unhashable "
                    "type`. Only dataclasses defined in the same file with no base class are checked (a base may "
                    "register its subclasses, as diffusers' BaseOutput does), and a registration in another file "
                    "is not seen.")
    doc = RuleDoc(
        what=("Flags a `forward` that returns (directly, in a tuple, list or dict, through a local name, or as "
              "what a method of the same class returns that way) an instance of a `@dataclass` with no base class defined in the "
              "same file, when the file never registers that class (`torch.export.register_dataclass(C)`, "
              "`torch.utils._pytree.register_pytree_node(C, ...)`)."),
        why=(("torch.export flattens a program's outputs with torch's pytree, which knows tensors, tuples, lists, "
              'dicts, NamedTuples and the classes registered with it. A plain dataclass is none of these, so the '
              "export fails once tracing is done (`Found <class 'Detections'> in output, which is not a known "
              'type`), and the error names no line of the model. Eager PyTorch, torch.compile and torch.jit.trace '
              'of the same module run. Register the dataclass once with `torch.export.register_dataclass(Cls)`, or '
              'return a NamedTuple, tuple or dict.')),
        example=("@dataclass\nclass Detections:\n    boxes: torch.Tensor\n    scores: torch.Tensor\n\n"
                 "# in forward:\n    return Detections(boxes, scores)"),
        use_instead=("@dataclass\nclass Detections:\n    boxes: torch.Tensor\n    scores: torch.Tensor\n\n"
                     "torch.export.register_dataclass(Detections)"),
    )
    bad = (
        Example('''from dataclasses import dataclass

import torch


@dataclass
class Detections:
    boxes: torch.Tensor
    scores: torch.Tensor


class M(torch.nn.Module):
    def forward(self, x):
        return Detections(x[:, :4], x[:, 4].sigmoid())  # <-
''', inputs="[(torch.randn(6, 5),)]"),
        Example('''import dataclasses

import torch


@dataclasses.dataclass(frozen=True)
class Plan:
    waypoints: torch.Tensor
    speed: torch.Tensor


class M(torch.nn.Module):
    def forward(self, x):
        plan = Plan(x.cumsum(0), x.norm(dim=-1))
        return x.mean(), {"plan": plan}  # <-
''', inputs="[(torch.randn(6, 2),)]"),
        Example('''from dataclasses import dataclass

import torch


@dataclass
class Track:
    state: torch.Tensor
    cov: torch.Tensor


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.motion = torch.nn.Linear(4, 4)

    def predict(self, x):
        if x.dim() == 2:
            out = Track(self.motion(x), x.new_ones(x.shape[0], 4))
            return out
        return Track(x, x)

    def forward(self, x):
        return self.predict(x)  # <-
''', inputs="[(torch.randn(3, 4),)]"),
    )
    good = (
        Example('''from dataclasses import dataclass

import torch


@dataclass
class Detections:
    boxes: torch.Tensor
    scores: torch.Tensor


torch.export.register_dataclass(Detections)


class M(torch.nn.Module):
    def forward(self, x):
        return Detections(x[:, :4], x[:, 4].sigmoid())
''', inputs="[(torch.randn(6, 5),)]"),
        Example('''from typing import NamedTuple

import torch


class Detections(NamedTuple):
    boxes: torch.Tensor
    scores: torch.Tensor


class M(torch.nn.Module):
    def forward(self, x):
        return Detections(x[:, :4], x[:, 4].sigmoid())
''', inputs="[(torch.randn(6, 5),)]"),
        # a base class that registers its subclasses with pytree (diffusers' BaseOutput does so)
        Example('''import dataclasses

import torch
import torch.utils._pytree as pytree


class Output:
    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        pytree.register_pytree_node(cls, lambda o: ([o.boxes], None), lambda values, _: cls(*values))


@dataclasses.dataclass
class Detections(Output):
    boxes: torch.Tensor


class M(torch.nn.Module):
    def forward(self, x):
        return Detections(x * 2)
''', inputs="[(torch.randn(6, 5),)]"),
    )

    def visit_Return(self, node: cst.Return, ctx) -> None:  # noqa: ANN001
        if node.value is None or ctx.function is None or ctx.function.name.value != "forward" or not ctx.class_name:
            return
        facts = ctx.module_facts
        unregistered = facts.dataclasses - facts.pytree_registered
        if not unregistered:
            return
        bound = _calls_bound_by_name(ctx.function)
        for output in _outputs(node.value):
            call = bound.get(output.value) if type(output) is cst.Name else output
            cls = _dataclass_built(call, unregistered) or _dataclass_from_method(call, ctx.class_node, unregistered)
            if cls:
                self.report(ctx, output, self.message.format(cls=cls))


def _dataclass_built(call: cst.BaseExpression | None, dataclasses: set[str]) -> str | None:
    """`C(...)` with C one of `dataclasses`: C."""
    if type(call) is cst.Call and type(call.func) is cst.Name and call.func.value in dataclasses:
        return call.func.value
    return None


def _dataclass_from_method(call: cst.BaseExpression | None, class_node: cst.ClassDef | None,
                           dataclasses: set[str]) -> str | None:
    """`self.m(...)` where method m of the same class returns `C(...)` (directly or through a local name) with C
    one of `dataclasses`: C. One level deep."""
    if (type(call) is not cst.Call or type(call.func) is not cst.Attribute or class_node is None
            or type(call.func.value) is not cst.Name or call.func.value.value != "self"):
        return None
    method = next((s for s in class_node.body.body if type(s) is cst.FunctionDef
                   and s.name.value == call.func.attr.value), None)
    if method is None:
        return None
    bound = _calls_bound_by_name(method)
    for ret in _returns(method):
        value = bound.get(ret.value) if type(ret) is cst.Name else ret
        cls = _dataclass_built(value, dataclasses)
        if cls:
            return cls
    return None


def _returns(function: cst.FunctionDef):  # noqa: ANN202 - a generator of expressions
    """The values of the function's own `return` statements (not those of nested functions or classes)."""
    stack: list[cst.CSTNode] = list(function.body.body)
    while stack:
        stmt = stack.pop()
        if type(stmt) is cst.SimpleStatementLine:
            for small in stmt.body:
                if type(small) is cst.Return and small.value is not None:
                    yield small.value
        elif isinstance(stmt, cst.BaseCompoundStatement) and type(stmt) not in (cst.FunctionDef, cst.ClassDef):
            stack.extend(_inner_statements(stmt))


def _inner_statements(stmt: cst.BaseCompoundStatement) -> list[cst.CSTNode]:
    """The statements directly inside a compound statement's blocks (`elif` as a statement of its own)."""
    out: list[cst.CSTNode] = []
    for attr in ("body", "orelse", "handlers", "finalbody"):
        sub = getattr(stmt, attr, None)
        for part in (sub if isinstance(sub, (list, tuple)) else [sub]):
            if isinstance(part, cst.BaseCompoundStatement):  # an `elif`
                out.append(part)
                continue
            inner = getattr(part, "body", None)
            if isinstance(inner, cst.BaseSuite):
                inner = inner.body
            if isinstance(inner, (list, tuple)):
                out.extend(inner)
    return out


def _outputs(expr: cst.BaseExpression):  # noqa: ANN202 - a generator of expressions
    """The expressions export flattens as the outputs: the leaves of returned tuples, lists and dicts."""
    if type(expr) in (cst.Tuple, cst.List):
        for element in expr.elements:
            yield from _outputs(element.value)
    elif type(expr) is cst.Dict:
        for element in expr.elements:
            if type(element) is cst.DictElement:
                yield from _outputs(element.value)
    else:
        yield expr


def _calls_bound_by_name(function: cst.FunctionDef) -> dict[str, cst.Call]:
    """`name = Call(...)` statements of the function (not of nested functions or classes): the last one per name."""
    out: dict[str, cst.Call] = {}
    stack: list[cst.CSTNode] = list(function.body.body)
    while stack:
        stmt = stack.pop(0)
        if type(stmt) is cst.SimpleStatementLine:
            for small in stmt.body:
                if type(small) is cst.Assign and type(small.value) is cst.Call:
                    for target in small.targets:
                        if type(target.target) is cst.Name:
                            out[target.target.value] = small.value
        elif isinstance(stmt, cst.BaseCompoundStatement) and type(stmt) not in (cst.FunctionDef, cst.ClassDef):
            stack.extend(_inner_statements(stmt))
    return out
