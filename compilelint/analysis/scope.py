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
from compilelint.analysis.reach import split_value_call
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
    return Reach(index).scope



def _properties(index: RepoIndex, class_key: str, _seen: frozenset[str] = frozenset()) -> list[FunctionInfo]:
    """The `@property` getters of a class and of its bases in the tree (mixins included): scripting a module
    compiles each one its class has (`torch.jit.frontend.get_class_properties`), used or not."""
    info = index.classes.get(class_key)
    if info is None or class_key in _seen:
        return []
    found = [m for m in info.methods.values() if "property" in m.decorators]
    for base in info.bases:
        found += _properties(index, index.resolve_base(class_key, base), _seen | {class_key})
    return found

class Reach:
    """Which functions each compile path reaches, and from where (`chain`: the entry point and the calls).

    A method is followed with the class of the instance it runs on (`self`), so that `self.encode()` in a base
    class's forward reaches the subclass's override, and `self.<attr>` is looked up where that class's methods
    set it (compilelint/analysis/reach.py)."""

    def __init__(self, index: RepoIndex) -> None:
        self.index = index
        self.scope: dict[str, frozenset[str]] = {}
        # The first way each function was reached: (caller key, or "" at an entry point)
        self.parent: dict[str, str] = {}
        self._seen: dict[tuple[str, str | None], frozenset[str]] = {}
        self._queue: deque[tuple[str, frozenset[str], str | None]] = deque()
        self._entries()
        self._run()

    def chain(self, key: str) -> list[str]:
        """The entry point, then each function called on the way to `key` (inclusive); empty when out of scope."""
        out: list[str] = []
        while key and key not in out:
            out.append(key)
            key = self.parent.get(key, "")
        return out[::-1] if out and out[-1] in self.parent else []

    def add(self, key: str, targets: frozenset[str], self_class: str | None, caller: str = "") -> None:
        fn = self.index.functions.get(key)
        if fn is not None:
            targets = targets - _exempt(fn)
        if not targets:
            return
        seen = self._seen.get((key, self_class), frozenset())
        new = targets - seen
        if not new:
            return
        self._seen[(key, self_class)] = seen | new
        if key not in self.parent:
            self.parent[key] = caller
        self.scope[key] = self.scope.get(key, frozenset()) | new
        self._queue.append((key, new, self_class))

    def _entries(self) -> None:
        index = self.index
        for class_key, info in index.classes.items():
            if not index.is_module_class(class_key):
                continue
            self.scope[class_key] = ALL_TARGETS
            forward = index.find_method(class_key, "forward")
            if forward is not None:
                self.add(forward.key, ALL_TARGETS, class_key)
            for method in info.methods.values():
                entry = _entry_targets(method)
                if entry:
                    self.add(method.key, entry, class_key)
            for prop in _properties(index, class_key):  # torch.jit.script compiles every property of a module
                self.add(prop.key, frozenset({"torchscript"}), class_key)
        for key, fn in index.functions.items():
            entry = _entry_targets(fn)
            if entry:
                self.add(key, entry, _owner(key))
        for summary in index.modules.values():
            for kind, name in summary.compile_targets:
                key = name if ":" in name else index.resolve(name)
                if "." not in name and ":" not in name and (name in summary.functions or name in summary.classes):
                    key = f"{summary.module}:{name}"  # torch.compile(fn) of a function/class defined in this file
                targets = DYNAMO_TARGETS if kind == "dynamo" else frozenset({kind})
                if key in index.classes:  # torch.compile(MyModule()) compiles its forward
                    forward = index.find_method(key, "forward")
                    if forward is not None:
                        self.add(forward.key, targets, key)
                else:
                    self.add(key, targets, _owner(key))

    def _run(self) -> None:
        index = self.index
        while self._queue:
            key, targets, self_class = self._queue.popleft()
            fn = index.functions.get(key)
            if fn is None:
                continue
            module = key.partition(":")[0]
            summary = index.modules.get(module)
            # A decorator's wrapper runs in the function's place; TorchScript compiles the function's own source
            # (what `functools.wraps` points it to), not the wrapper.
            wrapped = targets - {"torchscript"}
            for decorator in fn.wrapped_by if wrapped else ():
                callee = self._function(decorator, module, summary)
                if callee is not None:
                    self.add(callee, wrapped, None, key)
            unscripted = len(fn.calls)
            untraced = unscripted + len(fn.unscripted_calls)
            for i, (kind, name) in enumerate([*fn.calls, *fn.unscripted_calls, *fn.untraced_calls]):
                if i >= untraced:
                    reach = targets & {"torchscript"}
                else:
                    reach = targets - {"torchscript"} if i >= unscripted else targets
                if not reach:
                    continue
                for callee, callee_self in self._callees(kind, name, key, self_class, module, summary):
                    self.add(callee, reach, callee_self, key)

    def _function(self, name: str, module: str, summary) -> str | None:  # noqa: ANN001
        """A function of the tree by its name as written in `module` (bare: a definition of that file)."""
        if summary is not None and name in summary.functions:
            return f"{module}:{name}"
        resolved = self.index.resolve(name)
        return resolved if resolved in self.index.functions else None

    def _class(self, name: str) -> str | None:
        resolved = self.index.resolve(name)
        return resolved if resolved in self.index.classes else None

    def _callees(self, kind: str, name: str, key: str, self_class: str | None, module: str,
                 summary) -> list[tuple[str, str | None]]:  # noqa: ANN001
        index = self.index
        if kind == "name":
            if summary is not None and name in summary.functions:
                return [(f"{module}:{name}", None)]
            if summary is not None and name in summary.classes:
                return []  # constructing a class runs __init__, not compiled code
            resolved = index.resolve(name)
            if resolved in index.functions:
                return [(resolved, _owner(resolved))]
            return []
        if kind == "self":
            if self_class is None:
                return []
            found = index.find_method(self_class, name)
            if found is not None:
                return [(found.key, self_class)]
            return [c for v in index.attr_values(self_class, name) for c in self._on_value(v, "")]
        if kind == "attr":
            if self_class is None:
                return []
            attr, _, method = name.partition(".")
            return [c for v in index.attr_values(self_class, attr) for c in self._on_value(v, method)]
        if kind == "super":
            owner = _owner(key)
            info = index.classes.get(owner) if owner else None
            if info is None:
                return []
            for base in info.bases:
                found = index.find_method(index.resolve_base(owner, base), name)
                if found is not None:
                    return [(found.key, self_class)]
            return []
        if kind == "value":
            how, qualified, method = split_value_call(name)
            return self._on_value((how, qualified), method)
        return []

    def _on_value(self, value: tuple[str, str], method: str,
                  _seen: frozenset[str] = frozenset()) -> list[tuple[str, str | None]]:
        """What calling `method` of a value runs ("": calling the value itself)."""
        how, qualified = value
        if how in ("item", "new-item"):
            members = self.index.registries.get(self.index.resolve(qualified), [])
            each = "ref" if how == "item" else "new"
            return [c for m in members for c in self._on_value((each, m), method, _seen)]
        target = self.index.resolve(qualified)
        if target in self.index.functions:
            if how == "ref":
                return [(target, _owner(target))] if not method else []
            if target in _seen or len(_seen) > 4:
                return []
            # the result of a factory: what its returns hold (`return CategoricalDistribution(n)`)
            module = target.partition(":")[0]
            return [c for how_, q in self.index.functions[target].returns
                    for c in self._on_value((how_, q if "." in q else f"{module}.{q}"), method, _seen | {target})]
        if target not in self.index.classes:
            return []
        if how == "ref" and not method:
            return []  # constructing the class
        name = method or ("forward" if self.index.is_module_class(target) else "__call__")
        found = self.index.find_method(target, name)
        return [(found.key, target)] if found is not None else []


def _owner(key: str) -> str | None:
    """The class a method key belongs to ("pkg.mod:Class.method" -> "pkg.mod:Class"), None for a function."""
    module, _, local = key.partition(":")
    return f"{module}:{local.split('.')[0]}" if "." in local else None
