"""Which code is compiled, and by what.

Entry points: `forward` of every nn.Module (all compile paths), `@torch.jit.export` methods
(TorchScript), `@torch.jit.script` functions, `@torch.compile` functions and `torch.compile(fn)`,
`torch.jit.script(fn)`, `torch.jit.trace(fn, ...)` targets. From each entry, what it calls in the
linted tree (self methods through the class's bases, module functions, imported functions) is in
scope for the same compile paths. `@torch.jit.ignore`/`@torch.jit.unused` stop TorchScript from
compiling a body (trace and Dynamo still run it); `@torch.compiler.disable` stops Dynamo; the body of a
`@torch.library.custom_op` is compiled by none of them (each records one call of the op).
"""

from __future__ import annotations

from collections import deque

from compilelint.analysis.index import FunctionInfo, RepoIndex
from compilelint.semantic.custom_ops import OPAQUE_OP_DECORATORS

ALL_TARGETS = frozenset({"torchscript", "trace", "dynamo", "export", "recompile"})
DYNAMO_TARGETS = frozenset({"dynamo", "recompile"})

SCRIPT_EXEMPT = {"torch.jit.ignore", "torch.jit.unused", "torch.jit._script.ignore",
                 "torch._jit_internal.ignore", "torch._jit_internal.unused"}
DYNAMO_EXEMPT = {"torch.compiler.disable", "torch._dynamo.disable", "torch._disable_dynamo"}
SCRIPT_ENTRY = {"torch.jit.script", "torch.jit.export", "torch.jit.script_method"}
DYNAMO_ENTRY = {"torch.compile", "torch._dynamo.optimize"}


def _exempt(fn: FunctionInfo) -> frozenset[str]:
    dropped: set[str] = set()
    for d in fn.decorators:
        if d in OPAQUE_OP_DECORATORS:  # a torch.library.custom_op body: every compiler records one opaque call
            return ALL_TARGETS
        if d in SCRIPT_EXEMPT:
            dropped.add("torchscript")
        if d in DYNAMO_EXEMPT:
            dropped |= DYNAMO_TARGETS
    return frozenset(dropped)


def _entry_targets(fn: FunctionInfo) -> frozenset[str]:
    targets: set[str] = set()
    for d in fn.decorators:
        if d in SCRIPT_ENTRY:
            targets.add("torchscript")
        if d in DYNAMO_ENTRY:
            targets |= DYNAMO_TARGETS
    return frozenset(targets)


def compute_scope(index: RepoIndex) -> dict[str, frozenset[str]]:
    """Map every compiled function key (and module class key) to the compile paths that reach it."""
    scope: dict[str, frozenset[str]] = {}
    queue: deque[tuple[str, frozenset[str]]] = deque()

    def add(key: str, targets: frozenset[str]) -> None:
        fn = index.functions.get(key)
        if fn is not None:
            targets = targets - _exempt(fn)
        new = targets - scope.get(key, frozenset())
        if new:
            scope[key] = scope.get(key, frozenset()) | new
            queue.append((key, new))

    for class_key, info in index.classes.items():
        if not index.is_module_class(class_key):
            continue
        scope[class_key] = ALL_TARGETS
        forward = index.find_method(class_key, "forward")
        if forward is not None:
            add(forward.key, ALL_TARGETS)
        for method in info.methods.values():
            entry = _entry_targets(method)
            if entry:
                add(method.key, entry)
    for key, fn in index.functions.items():
        entry = _entry_targets(fn)
        if entry:
            add(key, entry)
    for summary in index.modules.values():
        for kind, name in summary.compile_targets:
            key = name if ":" in name else index.resolve(name)
            if "." not in name and ":" not in name and (name in summary.functions or name in summary.classes):
                key = f"{summary.module}:{name}"  # torch.compile(fn) of a function/class defined in this file
            targets = DYNAMO_TARGETS if kind == "dynamo" else frozenset({kind})
            if key in index.classes:  # torch.compile(MyModule()) compiles its forward
                forward = index.find_method(key, "forward")
                if forward is not None:
                    add(forward.key, targets)
            else:
                add(key, targets)

    while queue:
        key, targets = queue.popleft()
        fn = index.functions.get(key)
        if fn is None:
            continue
        module, _, local = key.partition(":")
        class_key = f"{module}:{local.split('.')[0]}" if "." in local else None
        summary = index.modules.get(module)
        unscripted = len(fn.calls)
        untraced = unscripted + len(fn.unscripted_calls)
        for i, (kind, name) in enumerate([*fn.calls, *fn.unscripted_calls, *fn.untraced_calls]):
            callee: str | None = None
            if kind == "self" and class_key is not None:
                found = index.find_method(class_key, name)
                callee = found.key if found is not None else None
            elif kind == "name":
                if summary is not None and name in summary.functions:
                    callee = f"{module}:{name}"
                elif summary is not None and name in summary.classes:
                    callee = None  # constructing a class runs __init__, not compiled code
                else:
                    resolved = index.resolve(name)
                    callee = resolved if resolved in index.functions else None
            if callee is not None:
                if i >= untraced:
                    add(callee, targets & {"torchscript"})
                else:
                    add(callee, targets - {"torchscript"} if i >= unscripted else targets)
    return scope
