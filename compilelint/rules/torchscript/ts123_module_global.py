"""TS123: reading a module-level constant."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.script_support import is_load, iter_statements, module_constants
from compilelint.rules.base import Example, RuleDoc, brief
from compilelint.rules.torchscript._semantic import SemanticScriptRule


class ModuleGlobal(SemanticScriptRule):
    code = "TS123"
    name = "module-global-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    has_fix = False
    message = 'global `{name}` ({what}) is not scriptable; copy it to `self`'
    doc = RuleDoc(
        what="Flags reads of module-level variables bound to plain values (numbers, strings, `None`, "
             "tuples/lists/dicts of those, dtypes) in code `torch.jit.script` compiles, including names bound "
             "by unpacking (`X0, Y0, GRID = 0.0, -25.6, 128`).",
        why="TorchScript resolves only functions, classes and modules from the global scope: a global "
            "`EPS = 1e-5` fails with `python value of type 'float' cannot be used as a value. Perhaps it is "
            "a closed over global variable?` (a `None` global with `undefined value`), even when annotated "
            "`Final`. A parameter default (`eps: float = EPS`) and `__init__` (`self.eps = EPS`) are "
            "evaluated by Python and are fine.",
        example="EPS = 1e-5\n...\n    def forward(self, x):\n        return x / (x.norm() + EPS)",
        use_instead="EPS = 1e-5\n...\n    def __init__(self):\n        super().__init__()\n        self.eps = EPS\n"
                    "    def forward(self, x):\n        return x / (x.norm() + self.eps)",
    )
    bad = (
        Example('''
import torch
EPS = 1e-5
class M(torch.nn.Module):
    def forward(self, x):
        return x / (x.norm() + EPS)  # <-
'''),
        Example('''
import torch
if torch.__version__ >= "2":
    DOWNCAST = {torch.float64: torch.float32}
def adjust(dtype: torch.dtype) -> torch.dtype:
    return DOWNCAST.get(dtype, dtype)  # <-
class M(torch.nn.Module):
    def forward(self, x):
        return x.to(adjust(x.dtype))
'''),
        Example('''
import torch
MODES = ("sum", "mean")
def reduce(x, mode: str):
    if mode == MODES[0]:  # <-
        return x.sum()
    return x.mean()
class M(torch.nn.Module):
    def forward(self, x):
        return reduce(x, "sum")
'''),
        Example('''
import torch
X0, Y0, GRID = 0.0, -25.6, 128
class M(torch.nn.Module):
    def forward(self, points):
        ix = torch.floor(points[:, 0] - X0)  # <-
        return ix.clamp(0, GRID - 1)  # <-
'''),
    )
    good = (
        Example('''
import torch
EPS = 1e-5
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.eps = EPS
    def forward(self, x, scale: float = EPS):
        EPS = 2.0
        return x / (x.norm() + self.eps) * scale * EPS
''', check="script-call"),
    )

    def begin_function(self, ctx) -> None:  # noqa: ANN001
        if getattr(self, "_module", None) is not ctx.module:
            self._module = ctx.module
            self._constants = module_constants(ctx.module, ctx.aliases)

    def visit_Name(self, node: cst.Name, ctx) -> None:  # noqa: ANN001
        if ctx.function is None or not self._constants:
            return
        what = self._constants.get(node.value)
        if what is None or node.value in ctx.facts.env or node.value in ctx.facts.aliases:
            return
        # Local bindings anywhere in the function shadow the global (TorchScript scopes like Python).
        if node.value in self._locals(ctx):
            return
        parent = ctx.parent
        if not is_load(node, parent):
            return
        if type(parent) in (cst.Element, cst.StarredElement) and self._in_target(ctx):
            return
        article = "an" if what[0] in "aeiou" else "a"
        ctx.report(node, self.message.format(name=brief(node.value, 28), what=f"{article} {what}", lower=node.value.lower()))

    def _in_target(self, ctx) -> bool:  # noqa: ANN001
        for anc in reversed(ctx.ancestors):
            if type(anc) in (cst.AssignTarget, cst.For, cst.CompFor, cst.Del):
                return True
            if type(anc) not in (cst.Element, cst.StarredElement, cst.Tuple, cst.List):
                return False
        return False

    def _locals(self, ctx) -> set[str]:  # noqa: ANN001
        fn = ctx.function
        cache = getattr(self, "_local_cache", None)
        if cache is not None and cache[0] is fn:
            return cache[1]
        names: set[str] = set()
        p = fn.params
        for param in [*p.posonly_params, *p.params, *p.kwonly_params]:
            names.add(param.name.value)

        def _collect(t: cst.BaseExpression) -> None:
            if type(t) is cst.Name:
                names.add(t.value)
            elif type(t) in (cst.Tuple, cst.List):
                for e in t.elements:
                    _collect(e.value)
            elif type(t) is cst.StarredElement:
                _collect(t.value)

        for stmt in iter_statements(fn.body):
            if type(stmt) is cst.SimpleStatementLine:
                for small in stmt.body:
                    if type(small) is cst.Assign:
                        for target in small.targets:
                            _collect(target.target)
                    elif type(small) in (cst.AnnAssign, cst.AugAssign):
                        _collect(small.target)
            elif type(stmt) is cst.For:
                _collect(stmt.target)
            elif type(stmt) is cst.With:
                for item in stmt.items:
                    if item.asname is not None:
                        _collect(item.asname.name)
            elif type(stmt) in (cst.FunctionDef, cst.ClassDef):
                names.add(stmt.name.value)
        self._local_cache = (fn, names)
        return names
