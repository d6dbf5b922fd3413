"""TS140: class attributes read through `cls` or the class name."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc, brief
from compilelint.rules.torchscript._semantic import SemanticScriptRule


def _class_attrs(cls: cst.ClassDef) -> set[str]:
    names = set()
    for stmt in cls.body.body:
        if type(stmt) is cst.SimpleStatementLine:
            for small in stmt.body:
                if type(small) is cst.Assign:
                    names |= {t.target.value for t in small.targets if type(t.target) is cst.Name}
                elif type(small) is cst.AnnAssign and type(small.target) is cst.Name and small.value is not None:
                    names.add(small.target.value)
    return names - {"__constants__", "__annotations__"}


class ClassAttribute(SemanticScriptRule):
    code = "TS140"
    name = "class-attribute-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = 'class attribute `{form}` is not scriptable; copy it to `self`'
    doc = RuleDoc(
        what="Flags reads of class-level attributes through `cls.X` in a `@classmethod`, or through the class's "
             "own name (`Head.SCALE`), in code `torch.jit.script` compiles.",
        why="Scripting fails: `cls.SCALE` gives `Module 'M' has no attribute 'SCALE'`, `M.SCALE` gives "
            "`python value of type 'float' cannot be used as a value`. Class attributes are not part of the "
            "scripted module unless copied to the instance.",
        example="SCALE = 2.0\n@classmethod\ndef scale(cls) -> float:\n    return cls.SCALE",
        use_instead="SCALE = 2.0\n__constants__ = [\"SCALE\"]\ndef scale(self) -> float:\n    return self.SCALE",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    SCALE = 2.0
    def forward(self, x):
        return x * self.scale()
    @classmethod
    def scale(cls) -> float:
        return cls.SCALE  # <-
'''),
        Example('''
import torch
class M(torch.nn.Module):
    SCALE = 2.0
    def forward(self, x):
        return x * M.SCALE  # <-
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    SCALE = 2.0
    __constants__ = ["SCALE"]
    def forward(self, x):
        return x * self.SCALE * self.two()
    @classmethod
    def two(cls) -> float:
        return 2.0
''', check="script-call"),
    )

    def visit_Attribute(self, node: cst.Attribute, ctx) -> None:  # noqa: ANN001
        cls = ctx.class_node
        fn = ctx.function
        if cls is None or fn is None or type(node.value) is not cst.Name:
            return
        owner = node.value.value
        attr = node.attr.value
        is_cls = owner == "cls" and "builtins.classmethod" in ctx.decorators or (
            owner == "cls" and any(type(d.decorator) is cst.Name and d.decorator.value == "classmethod"
                                   for d in fn.decorators))
        if not (is_cls or (owner == cls.name.value and owner not in ctx.facts.env)):
            return
        parent = ctx.parent
        if type(parent) is cst.Call and parent.func is node:
            return  # calling a static/class method
        if type(parent) is cst.AssignTarget or (
                type(parent) is cst.Assign and any(t.target is node for t in parent.targets)) or (
                type(parent) in (cst.AugAssign, cst.AnnAssign) and parent.target is node):
            return  # a write, not a read
        if attr in _class_attrs(cls):
            ctx.report(node, self.message.format(form=brief(f"{owner}.{attr}", 32), attr=attr))
