"""The whole-repo index: classes, their bases, functions, decorators, calls and compile targets.

Each file contributes a small, picklable `FileSummary` (built by the per-file analyzer in the same
pass that runs the rules); the parent merges them into a `RepoIndex`, which answers the
cross-file questions: is this class an `nn.Module`? which function does this name resolve to?
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compilelint.semantic.custom_ops import CustomOpRegistry, FileCustomOps

# Bases from torch that make a class a module. Any `torch.nn.<CamelCase>` class counts (Conv2d,
# Sequential, ...), except these, which are not modules.
_TORCH_NN_NON_MODULES = {"Parameter", "UninitializedParameter", "UninitializedBuffer", "Buffer"}


@dataclass
class FunctionInfo:
    key: str  # "pkg.mod:Class.method" or "pkg.mod:func"
    name: str
    decorators: list[str] = field(default_factory=list)  # qualified dotted names
    # What this function calls: ("self", method) for self.method(...), ("name", qualified) otherwise.
    calls: list[tuple[str, str]] = field(default_factory=list)
    # Calls made only where TorchScript does not compile (`if not torch.jit.is_scripting():` branches):
    # they reach their callees for every compile path except TorchScript.
    unscripted_calls: list[tuple[str, str]] = field(default_factory=list)
    # Calls made only in a branch on a switched-off flag (`if self.debug:`, ClassFacts.off_flags): they reach
    # their callees for TorchScript only (torch.compile, jit.trace and export specialize the flag away).
    untraced_calls: list[tuple[str, str]] = field(default_factory=list)
    # Decorators applied as written (`@deco`, not `@deco(...)`): the wrapper they return runs in the function's
    # place, so a compiled call of the function runs their code (a factory's own body runs at import instead).
    wrapped_by: list[str] = field(default_factory=list)
    # What it returns, as values (compilelint/analysis/reach.py): a factory's instances (`return Decoder(cfg)`)
    returns: list[tuple[str, str]] = field(default_factory=list)
    # Calls made inside a loop (as `calls`), and the module containers `self.<attr>` whose elements a loop calls
    # (`for layer in self.layers: x = layer(x)`, `self.layers[i](x)`): frames a break there splits (RC521)
    loop_calls: list[tuple[str, str]] = field(default_factory=list)
    looped_elements: list[str] = field(default_factory=list)
    chained_elements: list[str] = field(default_factory=list)  # of those, fed what the last returned (`x = layer(x)`)
    # Calls in a `for` loop handing the loop's element to a function (`fn(param, shape, module)`), as `calls`, and
    # the methods called on the element (`module.forward_parameters(shape)`): a frame each where the loop breaks
    element_calls: list[tuple[str, str]] = field(default_factory=list)
    element_methods: list[str] = field(default_factory=list)
    # Of the calls in a `for` loop, those of a loop that every call of the function runs (under no branch)
    sure_loop_calls: list[tuple[str, str]] = field(default_factory=list)
    line: int = 0  # of its `def` (Python's ast; 0 where unknown): where a finding says it was reached from
    # Its parameters as TorchScript types them (semantic.script_types.script_signature): (name, "Tensor" /
    # "Optional" / "other", default "none" / "value" / "", keyword-only); None where it takes *args or **kwargs.
    script_params: tuple[tuple[str, str, str, bool], ...] | None = None


@dataclass
class ClassInfo:
    key: str  # "pkg.mod:Class"
    name: str
    bases: list[str] = field(default_factory=list)  # qualified dotted names
    methods: dict[str, FunctionInfo] = field(default_factory=dict)
    # What its methods store on `self.<attr>` (or its body annotates), as values (compilelint/analysis/reach.py):
    # what `self.<attr>.<method>()` and `self.<attr>()` run.
    attrs: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    # What its module containers hold (`self.convs = nn.ModuleList([...])`, `self.convs.append(...)`), as values.
    elements: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    # Decorated `@dataclass` (without `init=False`, `repr=False` or `eq=False`): methods Python generates, whose
    # source TorchScript asks for when it compiles the class (`RepoIndex.script_class_failure`).
    dataclass: bool = False


@dataclass(frozen=True)
class ClassBuild:
    """A call that may build a class of the tree (`Upsample1D(ch, use_conv=True)`), as written: the callee's
    qualified name, each positional argument and each keyword's value as a literal's `repr` ("?" where it is no
    literal), and whether it unpacks `*args` / `**kwargs` (then it may pass any parameter)."""
    name: str
    args: tuple[str, ...] = ()
    keywords: tuple[tuple[str, str], ...] = ()
    star_args: bool = False
    star_kwargs: bool = False


@dataclass
class FileSummary:
    path: str
    module: str
    aliases: dict[str, str] = field(default_factory=dict)  # module-level imports
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    functions: dict[str, FunctionInfo] = field(default_factory=dict)
    # (kind, qualified name or local function key): kind is "dynamo", "torchscript" or "trace",
    # from calls such as torch.compile(fn), torch.jit.script(fn), torch.jit.trace(fn, ...).
    compile_targets: list[tuple[str, str]] = field(default_factory=list)
    # The torch.library ops this file defines and the fakes it registers (compilelint/semantic/custom_ops.py).
    custom_ops: FileCustomOps = field(default_factory=FileCustomOps)
    # Module-level dicts, lists and tuples of functions or classes (`ACTS = {"gelu": gelu}`): name -> members,
    # qualified; a call of `ACTS[cfg]` may run any of them.
    registries: dict[str, list[str]] = field(default_factory=dict)
    # The calls that may build a class (a capitalised callee the file names: an import or its own definition).
    class_builds: list[ClassBuild] = field(default_factory=list)


class RepoIndex:
    def __init__(self, summaries: list[FileSummary]) -> None:
        self.modules: dict[str, FileSummary] = {s.module: s for s in summaries}
        self.classes: dict[str, ClassInfo] = {}
        self.functions: dict[str, FunctionInfo] = {}
        self.registries: dict[str, list[str]] = {}
        for s in summaries:
            for name, members in s.registries.items():
                self.registries[f"{s.module}:{name}"] = members
            for c in s.classes.values():
                self.classes[c.key] = c
                for m in c.methods.values():
                    self.functions[m.key] = m
            for f in s.functions.values():
                self.functions[f.key] = f
        self._is_module: dict[str, bool] = {}
        self._custom_op_facts = [s.custom_ops for s in summaries if getattr(s, "custom_ops", None)]
        self._custom_ops: CustomOpRegistry | None = None
        self._summaries = summaries
        self._builds: dict[str, list[ClassBuild]] | None = None
        self._by_path: dict[str, FileSummary] | None = None

    def summary_at(self, path: str) -> FileSummary | None:
        """The summary of the file at `path` (a finding's path), from a table built on first use: tree_facts rules
        ask it for every finding they settle."""
        if self._by_path is None:
            self._by_path = {}
            for summary in self.modules.values():
                self._by_path.setdefault(summary.path, summary)
        return self._by_path.get(path)

    def builds_of(self, class_key: str) -> list[ClassBuild]:
        """Every call in the tree that builds the class "module:Name" (its callee resolved through re-exports)."""
        if self._builds is None:
            self._builds = {}
            for s in self._summaries:
                for build in getattr(s, "class_builds", ()):
                    self._builds.setdefault(self.resolve(build.name), []).append(build)
        return self._builds.get(class_key, [])

    @property
    def custom_ops(self) -> CustomOpRegistry:
        """Every torch.library op defined in the tree, and which have a fake somewhere in it."""
        if self._custom_ops is None:
            self._custom_ops = CustomOpRegistry(self._custom_op_facts, self.resolve)
        return self._custom_ops

    def resolve(self, qualified: str, _seen: frozenset[str] = frozenset()) -> str:
        """Follow re-exports (`from .conv import Conv` in a package __init__) to a definition key.

        Returns "module:Name" for a class/function defined in the tree, else the dotted name.
        """
        if qualified in _seen:
            return qualified
        module, _, name = qualified.rpartition(".")
        while module:
            summary = self.modules.get(module)
            if summary is not None:
                head, _, rest = name.partition(".")
                if head in summary.classes or head in summary.functions or head in summary.registries:
                    return f"{module}:{name}"
                target = summary.aliases.get(head)
                if target is not None:
                    return self.resolve(f"{target}.{rest}" if rest else target, _seen | {qualified})
                return qualified
            module, _, parent = module.rpartition(".")
            name = f"{parent}.{name}"
        return qualified

    def resolve_base(self, class_key: str, base: str) -> str:
        """A base class name as written in `class_key`'s file: a bare name is a class of that same file."""
        target = self.resolve(base)
        if target not in self.classes and "." not in base:
            local = f"{class_key.partition(':')[0]}:{base}"
            if local in self.classes:
                return local
        return target

    def is_module_class(self, class_key: str, _seen: frozenset[str] = frozenset()) -> bool:
        """Whether a class in the tree inherits from torch.nn.Module through any chain of bases."""
        if class_key in self._is_module:
            return self._is_module[class_key]
        info = self.classes.get(class_key)
        result = False
        if info is not None and class_key not in _seen:
            for base in info.bases:
                if is_torch_module_name(base):
                    result = True
                    break
                target = self.resolve_base(class_key, base)
                if target in self.classes and self.is_module_class(target, _seen | {class_key}):
                    result = True
                    break
        self._is_module[class_key] = result
        return result

    def find_method(self, class_key: str, name: str, _seen: frozenset[str] = frozenset()) -> FunctionInfo | None:
        """The method `name` of a class, looked up through its bases in the tree (depth first)."""
        info = self.classes.get(class_key)
        if info is None or class_key in _seen:
            return None
        if name in info.methods:
            return info.methods[name]
        for base in info.bases:
            target = self.resolve_base(class_key, base)
            found = self.find_method(target, name, _seen | {class_key})
            if found is not None:
                return found
        return None


    def script_class_failure(self, class_key: str) -> str | None:
        """Why `torch.jit.script` cannot compile the class as a TorchScript class, which it does to type a module
        attribute holding an instance of it (torch 2.13): "a dataclass" (Python generates its `__init__`,
        `__repr__` and `__eq__`, and TorchScript fails to get their source: `Failed to get source for
        <function Cfg.__init__>`), or "holding a dataclass" for a plain class (no base but `object`) whose methods
        store an instance of one on `self` or take one as an annotated parameter (compiling the class compiles
        that one). None where neither is known, a module class included."""
        info = self.classes.get(class_key)
        if info is None or self.is_module_class(class_key):
            return None
        if info.dataclass:
            return "a dataclass"
        if any(base != "object" for base in info.bases):
            return None
        for values in info.attrs.values():
            for how, qualified in values:
                held = self.classes.get(self.resolve(qualified)) if how == "new" else None
                if held is not None and held.dataclass and not self.is_module_class(held.key):
                    return "holding a dataclass"
        return None

    def attr_values(self, class_key: str, attr: str, _seen: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
        """What `self.<attr>` may hold in an instance of the class: its own assignments, else its bases'."""
        info = self.classes.get(class_key)
        if info is None or class_key in _seen:
            return []
        if attr in info.attrs:
            return info.attrs[attr]
        for base in info.bases:
            found = self.attr_values(self.resolve_base(class_key, base), attr, _seen | {class_key})
            if found:
                return found
        return []


def is_torch_module_name(qualified: str) -> bool:
    if qualified in ("torch.nn.Module", "torch.nn.modules.module.Module"):
        return True
    if qualified.startswith("torch.nn.") and not qualified.startswith("torch.nn.functional"):
        last = qualified.rsplit(".", 1)[-1]
        return last[:1].isupper() and last not in _TORCH_NN_NON_MODULES
    return False


_NOT_TRACED_HERE = ("torch.", "math.", "numpy.", "typing.", "builtins.")


def call_target(index: RepoIndex, module: str, kind: str, name: str, owner: str | None) -> str | None:
    """The key of the tree's function a call names: ("self", method) of the class `owner` of `module` (a method
    inherited from another file's class is not followed: libraries rebind such methods when the module is built,
    torch_geometric's `propagate` from a template), or ("name", qualified); None for a class, or outside the tree."""
    if kind == "self":
        found = index.find_method(f"{module}:{owner}", name) if owner else None
        return found.key if found is not None and found.key.partition(":")[0] == module else None
    summary = index.modules.get(module)
    if summary is not None and name in summary.functions:
        return f"{module}:{name}"
    if summary is not None and name in summary.classes or name.startswith(_NOT_TRACED_HERE):
        return None
    resolved = index.resolve(name)
    return resolved if resolved in index.functions else None


def first_break_reached(index: RepoIndex, key: str, max_depth: int = 6) -> tuple[str, object] | None:
    """(function key, finding) of the first graph break Dynamo meets tracing the function `key` and what it calls
    (Dynamo inlines every call, in any file): `index.graph_breaks`, function key -> its first break finding."""
    breaks = getattr(index, "graph_breaks", {}) or {}
    seen: set[str] = set()
    queue = [(key, 0)]
    while queue:
        current, depth = queue.pop(0)
        fn = index.functions.get(current)
        if current in seen or fn is None or depth > max_depth:
            continue
        seen.add(current)
        if current in breaks:
            return current, breaks[current]
        module, _, local = current.partition(":")
        owner = local.split(".")[0] if "." in local else None
        for kind, name in [*fn.calls, *fn.unscripted_calls]:
            callee = call_target(index, module, kind, name, owner)
            if callee is not None:
                queue.append((callee, depth + 1))
    return None


def _subclasses(index: RepoIndex) -> dict[str, list[str]]:
    """Class key -> the tree's classes that name it as a base (once per index)."""
    cached = index.__dict__.get("_subclasses")
    if cached is None:
        cached = index.__dict__["_subclasses"] = {}
        for key, info in index.classes.items():
            for base in info.bases:
                cached.setdefault(index.resolve_base(key, base), []).append(key)
    return cached


def _descendants(index: RepoIndex, class_key: str) -> list[str]:
    children = _subclasses(index)
    out, queue = [class_key], [class_key]
    while queue and len(out) < 200:
        for child in children.get(queue.pop(), ()):
            if child not in out:
                out.append(child)
                queue.append(child)
    return out


def _classes_of(index: RepoIndex, holder: str, value: tuple[str, str], depth: int = 0) -> list[str]:
    """The tree's classes an instance held in `holder.<attr>` may be, from one of its values (reach.py): a class
    built, what a factory returns, a registry's classes, what a method of the instance (a subclass's override
    included) returns."""
    how, name = value
    if depth > 3:
        return []
    if how == "self-made":
        out: list[str] = []
        for cls in _descendants(index, holder):
            method = index.find_method(cls, name)
            for v in method.returns if method is not None else ():
                q = v[1] if "." in v[1] else f"{method.key.partition(':')[0]}.{v[1]}"
                out += [c for c in _classes_of(index, holder, (v[0], q), depth + 1) if c not in out]
        return out
    if how == "new-item":
        members = index.registries.get(index.resolve(name), [])
        return [c for m in members for c in _classes_of(index, holder, ("new", m), depth + 1)]
    if how != "new":
        return []
    target = index.resolve(name)
    if target in index.classes:
        return [target]
    fn = index.functions.get(target)
    if fn is None:
        return []
    module = target.partition(":")[0]
    return [c for v in fn.returns for c in _classes_of(index, holder, (v[0], v[1] if "." in v[1] else f"{module}.{v[1]}"),
                                                       depth + 1)]


def instances(index: RepoIndex, class_key: str) -> list[tuple[str, str, bool]]:
    """Where the tree holds instances of a module class, or of a subclass that keeps its `forward`: (holder class
    key, attribute, whether a module container holds them). Dynamo guards a frame of the forward on the instance
    it runs for, so a forward of several instances recompiles per instance once it is a frame of its own."""
    held = index.__dict__.get("_instances")
    if held is None:
        held = index.__dict__["_instances"] = {}
        for key, info in index.classes.items():
            for attr, values in [*info.attrs.items(), *info.elements.items()]:
                for value in values:
                    for cls in _classes_of(index, key, value):
                        found = held.setdefault(cls, {})
                        found[(key, attr)] = found.get((key, attr), False) or attr in info.elements
    forward = index.find_method(class_key, "forward")
    out: list[tuple[str, str, bool]] = []
    for cls in _descendants(index, class_key):
        if cls != class_key and index.find_method(cls, "forward") is not forward:
            continue
        out += [(holder, attr, many) for (holder, attr), many in held.get(cls, {}).items()]
    return out


def several_instances(index: RepoIndex, class_key: str) -> bool:
    """Two or more instances in the tree: in a module container, or in two attributes."""
    found = instances(index, class_key)
    return any(many for _, _, many in found) or len({(h, a) for h, a, _ in found}) >= 2


def _mro(index: RepoIndex, class_key: str, _seen: frozenset[str] = frozenset()) -> list[str]:
    info = index.classes.get(class_key)
    if info is None or class_key in _seen:
        return []
    out = [class_key]
    for base in info.bases:
        out += [c for c in _mro(index, index.resolve_base(class_key, base), _seen | {class_key}) if c not in out]
    return out


def loop_breaks(index: RepoIndex, fn: FunctionInfo, element: str) -> bool:
    """Whether a loop of `fn` breaks the graph: a break of its own inside a loop (a graph-break finding there is
    an error), a call in a loop whose code breaks, or the forward of `element` (the class of the container's
    elements asked about; other classes a polymorphic container may hold are not known to be there). Dynamo then
    skips the function whole, and runs every module it calls as a frame of its own (verified on 2.13)."""
    own = (getattr(index, "graph_breaks", {}) or {}).get(fn.key)
    if own is not None and own.severity == "error":
        return True
    module = fn.key.partition(":")[0]
    owner = fn.key.partition(":")[2].split(".")[0] if "." in fn.key.partition(":")[2] else None
    for kind, name in fn.loop_calls:
        callee = call_target(index, module, kind, name, owner)
        if callee is not None and first_break_reached(index, callee) is not None:
            return True
    forward = index.find_method(element, "forward")
    return forward is not None and first_break_reached(index, forward.key) is not None


def skipped_loops_over(index: RepoIndex, class_key: str) -> list[tuple[str, str]]:
    """(function key, attribute) of each function that loops over a module container holding instances of the
    class, in a loop that breaks the graph (`loop_breaks`), where the instances' frames differ: instances held in
    two or more places of the tree (built differently), or a chain (`x = layer(x)`) of a class with submodules or
    parameters (the first fed the loop's input, the next what one with parameters returned: requires_grad).
    Where another loop of the tree over such a container does not break (it inlines the same forward), only the
    breaking loops over a container holding this class alone are kept: their break is there whichever element
    runs, where a polymorphic container's (a factory's blocks) may come from elements the other loop never holds."""
    found = instances(index, class_key)
    several = len({(h, a) for h, a, _ in found}) >= 2
    init = index.classes[class_key].methods.get("__init__") if class_key in index.classes else None
    stateful = init is not None and any(  # builds a submodule or a parameter (`self.lin = nn.Linear(...)`)
        kind == "name" and name.rpartition(".")[2][:1].isupper() for kind, name in init.calls)
    forward = index.find_method(class_key, "forward")
    out: list[tuple[str, str]] = []
    alone: set[tuple[str, str]] = set()
    inlined = False
    for holder, attr, many in found:
        if not many:
            continue
        for cls in _mro(index, holder):
            for fn in index.classes[cls].methods.values():
                if attr not in fn.looped_elements or (fn.key, attr) in out:
                    continue
                if not loop_breaks(index, fn, class_key):
                    inlined = True  # a loop that inlines the instances
                    continue
                if several or (stateful and attr in fn.chained_elements):
                    out.append((fn.key, attr))
                    held = [c for v in index.classes[holder].elements.get(attr, ())
                            for c in _classes_of(index, holder, v)]
                    if held and all(index.find_method(c, "forward") is forward for c in held):
                        alone.add((fn.key, attr))
    return [loop for loop in out if loop in alone] if inlined else out


def element_loops(index: RepoIndex) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """The functions whose `for` loop breaks the graph (`loop_breaks`) and hands the loop's element to a function
    of the tree (callee key -> callers) or calls a method on it (method name -> callers); once per index. Dynamo
    skips such a function whole, so each callee runs as a frame of its own, guarded on the element it is given."""
    cached = index.__dict__.get("_element_loops")
    if cached is not None:
        return cached
    handed: dict[str, list[str]] = {}
    methods: dict[str, list[str]] = {}
    for fn in index.functions.values():
        calls, called = getattr(fn, "element_calls", ()), getattr(fn, "element_methods", ())
        if not (calls or called) or not loop_breaks(index, fn, ""):
            continue
        module, _, local = fn.key.partition(":")
        owner = local.split(".")[0] if "." in local else None
        for kind, name in calls:
            callee = call_target(index, module, kind, name, owner)
            if callee is not None:
                handed.setdefault(callee, []).append(fn.key)
        for name in called:
            methods.setdefault(name, []).append(fn.key)
    cached = index.__dict__["_element_loops"] = (handed, methods)
    return cached


def sharing_classes(index: RepoIndex, class_key: str, method: str) -> list[str]:
    """The tree's classes (the class and its subclasses) whose `method` is the class's own: one code object, so
    one frame that Dynamo guards on `type(self)`."""
    own = index.find_method(class_key, method)
    return [c for c in _descendants(index, class_key) if own is not None and index.find_method(c, method) is own]


def skipped_whole(index: RepoIndex, fn: FunctionInfo) -> bool:
    """Whether every call of `fn` runs a `for` loop (one under no branch) calling code that breaks the graph:
    Dynamo then skips its frame whole, and a skipped frame never recompiles."""
    module = fn.key.partition(":")[0]
    owner = fn.key.partition(":")[2].split(".")[0] if "." in fn.key.partition(":")[2] else None
    for kind, name in getattr(fn, "sure_loop_calls", ()):
        callee = call_target(index, module, kind, name, owner)
        if callee is not None and first_break_reached(index, callee) is not None:
            return True
    return False
