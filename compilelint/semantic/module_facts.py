"""What a file sets up at module level that changes what the compilers do with it.

`ModuleFacts` (per file, `ctx.module_facts`): Dynamo config assigned at module level (`capture_scalar_outputs`,
`capture_dynamic_output_shape_ops`, `reorderable_logging_functions`), functions marked `@torch.compiler.disable`,
module-level names bound to a `logging.Logger`, a threading lock or a TorchScript module, dataclasses and the
classes registered with torch's pytree (which export accepts as outputs), and
`Distribution.set_default_validate_args(False)`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from compilelint.analysis.names import qualify
from compilelint.analysis.tensors import jit_module_kind
from compilelint.torchapi.dynamo import THREAD_LOCKS
from compilelint.torchapi.export import PYTREE_REGISTER
from compilelint.torchapi.modes import DYNAMO_CONFIG, DYNAMO_DISABLE

_DATACLASS = {"dataclasses.dataclass"}


@dataclass
class ModuleFacts:
    capture_scalar_outputs: bool = False
    capture_dynamic_output_shape_ops: bool = False
    # Qualified names added to torch._dynamo.config.reorderable_logging_functions ("print", "warnings.warn").
    reorderable: set[str] = field(default_factory=set)
    # Module-level functions and "Class.method"s decorated with @torch.compiler.disable.
    disabled: set[str] = field(default_factory=set)
    # Module-level names bound to logging.getLogger(...).
    loggers: set[str] = field(default_factory=set)
    # Module-level classes decorated with @dataclass, and names registered as pytree nodes.
    dataclasses: set[str] = field(default_factory=set)
    pytree_registered: set[str] = field(default_factory=set)
    # Module-level names bound to a threading lock, semaphore or condition (THREAD_LOCKS).
    locks: set[str] = field(default_factory=set)
    # `torch.distributions.Distribution.set_default_validate_args(False)` at module level (EX720).
    distribution_validation_off: bool = False
    # Module-level names bound to a TorchScript module: name -> "script" / "trace" (tensors.jit_module_kind).
    jit_modules: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_module(cls, module: cst.Module, aliases: dict[str, str]) -> "ModuleFacts":
        facts = cls()
        facts._scan(module.body, aliases, None)
        return facts

    def _scan(self, body, aliases: dict[str, str], class_name: str | None) -> None:  # noqa: ANN001
        for stmt in body:
            if type(stmt) is cst.SimpleStatementLine and class_name is None:
                for small in stmt.body:
                    self._small(small, aliases)
            elif type(stmt) is cst.FunctionDef:
                decorators = {qualify(d.decorator.func if type(d.decorator) is cst.Call else d.decorator,
                                      aliases) for d in stmt.decorators}
                if decorators & DYNAMO_DISABLE:
                    self.disabled.add(f"{class_name}.{stmt.name.value}" if class_name else stmt.name.value)
            elif type(stmt) is cst.ClassDef and class_name is None:
                decorators = {qualify(d.decorator.func if type(d.decorator) is cst.Call else d.decorator, aliases)
                              for d in stmt.decorators}
                # A base class may register its subclasses with pytree itself (in `__init_subclass__`, as
                # diffusers' BaseOutput does): only a dataclass with no base is known to be unregistered.
                if decorators & _DATACLASS and not stmt.bases:
                    self.dataclasses.add(stmt.name.value)
                if decorators & PYTREE_REGISTER:
                    self.pytree_registered.add(stmt.name.value)
                self._scan(stmt.body.body, aliases, stmt.name.value)
            elif type(stmt) in (cst.If, cst.Try) and class_name is None:
                self._scan(stmt.body.body, aliases, None)
                orelse = getattr(stmt, "orelse", None)
                if type(orelse) is cst.Else:
                    self._scan(orelse.body.body, aliases, None)

    def _small(self, small: cst.BaseSmallStatement, aliases: dict[str, str]) -> None:
        if type(small) is cst.Assign:
            for target in small.targets:
                name = qualify(target.target, aliases) or ""
                truthy = _truthy(small.value)
                if name == DYNAMO_CONFIG + "capture_scalar_outputs" and truthy is not None:
                    self.capture_scalar_outputs = truthy
                elif name == DYNAMO_CONFIG + "capture_dynamic_output_shape_ops" and truthy is not None:
                    self.capture_dynamic_output_shape_ops = truthy
                elif name == DYNAMO_CONFIG + "reorderable_logging_functions":
                    self.reorderable |= _names_in(small.value, aliases)
                elif type(target.target) is cst.Name and type(small.value) is cst.Call:
                    built = qualify(small.value.func, aliases)
                    jit = jit_module_kind(small.value, aliases)
                    if jit:
                        self.jit_modules[target.target.value] = jit
                    if built == "logging.getLogger":
                        self.loggers.add(target.target.value)
                    elif built in THREAD_LOCKS:
                        self.locks.add(target.target.value)
        elif type(small) is cst.AugAssign:
            if qualify(small.target, aliases) == DYNAMO_CONFIG + "reorderable_logging_functions":
                self.reorderable |= _names_in(small.value, aliases)
        elif type(small) is cst.Expr and type(small.value) is cst.Call:
            func = small.value.func
            args = small.value.args
            if (qualify(func, aliases) or "").endswith("Distribution.set_default_validate_args") and args \
                    and _truthy(args[0].value) is False:
                self.distribution_validation_off = True
            if args and type(args[0].value) is cst.Name and qualify(func, aliases) in PYTREE_REGISTER:
                self.pytree_registered.add(args[0].value.value)
            if type(func) is cst.Attribute and func.attr.value in ("add", "update"):
                if qualify(func.value, aliases) == DYNAMO_CONFIG + "reorderable_logging_functions":
                    for arg in small.value.args:
                        self.reorderable |= _names_in(arg.value, aliases)

    def reorderable_call(self, qualified: str | None) -> bool:
        return qualified is not None and qualified in self.reorderable


def _truthy(value: cst.BaseExpression) -> bool | None:
    if type(value) is cst.Name and value.value in ("True", "False"):
        return value.value == "True"
    return None


def _names_in(value: cst.BaseExpression, aliases: dict[str, str]) -> set[str]:
    if type(value) in (cst.Set, cst.List, cst.Tuple):
        return {q for q in (qualify(e.value, aliases) for e in value.elements) if q}
    q = qualify(value, aliases)
    return {q} if q else set()
