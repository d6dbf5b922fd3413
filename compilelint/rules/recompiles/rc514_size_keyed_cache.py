from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.dynamo import size_keyed_lookup
from compilelint.rules.base import Example, Rule, RuleDoc


class SizeKeyedCache(Rule):
    code = "RC514"
    name = "size-keyed-cache"
    call_gate = gate(methods={"get", "setdefault", "pop"})
    family = "recompile"
    targets = ("recompile",)
    severity = "warning"
    message = ("`{code}` looks the size `{key}` up in a dict on the module: Dynamo specialises a size used as a dict "
               "key, so every new input size recompiles (without the cache, automatic dynamic would keep one graph "
               "for all sizes), and past the recompile limit (8) the function runs eagerly; compute the tensor from "
               "the size on each call (it is traced once), or cache only outside the compiled code")
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
        key = size_keyed_lookup(node, ctx)
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
        ctx.report(node, self.message.format(code=ctx.code_for(node), key=ctx.code_for(key)))

    def visit_Subscript(self, node: cst.Subscript, ctx) -> None:  # noqa: ANN001
        self._check(node, ctx)

    def visit_Comparison(self, node: cst.Comparison, ctx) -> None:  # noqa: ANN001
        self._check(node, ctx)

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        self._check(node, ctx)
