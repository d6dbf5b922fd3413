"""TS179: a call of a module, method or function of the tree that its TorchScript signature rejects."""
from __future__ import annotations

import builtins
import dataclasses
import json

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc, brief, fit_message
from compilelint.semantic.script_types import optional_at

_BUILTINS = frozenset(dir(builtins))


def _argument_kind(expr: cst.BaseExpression, ctx) -> str:  # noqa: ANN001
    """"none" (the literal), "optional" (a local TorchScript types Optional here), "?" (anything else)."""
    if type(expr) is cst.Name:
        if expr.value == "None":
            return "none"
        return "optional" if optional_at(expr, ctx) else "?"
    return "?"


def _callee(func: cst.BaseExpression, ctx) -> tuple[str, str] | None:  # noqa: ANN001
    """How the index finds what the call runs: ("attr", a) for `self.a(...)` and `self.a[i](...)` (a submodule's
    forward), ("self", m) for `self.m(...)`, ("name", qualified) for a function named through the file."""
    if type(func) is cst.Subscript:
        func = func.value
        if not (type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self"):
            return None
        return ("attr", func.attr.value)
    if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self":
        built = ctx.class_facts.attr_calls.get(func.attr.value) if ctx.class_facts is not None else None
        if built is not None and built.startswith("torch."):
            return None  # a torch layer: TS173's
        if ctx.class_node is not None and any(type(s) is cst.FunctionDef and s.name.value == func.attr.value
                                              for s in ctx.class_node.body.body):
            return ("self", func.attr.value)
        return ("attr", func.attr.value)
    if type(func) is cst.Name and func.value not in _BUILTINS and func.value not in ctx.facts.env:
        qualified = ctx.qualify(func)
        if qualified and not qualified.startswith(("torch.", "math.", "typing.")):
            return ("name", qualified)
    return None


def _functions(index, module: str, owner: str | None, kind: str, target: str):  # noqa: ANN001, ANN202
    """The FunctionInfos the call may run, and whether each takes `self` first; None where one is not known."""
    if kind == "name":
        summary = index.modules.get(module)
        key = f"{module}:{target.rpartition('.')[2]}" if summary is not None and \
            target.rpartition(".")[2] in summary.functions and target.startswith(module + ".") else index.resolve(target)
        fn = index.functions.get(key)
        return [(fn, False)] if fn is not None else None
    if owner is None:
        return None
    if kind == "self":
        fn = index.find_method(f"{module}:{owner}", target)
        return [(fn, True)] if fn is not None else None
    out = []
    for how, qualified in index.attr_values(f"{module}:{owner}", target):
        forward = index.find_method(index.resolve(qualified), "forward") if how == "new" else None
        if forward is None:
            return None  # a value of another kind, or a class outside the tree: no claim
        out.append((forward, True))
    return out or None


def _mismatch(params, method: bool, args: list[str], keywords: dict[str, str]) -> tuple[str, str] | None:  # noqa: ANN001
    """(parameter, "omitted" / "none" / "optional") where the call's arguments do not match the TorchScript
    signature: a parameter typed Tensor whose None default is left to stand, or None or an Optional passed to it."""
    params = list(params[1:] if method else params)
    positional = [p for p in params if not p[3]]
    if len(args) > len(positional) or any(k not in {p[0] for p in params} for k in keywords):
        return None  # a call Python itself rejects, or another class at run time: not this rule's
    for i, (name, kind, default, _) in enumerate(params):
        passed = args[i] if i < len(args) and not params[i][3] else keywords.get(name)
        if kind != "Tensor":
            continue
        if passed is None and default == "none":
            return name, "omitted"
        if passed in ("none", "optional"):
            return name, passed
    return None


class CallArgumentMismatch(Rule):
    code = "TS179"
    name = "call-argument-mismatch-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    tree_facts = True  # the callee's signature may be in another file
    message = "{what} Tensor parameter `{param}` of `{callee}`"
    doc = RuleDoc(
        what=("Flags, in compiled code, a call of a submodule (`self.block(x)`, `self.blocks[0](x)`), a method or "
              "a function of the tree, wherever it is defined, whose parameter TorchScript types `Tensor` (it has "
              "no annotation, or a `Tensor` one) and that receives None, an `Optional` local not refined to a "
              "Tensor, or nothing where its default is `None`."),
        why=("TorchScript compiles a call against the callee's own signature, typing each unannotated parameter "
             "`Tensor`: a `None` default there is no Tensor, so a call leaving the argument out fails (`Argument "
             "condition not provided`, or `Unsupported value kind: Tensor`), and an `Optional[Tensor]` argument "
             "fails with `Expected a value of type 'Tensor' for argument 't' but instead found type "
             "'Optional[Tensor]'`, at the call. Annotate the parameter `Optional[torch.Tensor] = None` (or the "
             "type it holds), or refine the argument with `if t is not None:` / `assert t is not None` first."),
        example=("class Embed(nn.Module):\n    def forward(self, sample, condition=None):\n        ...\n\n"
                 "class M(nn.Module):\n    def forward(self, x):\n        return self.embed(x)"),
        use_instead=("class Embed(nn.Module):\n    def forward(self, sample, condition: Optional[torch.Tensor] = "
                     "None):\n        ...\n\nclass M(nn.Module):\n    def forward(self, x):\n"
                     "        return self.embed(x)"),
    )
    bad = (
        Example('''
import torch
class Embed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
    def forward(self, sample, condition=None):
        if condition is not None:
            sample = sample + condition
        return self.lin(sample)
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = Embed()
    def forward(self, x):
        return self.embed(x)  # <-
'''),
        Example('''
import torch
from typing import Optional
class Block(torch.nn.Module):
    def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        return x + t
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = torch.nn.ModuleList([Block(), Block()])
    def forward(self, x, temb: Optional[torch.Tensor] = None):
        return self.blocks[0](x, temb)  # <-
'''),
    )
    good = (
        Example('''
import torch
from typing import Optional
class Embed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
    def forward(self, sample, condition: Optional[torch.Tensor] = None):
        if condition is not None:
            sample = sample + condition
        return self.lin(sample)
class Block(torch.nn.Module):
    def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        return x + t
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = Embed()
        self.blocks = torch.nn.ModuleList([Block(), Block()])
    def forward(self, x, temb: Optional[torch.Tensor] = None):
        x = self.embed(x)
        if temb is not None:
            x = self.blocks[0](x, temb)
        return x
''', inputs="[(torch.randn(2, 3), torch.randn(2, 3))]", check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        fn = ctx.function
        if fn is None or fn.name.value == "__init__" or any(a.star for a in node.args):
            return
        callee = _callee(node.func, ctx)
        if callee is None:
            return
        args = [_argument_kind(a.value, ctx) for a in node.args if a.keyword is None]
        keywords = {a.keyword.value: _argument_kind(a.value, ctx) for a in node.args if a.keyword is not None}
        owner = ctx.class_node.name.value if ctx.class_node is not None else ""
        ctx.report(node, pending=json.dumps([*callee, owner, args, keywords, brief(ctx.code_for(node.func), 24)]))

    @classmethod
    def settle(cls, finding, index, scope):  # noqa: ANN001, ANN206
        """Keep the call where every function it may run has a TorchScript signature its arguments miss."""
        if not finding.pending:
            return finding  # settled already: a copy the engine keeps (the original still holds its data)
        kind, target, owner, args, keywords, written = json.loads(finding.pending)
        summary = index.summary_at(finding.path)
        functions = _functions(index, summary.module, owner or None, kind, target) if summary is not None else None
        if not functions:
            return None
        found = set()
        for fn, method in functions:
            params = getattr(fn, "script_params", None)
            miss = _mismatch(params, method, args, keywords) if params is not None else None
            if miss is None:
                return None
            found.add(miss)
        if len(found) != 1:
            return None
        param, how = found.pop()
        what = {"omitted": "call leaves None in", "none": "None passed to", "optional": "Optional passed to"}[how]
        return dataclasses.replace(finding, pending="", message=fit_message(cls.message.format(what=what, callee=written,
                                                                       param=brief(param, 16))))
