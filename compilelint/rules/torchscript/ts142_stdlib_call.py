"""TS142: standard-library helpers TorchScript cannot compile."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule
from compilelint.semantic.constructs import Construct

# Module (or module.function) prefix -> fix. Each verified on torch 2.13 (tests/test_torchscript_tables.py).
STDLIB_UNSUPPORTED = {
    "itertools.": "write the loops out",
    "functools.": "call the function directly",
    "operator.": "use the operator itself (`a * b`)",
    "json.": "serialise outside the scripted code",
    "pickle.": "serialise outside the scripted code",
    "re.": "use `str` methods",
    "os.path.": "resolve paths when the module is built",
    "os.getpid": "read it outside the scripted code",
    "sys.exit": "raise an exception",
    "collections.defaultdict": "use a `Dict` and `d.get(k, default)`",
    "scipy.": "use the torch equivalent",
}


class StdlibCall(SemanticScriptRule):
    code = "TS142"
    call_gate = gate(heads={p.partition(".")[0] for p in STDLIB_UNSUPPORTED})
    construct = Construct.PYTHON_LIBRARY_CALL
    name = "python-library-call-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`{name}(...)` is not scriptable; {fix}'
    doc = RuleDoc(
        what="Flags calls into Python libraries TorchScript cannot compile: `itertools`, `functools`, "
             "`operator`, `json`, `pickle`, `re`, `os.path`, `os.getpid`, `sys.exit`, "
             "`collections.defaultdict`, `scipy`.",
        why="Scripting fails on them: C builtins are `not supported in Torchscript`, pure-Python ones fail "
            "inside their own source (`try blocks aren't supported`, `Can't get source`, "
            "`Compiled functions can't take variable number of arguments`).",
        example="for a, b in itertools.product(self.scales, self.ratios):",
        use_instead="for a in self.scales:\n    for b in self.ratios:",
    )
    bad = (
        Example('''
import itertools
import torch
class M(torch.nn.Module):
    def forward(self, x):
        pairs = list(itertools.product([1, 2], [3]))  # <-
        return x * len(pairs)
'''),
        Example('''
import operator
import torch
class M(torch.nn.Module):
    def forward(self, x):
        n = operator.mul(x.size(0), x.size(1))  # <-
        return x.reshape(n)
'''),
        Example('''
import re
import torch
class M(torch.nn.Module):
    def forward(self, x):
        mode = "bilinear"
        if re.match("bi", mode):  # <-
            return x * 2
        return x
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        pairs = [(a, 3) for a in [1, 2]]
        n = x.size(0) * x.size(1)
        mode = "bilinear"
        if mode.startswith("bi"):
            return x.reshape(n) * 2
        return x.reshape(n)
''', check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if ctx.function is None:
            return
        name = ctx.qualify(node.func)
        if name is None or (type(node.func) is cst.Name and node.func.value in ctx.facts.env):
            return
        for prefix, fix in STDLIB_UNSUPPORTED.items():
            if name == prefix or (prefix.endswith(".") and name.startswith(prefix)):
                ctx.report(node, self.message.format(name=name, fix=fix))
                return
