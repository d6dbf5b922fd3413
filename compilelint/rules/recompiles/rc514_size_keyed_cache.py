from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, Rule, RuleDoc, brief
from compilelint.semantic.attributes import dict_attribute
from compilelint.semantic.frames import dynamic_size, reaches_entry_values


def _size_key(expr: cst.BaseExpression, ctx) -> bool:  # noqa: ANN001
    """A size, a shape, or a tuple holding a size: a dict key Dynamo must specialise to look up."""
    if type(expr) is cst.Tuple:
        return any(_size_key(e.value, ctx) for e in expr.elements)
    return dynamic_size(expr, ctx, True)


def _size_keyed_lookup(node: cst.CSTNode, ctx) -> cst.BaseExpression | None:  # noqa: ANN001
    """The key, when `node` looks a tensor size up in a dict attribute of the module (`self.cache[(h, w)]`,
    `(h, w) in self.cache`, `self.cache.get(n)` / `.setdefault(n, ...)`) in a compiled frame's entry. The lookup
    specialises the size: every new size recompiles (verified on 2.13: tuple, int and .get keys, five sizes, four
    recompiles each; one without the cache)."""
    if not reaches_entry_values(ctx):
        return None
    t = type(node)
    if t is cst.Subscript and dict_attribute(node.value, ctx) and len(node.slice) == 1 and type(node.slice[0].slice) is cst.Index:
        key = node.slice[0].slice.value
        return key if _size_key(key, ctx) else None
    if t is cst.Comparison and len(node.comparisons) == 1 and type(node.comparisons[0].operator) in (cst.In, cst.NotIn):
        if dict_attribute(node.comparisons[0].comparator, ctx) and _size_key(node.left, ctx):
            return node.left
        return None
    if t is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in ("get", "setdefault", "pop"):
        if dict_attribute(node.func.value, ctx) and node.args and _size_key(node.args[0].value, ctx):
            return node.args[0].value
    return None


class SizeKeyedCache(Rule):
    code = "RC514"
    name = "size-keyed-cache"
    call_gate = gate(methods={"get", "setdefault", "pop"})
    family = "recompile"
    targets = ("recompile",)
    severity = "warning"
    message = 'size `{key}` as a dict key: each new size recompiles'
    version_note = ("Verified on 2.13 (its examples also on 2.11) with five input sizes: `(h, w) in self.cache` / `self.cache[(h, w)]`, "
                    "`self.cache[n]` and `self.cache.get(n)` gave four recompiles each; the same module computing "
                    "the tensor every call, one. Reported at the first lookup of each dict in a function.")
    doc = RuleDoc(
        what=("Flags, in a module's `forward`, a `@torch.compile` function or a method `forward` passes its inputs to, a dict attribute of the module "
              "(set to `{}`/`dict()` in `__init__`) indexed, tested with `in`, or read with `.get`/`.setdefault`/"
              "`.pop` by a tensor size or a tuple of sizes."),
        why=("Positional encodings, anchors, coordinate grids and attention masks are often memoised per input "
             "resolution in a dict. In eager mode that saves work; under torch.compile the dict lookup needs the "
             "size as a concrete key, so Dynamo specialises it, and each new resolution, point count or sequence "
             "length recompiles instead of reusing one dynamic graph."),
        example="h, w = x.shape[-2:]\nif (h, w) not in self.grids:\n    self.grids[(h, w)] = make_grid(h, w)\ngrid = self.grids[(h, w)]",
        use_instead="h, w = x.shape[-2:]\ngrid = make_grid(h, w)  # traced once, for every size",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.grids = {}

    def forward(self, x):
        h, w = x.shape[-2:]
        if (h, w) not in self.grids:  # <-
            self.grids[(h, w)] = torch.arange(w, dtype=x.dtype).expand(h, w)
        return x + self.grids[(h, w)]
''', inputs="[(torch.randn(2, n, n + 1),) for n in (3, 4, 5, 6)]", check="recompile-each"),
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.pe = dict()

    def forward(self, tokens):
        n = tokens.shape[1]
        pe = self.pe.get(n)  # <-
        if pe is None:
            pe = torch.sin(torch.arange(n, dtype=tokens.dtype))[:, None]
            self.pe[n] = pe
        return tokens + pe
''', inputs="[(torch.randn(2, n, 8),) for n in (10, 12, 14, 16)]", check="recompile-each"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        h, w = x.shape[-2:]
        return x + torch.arange(w, dtype=x.dtype).expand(h, w)
''', inputs="[(torch.randn(2, n, n + 1),) for n in (3, 4, 5, 6)]", check="recompile-each"),
    )

    def __init__(self) -> None:
        super().__init__()
        self._function = None
        self._seen: set[str] = set()

    def _check(self, node: cst.CSTNode, ctx) -> None:  # noqa: ANN001
        key = _size_keyed_lookup(node, ctx)
        if key is None:
            return
        if ctx.function is not self._function:
            self._function, self._seen = ctx.function, set()
        target = node.value if type(node) is cst.Subscript else (
            node.comparisons[0].comparator if type(node) is cst.Comparison else node.func.value)
        attr = target.attr.value
        if attr in self._seen:
            return
        self._seen.add(attr)
        ctx.report(node, self.message.format(code=brief(ctx.code_for(node), 24), key=brief(ctx.code_for(key), 24)))

    def visit_Subscript(self, node: cst.Subscript, ctx) -> None:  # noqa: ANN001
        self._check(node, ctx)

    def visit_Comparison(self, node: cst.Comparison, ctx) -> None:  # noqa: ANN001
        self._check(node, ctx)

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        self._check(node, ctx)
