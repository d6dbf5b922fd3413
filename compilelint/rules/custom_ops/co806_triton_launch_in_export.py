"""CO806: a `@triton.jit` kernel launched directly (`kernel[grid](...)`) in code torch.export runs."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc, brief
from compilelint.rules.custom_ops._common import CustomOpRule

TRITON_KERNEL_DECORATORS = frozenset({"triton.jit", "triton.autotune", "triton.heuristics"})

_KERNEL = '''import torch
import triton
import triton.language as tl


@triton.jit
def _scale_kernel(X, Y, n, s, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(Y + offs, tl.load(X + offs, mask=mask) * s, mask=mask)
'''
_INPUTS = "[(torch.randn(1000, device='cuda'),)]"


def _kernel_names(module: cst.Module, ctx) -> frozenset[str]:  # noqa: ANN001
    """Module-level functions decorated with `@triton.jit` (or autotune / heuristics over it)."""
    names = set()
    for stmt in module.body:
        if type(stmt) is cst.FunctionDef:
            for deco in stmt.decorators:
                d = deco.decorator
                if ctx.qualify(d.func if type(d) is cst.Call else d) in TRITON_KERNEL_DECORATORS:
                    names.add(stmt.name.value)
    return frozenset(names)


class TritonLaunchInExport(CustomOpRule):
    code = "CO806"
    file_gate = (b"triton",)  # kernels: TRITON_KERNEL_DECORATORS
    name = "triton-launch-in-export"
    targets = ("export",)
    verified_on = "2.11"
    message = "Triton kernel launched directly in exported code; use `wrap_triton`"
    torch_error = ("data pointer", "data_ptr", "FakeTensor")
    version_note = ("GPU-only claim: its examples need CUDA (Example.needs=\"cuda\"), so CPU CI lints them and skips "
                    "their torch check; verified on torch 2.11 with an H200 GPU. "
                    "torch.export.export (non-strict) of a direct launch fails at it (\"Cannot access data pointer of "
                    "Tensor (e.g. FakeTensor ...)\"): the Triton launcher reads the fake tensors' pointers. "
                    "torch.compile traces a direct launch (Dynamo captures user-defined Triton kernels), so only export "
                    "is claimed. The same kernel in a `torch.library.triton_op` launched with `wrap_triton` compiles "
                    "with fullgraph=True and exports.")
    doc = RuleDoc(
        what=("Flags launches `kernel[grid](...)` of a module-level `@triton.jit` kernel (or an autotuned one) in code "
              "torch.export runs, outside `torch.library.wrap_triton`."),
        why=(("Non-strict export (the default) runs the model's Python on fake tensors. A Triton launcher asks "
              'every tensor argument for its data pointer to pass it to the GPU, and a fake tensor has none, so '
              'export stops at the launch. `torch.library.triton_op` makes the launcher an op that export records '
              'as one call, and `wrap_triton` lets torch.compile and export see the kernel itself (Inductor can '
              'then schedule it). Make the launcher a `torch.library.triton_op` and launch through '
              '`torch.library.wrap_triton(kernel)[grid](...)`.')),
        example=("def scale(x, s):\n"
                 "    y = torch.empty_like(x)\n"
                 "    _scale_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), s, BLOCK=256)\n"
                 "    return y"),
        use_instead=("@torch.library.triton_op(\"mylib::scale\", mutates_args=())\n"
                     "def scale(x: torch.Tensor, s: float) -> torch.Tensor:\n"
                     "    y = torch.empty_like(x)\n"
                     "    grid = (triton.cdiv(x.numel(), 256),)\n"
                     "    torch.library.wrap_triton(_scale_kernel)[grid](x, y, x.numel(), s, BLOCK=256)\n"
                     "    return y"),
        fix_safety=("No fix is offered: the op needs a name and a declaration of what it mutates, which the launch "
                    "does not say."),
    )
    bad = (
        Example(_KERNEL + '''

def scale(x, s):
    y = torch.empty_like(x)
    n = x.numel()
    _scale_kernel[(triton.cdiv(n, 256),)](x, y, n, s, BLOCK=256)  # <-
    return y


class M(torch.nn.Module):
    def forward(self, x):
        return scale(x, 2.0) + 1
''', inputs=_INPUTS, needs="cuda"),
    )
    good = (
        Example(_KERNEL + '''

@torch.library.triton_op("co806::scale", mutates_args=())
def scale(x: torch.Tensor, s: float) -> torch.Tensor:
    y = torch.empty_like(x)
    n = x.numel()
    torch.library.wrap_triton(_scale_kernel)[(triton.cdiv(n, 256),)](x, y, n, s, BLOCK=256)
    return y


class M(torch.nn.Module):
    def forward(self, x):
        return scale(x, 2.0) + 1
''', inputs=_INPUTS, needs="cuda"),
    )

    path = ""
    kernels: frozenset[str] = frozenset()

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if type(func) is not cst.Subscript or type(func.value) is not cst.Name:
            return
        if ctx.path != self.path:
            self.path, self.kernels = ctx.path, _kernel_names(ctx.module, ctx)
        name = func.value.value
        if name in self.kernels and name not in ctx.facts.env:
            ctx.report(node, f"`{brief(name, 24)}[...]` launches Triton directly under export; use `wrap_triton`")
