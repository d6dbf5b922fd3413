"""GB444 numpy-value-read: Flags reading a NumPy array made from a tensor into Python (float(), .item(), .tolist(), a branch, np.nonzero) in compiled code"""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import BreakRule
from compilelint.semantic.calls import call_name
from compilelint.semantic.constructs import Construct
from compilelint.torchapi.dynamo import ARRAY_DYNAMIC_SIZE, ARRAY_TO_PYTHON


class NumpyValueRead(BreakRule):
    code = 'GB444'
    construct = Construct.DATA_DEPENDENT_VALUE
    also_gb_ids = ('GB0036', 'GB0109', 'GB0170')
    name = 'numpy-value-read'
    gb_id = 'GB0033'
    severity = "warning"
    message = 'Python read of a tensor-made NumPy array breaks the graph'
    version_note = ('Verified on 2.13: with `a = x.numpy()` (also `np.asarray(x)`, `np.array(x)`, after `.detach().cpu()`), '
                    'float/int/bool/round/math.* of `a` or of a NumPy result of it (`np.percentile(a, 95)`, `a.max()`, '
                    '`a[0, 0] > 0`) and `.item()` break with GB0033, `.tolist()` with GB0109 (float and bool arrays; GB0033 '
                    'for integer ones, as for tensors), `if`/`while`/a conditional '
                    'expression on it with GB0170, np.nonzero/np.unique and `a[a > 0]` with GB0036; NumPy arithmetic, '
                    '`len(a)` and `a.shape` are traced. Older torch broke at `.numpy()` itself. On torch 2.11 '
                    'torch.quantile breaks too (GB0033; its good example is marked min_torch 2.13): a sorted tensor '
                    'indexed at the rank (`d.sort().values[int(0.95 * (d.numel() - 1))]`) is traced on both.')
    doc = RuleDoc(
        what=('Flags, in code torch.compile traces, Python reads of a NumPy array made from a tensor (`t.numpy()`, '
              '`np.asarray(t)`) or computed from one: `float()`, `int()`, `bool()`, `round()` or `math.*` of it, '
              '`.item()`, `.tolist()`, an `if`/`while`/conditional expression on it, `np.nonzero`/`np.argwhere`/'
              '`np.flatnonzero`/`np.unique` of it, and indexing it with a mask made from it.'),
        why=('Post-processing written against NumPy (a depth percentile, a peak position, a threshold test) '
             'compiles further than it used to: Dynamo turns the array into a traced tensor. The moment the code '
             'needs an actual value in Python, Dynamo has none: the graph ends there, the rest runs in a new '
             'graph, and the value usually becomes a guard (a recompile for each new one).'),
        example='depth = d.detach().cpu().numpy()\nfar = float(np.percentile(depth, 95))\nreturn d / far',
        use_instead='far = torch.quantile(d.flatten(), 0.95)\nreturn d / far',
    )
    bad = (
        Example('''import numpy as np
import torch


class M(torch.nn.Module):
    def forward(self, depth):
        d = depth.detach().cpu().numpy()
        far = float(np.percentile(d, 95))  # <-
        return depth / far
''', inputs="[(torch.rand(16, 16) + 0.5,), (torch.rand(16, 16) + 0.5,)]"),
        Example('''import numpy as np
import torch


class M(torch.nn.Module):
    def forward(self, heat):
        h = heat.detach().numpy()
        if h.max() > 0.9:  # <-
            heat = heat * 0.5
        return heat.sigmoid()
''', inputs="[(torch.rand(8, 8),), (torch.rand(8, 8),)]", gb_id="GB0170"),
        Example('''import numpy as np
import torch


class M(torch.nn.Module):
    def forward(self, scores):
        s = np.asarray(scores.detach())
        keep = np.nonzero(s > 0.5)[0]  # <-
        return scores.sum() + len(keep)
''', inputs="[(torch.rand(10),), (torch.rand(10),)]", gb_id="GB0036"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, boxes):
        rows = boxes.detach().cpu().numpy().tolist()  # <-
        return boxes * 2.0 + rows[0][0]
''', inputs="[(torch.randn(6, 4),), (torch.randn(6, 4),)]", gb_id="GB0109"),
    )
    good = (
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, depth):
        far = torch.quantile(depth.flatten(), 0.95)
        return depth / far
''', inputs="[(torch.rand(16, 16) + 0.5,), (torch.rand(16, 16) + 0.5,)]", min_torch="2.13"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, depth):
        d = depth.flatten()
        far = d.sort().values[int(0.95 * (d.numel() - 1))]
        return depth / far
''', inputs="[(torch.rand(16, 16) + 0.5,), (torch.rand(16, 16) + 0.5,)]"),
        Example('''import numpy as np
import torch


class M(torch.nn.Module):
    def forward(self, heat):
        h = heat.detach().numpy()
        scaled = np.clip(h * 2.0, 0.0, 1.0)
        return torch.from_numpy(scaled) + len(h)
''', inputs="[(torch.rand(8, 8),), (torch.rand(8, 8),)]"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, heat):
        return torch.where(heat.max() > 0.9, heat * 0.5, heat).sigmoid()
''', inputs="[(torch.rand(8, 8),), (torch.rand(8, 8),)]"),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        facts = ctx.facts
        node_type = type(node)
        if node_type in (cst.If, cst.While, cst.IfExp):
            test = node.test
            while type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
                test = test.expression
            tests = [test.left, test.right] if type(test) is cst.BooleanOperation else [test]
            return "GB0170" if any(facts.is_traced_array(t) for t in tests) else None
        if node_type is cst.Subscript:
            mask = next((e.slice.value for e in node.slice if type(e.slice) is cst.Index
                         and type(e.slice.value) is cst.Comparison and facts.is_traced_array(e.slice.value)), None)
            return "GB0036" if mask is not None and facts.is_traced_array(node.value) else None
        if node_type is not cst.Call:
            return None
        func = node.func
        if type(func) is cst.Name and func.value in ARRAY_TO_PYTHON and node.args:
            return "GB0033" if facts.is_traced_array(node.args[0].value) else None
        if type(func) is cst.Attribute and func.attr.value in ("item", "tolist") and not node.args:
            if facts.is_traced_array(func.value):
                return "GB0033" if func.attr.value == "item" else "GB0109"
            return None
        name = call_name(node, ctx)
        if name.startswith("math.") and node.args and facts.is_traced_array(node.args[0].value):
            return "GB0033"
        if name in ARRAY_DYNAMIC_SIZE and node.args and facts.is_traced_array(node.args[0].value):
            return "GB0036"
        return None

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        self.check(node, ctx)

    def visit_If(self, node: cst.If, ctx) -> None:  # noqa: ANN001
        self.check(node, ctx, report_at=node.test)

    def visit_While(self, node: cst.While, ctx) -> None:  # noqa: ANN001
        self.check(node, ctx, report_at=node.test)

    def visit_IfExp(self, node: cst.IfExp, ctx) -> None:  # noqa: ANN001
        self.check(node, ctx)

    def visit_Subscript(self, node: cst.Subscript, ctx) -> None:  # noqa: ANN001
        self.check(node, ctx)
