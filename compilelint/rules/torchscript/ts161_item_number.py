"""TS161: a `t.item()` value (TorchScript's `number`) used where TorchScript needs an int (a tensor index:
`hm[y, x]` with `y = idx // w`, `idx = hm.argmax().item()`; `range()`; also a float index), or on the left of
arithmetic with a tensor (`x + dx` with `x` from `.item()`)."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule


class ItemNumber(SemanticScriptRule):
    code = "TS161"
    call_gate = gate(bare={"range"})
    name = "item-number-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    has_fix = True
    message = '{what}: `.item()` is a number, not int; use `int(...)`'
    arith_message = '`.item()` {op} tensor gives a number when scripted; convert first'
    doc = RuleDoc(
        what=("Flags a tensor subscript whose index is a value read with `.item()` (or computed from one: "
              "`idx // w`, `min(x + 1, w - 1)`) or a float, `range()` over a `.item()` value, and arithmetic with "
              "such a value on the left of a tensor (`x + dx`), in code `torch.jit.script` compiles."),
        why=(('TorchScript types `t.item()` as `number`, which is neither int nor float. Indexing a tensor with it '
              "fails with `Unsupported operation: indexing tensor with unsupported index type 'number'. Only ints, "
              "slices, lists and tensors are supported` (`'float'` for a float index), and `range()` with `all "
              'inputs of range must be ints, found number`. Slicing (`x[:n]`), `narrow`, `select` and '
              '`torch.zeros(n)` accept a number; `int(t.item())` or `int(t)` is an int everywhere. `number + '
              'Tensor` picks the Scalar overload: the result is typed int (`Arguments for call are not valid` once '
              "it goes into `torch.stack`, `'int' object has no attribute ...`), and at run time a tensor of more "
              'than one element fails with `Cannot input a tensor of dimension other than 0 as a scalar argument`; '
              '`Tensor + number` is fine. Convert once with `int(...)` (`idx = int(hm.argmax())`), or index with '
              'the 0-d tensor; with a tensor on the right of `t.item() * x`, convert first or put the tensor on the'
              ' left.')),
        example="idx = hm.argmax().item()\ny, x = idx // w, idx % w\nconf = hm[y, x]",
        use_instead="idx = int(hm.argmax())\ny, x = idx // w, idx % w\nconf = hm[y, x]",
        fix_safety=("Safe for an int-valued index or bound: `int(...)` of it is the value eager Python uses. "
                    "Unsafe for a float-valued index (eager raises there, the converted index does not)."),
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, hm):
        w = hm.size(1)
        idx = hm.argmax().item()
        y, x = idx // w, idx % w
        return hm[y, x]  # <-
''', inputs="[(torch.rand(4, 5),)]"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x, counts):
        out = x
        for i in range(counts.max().item()):  # <-
            out = out + 1
        return out
''', inputs="[(torch.rand(4), torch.tensor([1, 3]))]"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x, pos: float):
        return x[pos]  # <-
''', inputs="[(torch.rand(4), 1.0)]"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, hm):
        w = hm.size(1)
        idx = int(hm.argmax())
        x = hm.argmax().item() % w
        dx = 0.25 * torch.sign(hm[0, 1] - hm[0, 0])
        return torch.stack([x + dx, dx])  # <-
''', inputs="[(torch.rand(4, 5),)]"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        shift = x.argmax().item()
        y = shift * x  # <-
        return y
''', inputs="[(torch.rand(4),)]", check="script-call"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, hm, counts):
        w = hm.size(1)
        idx = int(hm.argmax())
        y, x = idx // w, idx % w
        n = int(counts.max().item())
        out = hm[y, x]
        for i in range(n):
            out = out + 1
        k = counts.max().item()
        shifted = hm - k
        return out + hm[:k].sum() + hm.select(0, k).sum() + float(k) - shifted.sum()
''', inputs="[(torch.rand(4, 5), torch.tensor([1, 3]))]", check="script-call"),
    )

    def _number(self, expr: cst.BaseExpression, ctx) -> str | None:  # noqa: ANN001
        facts = ctx.facts
        if facts.is_script_number(expr):
            return "a `.item()` value"
        if type(expr) is cst.Float or (type(expr) is cst.Name and facts.param_types.get(expr.value) == "float"
                                           and facts.kind(expr) is Kind.PY):
            return "a float"
        return None

    def visit_Subscript(self, node: cst.Subscript, ctx) -> None:  # noqa: ANN001
        if ctx.function is None or ctx.facts.kind(node.value) is not Kind.TENSOR:
            return
        for element in node.slice:
            if type(element.slice) is cst.Index:
                index = element.slice.value
                what = self._number(index, ctx)
                if what:
                    # Eager Python indexes a tensor with ints only, so int() changes nothing for code that runs;
                    # a float index would raise in eager, so its fix is unsafe.
                    ctx.report(index, self.message.format(what=f"index with {what}", where="a tensor index"),
                               fix=(index, _int(index), "convert the index with `int(...)`"),
                               unsafe_fix=what == "a float")

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if ctx.function is None or not (type(func) is cst.Name and func.value == "range"):
            return
        if any(ctx.facts.is_script_number(arg.value) for arg in node.args):
            fixed = node.with_changes(args=[a.with_changes(value=_int(a.value)) if ctx.facts.is_script_number(a.value)
                                            else a for a in node.args])
            ctx.report(node, self.message.format(what="`range()` over a `.item()` value", where="`range()`"),
                       fix=(node, fixed, "convert the bound with `int(...)`"))


    def visit_BinaryOperation(self, node: cst.BinaryOperation, ctx) -> None:  # noqa: ANN001
        if ctx.function is None or not isinstance(node.operator, _ARITH):
            return
        facts = ctx.facts
        if facts.is_script_number(node.left) and facts.kind(node.right) is Kind.TENSOR:
            op = ctx.code_for(node.operator).strip()
            fix = None
            if type(node.operator) in (cst.Add, cst.Multiply):  # commutative, same dtype promotion in eager
                swapped = node.with_changes(left=node.right, right=node.left)
                fix = (node, swapped, f"put the tensor on the left of `{op}`")
            ctx.report(node, self.arith_message.format(op=op), fix=fix)


_ARITH = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power)


def _int(expr: cst.BaseExpression) -> cst.Call:
    return cst.Call(func=cst.Name("int"), args=[cst.Arg(expr)])
