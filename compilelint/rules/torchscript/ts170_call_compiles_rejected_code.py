"""TS170: a call in `forward` that makes TorchScript compile a function it rejects."""
from __future__ import annotations

import dataclasses
import json
import os

import libcst as cst

from compilelint.analysis.scope import SCRIPT_EXEMPT, SCRIPT_ENTRY
from compilelint.rules.base import Example, Rule, RuleDoc, brief, fit_message
from compilelint.semantic.calls import tree_callee

_MAX_DEPTH = 12


def _resolve(index, module: str, kind: str, name: str, owner: str | None):  # noqa: ANN001, ANN202
    """The function key a call names, as compilelint.analysis.scope resolves it; None outside the tree."""
    if kind == "self":
        if owner is None:
            return None
        found = index.find_method(f"{module}:{owner}", name)
        # a method inherited from another file's class is followed no further: libraries rebind such methods when
        # the module is built (torch_geometric's MessagePassing.propagate comes from a template), so its source
        # is not what TorchScript compiles
        return found.key if found is not None and found.key.partition(":")[0] == module else None
    summary = index.modules.get(module)
    if summary is not None and name in summary.functions:
        return f"{module}:{name}"
    if summary is not None and name in summary.classes:
        return None  # constructing a class runs its __init__ in Python
    resolved = index.resolve(name)
    return resolved if resolved in index.functions else None


def _first_failure(index, key: str):  # noqa: ANN001, ANN202
    """(function key, finding) of the first function TorchScript rejects among those it compiles from `key`."""
    failures = getattr(index, "script_failures", {}) or {}
    seen: set[str] = set()
    queue = [(key, 0)]
    while queue:
        current, depth = queue.pop(0)
        fn = index.functions.get(current)
        if current in seen or fn is None or set(fn.decorators) & SCRIPT_EXEMPT or depth > _MAX_DEPTH:
            continue
        seen.add(current)
        if current in failures:
            return current, failures[current]
        module, _, local = current.partition(":")
        owner = local.split(".")[0] if "." in local else None
        for kind, name in [*fn.calls, *fn.untraced_calls]:  # what TorchScript compiles (not `if not scripting`)
            callee = _resolve(index, module, kind, name, owner)
            if callee is not None:
                queue.append((callee, depth + 1))
    return None


class CallCompilesRejectedCode(Rule):
    code = "TS170"
    name = "call-compiles-rejected-code"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    tree_facts = True
    uses_script_failures = True
    message = '`{call}` compiles `{callee}`: {code} at {where}'
    doc = RuleDoc(
        what=("Flags a call in `forward` (or an `@torch.jit.export` method) to a method of the module or a function "
              "of the tree that TorchScript cannot compile (another TS or TA rule's finding in it, or in what it "
              "calls)."),
        why=("`torch.jit.script` compiles every function and method the module's `forward` calls, as it meets the "
             "call, and names the call in `forward` as where the module failed (`'helper' is being compiled since it "
             "was called from 'M.forward'`): the module does not script until the callee is fixed or left to "
             "Python with `@torch.jit.ignore`."),
        example=("def gradient(x, *, order: int = 1):\n    return x * order\n\nclass M(nn.Module):\n"
                 "    def forward(self, x):\n        return gradient(x)"),
        use_instead=("def gradient(x, order: int = 1):\n    return x * order\n\nclass M(nn.Module):\n"
                     "    def forward(self, x):\n        return gradient(x)"),
    )
    bad = (
        Example('''
import torch
def gradient(x, *, order: int = 1):
    return x * order
class M(torch.nn.Module):
    def forward(self, x):
        return gradient(x)  # <-
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def scale(self, x):
        try:
            return x * 2
        except RuntimeError:
            return x
    def forward(self, x):
        y = x + 1
        return self.scale(y)  # <-
'''),
    )
    good = (
        Example('''
import torch
def gradient(x, order: int = 1):
    return x * order
class M(torch.nn.Module):
    def forward(self, x):
        return gradient(x)
''', check="script-call"),
        Example('''
import torch
class M(torch.nn.Module):
    @torch.jit.ignore
    def scale(self, x):
        try:
            return x * 2
        except RuntimeError:
            return x
    def forward(self, x):
        y = x + 1
        return self.scale(y)
'''),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        fn = ctx.function
        if fn is None or ctx.class_node is None or not (
                fn.name.value == "forward" or set(ctx.decorators) & SCRIPT_ENTRY):
            return
        callee = tree_callee(node, ctx)
        if callee is None:
            return
        kind, target = callee
        func = node.func
        ctx.report(node, pending=json.dumps([kind, target, ctx.code_for(func)]))

    @classmethod
    def settle(cls, finding, index, scope):  # noqa: ANN001, ANN206
        """Keep the call where what it compiles holds a TorchScript failure; name the callee and the failure."""
        if not finding.pending:
            return finding  # settled already: a copy the engine keeps (the original still holds its data)
        kind, target, written = json.loads(finding.pending)
        summary = index.summary_at(finding.path)
        if summary is None:
            return None
        owner = finding.context.partition(".")[0] or None
        key = _resolve(index, summary.module, kind, target, owner)
        found = _first_failure(index, key) if key is not None else None
        if found is None:
            return None
        failing_key, failure = found
        callee = brief(failing_key.partition(":")[2], 20)
        where = os.path.basename(failure.path) + (f":{failure.line}" if failure.line else "")
        # a copy: the engine settles the same finding again after placing other files' findings
        return dataclasses.replace(finding, pending="", message=fit_message(cls.message.format(
            call=brief(f"{written}(...)", 20), callee=callee, code=failure.code, where=brief(where, 22))))
