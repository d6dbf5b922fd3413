from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, Rule, RuleDoc


class CompileInLoop(Rule):
    code = "RC510"
    call_gate = gate(names={"torch.compile"})
    body_gate = frozenset({"compile"})
    name = "compile-closure-in-loop"
    family = "recompile"
    targets = ("recompile",)
    severity = "warning"
    applies_to = "anywhere"
    message = '`torch.compile({fn})` in a loop closes over `{var}`: recompiles each time'
    doc = RuleDoc(
        what=("Flags `torch.compile(lambda ...)` or `torch.compile(f)` with `f` defined in the loop body, inside a "
              "`for` loop, when the function reads the loop variable."),
        why=("Compiled code is cached per code object; a lambda or nested function created in a loop has one code "
             "object but a different closure cell each time, and Dynamo guards on the cell's value. Verified on 2.13 "
             "(backend=\"eager\"): compiling `lambda x: x * 2 + i` in a 4-iteration loop gave three recompiles (`triggered by the following guard failure(s): - 0/0: i == 0`); a "
             "nested `def` closing over `i` did the same. Compiling the same function, a lambda without the loop "
             "variable, or a fresh nn.Module each iteration gave none, and `torch.compile` inside `forward` gave none "
             "either, so those are not flagged."),
        example="for i in range(4):\n    f = torch.compile(lambda x: x * 2 + i)\n    y = f(x)",
        use_instead="f = torch.compile(lambda x, i: x * 2 + i)\nfor i in range(4):\n    y = f(x, i)",
    )
    bad = (
        Example('''
import torch
def run(x):
    outs = []
    for i in range(4):
        f = torch.compile(lambda t: t * 2 + i, backend="eager")  # <-
        outs.append(f(x))
    for scale in (0.5, 1.0, 2.0):
        def step(t):
            return torch.tanh(t) * scale
        outs.append(torch.compile(step, backend="eager")(x))  # <-
    return outs
''', inputs="[(torch.randn(3),)]", entry="run", check="recompile-eager"),
    )
    good = (
        Example('''
import torch
def run(x):
    f = torch.compile(lambda t, i: t * 2 + i, backend="eager")
    outs = [f(x, torch.tensor(float(i))) for i in range(4)]
    for _ in range(3):
        g = torch.compile(torch.nn.functional.relu, backend="eager")
        outs.append(g(x))
    return outs
''', inputs="[(torch.randn(3),)]", entry="run", check="recompile-eager"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if ctx.loop_depth == 0 or not node.args or ctx.qualify(node.func) != "torch.compile":
            return
        loops = [a for a in ctx.ancestors if type(a) is cst.For]
        if not loops:
            return
        loop_vars: set[str] = set()
        for loop in loops:
            loop_vars |= _bound_names(loop.target)
        target = node.args[0].value
        body: cst.CSTNode | None = None
        if type(target) is cst.Lambda:
            body = target
        elif type(target) is cst.Name:
            body = _defined_in(loops[0].body, target.value)
        if body is None:
            return
        used = _names_in(body) & loop_vars
        if type(body) is cst.Lambda:
            used -= {p.name.value for p in body.params.params}
        elif type(body) is cst.FunctionDef:
            used -= {p.name.value for p in body.params.params}
        if used:
            fn = "lambda ..." if type(target) is cst.Lambda else ctx.code_for(target)
            ctx.report(node, self.message.format(fn=fn, var=sorted(used)[0]))


def _bound_names(target: cst.BaseExpression) -> set[str]:
    if type(target) is cst.Name:
        return {target.value}
    if type(target) in (cst.Tuple, cst.List):
        out: set[str] = set()
        for el in target.elements:
            out |= _bound_names(el.value)
        return out
    return set()


def _defined_in(block: cst.BaseSuite, name: str) -> cst.FunctionDef | None:
    for stmt in getattr(block, "body", ()):
        if type(stmt) is cst.FunctionDef and stmt.name.value == name:
            return stmt
    return None


class _Names(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


def _names_in(node: cst.CSTNode) -> set[str]:
    v = _Names()
    node.visit(v)
    return v.names
