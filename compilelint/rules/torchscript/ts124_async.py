"""TS124: `async def` / `await`."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc


class AsyncInScript(Rule):
    code = "TS124"
    name = "async-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`async`/`await` is not scriptable; use a plain `def`'
    doc = RuleDoc(
        what="Flags `async def` functions and `await` expressions in code `torch.jit.script` compiles.",
        why="Scripting an `async def` fails (`Expected a single top-level function`): TorchScript's parser "
            "does not know coroutines. `torch.jit.fork`/`torch.jit.wait` are its way to run work concurrently.",
        example="@torch.jit.export\nasync def prefetch(self, x):\n    return x",
        use_instead="@torch.jit.export\ndef prefetch(self, x):\n    return x",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return x
    @torch.jit.export
    async def prefetch(self, x):  # <-
        return x
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        fut = torch.jit.fork(self.prefetch, x)
        return torch.jit.wait(fut)
    @torch.jit.export
    def prefetch(self, x):
        return x * 2
''', check="script-call"),
    )

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx) -> None:  # noqa: ANN001
        if node is ctx.function and node.asynchronous is not None:
            ctx.report(node.name)

    def visit_Await(self, node: cst.Await, ctx) -> None:  # noqa: ANN001
        fn = ctx.function
        if fn is not None and fn.asynchronous is None:
            ctx.report(node)
