"""What a decorator of the file turns a function into: the function it returns.

`@logged` over `forward`, with `def logged(fn): def wrapper(*args, **kwargs): ...; return wrapper`, binds
`forward` to `wrapper`. TorchScript then compiles `wrapper`, not the decorated body, unless the wrapper carries
`@functools.wraps(fn)`: torch.jit.script follows `__wrapped__` to the original function (verified on 2.13).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from compilelint.analysis.names import qualify

if TYPE_CHECKING:
    from compilelint.analyzer import RuleContext

_WRAPS = frozenset({"functools.wraps", "functools.update_wrapper"})


@dataclass(frozen=True)
class Wrapper:
    decorator: str  # the decorator's name in the file
    function: cst.FunctionDef  # the inner function the decorator returns
    wraps: bool  # it carries @functools.wraps: TorchScript compiles the original instead
    varargs: tuple[cst.Param, ...]  # its `*args` / `**kwargs`


def _returned_inner(fn: cst.FunctionDef) -> cst.FunctionDef | None:
    body = fn.body.body if type(fn.body) is cst.IndentedBlock else ()
    inner = {s.name.value: s for s in body if type(s) is cst.FunctionDef}
    last = body[-1] if body else None
    if type(last) is cst.SimpleStatementLine and len(last.body) == 1 and type(last.body[0]) is cst.Return:
        value = last.body[0].value
        if type(value) is cst.Name:
            return inner.get(value.value)
    return None


def _file_wrappers(module: cst.Module, aliases: dict[str, str]) -> dict[str, Wrapper]:
    out: dict[str, Wrapper] = {}
    for stmt in module.body:
        if type(stmt) is not cst.FunctionDef or len(stmt.params.params) != 1:
            continue
        inner = _returned_inner(stmt)
        if inner is None:
            continue
        wraps = any(qualify(d.decorator.func if type(d.decorator) is cst.Call else d.decorator, aliases) in _WRAPS
                    for d in inner.decorators)
        varargs = tuple(p for p in (inner.params.star_arg, inner.params.star_kwarg) if type(p) is cst.Param)
        out[stmt.name.value] = Wrapper(stmt.name.value, inner, wraps, varargs)
    return out


def wrapper_of(ctx: "RuleContext", fn: cst.FunctionDef) -> Wrapper | None:
    """The wrapper a decorator of this file puts in place of `fn` (a bare `@name` over it), if any."""
    cache = ctx.__dict__.get("_file_wrappers")
    if cache is None or cache[0] is not ctx.module:
        cache = ctx.__dict__["_file_wrappers"] = (ctx.module, _file_wrappers(ctx.module, ctx.aliases))
    for d in fn.decorators:
        if type(d.decorator) is cst.Name and d.decorator.value in cache[1]:
            return cache[1][d.decorator.value]
    return None
