"""Base for TorchScript rules about what the compiler *emits* (calls, lookups, types), as opposed to
syntax its parser rejects everywhere. TorchScript does not emit code in `if not torch.jit.is_scripting():`
branches (or after `if torch.jit.is_scripting(): return ...`), so such rules skip nodes there, and in
decorator expressions, which Python evaluates at import time."""
from __future__ import annotations

import functools

from compilelint.analysis.script_support import dead_when_scripting, in_decorator
from compilelint.rules.base import Rule


def _guard(visit):  # noqa: ANN001, ANN202
    @functools.wraps(visit)
    def guarded(self, node, ctx):  # noqa: ANN001, ANN202
        # Run the rule, then drop what it reported if the node is in a decorator or in a branch TorchScript
        # does not compile: the (cheap) check runs only when the rule found something.
        candidates = ctx._analyzer.candidates
        before = len(candidates)
        visit(self, node, ctx)
        if len(candidates) == before:
            return None
        path = [*ctx.ancestors, node]
        if in_decorator(path, ctx.function) or (
                # A rule that also targets another path (torch.export runs those branches) keeps the finding.
                tuple(self.targets) == ("torchscript",) and dead_when_scripting(path, ctx.function)):
            del candidates[before:]
        return None
    return guarded


class SemanticScriptRule(Rule):
    def __init_subclass__(cls, **kwargs) -> None:  # noqa: ANN003
        super().__init_subclass__(**kwargs)
        for name, value in list(vars(cls).items()):
            if name.startswith("visit_") and callable(value):
                setattr(cls, name, _guard(value))
