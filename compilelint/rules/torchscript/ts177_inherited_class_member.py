"""TS177: compiled code uses a member that a plain class only inherits (`__init__` or a method of its base)."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.script_types import inherited_member


class InheritedClassMember(Rule):
    code = "TS177"
    name = "inherited-class-member-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = "TorchScript compiles `{cls}` without its base: `{member}` from `{base}` is missing"
    doc = RuleDoc(
        what=("Flags, in compiled code, building a plain class (not an `nn.Module`) of the file that inherits "
              "its `__init__`, and calling a method it inherits from a base class."),
        why=("TorchScript compiles a user class from its own body: its bases are ignored when the class is "
             "compiled because compiled code uses it (2.13), and rejected outright on `@torch.jit.script class "
             "C(Base)` (`TorchScript classes does not support inheritance yet`). An inherited `__init__` fails "
             "with `Class C does not have an __init__ function defined`, an inherited method with `object has no "
             "attribute or method 'm'`, both at the line that uses it. `super().__init__()` inside is TS139's."),
        example=("class Base:\n    def __init__(self, k: int):\n        self.k = k\n    def scale(self, x):\n"
                 "        return x * self.k\n\nclass Child(Base):\n    pass\n\n"
                 "def forward(self, x):\n    return Child(2).scale(x)"),
        use_instead=("class Child:\n    def __init__(self, k: int):\n        self.k = k\n    def scale(self, x):\n"
                     "        return x * self.k"),
    )
    bad = (
        Example('''
import torch
class Base:
    def __init__(self, k: int):
        self.k = k
    def scale(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.k
class Child(Base):
    def __init__(self, k: int):
        self.k = k
class M(torch.nn.Module):
    def forward(self, x):
        c = Child(2)
        return c.scale(x)  # <-
'''),
        Example('''
import torch
class Base:
    def __init__(self, k: int):
        self.k = k
class Child(Base):
    pass
class M(torch.nn.Module):
    def forward(self, x):
        return x * Child(2).k  # <-
'''),
    )
    good = (
        Example('''
import torch
class Base:
    def __init__(self, k: int):
        self.k = k
    def scale(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.k
class Child(Base):
    def __init__(self, k: int):
        self.k = k
    def scale(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.k
class Plain(object):
    def __init__(self, k: int):
        self.k = k
class M(torch.nn.Module):
    def forward(self, x):
        c = Child(2)
        return c.scale(x) * Plain(3).k
''', inputs="[(torch.randn(2, 3),)]", check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if ctx.function is None:
            return
        found = inherited_member(node, ctx)
        if found is not None:
            cls, member, base = found
            ctx.report(node, self.message.format(cls=cls, member=member, base=base))
