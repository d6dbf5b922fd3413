from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, Rule, RuleDoc, brief
from compilelint.semantic.calls import argument, call_name
from compilelint.semantic.frames import mentions_dynamic_size, reaches_entry_values


def _constant_size_argument(call: cst.Call, ctx) -> cst.BaseExpression | None:  # noqa: ANN001
    """The argument of `torch.as_tensor(...)` or `hash(...)` in a compiled frame's entry when it is, or is built
    from, a tensor size or shape (`torch.as_tensor([w, h, w, h])`, `hash(tuple(x.shape))`). Both specialise the
    size: every distinct size recompiles (verified on 2.13, four sizes, three recompiles each, with a shape slice,
    a list of sizes, a size with dtype/device, size arithmetic; `torch.tensor([w, h])` of the same sizes: one)."""
    name = call_name(call, ctx)
    if name not in ("torch.as_tensor", "hash") or not reaches_entry_values(ctx):
        return None
    arg = argument(call, 0, "data") if name == "torch.as_tensor" else argument(call, 0)
    if arg is None:
        return None
    inner = arg
    if type(inner) is cst.Call and type(inner.func) is cst.Name and inner.func.value in ("tuple", "list") and inner.args:
        inner = inner.args[0].value
    return arg if mentions_dynamic_size(inner, ctx) else None


class SizeMadeConstant(Rule):
    code = "RC516"
    name = "size-made-constant"
    call_gate = gate(names={"torch.as_tensor", "hash"})
    family = "recompile"
    targets = ("recompile",)
    severity = "warning"
    message = 'size `{size}` made a constant: each new size recompiles'
    version_note = ("Verified on 2.13 with four input sizes (three recompiles each, its examples): torch.as_tensor of a "
                    "shape slice, of a list of sizes, of one size with dtype/device, of size arithmetic; hash of a "
                    "shape, a tuple(shape) or a size. torch.tensor of the same sizes gave one recompile (automatic "
                    "dynamic). On 2.11 the torch.as_tensor examples hold; hash(tuple(shape)) recompiled twice over "
                    "four sizes (that example is judged from 2.13).")
    doc = RuleDoc(
        what=("Flags, in a module's `forward`, a `@torch.compile` function or a method `forward` passes its inputs to, `torch.as_tensor(...)` or `hash(...)` "
              "of a tensor size or shape, or of a list or arithmetic built from one."),
        why=("Detection heads scale normalised boxes to pixels with `torch.as_tensor([w, h, w, h])` from the image "
             "size. When the image size changes Dynamo would recompile once and make the sizes dynamic, but "
             "`as_tensor` (and `hash`) take the Python value: Dynamo specialises the size and compiles again for "
             "every new image size, and after eight sizes gives up and runs the function eagerly. "
             "`torch.tensor([w, h, w, h])` is traced with the sizes symbolic."),
        example="h, w = image.shape[-2:]\nscale = torch.as_tensor([w, h, w, h], dtype=boxes.dtype)",
        use_instead="h, w = image.shape[-2:]\nscale = torch.tensor([w, h, w, h], dtype=boxes.dtype)",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, image, boxes):
        h, w = image.shape[-2:]
        scale = torch.as_tensor([w, h, w, h], dtype=boxes.dtype)  # <-
        return boxes * scale
''', inputs="[(torch.randn(3, n, n + 8), torch.rand(5, 4)) for n in (32, 40, 48, 56)]", check="recompile-each"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return x * torch.as_tensor(x.shape[-2:]).sum()  # <-
''', inputs="[(torch.randn(2, n, n + 1),) for n in (3, 4, 5, 6)]", check="recompile-each"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        key = hash(tuple(x.shape))  # <-
        return x * (key % 2 + 1)
''', inputs="[(torch.randn(n, 3),) for n in (3, 4, 5, 6)]", check="recompile-each", min_torch="2.13"),
        Example('''
import torch
class M(torch.nn.Module):
    def _to_pixels(self, boxes, image):
        h, w = image.shape[-2:]
        return boxes * torch.as_tensor([w, h, w, h], dtype=boxes.dtype)  # <-

    def forward(self, image, boxes):
        return self._to_pixels(boxes, image)
''', inputs="[(torch.randn(3, n, n + 8), torch.rand(5, 4)) for n in (32, 40, 48, 56)]", check="recompile-each"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, image, boxes):
        h, w = image.shape[-2:]
        scale = torch.tensor([w, h, w, h], dtype=boxes.dtype)
        return boxes * scale
''', inputs="[(torch.randn(3, n, n + 8), torch.rand(5, 4)) for n in (32, 40, 48, 56)]", check="recompile-each"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return x * torch.as_tensor([0.5, 2.0]).sum()
''', inputs="[(torch.randn(2, n, n + 1),) for n in (3, 4, 5, 6)]", check="recompile-each"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        size = _constant_size_argument(node, ctx)
        if size is not None:
            ctx.report(node, self.message.format(code=brief(ctx.code_for(node), 24), size=brief(ctx.code_for(size), 24)))
