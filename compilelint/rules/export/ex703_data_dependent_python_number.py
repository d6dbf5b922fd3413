"""EX703: a Python int/float forced out of tensor data or out of a data-dependent size (`int(t)`,
`float(t)`, `len(keep)`, `range(n)` with n from `.item()`, a loop over `boxes[mask]`) under torch.export."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.export._common import ExportRule
from compilelint.rules.trace._util import in_condition
from compilelint.semantic.constructs import Construct

_LOOP_BUILTINS = ("range", "enumerate", "zip", "reversed")
# Splitting into a number of tensors that must be a concrete int (verified on 2.13 for a count from `.item()`)
_PIECES_METHODS = ("chunk", "split", "tensor_split")
_PIECES_FUNCS = ("torch.chunk", "torch.split", "torch.tensor_split")
_PIECES_KEYWORDS = ("chunks", "split_size", "split_size_or_sections", "sections", "indices_or_sections")


class ExportDataDependentPythonNumber(ExportRule):
    code = "EX703"
    construct = Construct.DATA_DEPENDENT_VALUE
    name = "export-data-dependent-python-number"
    message = '{what}: export needs a concrete number'
    version_note = ("Verified with torch.export.export(strict=False), the 2.13 default. With strict=True (2.13) "
                    "`int()` of a size or of a 0-d tensor exports (Dynamo keeps it symbolic); the loops, `len()`, "
                    "`range()` and container lookups fail there too. torch 2.11 (non-strict, verified) "
                    "fails where this rule is silent: `out[:n] = kept` with `n = kept.size(0)` (Could not guard "
                    "on Eq(u2, u1); EX717) and indexing a buffer with a 0-d tensor (`self.scales[x.argmax()]`: Could not "
                    "extract specialized integer; EX719); those good examples are marked min_torch 2.13.")
    doc = RuleDoc(
        what=("Flags code that turns a data-dependent quantity into a concrete Python number: `int()`/`float()` of a "
              "tensor, of a number read with `.item()` or of the size of a data-dependent tensor (nonzero, "
              "`x[mask]`, unique); `len()` of such a tensor; `range()` over such a number; `chunk()`/`split()`/`tensor_split()` into a "
              "number of pieces read with `.item()`; a `for` loop or comprehension over such a tensor; `.tolist()` of it; a Python list/tuple/dict indexed with a number "
              "read from tensor data, or a membership test (`t in self.special_ids`) of such a number. "
              "Parameters and buffers count as tensor data (`range(self.steps)` with a "
              "buffer `steps`): export makes them fake tensors too."),
        why=(('torch.export traces with fake tensors. `t.item()` and `keep.size(0)` give a symbolic number it can '
              'carry through the graph (slicing, `torch.zeros(n)` and arithmetic all accept it), but `int()`, '
              '`float()`, `len()` and Python iteration need the actual value, which does not exist while tracing: '
              'the export stops with `GuardOnDataDependentSymNode: Could not extract specialized integer`. Under '
              'torch.compile the same code breaks the graph; export has no fallback. Keep the value symbolic '
              '(`t.item()` / `k.size(0)` without `int()`/`len()`), keep it a tensor, or replace the loop with '
              'tensor ops.')),
        example="kept = boxes[scores > 0.5]\nn = int(kept.size(0))\nout[:n] = kept",
        use_instead="kept = boxes[scores > 0.5]\nn = kept.size(0)  # a symbolic size: exports on torch 2.13\nout[:n] = kept",
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, boxes, scores):
        kept = boxes[scores > 0.5][:10]
        out = boxes.new_zeros(10, 4)
        n = int(kept.size(0))  # <-
        out[:n] = kept
        return out
''', inputs="[(torch.randn(16, 4), torch.rand(16))]"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        return x[int(x[:, 0].argmax())]  # <-
''', inputs="[(torch.randn(6, 3),)]"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, boxes, scores):
        keep = torch.nonzero(scores > 0.5).squeeze(1)
        total = boxes.new_zeros(4)
        for i in range(len(keep)):  # <-
            total = total + boxes[keep[i]]
        return total
''', inputs="[(torch.randn(16, 4), torch.rand(16))]"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, boxes, scores):
        kept = boxes[scores > 0.5]
        return torch.stack([b * 2 for b in kept]).sum(0)  # <-
''', inputs="[(torch.randn(16, 4), torch.rand(16))]"),
        Example('''import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("steps", torch.tensor(3))
        self.refine = torch.nn.Linear(4, 4)

    def forward(self, boxes):
        for _ in range(self.steps):  # <-
            boxes = boxes + 0.1 * torch.tanh(self.refine(boxes))
        return boxes
''', inputs="[(torch.randn(5, 4),)]"),
        Example('''import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(12, 3)
        self.scales = [0.5, 1.0, 2.0]

    def forward(self, x):
        best = self.fc(x).mean(0).argmax().item()
        return x * self.scales[best]  # <-
''', inputs="[(torch.randn(2, 12),)]"),
        Example('''import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.special = {0, 1, 2}

    def forward(self, ids):
        n = 0
        for t in ids.tolist():
            if t not in self.special:  # <-
                n += 1
        return ids * n
''', inputs="[(torch.tensor([0, 5, 7, 1]),)]"),
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.p = torch.nn.Linear(4, 4)

    def forward(self, x, groups):
        h = self.p(x)
        parts = h.chunk(groups.max().item(), dim=1)  # <-
        return parts[0]
''', inputs="[(torch.randn(6, 4), torch.tensor([1, 2]))]"),
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.p = torch.nn.Linear(4, 4)

    def forward(self, x, lengths):
        h = self.p(x)
        n = lengths.max().item()
        return torch.tensor_split(h, n, dim=1)[0]  # <-
''', inputs="[(torch.randn(6, 4), torch.tensor([2, 4]))]"),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, boxes, scores):
        kept = boxes[scores > 0.5][:10]
        out = boxes.new_zeros(10, 4)
        n = kept.size(0)
        out[:n] = kept
        return out
''', inputs="[(torch.randn(16, 4), torch.rand(16))]", min_torch="2.13"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        return x[x[:, 0].argmax().item()]
''', inputs="[(torch.randn(6, 3),)]"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, boxes, scores):
        keep = torch.nonzero(scores > 0.5).squeeze(1)
        return boxes[keep].sum(0)
''', inputs="[(torch.randn(16, 4), torch.rand(16))]"),
        Example('''import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.steps = 3
        self.refine = torch.nn.Linear(4, 4)
        self.register_buffer("scales", torch.tensor([0.5, 1.0, 2.0]))

    def forward(self, boxes):
        for _ in range(self.steps):
            boxes = boxes + 0.1 * torch.tanh(self.refine(boxes))
        best = boxes.mean(1).argmax()
        return boxes * self.scales[best]
''', inputs="[(torch.randn(5, 4),)]", min_torch="2.13"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, boxes, scores):
        out = boxes.new_zeros(4)
        for i in range(boxes.size(0)):
            out = out + boxes[i] * float(i)
        return out
''', inputs="[(torch.randn(16, 4), torch.rand(16))]"),
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.p = torch.nn.Linear(4, 4)

    def forward(self, x, k):
        h = self.p(x)
        top = h.topk(k.max().item(), dim=0).values
        return torch.cat(h.chunk(2, dim=1), 0).sum() + top.sum()
''', inputs="[(torch.randn(6, 4), torch.tensor([1, 2]))]"),
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.p = torch.nn.Linear(4, 4)

    def forward(self, x, lengths):
        h = self.p(x)
        return torch.stack([seg.mean(0) for seg in h.split(lengths.tolist())])
''', inputs="[(torch.randn(6, 4), torch.tensor([2, 4]))]"),
    )

    def _data_number(self, expr: cst.BaseExpression, ctx) -> bool:  # noqa: ANN001
        """A Python number whose value depends on tensor data (not a bare parameter used as a number)."""
        facts = ctx.facts
        if facts.reads_dynamic_size(expr):
            return True
        if facts.is_assumed_tensor(expr) or self._numpy(expr, ctx):
            return False  # (model state counts: export makes parameters and buffers fake tensors too)
        return facts.kind(expr) in (Kind.TENSOR, Kind.VALUE)

    @staticmethod
    def _numpy(expr: cst.BaseExpression, ctx) -> bool:  # noqa: ANN001
        """`float(np.abs(arr).mean())`: a NumPy value; under export the `.numpy()` that made it fails instead
        (TS126), and a NumPy number converts fine."""
        stack: list[cst.CSTNode] = [expr]
        while stack:
            node = stack.pop()
            if type(node) is cst.Call:
                name = ctx.qualify(node.func) or ""
                if name.startswith("numpy.") or (type(node.func) is cst.Attribute and node.func.attr.value == "numpy"):
                    return True
                stack.append(node.func)
                stack.extend(a.value for a in node.args)
            elif type(node) is cst.Attribute:
                stack.append(node.value)
            elif type(node) in (cst.BinaryOperation, cst.UnaryOperation, cst.Subscript):
                stack.extend(c for c in node.children if isinstance(c, cst.BaseExpression))
        return False

    def _report(self, ctx, node, what: str) -> None:  # noqa: ANN001
        self.report(ctx, node, self.message.format(what=what))

    def _iter(self, iterable: cst.BaseExpression, ctx) -> None:  # noqa: ANN001
        facts = ctx.facts
        if facts.has_dynamic_shape(iterable):
            self._report(ctx, iterable, "iterating a tensor of data-dependent length")
        elif (type(iterable) is cst.Call and type(iterable.func) is cst.Name
              and iterable.func.value in _LOOP_BUILTINS):
            for arg in iterable.args:
                if facts.has_dynamic_shape(arg.value) or (iterable.func.value == "range" and self._data_number(arg.value, ctx)):
                    self._report(ctx, iterable, f"`{iterable.func.value}()` over a data-dependent count")
                    return

    def visit_For(self, node: cst.For, ctx) -> None:  # noqa: ANN001
        self._iter(node.iter, ctx)

    def visit_CompFor(self, node: cst.CompFor, ctx) -> None:  # noqa: ANN001
        self._iter(node.iter, ctx)

    def _inside_reported(self, ctx) -> bool:  # noqa: ANN001
        """Inside a loop's `range(...)`/iterable or an enclosing int()/float()/len() already reported."""
        anc = ctx.ancestors
        for outer in reversed(anc[:-1]):
            if type(outer) in (cst.For, cst.CompFor):
                return True  # the loop iterable is reported by _iter (or is fine)
            if type(outer) is cst.Call and type(outer.func) is cst.Name and outer.func.value in (
                    "int", "float", "len", *_LOOP_BUILTINS):
                return True
            if isinstance(outer, (cst.BaseStatement, cst.BaseSmallStatement)):
                return False
        return False

    def visit_Subscript(self, node: cst.Subscript, ctx) -> None:  # noqa: ANN001
        """`self.names[i]` with `i` from `.tolist()` / `.item()`: a Python list, tuple, dict or ModuleList needs
        the concrete index (a tensor accepts a symbolic one)."""
        facts = ctx.facts
        if facts.kind(node.value) is Kind.TENSOR or in_condition(ctx):
            return
        for element in node.slice:
            index = element.slice
            if type(index) is cst.Index and facts.kind(index.value) is Kind.VALUE \
                    and not facts.is_assumed_tensor(index.value):
                self._report(ctx, index.value, "container indexed by a number from tensor data")
                return

    def visit_Comparison(self, node: cst.Comparison, ctx) -> None:  # noqa: ANN001
        """`if t not in self.special_ids` with `t` from `.tolist()`: membership in a Python set/dict hashes the
        number, which export cannot do with a symbolic one (`unhashable type: non-nested SymInt`)."""
        facts = ctx.facts
        if (len(node.comparisons) == 1 and type(node.comparisons[0].operator) in (cst.In, cst.NotIn)
                and facts.kind(node.left) is Kind.VALUE and not facts.is_assumed_tensor(node.left)
                and facts.kind(node.comparisons[0].comparator) not in (Kind.TENSOR, Kind.VALUE)):
            self._report(ctx, node, "`in` test of a number from tensor data")

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if in_condition(ctx):
            return  # EX701 / EX702 report the condition
        if type(func) is cst.Name and len(node.args) == 1 and func.value in ("int", "float", "len"):
            arg = node.args[0].value
            if self._inside_reported(ctx):
                return
            if func.value == "len":
                if ctx.facts.has_dynamic_shape(arg):
                    self._report(ctx, node, "`len()` of a data-dependent tensor")
            elif self._data_number(arg, ctx):
                self._report(ctx, node, f"`{func.value}()` of a data-dependent value")
        elif (type(func) is cst.Attribute and func.attr.value == "tolist" and not node.args
              and ctx.facts.has_dynamic_shape(func.value) and not self._inside_reported(ctx)):
            self._report(ctx, node, "`.tolist()` of a data-dependent tensor")
        else:
            self._pieces(node, ctx)

    def _pieces(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        """`h.chunk(n)` / `h.split(n)` / `torch.tensor_split(h, n)` with n read from tensor data by `.item()`:
        the number of tensors returned must be a concrete Python int."""
        func = node.func
        name = ctx.qualify(func) or ""
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        if name in _PIECES_FUNCS:
            count = positional[1] if len(positional) > 1 else None
        elif type(func) is cst.Attribute and func.attr.value in _PIECES_METHODS and ctx.facts.is_tensor(func.value):
            count = positional[0] if positional else None
        else:
            return
        count = next((a.value for a in node.args if a.keyword is not None and a.keyword.value in _PIECES_KEYWORDS),
                     count)
        facts = ctx.facts
        # a scalar from `.item()`: sizes from `.tolist()` of a fixed-length tensor give a known number of pieces
        # (`h.split(lengths.tolist())` exports)
        if (count is not None and facts.kind(count) is Kind.VALUE and facts.is_script_number(count)
                and not facts.is_assumed_tensor(count) and not self._inside_reported(ctx)):
            self._report(ctx, node, f"`{func.attr.value if type(func) is cst.Attribute else name}()` into a data-dependent count")
