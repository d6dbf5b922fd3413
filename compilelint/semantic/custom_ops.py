"""Custom operators: which ops a file defines through `torch.library`, and which of them have a fake.

torch.compile and torch.export run every op on fake tensors (shapes, no data) to learn its outputs. An op
made with `torch.library.custom_op`, or declared with `torch.library.define` / `Library.define`, is opaque
to both: only its fake implementation tells them what it returns. The fake may sit anywhere in the
program, so the question "has op X a fake?" is about the whole tree:

    per file (worker, from Python's `ast`, only for files that mention torch.library):
        `FileCustomOps`: the ops it defines (`OpDefinition`: name, how, the Python name the op object is bound
        to, the function holding its implementation, `mutates_args` or the schema), the op names it gives a
        fake (`register_fake`, `impl_abstract`, a `Meta` or composite kernel: these run on fake tensors too),
        and the dotted names whose `.register_fake` it calls (`@nms.register_fake`, `nms` imported)
    whole tree (parent, `RepoIndex.custom_ops`): `CustomOpRegistry` joins them; a dotted name from another
        file is followed through the index's re-exports (`from .ops import nms` in a package `__init__`).

A function decorated with `torch.library.custom_op` is never traced by a compiler (`OPAQUE_OP_DECORATORS`):
Dynamo, export and jit.trace record one call of the op, and TorchScript calls it through the dispatcher.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Callable

CUSTOM_OP = frozenset({"torch.library.custom_op", "torch._library.custom_ops.custom_op"})
TRITON_OP = frozenset({"torch.library.triton_op", "torch._library.triton.triton_op"})
DEFINE = frozenset({"torch.library.define"})
IMPL = frozenset({"torch.library.impl", "torch.library.register_kernel"})
REGISTER_FAKE = frozenset({"torch.library.register_fake", "torch.library.impl_abstract"})
LIBRARY = frozenset({"torch.library.Library"})
# The decorators whose function body no compiler traces: the op is one opaque call for each of them.
OPAQUE_OP_DECORATORS = CUSTOM_OP
# Dispatch keys whose kernel also runs on fake tensors: an op with one needs no fake of its own (verified on
# torch 2.13: a Meta kernel, CompositeImplicitAutograd, CompositeExplicitAutograd and "default" all compile
# with fullgraph=True and export).
FAKE_SERVING_KEYS = frozenset({"Meta", "CompositeImplicitAutograd", "CompositeExplicitAutograd",
                               "CompositeExplicitAutogradNonFunctional", "default"})
# torch's own op namespaces under torch.ops: their ops have fake kernels in torch.
TORCH_NAMESPACES = frozenset({"aten", "prims", "prim", "quantized", "_quantized", "quantized_decomposed",
                              "higher_order", "profiler", "_c10d_functional", "c10d_functional", "c10d",
                              "_dtensor", "mkldnn", "mkl", "onednn", "_inductor_test", "inductor", "debugprims",
                              "rngprims", "fbgemm", "torchvision", "image", "torchaudio", "_test",
                              "_c10d_functional_autograd", "symm_mem", "_higher_order_ops"})
_MENTIONS = (b"library", b"register_fake", b"impl_abstract", b"triton_op")
# The words code that defines an op, registers a kernel or a fake, or builds a Library writes (the last part of each
# name above, and a Library's `impl`/`define`/`fallback` methods): a function that writes none registers nothing.
REGISTRATION_WORDS = frozenset({name.rpartition(".")[2] for name in (*CUSTOM_OP, *TRITON_OP, *DEFINE, *IMPL,
                                                                     *REGISTER_FAKE, *LIBRARY)}
                               | {"impl", "define", "fallback", "library"})


@dataclass
class OpDefinition:
    """One op the file defines."""

    name: str  # "ns::op"
    line: int  # the decorator's or the defining call's line
    how: str  # "custom_op" | "triton_op" | "define"
    # The dotted name the op object is bound to ("pkg.ops.nms"): custom_op / triton_op only.
    python: str | None = None
    # The local function holding the real implementation: the decorated one, or the one `impl` registers.
    function: str | None = None
    # custom_op's `mutates_args` as written: the names, () for none, None when not a literal or "unknown".
    mutates: tuple[str, ...] | None = ()
    schema: str | None = None  # define's schema string, "(Tensor(a!) out, Tensor x) -> ()"


@dataclass
class FileCustomOps:
    definitions: list[OpDefinition] = field(default_factory=list)
    # op names given a fake here (register_fake / impl_abstract / a fake-serving kernel)
    faked: set[str] = field(default_factory=set)
    # dotted names whose `.register_fake` this file calls (`@nms.register_fake`): the op object's name
    faked_refs: set[str] = field(default_factory=set)
    # local function registered as a fake -> the op name, or the dotted name of the op object
    fake_functions: dict[str, str] = field(default_factory=dict)
    # local function registered as an implementation (`impl`, `Library.impl`) -> op name
    impl_functions: dict[str, str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.definitions or self.faked or self.faked_refs)

    def by_python(self, dotted: str) -> OpDefinition | None:
        return next((d for d in self.definitions if d.python == dotted), None)

    def by_name(self, name: str) -> OpDefinition | None:
        return next((d for d in self.definitions if d.name == name), None)

    def has_local_fake(self, op: OpDefinition) -> bool:
        return op.how == "triton_op" or op.name in self.faked or (op.python is not None and op.python in self.faked_refs)

    def definition_of_function(self, function: str) -> OpDefinition | None:
        """The op whose real implementation is local function `function`."""
        for d in self.definitions:
            if d.function == function:
                return d
        name = self.impl_functions.get(function)
        return self.by_name(name) if name else None


def _dotted(node: ast.AST) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _string(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _keyword(call: ast.Call, name: str) -> ast.AST | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _arg(call: ast.Call, index: int, name: str) -> ast.AST | None:
    return call.args[index] if len(call.args) > index else _keyword(call, name)


def op_name_of_ops_path(dotted: str) -> str | None:
    """`torch.ops.ns.op` / `torch.ops.ns.op.default` -> "ns::op" (None for torch's own namespaces)."""
    parts = dotted.split(".")
    if len(parts) < 4 or parts[:2] != ["torch", "ops"] or parts[2] in TORCH_NAMESPACES:
        return None
    return f"{parts[2]}::{parts[3]}"


def mutated_schema_args(schema: str) -> tuple[list[str], set[str]]:
    """The argument names of a schema, in order, and those it declares mutated (`Tensor(a!) out`)."""
    head = schema.split("->", 1)[0].strip()
    inner = head[head.find("(") + 1: head.rfind(")")] if "(" in head else ""
    names: list[str] = []
    mutated: set[str] = set()
    depth, current = 0, ""
    for ch in inner + ",":
        if ch == "," and depth == 0:
            arg = current.strip()
            current = ""
            if not arg or arg == "*":
                continue
            name = arg.split("=", 1)[0].split()[-1]
            names.append(name)
            if "!" in arg.split()[0]:
                mutated.add(name)
            continue
        depth += ch in "([" 
        depth -= ch in ")]"
        current += ch
    return names, mutated


def _mutates(call: ast.Call) -> tuple[str, ...] | None:
    node = _keyword(call, "mutates_args")
    if node is None:
        return ()  # custom_op requires it; a missing one raises at import, before any compile
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        names = [_string(e) for e in node.elts]
        return tuple(n for n in names if n is not None) if all(n is not None for n in names) else None
    if _string(node) is not None:  # "unknown": every argument may be mutated
        return None
    return None


class _Collector:
    def __init__(self, aliases: dict[str, str], module: str) -> None:
        self.aliases = aliases
        self.module = module
        self.facts = FileCustomOps()
        self.libraries: dict[str, str] = {}  # local name of a Library object -> its namespace

    def qualify(self, node: ast.AST) -> str | None:
        name = _dotted(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        target = self.aliases.get(head)
        if target is None:
            return f"{self.module}.{name}"
        return f"{target}.{rest}" if rest else target

    def op_name(self, node: ast.AST | None) -> str | None:
        """An op named by a string ("ns::op"), by `torch.ops.ns.op[.overload]`, or None."""
        text = _string(node)
        if text is not None:
            return text.split(".")[0] if "::" in text else None
        if node is not None:
            dotted = self.qualify(node)
            return op_name_of_ops_path(dotted) if dotted else None
        return None

    # -- statements --------------------------------------------------------------------------
    def run(self, tree: ast.Module) -> FileCustomOps:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for deco in node.decorator_list:
                    self.decorator(deco, node)
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                self.assignment(node)
            elif isinstance(node, ast.Call):
                self.call(node)
        return self.facts

    def assignment(self, node: ast.Assign) -> None:
        value = node.value
        target = node.targets[0] if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) else None
        if target is None:
            return
        callee = self.qualify(value.func)
        if callee in LIBRARY:
            ns = _string(_arg(value, 0, "ns"))
            if ns:
                self.libraries[target.id] = ns
        # nms = torch.library.custom_op("ns::nms", mutates_args=())(_nms), or custom_op("ns::nms", _nms, ...)
        if isinstance(value.func, ast.Call) and self.qualify(value.func.func) in CUSTOM_OP | TRITON_OP:
            maker = value.func
            fn = value.args[0] if value.args else None
        elif callee in CUSTOM_OP | TRITON_OP and len(value.args) > 1:
            maker, fn = value, value.args[1]
        else:
            return
        name = self.op_name(_arg(maker, 0, "name"))
        if name:
            self.facts.definitions.append(OpDefinition(
                name=name, line=node.lineno, how="custom_op" if self.qualify(maker.func) in CUSTOM_OP else "triton_op",
                python=f"{self.module}.{target.id}", function=fn.id if isinstance(fn, ast.Name) else None,
                mutates=_mutates(maker)))

    def decorator(self, deco: ast.AST, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        call = deco if isinstance(deco, ast.Call) else None
        callee = self.qualify(call.func if call else deco)
        if callee is None:
            return
        if call is not None and callee in CUSTOM_OP | TRITON_OP:
            name = self.op_name(_arg(call, 0, "name"))
            if name:
                self.facts.definitions.append(OpDefinition(
                    name=name, line=deco.lineno, how="custom_op" if callee in CUSTOM_OP else "triton_op",
                    python=f"{self.module}.{fn.name}", function=fn.name, mutates=_mutates(call)))
            return
        if call is not None and callee in REGISTER_FAKE:
            self.fake(_arg(call, 0, "op"), fn.name)
            return
        if call is not None and callee in IMPL:
            self.impl(call, fn.name)
            return
        base, _, attr = callee.rpartition(".")
        if attr in ("register_fake", "register_kernel") and base:
            if attr == "register_fake":
                self.facts.faked_refs.add(base)
                self.facts.fake_functions[fn.name] = base
            elif call is not None and _string(_arg(call, 0, "device_types")) in FAKE_SERVING_KEYS:
                self.facts.faked_refs.add(base)

    def lib_names(self) -> set[str]:
        return {f"{self.module}.{name}" for name in self.libraries}

    def call(self, call: ast.Call) -> None:
        callee = self.qualify(call.func)
        if callee is None:
            return
        if callee in DEFINE:
            name = self.op_name(_arg(call, 0, "qualname"))
            if name:
                self.facts.definitions.append(OpDefinition(name=name, line=call.lineno, how="define",
                                                           schema=_string(_arg(call, 1, "schema"))))
        elif callee in REGISTER_FAKE and len(call.args) > 1:  # register_fake("ns::op", fn)
            self.fake(call.args[0], call.args[1].id if isinstance(call.args[1], ast.Name) else None)
        elif callee in IMPL and len(call.args) > 2:  # impl("ns::op", "cpu", fn)
            fn = call.args[2]
            self.impl(call, fn.id if isinstance(fn, ast.Name) else None)
        elif callee.rpartition(".")[0] in self.lib_names():
            fn = call.args[1] if len(call.args) > 1 else None
            self.library_method(call, callee.rpartition(".")[2], fn.id if isinstance(fn, ast.Name) else None)
        elif callee.endswith(".register_fake") and call.args and not isinstance(call.func, ast.Call):
            base = callee.rpartition(".")[0]
            if base not in self.lib_names():
                self.facts.faked_refs.add(base)
                if isinstance(call.args[0], ast.Name):
                    self.facts.fake_functions[call.args[0].id] = base

    def fake(self, target: ast.AST | None, function: str | None) -> None:
        name = self.op_name(target)
        if name is not None:
            self.facts.faked.add(name)
            if function:
                self.facts.fake_functions[function] = name
        elif target is not None and self.qualify(target):  # register_fake(nms_op): the op object itself
            ref = self.qualify(target)
            self.facts.faked_refs.add(ref)
            if function:
                self.facts.fake_functions[function] = ref

    def impl(self, call: ast.Call, function: str | None) -> None:
        name = self.op_name(_arg(call, 0, "qualname"))
        keys = _arg(call, 1, "types")
        texts = [_string(keys)] if _string(keys) else [_string(e) for e in getattr(keys, "elts", [])]
        if name is None:
            return
        if any(t in FAKE_SERVING_KEYS for t in texts if t):
            self.facts.faked.add(name)
        elif function:
            self.facts.impl_functions[function] = name

    def library_method(self, call: ast.Call, method: str, function: str | None) -> None:
        """`lib.define("op(Tensor x) -> Tensor")`, `lib.impl("op", fn, "CPU")`, `lib._register_fake("op", fn)`."""
        lib = _dotted(call.func)
        ns = self.libraries.get(lib.rpartition(".")[0] if lib else "", "")
        text = _string(call.args[0]) if call.args else None
        if not ns or not text:
            return
        op = text.split("(")[0].strip().split(".")[0]
        name = f"{ns}::{op}"
        if method == "define":
            self.facts.definitions.append(OpDefinition(name=name, line=call.lineno, how="define", schema=text))
        elif method == "impl":
            key = _string(_arg(call, 2, "dispatch_key"))
            if key in FAKE_SERVING_KEYS:
                self.facts.faked.add(name)
            elif function:
                self.facts.impl_functions[function] = name
        elif method in ("_register_fake", "_impl_with_aoti_compile"):
            self.facts.faked.add(name)
            if function and method == "_register_fake":
                self.facts.fake_functions[function] = name


def file_custom_ops(source: bytes, tree: ast.Module | None, aliases: dict[str, str], module: str) -> FileCustomOps:
    """The custom-op facts of one file (empty, at the cost of a few byte searches, for a file that mentions
    neither torch.library nor register_fake)."""
    if tree is None or not any(word in source for word in _MENTIONS):
        return FileCustomOps()
    return _Collector(aliases, module).run(tree)


class CustomOpRegistry:
    """The custom ops of the whole linted tree and whether each has a fake somewhere in it."""

    def __init__(self, files: list[FileCustomOps], resolve: Callable[[str], str]) -> None:
        self._resolve = resolve
        self.by_name: dict[str, OpDefinition] = {}
        self.by_python: dict[str, OpDefinition] = {}
        self.faked: set[str] = set()
        refs: set[str] = set()
        for facts in files:
            for op in facts.definitions:
                self.by_name.setdefault(op.name, op)
                if op.python:
                    self.by_python[op.python] = op
                if op.how == "triton_op":  # traced through: its body's wrap_triton calls have fakes
                    self.faked.add(op.name)
            self.faked |= facts.faked
            refs |= facts.faked_refs
        for ref in refs:
            op = self.lookup(ref)
            if op is not None:
                self.faked.add(op.name)

    def _normal(self, dotted: str) -> str:
        return self._resolve(dotted).replace(":", ".")

    def lookup(self, dotted: str) -> OpDefinition | None:
        """The op a dotted name (a call's callee, a `.register_fake`'s receiver) stands for, or None."""
        name = op_name_of_ops_path(dotted)
        if name is not None:
            return self.by_name.get(name)
        return self.by_python.get(dotted) or self.by_python.get(self._normal(dotted))

    def has_fake(self, op: OpDefinition) -> bool:
        return op.name in self.faked
