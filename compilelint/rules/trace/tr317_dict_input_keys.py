"""TR317: branching on which keys a dict input holds."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, Rule, RuleDoc


class DictInputKeys(Rule):
    code = "TR317"
    call_gate = gate(methods={"get", "keys", "items"})
    name = "trace-frozen-dict-input-keys"
    family = "trace"
    targets = ("trace",)
    severity = "error"
    message = '{what} on the keys of input `{name}`: the trace keeps one path'
    doc = RuleDoc(
        what=("Flags `'key' in batch`, `batch.get('key')` and iteration over `batch.keys()/items()` where `batch` "
              "is a required input of a traced `forward` (not one that defaults to `None`)."),
        why=("The traced graph has one input per key of the example dict and no notion of optional keys: the "
             "`in` test is evaluated once at trace time and frozen, with no warning."),
        example="if 'mask' in batch:\n    x = x * batch['mask']",
        use_instead="def forward(self, x, mask):  # always pass mask (ones when absent)\n    x = x * mask",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, batch):
        x = batch["image"]
        if "mask" in batch:  # <-
            x = x * batch["mask"]
        return x
''', inputs=('[({"image": torch.ones(3)},), ({"image": torch.ones(3), "mask": torch.zeros(3)},)]')),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, batch):
        return batch["image"] * batch["mask"]
''', inputs=('[({"image": torch.ones(3), "mask": torch.ones(3)},), '
             '({"image": torch.ones(3), "mask": torch.zeros(3)},)]')),
    )

    def _is_input(self, expr: cst.BaseExpression, ctx) -> bool:  # noqa: ANN001
        # a required dict: one with a default (`kwargs=None`) is left out of most traces, and when it is
        # passed the keys it carries are the caller's configuration
        return (type(expr) is cst.Name and expr.value in ctx.facts.required_params and ctx.function is not None
                and ctx.function.name.value == "forward")

    def visit_Comparison(self, node: cst.Comparison, ctx) -> None:  # noqa: ANN001
        for comp in node.comparisons:
            if type(comp.operator) in (cst.In, cst.NotIn) and self._is_input(comp.comparator, ctx):
                if type(node.left) in (cst.SimpleString, cst.ConcatenatedString):
                    ctx.report(node, self.message.format(what="`in` test", name=comp.comparator.value))
                    return

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if type(func) is cst.Attribute and self._is_input(func.value, ctx):
            if func.attr.value == "get" and node.args and type(node.args[0].value) is cst.SimpleString:
                ctx.report(node, self.message.format(what="`.get()`", name=func.value.value))
            elif func.attr.value in ("keys", "items") and not node.args:
                ctx.report(node, self.message.format(what=f"`.{func.attr.value}()`", name=func.value.value))
