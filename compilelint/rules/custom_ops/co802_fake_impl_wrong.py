"""CO802: a fake implementation that reads tensor data, or gives a data-dependent output a fixed shape."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.nodes import string_value
from compilelint.rules.base import Example, RuleDoc, brief
from compilelint.rules.custom_ops._common import CustomOpRule, custom_op_decorator
from compilelint.semantic.custom_ops import REGISTER_FAKE, REGISTRATION_WORDS

# Calls in a fake that give it a size only the data knows (an unbacked size): what a data-dependent output needs.
_DYNAMIC_SIZE_METHODS = frozenset({"new_dynamic_size", "item", "nonzero", "masked_select", "unique", "argwhere",
                                   "unique_consecutive", "nonzero_static"})
_TO_PYTHON = frozenset({"int", "float", "bool"})


def _fake_target(fn: cst.FunctionDef, ctx) -> str | None:  # noqa: ANN001
    """The op `fn` is the fake of: its name ("ns::op") or the dotted name of the op object; None if no fake."""
    facts = ctx.custom_ops
    for deco in fn.decorators:
        d = deco.decorator
        call = d if type(d) is cst.Call else None
        name = ctx.qualify(call.func if call else d)
        if name is None:
            continue
        if call is not None and name in REGISTER_FAKE and call.args:
            first = call.args[0].value
            if type(first) is cst.SimpleString:  # (string_value: None for one Python cannot evaluate)
                text = string_value(first)
                return text.split(".")[0] if text is not None else None
            target = ctx.qualify(first)
            return _op_of(target, ctx) if target else None
        if call is None and name.endswith(".register_fake"):
            return _op_of(name.rpartition(".")[0], ctx)
    registered = facts.fake_functions.get(fn.name.value) if ctx.class_name is None else None
    return _op_of(registered, ctx) if registered else None


def _op_of(ref: str, ctx) -> str:  # noqa: ANN001
    """An op name for a reference: "ns::op" stays; a local op object's name becomes its op's name."""
    if "::" in ref:
        return ref
    local = ctx.custom_ops.by_python(ref if "." in ref else f"{ctx.module_name}.{ref}")
    return local.name if local is not None else ref


class FakeImplWrong(CustomOpRule):
    code = "CO802"
    name = "fake-impl-reads-data-or-fixes-shape"
    applies_to = "anywhere"  # a fake runs only under torch.compile / torch.export: that is what it is for
    body_gate = REGISTRATION_WORDS  # a fake is decorated as one, or named where it is registered
    message = "fake implementation reads tensor data or fixes a data-dependent size"
    torch_error = ("data-dependent", "PendingUnbackedSymbolNotFound", "GuardOnDataDependentSymNode")
    # torch names the op's call in forward (and, for a guard under export, the fake's line too): the harness judges
    # a bad example by the error's text
    torch_names_line = False
    version_note = ("Verified on 2.13 (CPU). Reading data in a fake: `int()` of a value computed from tensor data "
                    "(`int(valid.sum().item())`; of a 0-d input tensor's `.item()` torch.compile was seen to pass and"
                    " export to fail), `float(...)`, `bool(...)` of tensor data and an `if` on it raise (compile: "
                    "UserError \"Could not guard on / extract specialized integer from data-dependent expression\"; "
                    "export: GuardOnDataDependentSymNode), and `.tolist()` raises PendingUnbackedSymbolNotFound "
                    "(InternalTorchDynamoError under compile), even where the values size the output. A bare "
                    "`.item()` used as a size, `nonzero()` and `new_dynamic_size()` give an unbacked size and work. A"
                    " fixed shape (`empty_like(x)`) for an output of data-dependent length raises nothing: the "
                    "compiled (backend eager, aot_eager) and exported programs use the fake's size wherever the model"
                    " reads it (`kept.shape[0]`, `torch.zeros(len)`), and return other results than eager.")
    doc = RuleDoc(
        what=("Flags, in a fake implementation (`@op.register_fake`, `torch.library.register_fake`, `impl_abstract`), "
              "reads of tensor data that fake tensors cannot answer (`.tolist()`, `.numpy()`, `int()` / `float()` / "
              "`bool()` of tensor data, an `if` or `while` on it), and the `return` of a fake whose op's real "
              "implementation returns a data-dependent size (a boolean mask, `nonzero`, `unique`) while the fake makes "
              "no data-dependent size (`new_dynamic_size()`, `.item()`, `nonzero()`)."),
        why=(('torch.compile and torch.export call the fake on fake tensors: shapes, dtypes, no values. Asking one '
              'for a Python number fails the compile. Returning a fixed shape does not fail: the graph takes the '
              "fake's word, so every later read of the output's size (a count of kept boxes, a buffer sized by it) "
              "is the fake's size, not the real one, and the compiled model silently returns other results than "
              'eager. NMS, thresholding and voxel ops have outputs of data-dependent length. Size a data-dependent '
              'output with `torch.library.get_ctx().new_dynamic_size()` (or the unbacked size `n.item()`), and '
              'compute shapes from shapes only.')),
        example=("@keep_positive.register_fake\n"
                 "def _(x):\n"
                 "    return torch.empty_like(x)  # the real op returns x[x > 0]"),
        use_instead=("@keep_positive.register_fake\n"
                     "def _(x):\n"
                     "    n = torch.library.get_ctx().new_dynamic_size()\n"
                     "    return x.new_empty(n)"),
        fix_safety="No fix is offered: which output sizes depend on the data is the op's contract, not the fake's code.",
    )
    bad = (
        Example('''import torch


@torch.library.custom_op("co802::keep_positive", mutates_args=())
def keep_positive(x: torch.Tensor) -> torch.Tensor:
    return x[x > 0]


@keep_positive.register_fake
def _(x):
    return torch.empty_like(x)  # <-


class M(torch.nn.Module):
    def forward(self, x):
        kept = keep_positive(x)
        return x.new_full((1,), kept.shape[0])
''', inputs="[(torch.tensor([3., -2., 3., -4., 5.]),)]", check="custom-op-wrong"),
        Example('''import torch


@torch.library.custom_op("co802::first_valid", mutates_args=())
def first_valid(x: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    return x[: int(valid.sum())].clone()


@first_valid.register_fake
def _(x, valid):
    return x.new_empty(int(valid.sum().item()), x.shape[1])  # <-


class M(torch.nn.Module):
    def forward(self, x, valid):
        return first_valid(x, valid) * 2
''', inputs="[(torch.randn(6, 2), torch.tensor([1, 1, 1, 0, 0, 0]))]"),
        Example('''import torch


@torch.library.custom_op("co802::ragged_cat", mutates_args=())
def ragged_cat(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    return torch.cat([x[i, :n] for i, n in enumerate(lengths.tolist())])


@torch.library.register_fake("co802::ragged_cat")
def _ragged_cat_fake(x, lengths):
    sizes = lengths.tolist()  # <-
    return x.new_empty(sum(sizes))


class M(torch.nn.Module):
    def forward(self, x, lengths):
        return ragged_cat(x, lengths) * 2
''', inputs="[(torch.randn(3, 5), torch.tensor([2, 5, 1]))]"),
        Example('''import torch


@torch.library.custom_op("co802::clip_negative", mutates_args=())
def clip_negative(x: torch.Tensor) -> torch.Tensor:
    return x.clamp_min(0)


@clip_negative.register_fake
def _(x):
    if (x < 0).any():  # <-
        return torch.empty_like(x)
    return torch.empty_like(x)


class M(torch.nn.Module):
    def forward(self, x):
        return clip_negative(x) + 1
''', inputs="[(torch.randn(8),)]"),
    )
    good = (
        Example('''import torch


@torch.library.custom_op("co802::keep_positive_ok", mutates_args=())
def keep_positive(x: torch.Tensor) -> torch.Tensor:
    return x[x > 0]


@keep_positive.register_fake
def _(x):
    n = torch.library.get_ctx().new_dynamic_size()
    return x.new_empty(n)


class M(torch.nn.Module):
    def forward(self, x):
        kept = keep_positive(x)
        return x.new_full((1,), kept.shape[0])
''', inputs="[(torch.tensor([3., -2., 3., -4., 5.]),)]", check="custom-op-wrong"),
        Example('''import torch


@torch.library.custom_op("co802::first_valid_ok", mutates_args=())
def first_valid(x: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    return x[: int(valid.sum())].clone()


@first_valid.register_fake
def _(x, valid):
    return x.new_empty(valid.sum().item(), x.shape[1])


class M(torch.nn.Module):
    def forward(self, x, valid):
        return first_valid(x, valid) * 2
''', inputs="[(torch.randn(6, 2), torch.tensor([1, 1, 1, 0, 0, 0]))]"),
        Example('''import torch


@torch.library.custom_op("co802::ragged_cat_ok", mutates_args=())
def ragged_cat(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    return torch.cat([x[i, :n] for i, n in enumerate(lengths.tolist())])


@torch.library.register_fake("co802::ragged_cat_ok")
def _ragged_cat_fake(x, lengths):
    return x.new_empty(lengths.sum().item())


class M(torch.nn.Module):
    def forward(self, x, lengths):
        return ragged_cat(x, lengths) * 2
''', inputs="[(torch.randn(3, 5), torch.tensor([2, 5, 1]))]"),
        Example('''import torch


@torch.library.custom_op("co802::clip_negative_ok", mutates_args=())
def clip_negative(x: torch.Tensor) -> torch.Tensor:
    return x.clamp_min(0)


@clip_negative.register_fake
def _(x):
    return torch.empty_like(x)


class M(torch.nn.Module):
    def forward(self, x):
        return clip_negative(x) + 1
''', inputs="[(torch.randn(8),)]"),
    )

    path = ""
    dynamic_ops: set[str] = set()  # ops of this file whose real implementation returns a data-dependent size
    fake_of: str | None = None
    function: cst.FunctionDef | None = None

    def begin_function(self, ctx) -> None:  # noqa: ANN001
        if ctx.path != self.path:
            self.path, self.dynamic_ops = ctx.path, set()
        self.function = fn = ctx.function
        self.fake_of = _fake_target(fn, ctx) if fn is not None else None
        self.impl_of = None
        self.sized = False
        self.returns: list[cst.Return] = []
        if fn is not None and self.fake_of is None and ctx.class_name is None:
            deco = custom_op_decorator(fn, ctx)
            first = deco.args[0].value if deco is not None and deco.args else None
            if type(first) is cst.SimpleString:
                text = string_value(first)
                self.impl_of = text.split(".")[0] if text is not None else None
            else:
                op = ctx.custom_ops.definition_of_function(fn.name.value)
                self.impl_of = op.name if op is not None else None

    def _in_fake(self, ctx) -> bool:  # noqa: ANN001
        return self.fake_of is not None and ctx.function is self.function

    def visit_Return(self, node: cst.Return, ctx) -> None:  # noqa: ANN001
        if ctx.function is not self.function or node.value is None:
            return
        if self.impl_of is not None and ctx.facts.has_dynamic_shape(node.value):
            self.dynamic_ops.add(self.impl_of)
        elif self.fake_of is not None:
            self.returns.append(node)

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if not self._in_fake(ctx):
            return
        func = node.func
        method = func.attr.value if type(func) is cst.Attribute else None
        if method in _DYNAMIC_SIZE_METHODS or ctx.qualify(func) in ("torch.nonzero", "torch.masked_select",
                                                                     "torch.unique", "torch.argwhere"):
            self.sized = True
        if method in ("tolist", "numpy"):
            ctx.report(node, f"fake of `{brief(self.fake_of, 24)}` reads tensor data (`.{method}()`); use `new_dynamic_size()`")
        elif type(func) is cst.Name and func.value in _TO_PYTHON and node.args and self._reads_data(node.args[0].value, ctx):
            ctx.report(node, f"fake of `{brief(self.fake_of, 24)}` turns tensor data into a number (`{func.value}(...)`)")

    def _reads_data(self, expr: cst.BaseExpression, ctx) -> bool:  # noqa: ANN001
        if type(expr) is cst.Name:  # a bare argument may be a float the op takes
            return False
        return ctx.script_facts.is_value_dependent(expr) or any(
            type(n) is cst.Call and type(n.func) is cst.Attribute and n.func.attr.value == "item" for n in _calls(expr))

    def _branch(self, node: cst.CSTNode, test: cst.BaseExpression, ctx) -> None:  # noqa: ANN001
        if self._in_fake(ctx) and self._reads_data(test, ctx):
            ctx.report(node.test if hasattr(node, "test") else node,
                       f"fake of `{brief(self.fake_of, 24)}` branches on tensor data; compute shapes from shapes")

    def visit_If(self, node: cst.If, ctx) -> None:  # noqa: ANN001
        self._branch(node, node.test, ctx)

    def visit_While(self, node: cst.While, ctx) -> None:  # noqa: ANN001
        self._branch(node, node.test, ctx)

    def visit_IfExp(self, node: cst.IfExp, ctx) -> None:  # noqa: ANN001
        self._branch(node, node.test, ctx)

    def end_function(self, ctx) -> None:  # noqa: ANN001
        if self.fake_of is None or self.fake_of not in self.dynamic_ops or self.sized:
            return
        for ret in self.returns:
            ctx.report(ret, f"fake of `{brief(self.fake_of, 24)}` returns a fixed shape for a data-dependent size")


def _calls(expr: cst.CSTNode) -> list[cst.Call]:
    found: list[cst.Call] = []

    class _Visitor(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            found.append(node)

    expr.visit(_Visitor())
    return found
