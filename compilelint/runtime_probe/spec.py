"""Probe targets and the factory protocol. Parsing a target never imports it (the parent stays clean).

A target is `path/to/file.py:factory` or `package.module:factory`. The factory takes no arguments and
returns either

    (model, input_sets)                      # a tuple of two
    {"model": model, "inputs": input_sets,   # or a dict; "checks" and "dynamic" are optional
     "checks": ["dynamo", "recompile", "torchscript", "trace", "export"], "dynamic": True}

`input_sets` is a list; each element is one call's positional arguments (a tuple or list), or a single
object that is the only argument (`[x1, x2]` means `model(x1)`, then `model(x2)`). The first set is the
example input (trace and export use it); the others are the "other inputs" that show recompiles and
frozen traces. `checks`, when given, narrows which compile paths are probed for this target (the
config's `targets` narrow them too). `dynamic` is the `torch.compile(dynamic=...)` setting the Dynamo
check uses (None: torch's default, automatic dynamic after one recompile); a module-level `DYNAMIC` in the
target's module gives it too, and `compilelint probe --dynamic` overrides both.

A factory that takes a `device` parameter is called with `device="cpu"` or `"cuda"`; otherwise the probe
moves the model and every tensor of the input sets to the device itself.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

CHECKS = ("dynamo", "recompile", "torchscript", "trace", "export")


class TargetError(ValueError):
    """A target string that cannot name a factory."""


@dataclass(frozen=True)
class Target:
    text: str  # as the user wrote it
    file: str | None  # absolute path, for `file.py:factory`
    module: str | None  # dotted name, for `package.module:factory`
    factory: str

    @property
    def label(self) -> str:
        return self.text


def parse_target(text: str, base: str = ".") -> Target:
    head, sep, factory = text.rpartition(":")
    if not sep or not head or not factory:
        raise TargetError(f"{text!r}: a target is path/to/file.py:factory or package.module:factory")
    if not factory.replace("_", "a").isalnum() or factory[0].isdigit():
        raise TargetError(f"{text!r}: {factory!r} is not a function name")
    if head.endswith(".py") or os.sep in head or "/" in head:
        path = head if os.path.isabs(head) else os.path.join(base, head)
        if not os.path.isfile(path):
            raise TargetError(f"{text!r}: no such file {head}")
        return Target(text=text, file=os.path.abspath(path), module=None, factory=factory)
    if not all(part.isidentifier() for part in head.split(".")):
        raise TargetError(f"{text!r}: {head!r} is neither a .py file nor a dotted module name")
    return Target(text=text, file=None, module=head, factory=factory)


@dataclass
class Built:
    model: object
    input_sets: list[tuple]
    checks: tuple[str, ...] = CHECKS
    dynamic: bool | None = None
    has_dynamic: bool = False


def normalize(result: object) -> Built:
    """Check and normalize what a factory returned (in the child; raises TypeError with a plain message)."""
    checks: tuple[str, ...] = CHECKS
    if isinstance(result, dict):
        if "model" not in result or "inputs" not in result:
            raise TypeError("a factory returning a dict must give 'model' and 'inputs'")
        model, inputs = result["model"], result["inputs"]
        if "checks" in result:
            unknown = [c for c in result["checks"] if c not in CHECKS]
            if unknown:
                raise TypeError(f"unknown check(s) {unknown}; choose from {list(CHECKS)}")
            checks = tuple(result["checks"])
        if "dynamic" in result:
            if result["dynamic"] not in (None, True, False):
                raise TypeError("'dynamic' must be True, False or None")
            return Built(model=model, input_sets=_sets(model, inputs), checks=checks, dynamic=result["dynamic"],
                         has_dynamic=True)
    elif isinstance(result, tuple) and len(result) == 2:
        model, inputs = result
    else:
        raise TypeError("the factory must return (model, input_sets) or {'model': ..., 'inputs': [...]}, "
                        f"not {type(result).__name__}")
    return Built(model=model, input_sets=_sets(model, inputs), checks=checks)


def _sets(model: object, inputs: object) -> list[tuple]:
    if not callable(model):
        raise TypeError(f"the model ({type(model).__name__}) is not callable")
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise TypeError("input_sets must be a non-empty list (one element per call)")
    return [tuple(s) if isinstance(s, (tuple, list)) else (s,) for s in inputs]
