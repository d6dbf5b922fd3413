"""EX701: Python control flow on tensor data (`if x.sum() > 0`, `while err > tol`, `assert t.all()`,
`bool(t)`, `if t.item() < tol`) under torch.export."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.export._common import ConditionExportRule
from compilelint.rules.trace._util import in_condition
from compilelint.semantic.breaks import condition_reads_tensor
from compilelint.semantic.constructs import Construct


class ExportDataDependentBranch(ConditionExportRule):
    code = "EX701"
    construct = Construct.DATA_DEPENDENT_VALUE
    name = "export-data-dependent-branch"
    message = '{kw}: export cannot decide it; use `torch.where`'
    version_note = ("Verified with torch.export.export(strict=False), the 2.13 default. With strict=True (2.13) the "
                    "branches, filters and sorts fail on the same line too (`Unsupported: Data-dependent branching`), "
                    "but an `assert` on tensor data exports: Dynamo turns it into a runtime assert. `torch._assert(cond, msg)` "
                    "on tensor data fails like an `if` (2.13); `torch._assert_async(cond)` exports.")
    doc = RuleDoc(
        what=("Flags `if`/`while`/conditional expressions, comprehension filters and `assert`s whose condition "
              "reads tensor data (`any()`/`all()` of tensor comparisons included), `bool(t)` of a tensor, and "
              "`sorted()`/`min()`/`max()` that compare tensor values (a list of tensors, a `key=` returning "
              "one, or `min(a, b)` / `max(a, b)` with an argument read from tensor data), in code that "
              "torch.export traces. A Python number read out of a tensor (`t.item()`, "
              "`t.tolist()[i]`) counts as tensor data."),
        why=(('torch.export traces with fake tensors: it knows every shape but no value. Turning a tensor value '
              'into a Python bool needs the value, so the trace stops with `GuardOnDataDependentSymNode: Could not '
              'guard on data-dependent expression Eq(u0, 1)` on that line and nothing is exported. torch.compile '
              'only breaks the graph here (GB403); export has no fallback. Select with `torch.where(cond, a, b)`, '
              'branch with `torch.cond(cond, true_fn, false_fn, (args,))`, or state the fact with '
              '`torch._check(...)`.')),
        example="if frame.abs().sum() == 0:\n    return cur\nreturn cur + frame",
        use_instead=("keep = frame.abs().sum() != 0\nreturn torch.where(keep, cur + frame, cur)\n"
                     "# or: torch.cond(pred, true_fn, false_fn, (cur, frame))"),
    )
    bad = (
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, depth):
        torch._assert((depth >= 0).all(), "negative depth")  # <-
        return depth.clamp(max=80.0) / 80.0
''', inputs="[(torch.rand(4, 6),)]"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, cur, frame):
        if frame.abs().sum() == 0:  # <-
            return cur
        return cur + frame
''', inputs="[(torch.randn(2, 3), torch.randn(2, 3))]"),
        Example('''import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.tol = 1e-3

    def forward(self, x):
        for i in range(4):
            delta = torch.tanh(x) * 0.5 ** i
            if delta.abs().max().item() < self.tol:  # <-
                break
            x = x + delta
        return x
'''),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        y = x * 2 if (x > 0).any() else x  # <-
        return y + 1
'''),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        assert (x.abs() < 1e6).all(), "overflow"  # <-
        return x + 1
'''),
        Example('''import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.head = torch.nn.Linear(3, 5)

    def forward(self, feats):
        dets = list(self.head(feats).unbind(0))
        dets = sorted(dets, key=lambda d: d[4])  # <-
        return torch.stack(dets)
'''),
        Example('''import torch

def iou(a, b):
    lt = torch.maximum(a[:2], b[:2])
    rb = torch.minimum(a[2:], b[2:])
    inter = (rb - lt).clamp(min=0).prod()
    return inter / ((a[2:] - a[:2]).prod() + (b[2:] - b[:2]).prod() - inter)

class M(torch.nn.Module):
    def forward(self, boxes):
        keep = [0]
        for i in range(1, boxes.size(0)):
            if all(iou(boxes[i], boxes[j]) < 0.5 for j in keep):  # <-
                keep.append(i)
        return boxes[torch.tensor(keep)]
''', inputs="[(torch.tensor([[0., 0., 2., 2.], [0., 0., 2., 2.1], [5., 5., 6., 6.]]),)]"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, wav):
        peak = wav.abs().max().item()
        return wav / max(peak, 1e-3)  # <-
''', inputs="[(torch.randn(64),)]"),
    )
    good = (
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, depth):
        torch._assert_async((depth >= 0).all())
        return depth.clamp(max=80.0) / 80.0
''', inputs="[(torch.rand(4, 6),)]"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, cur, frame):
        keep = frame.abs().sum() != 0
        return torch.where(keep, cur + frame, cur)
''', inputs="[(torch.randn(2, 3), torch.randn(2, 3))]"),
        Example('''import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.tol = 1e-3

    def forward(self, x):
        done = torch.zeros((), dtype=torch.bool)
        for i in range(4):
            delta = torch.tanh(x) * 0.5 ** i
            done = done | (delta.abs().max() < self.tol)
            x = torch.where(done, x, x + delta)
        return x
'''),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        y = torch.cond((x > 0).any(), lambda t: t * 2, lambda t: t.clone(), (x,))
        return y + 1
'''),
        Example('''import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.head = torch.nn.Linear(3, 5)

    def forward(self, feats):
        dets = self.head(feats)
        order = dets[:, 4].argsort()
        by_size = sorted([feats, dets], key=lambda t: t.shape[-1])
        return dets[order], by_size[0]
'''),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        if not torch.compiler.is_exporting():
            if torch.isnan(x).any():
                raise ValueError("NaN input")
        torch._check(x.shape[0] > 1)
        return x + 1
'''),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x, flag: bool = True):
        if flag and x.dim() == 2 and x.shape[0] > 1:
            x = x * 2
        return x + 1
'''),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, heat):
        idx = heat.argmax().item()
        x = idx % heat.size(0)
        return heat[min(x + 1, heat.size(0) - 1)] - heat[max(x - 1, 0)]
''', inputs="[(torch.randn(16),)]"),
        Example('''import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.floor = 1e-3

    def forward(self, wav):
        peak = wav.abs().max().clamp(min=self.floor)
        return wav / peak * max(self.floor, 0.5)
''', inputs="[(torch.randn(64),)]"),
    )

    def check_condition(self, owner: cst.CSTNode, test: cst.BaseExpression, ctx, kw: str) -> None:  # noqa: ANN001
        facts = ctx.facts
        if (facts.is_value_dependent_certain(test) or condition_reads_tensor(test, ctx)) and not facts.is_checked(test):
            self.report(ctx, test, self.message.format(kw=f"{kw} on a tensor value"), owner)

    def visit_CompIf(self, node: cst.CompIf, ctx) -> None:  # noqa: ANN001
        self.check_condition(node, node.test, ctx, "A comprehension filter")

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if (type(func) is cst.Name and func.value == "bool" and len(node.args) == 1
                and not in_condition(ctx) and ctx.facts.is_value_dependent_certain(node.args[0].value)):
            self.report(ctx, node, self.message.format(kw="`bool()` of a tensor value"))
        elif ctx.facts.sort_compares_tensors(node):
            self.report(ctx, node, self.message.format(kw=f"`{func.value}()` comparing tensors"))
        elif self._pairwise_min_max_on_data(node, ctx):
            self.report(ctx, node, self.message.format(kw=f"`{func.value}()` of tensor data"))
        elif ctx.qualify(func) == "torch._assert" and node.args and node.args[0].keyword is None:
            # torch._assert(cond, msg) is `if not cond: raise` in Python (verified on 2.13: export fails on it);
            # torch._assert_async(cond) records a runtime assert instead and exports
            self.check_condition(node, node.args[0].value, ctx, "`torch._assert`")

    @staticmethod
    def _pairwise_min_max_on_data(node: cst.Call, ctx) -> bool:  # noqa: ANN001
        """`max(peak, 1e-3)` with `peak = wav.abs().max().item()`: the builtin compares its arguments with
        `<`, a Python bool of tensor data (torch 2.13: `Could not guard on data-dependent expression
        zuf0 < 0.001`). `t.clamp(min=...)` / `torch.maximum` keep it in the graph. An int read from data
        (`idx = t.argmax().item()`; `min(idx % w + 1, w - 1)`) exports: only values not known to be ints
        are flagged."""
        func = node.func
        if not (type(func) is cst.Name and func.value in ("min", "max") and ctx.qualify(func) in (None, func.value)):
            return False
        positional = [a for a in node.args if a.keyword is None]
        if len(positional) < 2 or any(a.star for a in node.args) or in_condition(ctx):
            return False  # one iterable: sort_compares_tensors; inside a condition: the condition is reported
        # data-dependent ints are fine: export takes min()/max() of them symbolically (torch 2.13 non-strict)
        return any(ctx.facts.is_value_dependent_certain(a.value) and not ctx.facts.is_integer_valued(a.value)
                   for a in positional)
