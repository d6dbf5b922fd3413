"""torchscript rules: one rule per file."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.classshape import class_shape
from compilelint.analysis.names import qualify
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, Rule, RuleDoc


def _is_module_ctor(expr: cst.BaseExpression, ctx) -> bool:  # noqa: ANN001
    if type(expr) is cst.Call:
        name = qualify(expr.func, ctx.facts.aliases) or ""
        last = name.rsplit(".", 1)[-1]
        if name.startswith("torch.nn.") and last[:1].isupper():
            return True
        return bool(last[:1].isupper()) and not name.startswith(("torch.", "typing.", "collections."))
    if type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value == "self":
        return ctx.class_facts is not None and ctx.class_facts.attrs.get(expr.attr.value) is Kind.MODULE
    return False


def module_collection(value: cst.BaseExpression, ctx) -> str | None:  # noqa: ANN001
    """'list'/'tuple'/'dict' when `value` is a plain Python container of submodules."""
    if type(value) in (cst.List, cst.Tuple) and value.elements:
        if all(type(e) is not cst.StarredElement and _is_module_ctor(e.value, ctx) for e in value.elements):
            return "list" if type(value) is cst.List else "tuple"
    if type(value) is cst.ListComp and _is_module_ctor(value.elt, ctx):
        return "list"
    if type(value) is cst.Dict and value.elements:
        if all(type(e) is cst.DictElement and _is_module_ctor(e.value, ctx) for e in value.elements):
            return "dict"
    return None


class PlainListOfModules(Rule):
    code = "TS155"
    name = "plain-list-of-modules"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '{what} is a plain {kind} of modules; use `nn.{container}`'
    doc = RuleDoc(
        what=("Flags submodules kept in a plain Python list, tuple or dict attribute and read in compiled code, "
              "and loops in compiled code over a literal list/tuple of submodules (`for m in [self.a, self.b]`)."),
        why=("A plain list of modules is not registered (its parameters are not even in `state_dict`), and "
             "TorchScript cannot convert it: `failed to convert Python type: 'list' to a TorchScript type ... "
             "Cannot infer concrete type of torch.nn.Module`; a loop over `[self.a, self.b]` fails with `object "
             "has no attribute or method '__call__'`."),
        example="self.blocks = [Block(c) for _ in range(4)]\n...\nfor b in self.blocks:\n    x = b(x)",
        use_instead="self.blocks = nn.ModuleList([Block(c) for _ in range(4)])\n...\nfor b in self.blocks:\n    x = b(x)",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = [torch.nn.Linear(3, 3) for _ in range(2)]
    def forward(self, x):
        for block in self.blocks:  # <-
            x = block(x)
        return x
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cls_head = torch.nn.Linear(3, 3)
        self.box_head = torch.nn.Linear(3, 3)
    def forward(self, x):
        outs = []
        for head in (self.cls_head, self.box_head):  # <-
            outs.append(head(x))
        return outs
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = torch.nn.ModuleList([torch.nn.Linear(3, 3) for _ in range(2)])
        self.cls_head = torch.nn.Linear(3, 3)
        self.box_head = torch.nn.Linear(3, 3)
        self.names = ["cls", "box"]
    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return [self.cls_head(x), self.box_head(x)], len(self.names)
'''),
    )

    def begin_function(self, ctx) -> None:  # noqa: ANN001
        self.reported: set[str] = set()

    def visit_Attribute(self, node: cst.Attribute, ctx) -> None:  # noqa: ANN001
        fn, cls = ctx.function, ctx.class_node
        if fn is None or cls is None or fn.name.value == "__init__":
            return
        if not (type(node.value) is cst.Name and node.value.value == "self") or node.attr.value in self.reported:
            return
        attr = node.attr.value
        shape = class_shape(cls, ctx.facts.aliases)
        values = shape.init_values.get(attr)
        if not values or attr in shape.class_level:
            return
        kinds = [module_collection(v, ctx) for v in values]
        if not all(kinds):
            return
        self.reported.add(attr)
        container = "ModuleDict" if kinds[0] == "dict" else "ModuleList"
        ctx.report(node, self.message.format(what=f"`self.{attr}`", kind=kinds[0], container=container))

    def visit_For(self, node: cst.For, ctx) -> None:  # noqa: ANN001
        if ctx.function is None:
            return
        it = node.iter
        if type(it) in (cst.List, cst.Tuple) and it.elements and all(
                type(e) is not cst.StarredElement and ctx.kind(e.value) is Kind.MODULE for e in it.elements):
            kind = "list" if type(it) is cst.List else "tuple"
            ctx.report(it, self.message.format(what=f"`{ctx.code_for(it)}`", kind=kind, container="ModuleList"))
