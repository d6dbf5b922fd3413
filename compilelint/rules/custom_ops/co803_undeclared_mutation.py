"""CO803: a custom op writes into an argument it does not declare mutated (`mutates_args`, `Tensor(a!)`)."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.nodes import string_value
from compilelint.rules.base import Example, RuleDoc, brief
from compilelint.rules.custom_ops._common import CustomOpRule, custom_op_decorator, keyword, param_names
from compilelint.semantic.custom_ops import REGISTRATION_WORDS, mutated_schema_args

# Methods ending in "_" that change a tensor's metadata or placement, not its values.
_NOT_WRITES = frozenset({"requires_grad_", "share_memory_", "retain_grad_", "rename_", "resize_as_sparse_"})


def _root(expr: cst.BaseExpression) -> str | None:
    """`out` for `out`, `out[idx]`, `out[:, 0]`."""
    while type(expr) is cst.Subscript:
        expr = expr.value
    return expr.value if type(expr) is cst.Name else None


def _declared(call: cst.Call) -> tuple[str, ...] | None:
    """custom_op's mutates_args as written; None where it is "unknown" or not a literal (every argument may be)."""
    value = keyword(call, "mutates_args")
    if value is None:
        return ()
    if type(value) in (cst.Tuple, cst.List, cst.Set):
        names = [string_value(e.value) for e in value.elements]  # None: not a literal Python can evaluate
        return None if None in names else tuple(names)
    return None


def _tensor_annotation(param: cst.Param, ctx) -> bool:  # noqa: ANN001
    annotation = param.annotation.annotation if param.annotation is not None else None
    return annotation is not None and ctx.qualify(annotation) in ("torch.Tensor", "torch.tensor.Tensor")


class CustomOpUndeclaredMutation(CustomOpRule):
    undeclared: set[str] = set()
    function: cst.FunctionDef | None = None

    code = "CO803"
    name = "custom-op-undeclared-mutation"
    targets = ("dynamo",)
    applies_to = "anywhere"  # a custom op is registered to be compiled: its declaration is wrong wherever it is called
    body_gate = REGISTRATION_WORDS  # an op's function is decorated as one, or named where it is registered
    message = "custom op writes into an argument it does not declare mutated"
    version_note = ("Verified on 2.13 (CPU), fullgraph=True: torch raises nothing, at run time or when compiling. With "
                    "backend aot_eager (AOTAutograd's functionalised graph) an op that returns nothing is dropped as dead "
                    "code and the caller reads the argument unwritten; with inductor an op that writes into a tensor the "
                    "graph made and returns another value is also wrong (the graph's later reads of the tensor are "
                    "folded to its value before the call). backend=\"eager\" runs the op as written and agrees with eager, "
                    "and so did the program torch.export.export returned in these examples: it keeps the call, whose "
                    "write is not in the graph's signature. Declared mutations (mutates_args=(\"out\",), "
                    "`Tensor(a!) out`) compile right.")
    doc = RuleDoc(
        what=("Flags in-place writes (`out.copy_(...)`, `x.add_(...)`, `out[idx] = v`, `x += v`, `out=`) to a tensor "
              "argument of a `torch.library.custom_op` that its `mutates_args` does not name, or of the kernel of an op "
              "`torch.library.define`d with a schema that does not mark the argument `Tensor(a!)`."),
        why=("torch.compile trusts an op's declaration. An op declared functional (no mutated arguments) is free to be "
             "reordered, deduplicated or, when nothing reads its outputs, dropped, and every later read of its "
             "arguments is taken to see their values from before the call. A scatter, accumulate or normalise-in-place "
             "op that writes into its argument without saying so then returns the argument unwritten under "
             "torch.compile: silently wrong results, with no error and no warning."),
        example=('@torch.library.custom_op("vox::scatter_max", mutates_args=())\n'
                 "def scatter_max(grid: Tensor, idx: Tensor, src: Tensor) -> None:\n"
                 "    grid[idx] = torch.maximum(grid[idx], src)"),
        use_instead=('@torch.library.custom_op("vox::scatter_max", mutates_args=("grid",))\n'
                     "def scatter_max(grid: Tensor, idx: Tensor, src: Tensor) -> None:\n"
                     "    grid[idx] = torch.maximum(grid[idx], src)"),
        fix_safety=("No fix is offered: declaring the write (`mutates_args`, `Tensor(a!)`) and writing into a clone "
                    "that the op returns are both right, and which one the callers expect only the author knows."),
    )
    bad = (
        Example('''import torch


@torch.library.custom_op("co803::fill_scaled", mutates_args=())
def fill_scaled(out: torch.Tensor, x: torch.Tensor) -> None:
    out.copy_(x * 3)  # <-


@fill_scaled.register_fake
def _(out, x):
    return None


class M(torch.nn.Module):
    def forward(self, x):
        out = torch.zeros_like(x)
        fill_scaled(out, x)
        return out + 1
''', inputs="[(torch.tensor([1., -2., 3.]),)]", check="custom-op-wrong"),
        Example('''import torch

torch.library.define("co803::scatter_max", "(Tensor grid, Tensor idx, Tensor src) -> ()")


@torch.library.impl("co803::scatter_max", "cpu")
def _scatter_max(grid, idx, src):
    grid[idx] = torch.maximum(grid[idx], src)  # <-


@torch.library.register_fake("co803::scatter_max")
def _(grid, idx, src):
    return None


class M(torch.nn.Module):
    def forward(self, src, idx):
        grid = torch.zeros(4)
        torch.ops.co803.scatter_max(grid, idx, src)
        return grid * 2
''', inputs="[(torch.tensor([1., 5., 2.]), torch.tensor([0, 2, 3]))]", check="custom-op-wrong"),
        Example('''import torch


@torch.library.custom_op("co803::normalize_", mutates_args=())
def normalize_(x: torch.Tensor) -> None:
    x /= x.norm()  # <-


@normalize_.register_fake
def _(x):
    return None


class M(torch.nn.Module):
    def forward(self, x):
        y = x * 3
        normalize_(y)
        return y + 1
''', inputs="[(torch.randn(4),)]", check="custom-op-wrong"),
    )
    good = (
        Example('''import torch


@torch.library.custom_op("co803::fill_scaled_ok", mutates_args=("out",))
def fill_scaled(out: torch.Tensor, x: torch.Tensor) -> None:
    out.copy_(x * 3)


@fill_scaled.register_fake
def _(out, x):
    return None


class M(torch.nn.Module):
    def forward(self, x):
        out = torch.zeros_like(x)
        fill_scaled(out, x)
        return out + 1
''', inputs="[(torch.tensor([1., -2., 3.]),)]", check="custom-op-wrong"),
        Example('''import torch

torch.library.define("co803::scatter_max_ok", "(Tensor(a!) grid, Tensor idx, Tensor src) -> ()")


@torch.library.impl("co803::scatter_max_ok", "cpu")
def _scatter_max(grid, idx, src):
    grid[idx] = torch.maximum(grid[idx], src)


@torch.library.register_fake("co803::scatter_max_ok")
def _(grid, idx, src):
    return None


class M(torch.nn.Module):
    def forward(self, src, idx):
        grid = torch.zeros(4)
        torch.ops.co803.scatter_max_ok(grid, idx, src)
        return grid * 2
''', inputs="[(torch.tensor([1., 5., 2.]), torch.tensor([0, 2, 3]))]", check="custom-op-wrong"),
        Example('''import torch


@torch.library.custom_op("co803::normalized", mutates_args=())
def normalized(x: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    x /= x.norm()
    return x


@normalized.register_fake
def _(x):
    return torch.empty_like(x)


class M(torch.nn.Module):
    def forward(self, x):
        y = normalized(x * 3)
        return y + 1
''', inputs="[(torch.randn(4),)]", check="custom-op-wrong"),
    )

    def begin_function(self, ctx) -> None:  # noqa: ANN001
        """Which tensor arguments this function may not write: those of a custom op's implementation that its
        declaration leaves out."""
        self.undeclared: set[str] = set()
        self.op = ""
        self.function = fn = ctx.function
        if fn is None or ctx.class_name is not None:
            return
        params = {p.name.value: p for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)}
        deco = custom_op_decorator(fn, ctx)
        if deco is not None:
            declared = _declared(deco)
            first = deco.args[0].value if deco.args else None
            text = string_value(first) if first is not None else None  # (None: Python cannot evaluate it)
            self.op = text if text is not None else fn.name.value
            tensors = {n for n, p in params.items() if _tensor_annotation(p, ctx)}
        else:
            op = ctx.custom_ops.definition_of_function(fn.name.value)
            if op is None:
                return
            self.op = op.name
            if op.how == "define":
                if not op.schema:
                    return
                names, mutated = mutated_schema_args(op.schema)
                types = op.schema.split("->", 1)[0]
                order = param_names(fn)
                declared = tuple(order[i] for i, n in enumerate(names) if n in mutated and i < len(order))
                tensor_args = {names[i] for i, _ in enumerate(names) if _schema_is_tensor(types, names[i])}
                tensors = {order[i] for i, n in enumerate(names) if n in tensor_args and i < len(order)}
            else:
                declared = op.mutates
                tensors = {n for n, p in params.items() if _tensor_annotation(p, ctx)}
        if declared is None:
            return
        self.undeclared = tensors - set(declared)

    def _watching(self, ctx) -> bool:  # noqa: ANN001
        return bool(self.undeclared) and ctx.function is self.function  # not a module-level statement after it

    def _report(self, node: cst.CSTNode, name: str, ctx) -> None:  # noqa: ANN001
        declared_in = "its schema's `Tensor(a!)`" if "::" in self.op and ctx.custom_ops.by_name(self.op) \
            and ctx.custom_ops.by_name(self.op).how == "define" else "`mutates_args`"
        ctx.report(node, f"custom op `{brief(self.op, 24)}` writes into `{name}`, not in {declared_in}")

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if not self._watching(ctx):
            return
        func = node.func
        if type(func) is cst.Attribute and func.attr.value.endswith("_") and not func.attr.value.endswith("__") \
                and func.attr.value not in _NOT_WRITES:
            root = _root(func.value)
            if root in self.undeclared:
                self._report(node, root, ctx)
                return
        out = keyword(node, "out")
        if out is not None and type(out) is cst.Name and out.value in self.undeclared:
            self._report(node, out.value, ctx)

    def visit_Assign(self, node: cst.Assign, ctx) -> None:  # noqa: ANN001
        if not self._watching(ctx):
            return
        for target in node.targets:
            t = target.target
            if type(t) is cst.Subscript and _root(t) in self.undeclared:
                self._report(node, _root(t), ctx)
        for target in node.targets:  # `x = x.clone()`: later writes go to the new tensor
            if type(target.target) is cst.Name:
                self.undeclared.discard(target.target.value)

    def visit_AugAssign(self, node: cst.AugAssign, ctx) -> None:  # noqa: ANN001
        root = _root(node.target)
        if self._watching(ctx) and root in self.undeclared:  # `x += v` on a tensor writes in place, as `x[i] += v` does
            self._report(node, root, ctx)


def _schema_is_tensor(args: str, name: str) -> bool:
    """Whether schema argument `name` is a single tensor (`Tensor`, `Tensor(a!)`, `Tensor?`), not a list."""
    for part in args[args.find("(") + 1:].split(","):
        words = part.split("=")[0].split()
        if len(words) >= 2 and words[-1].rstrip(")") == name:
            return words[0].startswith("Tensor") and "[]" not in words[0]
    return False
