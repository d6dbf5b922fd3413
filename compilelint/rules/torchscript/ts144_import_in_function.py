"""TS144: `import` inside a compiled function."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc


class ImportInFunction(Rule):
    code = "TS144"
    name = "import-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`import` inside a function is not scriptable'
    doc = RuleDoc(
        what="Flags `import` / `from ... import` statements inside functions `torch.jit.script` compiles.",
        why="Scripting fails with `import statements aren't supported`, wherever the import sits in the body "
            "(even under `if not torch.jit.is_scripting():`: the parser rejects it before any branch is "
            "resolved).",
        example="def forward(self, x):\n    import torch.nn.functional as F\n    return F.relu(x)",
        use_instead="import torch.nn.functional as F\n...\ndef forward(self, x):\n    return F.relu(x)",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        import torch.nn.functional as F  # <-
        return F.relu(x)
'''),
    )
    good = (
        Example('''
import torch
import torch.nn.functional as F
class M(torch.nn.Module):
    def forward(self, x):
        return F.relu(x)
''', check="script-call"),
    )

    def visit_Import(self, node: cst.Import, ctx) -> None:  # noqa: ANN001
        if ctx.function is not None:
            ctx.report(node)

    def visit_ImportFrom(self, node: cst.ImportFrom, ctx) -> None:  # noqa: ANN001
        if ctx.function is not None:
            ctx.report(node)
