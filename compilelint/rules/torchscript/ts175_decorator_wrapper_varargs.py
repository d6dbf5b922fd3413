"""TS175: a decorator of the file replaces a scripted function by a `*args`/`**kwargs` wrapper."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.decorators import wrapper_of


class DecoratorWrapperVarargs(Rule):
    code = "TS175"
    name = "decorator-wrapper-varargs"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`@{decorator}` wraps `{function}` in `*args` without `functools.wraps`'
    doc = RuleDoc(
        what=("Flags a function `torch.jit.script` compiles whose decorator, defined in the same file, returns an "
              "inner `*args`/`**kwargs` wrapper without `@functools.wraps`."),
        why=("The decorator binds the method to its wrapper, so TorchScript compiles the wrapper's source and fails "
             "with `Compiled functions can't take variable number of arguments`, naming the wrapper's line. With "
             "`@functools.wraps(fn)` the wrapper carries `__wrapped__`, and TorchScript compiles the original "
             "function instead (torch 2.13)."),
        example=("def logged(fn):\n    def wrapper(*args, **kwargs):\n        return fn(*args, **kwargs)\n"
                 "    return wrapper"),
        use_instead=("def logged(fn):\n    @functools.wraps(fn)\n    def wrapper(*args, **kwargs):\n"
                     "        return fn(*args, **kwargs)\n    return wrapper"),
        fix_safety="No fix is offered: what the wrapper must keep of the original is the decorator author's choice.",
    )
    bad = (
        Example('''
import torch


def logged(fn):
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


class M(torch.nn.Module):
    @logged  # <-
    def forward(self, x):
        return x * 2
'''),
    )
    good = (
        Example('''
import functools

import torch


def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


class M(torch.nn.Module):
    @logged
    def forward(self, x):
        return x * 2
''', inputs="[(torch.randn(2, 3),)]", check="script-call"),
    )

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx) -> None:  # noqa: ANN001
        if node is not ctx.function:
            return
        wrapper = wrapper_of(ctx, node)
        if wrapper is None or wrapper.wraps or not wrapper.varargs:
            return
        decorator = next(d for d in node.decorators if type(d.decorator) is cst.Name
                         and d.decorator.value == wrapper.decorator)
        ctx.report(decorator.decorator, self.message.format(decorator=wrapper.decorator,
                                                            wrapper=wrapper.function.name.value,
                                                            function=node.name.value))
