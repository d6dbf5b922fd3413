"""RC521: a module called in a loop that breaks the graph: each instance's forward is a frame of its own."""
from __future__ import annotations

import dataclasses
import json

import libcst as cst

from compilelint.analysis.index import (element_loops, is_torch_module_name, sharing_classes, skipped_loops_over,
                                        skipped_whole)
from compilelint.rules.base import Example, Rule, RuleDoc, brief, fit_message
from compilelint.semantic.annotations import without_none

_INPUTS = "[(torch.randn(2, 8),) for _ in range(5)]"

_BAD = '''import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.lin = nn.Linear(cin, cout)

    def forward(self, x):
        return torch.relu(self.lin(x))  # <-


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(8, 16), Block(16, 16), Block(16, 4)])

    def forward(self, x):
        norms = []
        for block in self.blocks:
            x = block(x)
            norms.append(x.norm().item())
        return x, norms
'''


# Another model of the tree loops over blocks of the same class without breaking (Dynamo inlines them there):
# the breaking loop over a container of that class alone still makes each of its blocks a frame of its own.
_INLINED_ELSEWHERE = _BAD.replace('''

class M(nn.Module):''', '''

class Plain(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(8, 8), Block(8, 8)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


class M(nn.Module):''')


# The modules handed, one per iteration, into a helper and into a method shared by their classes, in a loop whose
# helper breaks the graph (kornia's ImageSequential.forward_parameters and _get_new_batch_shape).
_HANDED = '''import torch
from torch import nn


class Step(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.width = width

    def forward(self, x):
        return x * self.width

    def draw(self, n):
        return torch.rand(n) * self.width  # <-


class Grow(Step):
    pass


class Shrink(Step):
    pass


def next_size(size, step: nn.Module):
    if isinstance(step, Grow):  # <-
        return size + 1
    return size - 1 if size.item() > 1 else size


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.steps = nn.ModuleList([Grow(2), Shrink(3), Grow(4)])

    def forward(self, x):
        size = torch.tensor(4)
        for step in self.steps:
            x = x + step.draw(x.shape[-1])
            size = next_size(size, step)
        return x, size
'''


class ModuleInSkippedLoop(Rule):
    code = "RC521"
    name = "module-in-skipped-loop"
    family = "recompile"
    targets = ("recompile",)
    severity = "warning"
    tree_facts = True
    uses_graph_breaks = True
    message = "each `{cls}` in `{attr}` is its own frame: recompiles per instance"
    handed_message = "each module `{caller}`'s loop hands here is a frame: recompiles per module"
    method_message = "`{cls}.{method}` is a frame per class in `{caller}`'s loop: recompiles per class"
    version_note = ("Verified on 2.13 (backend=\"eager\", five calls of one size): three `Block`s of other widths "
                    "called in a loop that calls `.item()` compile `Block.forward` once per block (`requires_grad "
                    "mismatch`, parameter `size mismatch`); with the norm kept a tensor nothing recompiles. "
                    "torch_geometric's NeuralFingerprint (its `Linear`s, bias or none), kornia's LightGlue (its "
                    "`TransformerLayer`s) recompiled so, and torch_geometric's MFConv (its `Linear`s, which MLP "
                    "inlines elsewhere). A helper handed the loop's module and a method its classes share: "
                    "`next_size` recompiled on `___check_type_id(step, ...)`, `draw` on `___check_type_id(self, "
                    "...)` (2.13), as kornia's `_get_new_batch_shape` and `_AugmentationBase.forward_parameters` "
                    "did in ImageSequential's loop.")
    doc = RuleDoc(
        what=("Flags the `forward` of a module class whose instances a module container of the tree holds "
              "(`nn.ModuleList([...])`, `self.layers.append(...)`), when a function loops over that container, "
              "calling each element (`for layer in self.layers: x = layer(x)`, `self.layers[i](x)`), and "
              "something in the loop breaks the graph: a graph break of its own, in a call, or in an element's "
              "forward (in any file). Where another loop of the tree over such a container inlines the "
              "instances (no break), only a breaking loop over a container holding this class alone is named: "
              "a polymorphic container (a factory's blocks) may owe its break to elements the other never holds. "
              "Also flags, where such a loop hands its element to a function of the tree with a parameter "
              "annotated `nn.Module` (`next_size(size, step)`), that function, and where it calls a method on "
              "the element (`step.draw(n)`), the method of a module class when two or more classes of the tree "
              "share it (a subclass that does not override it)."),
        why=("A graph break inside a loop makes Dynamo skip the whole function: it runs eagerly, and every module "
             "it calls is compiled as a frame of its own. The forward's frame belongs to the class's code, shared "
             "by every instance, and is guarded on the instance it runs for: parameter shapes are static, a "
             "parameter that is `None` in one instance is a tensor in another, and the first layer is fed the "
             "model's input (`requires_grad=False`) where the next is fed a hidden state that requires grad. "
             "Each distinct instance recompiles it, and past `recompile_limit` (8) the rest run eagerly. Without "
             "the break, Dynamo inlines every element into the caller's one graph. A helper handed the element, and "
             "a method called on it, are frames of their own too: the helper is guarded on the module it is "
             "given (`___check_type_id(step, ...)` where it tests the type, its attributes where it reads them), "
             "a method its classes share on `type(self)`, so each class recompiles them."),
        example=("for block in self.blocks:\n    x = block(x)\n    norms.append(x.norm().item())"),
        use_instead=("for block in self.blocks:\n    x = block(x)\n    norms.append(x.norm())  # a 0-d tensor: no break"),
    )
    bad = (Example(_BAD, inputs=_INPUTS), Example(_INLINED_ELSEWHERE, inputs=_INPUTS),
           Example(_HANDED, inputs=_INPUTS))
    good = (Example(_BAD.replace("x.norm().item()", "x.norm()").replace("  # <-", ""), inputs=_INPUTS),
            Example(_INLINED_ELSEWHERE.replace("x.norm().item()", "x.norm()").replace("  # <-", ""), inputs=_INPUTS),
            # the size kept a tensor: no break, every step inlined into forward's one graph
            Example(_HANDED.replace("size - 1 if size.item() > 1 else size", "torch.where(size > 1, size - 1, size)")
                    .replace("  # <-", ""), inputs=_INPUTS))

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx) -> None:  # noqa: ANN001
        cls = ctx.class_node
        if node is not ctx.function or any(d.endswith("overload") for d in ctx.decorators):
            return  # a typing overload: its body never runs
        body = node.body.body if type(node.body) is cst.IndentedBlock else ()
        first = next((s for s in body if not _docstring(s)), None)
        if first is None:  # the first statement: a line the frame runs (its `def` ran at import)
            return
        name = node.name.value
        if cls is not None and name == "forward" and cls.bases:
            ctx.report(first, pending=json.dumps(["forward", cls.name.value]))
        elif _takes_module(node, ctx):
            ctx.report(first, pending=json.dumps(["handed", ctx.context]))
        elif cls is not None and cls.bases and not name.startswith("__") and ctx.context.count(".") == 1:
            ctx.report(first, pending=json.dumps(["method", ctx.context]))

    @classmethod
    def settle(cls, finding, index, scope):  # noqa: ANN001, ANN206
        """Keep the forward where a loop that breaks calls its instances; name the container."""
        if not finding.pending:
            return finding  # settled already: a copy the engine keeps (the original still holds its data)
        how, name = json.loads(finding.pending)  # "forward" and its class, or "handed"/"method" and the function
        summary = index.summary_at(finding.path)
        if summary is None:
            return None
        if how != "forward":
            return cls._settle_element(finding, index, scope, summary.module, how, name)
        loops = [(key, attr) for key, attr in skipped_loops_over(index, f"{summary.module}:{name}")
                 if "dynamo" in scope.get(key, ())]
        if not loops:
            return None
        attr = loops[0][1]
        return dataclasses.replace(finding, pending="", message=fit_message(cls.message.format(
            cls=brief(name, 24), attr=brief(attr, 20))))

    @classmethod
    def _settle_element(cls, finding, index, scope, module, how, context):  # noqa: ANN001, ANN206
        """A function handed a breaking loop's element, or a method its classes share called on it."""
        handed, methods = element_loops(index)
        own = index.functions.get(f"{module}:{context}")
        if own is None or skipped_whole(index, own):
            return None  # a loop every call runs breaks: Dynamo skips it whole, and a skipped frame never recompiles
        if how == "handed":
            callers = handed.get(f"{module}:{context}", [])
        else:
            owner, _, method = context.partition(".")
            class_key = f"{module}:{owner}"
            if not index.is_module_class(class_key) or len(sharing_classes(index, class_key, method)) < 2:
                return None
            callers = methods.get(method, [])
        callers = [c for c in callers if "dynamo" in scope.get(c, ())]
        if not callers:
            return None
        caller = brief(callers[0].partition(":")[2], 28)
        if how == "handed":
            return dataclasses.replace(finding, pending="", message=fit_message(cls.handed_message.format(caller=caller)))
        owner, _, method = context.partition(".")
        return dataclasses.replace(finding, pending="", message=fit_message(cls.method_message.format(
            cls=brief(owner, 20), method=brief(method, 20), caller=caller)))


def _takes_module(node: cst.FunctionDef, ctx) -> bool:  # noqa: ANN001
    """A parameter annotated `nn.Module` (or `Optional[nn.Module]`): what a loop over modules hands over."""
    for param in [*node.params.posonly_params, *node.params.params, *node.params.kwonly_params]:
        if param.annotation is None:
            continue
        annotation = without_none(param.annotation.annotation, ctx.facts.aliases)
        name = ctx.qualify(annotation) if type(annotation) in (cst.Name, cst.Attribute) else None
        if name and name.endswith(".Module") and is_torch_module_name(name):
            return True
    return False


def _docstring(stmt: cst.BaseStatement) -> bool:
    return (type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 and type(stmt.body[0]) is cst.Expr
            and type(stmt.body[0].value) in (cst.SimpleString, cst.ConcatenatedString))
