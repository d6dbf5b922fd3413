"""TR321: a tensor size turned into text (f-string, str(), print, %-format) inside traced code."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, Rule, RuleDoc

_LOG_METHODS = frozenset(("debug", "info", "warning", "warn", "error", "exception", "critical", "log"))


class SizeToText(Rule):
    code = "TR321"
    call_gate = gate(bare={"str", "print", "repr"}, methods={"format"})
    name = "trace-frozen-size-text"
    family = "trace"
    targets = ("trace",)
    severity = "warning"
    message = "`{code}` turns a traced size into text: the trace keeps the example's number"
    log_message = "`{code}` turns a traced size into text: logged once, while tracing"
    doc = RuleDoc(
        what=("Flags f-strings, `str()`, `repr()`, `print()`, `%`-formatting and `.format()` of tensor sizes in "
              "traced code (one size: a whole `x.shape` formats without reading the tracer's sizes). A message that only a failing check builds (`raise ValueError(f\"...{h}\")`, an "
              "`assert`'s message) is not flagged: valid inputs never build it. Text handed to `print` or a "
              "logger is a note: it runs once, while tracing, and changes no result."),
        why=("Under torch.jit.trace a size is a 0-d tensor; formatting it reads its value (TracerWarning: "
             "\"Converting a tensor to a Python number\"). Text is not recorded in the graph, so a cache key or a "
             "dict key built from it keeps the example's size and other inputs take the example's entry."),
        example="key = f\"{x.shape[-2]}x{x.shape[-1]}\"\ngrid = self.grids[key]",
        use_instead=("grid = self.make_grid(x.shape[-2], x.shape[-1])  # computed from the sizes, no text"),
        fix_safety="No fix: the text's use decides what replaces it.",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        key = f"{x.shape[0]}"  # <-
        return x * len(key)
''', inputs="[(torch.ones(3, 2),), (torch.ones(12, 2),)]"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        n = x.shape[0]
        return x * len(str(n))  # <-
''', inputs="[(torch.ones(3, 2),), (torch.ones(12, 2),)]"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        if x.dim() != 2:
            raise ValueError(f"expected 2 dims, got shape {x.shape[0]}")
        print("input", x.shape)
        return x * x.shape[0]
''', inputs="[(torch.ones(3, 2),), (torch.ones(12, 2),)]"),
    )

    def _size_in(self, exprs, ctx) -> bool:  # noqa: ANN001
        facts = ctx.facts
        # one size, not a whole `x.shape`: the tracer's torch.Size holds plain ints and formats without a read
        # (2.13: `print(x.shape)`, `f"{x.shape[-2:]}"` give no TracerWarning; `f"{x.shape[0]}"` does)
        return any(facts.kind(e) is Kind.SIZE and facts.reads_tensor_size(e) and not facts.reads_dynamic_size(e)
                   for e in exprs)

    def _report(self, node: cst.CSTNode, ctx) -> None:  # noqa: ANN001
        for anc in reversed(ctx.ancestors):
            if type(anc) in (cst.Raise, cst.Assert):
                return  # built only when the check fails
            if type(anc) is cst.Call:
                func = anc.func
                called = func.attr.value if type(func) is cst.Attribute else getattr(func, "value", "")
                if called in _LOG_METHODS or called == "print" or (ctx.qualify(func) or "").startswith("warnings."):
                    ctx.report(node, self.log_message.format(code=_short(ctx.code_for(node))), severity="note")
                    return
            if type(anc) in (cst.SimpleStatementLine, cst.FunctionDef):
                break
        ctx.report(node, self.message.format(code=_short(ctx.code_for(node))))

    def visit_FormattedString(self, node: cst.FormattedString, ctx) -> None:  # noqa: ANN001
        exprs = [p.expression for p in node.parts if type(p) is cst.FormattedStringExpression]
        if self._size_in(exprs, ctx):
            self._report(node, ctx)

    def visit_BinaryOperation(self, node: cst.BinaryOperation, ctx) -> None:  # noqa: ANN001
        if type(node.operator) is cst.Modulo and type(node.left) in (cst.SimpleString, cst.ConcatenatedString):
            right = node.right
            exprs = [e.value for e in right.elements] if type(right) is cst.Tuple else [right]
            if self._size_in(exprs, ctx):
                self._report(node, ctx)

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        args = [a.value for a in node.args]
        if type(func) is cst.Name and func.value in ("str", "repr", "print"):
            if self._size_in(args, ctx):
                if func.value == "print":
                    ctx.report(node, self.log_message.format(code=_short(ctx.code_for(node))), severity="note")
                else:
                    self._report(node, ctx)
        elif (type(func) is cst.Attribute and func.attr.value == "format"
              and type(func.value) in (cst.SimpleString, cst.ConcatenatedString) and self._size_in(args, ctx)):
            self._report(node, ctx)


def _short(code: str) -> str:
    code = " ".join(code.split())
    return code if len(code) <= 40 else code[:37] + "..."
