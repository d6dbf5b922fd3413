"""CO804: a function of a C++ extension module called directly in compiled code, not through a registered op."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.names import dotted
from compilelint.rules.base import Example, RuleDoc, brief
from compilelint.rules.custom_ops._common import CustomOpRule

LOADERS = frozenset({"torch.utils.cpp_extension.load", "torch.utils.cpp_extension.load_inline"})
# The names compiled extension modules of a package go by (detectron2._C, mmcv._ext, torchvision._C).
EXTENSION_MODULE_NAMES = frozenset({"_C", "_ext"})

_SOURCE = '''load_inline(
    name="compilelint_co804_ext",
    cpp_sources="torch::Tensor scale_rows(torch::Tensor x, torch::Tensor w) { return x * w.unsqueeze(1); }",
    functions=["scale_rows"],
)'''


def _extension_names(module: cst.Module, ctx) -> frozenset[str]:  # noqa: ANN001
    """Module-level names bound to a cpp_extension `load(...)` / `load_inline(...)` result."""
    names = set()
    for stmt in module.body:
        if type(stmt) is not cst.SimpleStatementLine:
            continue
        for small in stmt.body:
            if type(small) is cst.Assign and type(small.value) is cst.Call and ctx.qualify(small.value.func) in LOADERS:
                names |= {t.target.value for t in small.targets if type(t.target) is cst.Name}
    return frozenset(names)


def _is_extension_module(qualified: str) -> bool:
    parts = qualified.split(".")
    return parts[0] != "torch" and any(p in EXTENSION_MODULE_NAMES for p in parts[1:])


class ExtensionFunctionCall(CustomOpRule):
    code = "CO804"
    name = "extension-function-call"
    targets = ("dynamo", "torchscript")
    severity = "error"
    gb_id = "GB0007"
    precision = "medium"  # a package's `_C` / `_ext` module is taken for a compiled extension by its name
    message = "C++ extension function called in compiled code; wrap it in a custom op"
    torch_error = ("Attempted to call function marked as skipped",)
    version_note = ("Verified on 2.13 (CPU) with an extension built by `torch.utils.cpp_extension.load_inline` (g++, "
                    "ninja): Dynamo logs GB0007 \"Attempted to call function marked as skipped ... a third-party C/C++ "
                    "Python extension (perhaps created with pybind)\" at the call, and fullgraph=True raises it; "
                    "torch.jit.script raises \"Python builtin <built-in method ...> is currently not supported in "
                    "Torchscript\" there. torch.export (non-strict) runs the function on fake tensors: one that only "
                    "composes ATen ops exported, so export is not claimed (a kernel that reads data pointers fails "
                    "there). Wrapped in `torch.library.custom_op` with a fake, the call compiles with fullgraph=True, "
                    "exports and scripts. The examples build one small extension (about 40 s of CPU once, then torch's "
                    "build cache); without a C++ compiler and ninja their torch check is skipped.")
    doc = RuleDoc(
        what=("Flags calls, in code torch.compile or torch.jit.script compiles, of functions of a module built with "
              "`torch.utils.cpp_extension.load(...)` / `load_inline(...)`, or of a package's compiled `_C` / `_ext` "
              "module (`from mypkg import _C; _C.nms(...)`)."),
        why=(('A pybind11 function is a builtin Dynamo knows nothing about: it cannot see what the function does '
              'with its tensors, so it breaks the graph around every call (the call runs eagerly between two '
              'graphs), and fullgraph=True fails. TorchScript cannot call Python builtins at all. Registered as an '
              'op, the same kernel is one node of the graph: Dynamo, export and TorchScript call it through the '
              'dispatcher and ask its fake for the output shapes. Register the function as an op: a '
              '`torch.library.custom_op` that calls it, with a fake (or `TORCH_LIBRARY` in the C++), and call the '
              'op.')),
        example=("ext = load_inline(name=\"voxel_ext\", cpp_sources=SRC, functions=[\"scatter_max\"])\n\n"
                 "grid = ext.scatter_max(feats, idx, num_voxels)  # in forward"),
        use_instead=("@torch.library.custom_op(\"voxel::scatter_max\", mutates_args=())\n"
                     "def scatter_max(feats: Tensor, idx: Tensor, num_voxels: int) -> Tensor:\n"
                     "    return ext.scatter_max(feats, idx, num_voxels)\n\n"
                     "@scatter_max.register_fake\n"
                     "def _(feats, idx, num_voxels):\n"
                     "    return feats.new_empty(num_voxels, feats.shape[1])\n\n"
                     "grid = scatter_max(feats, idx, num_voxels)  # in forward"),
        fix_safety=("No fix is offered: the op needs a name, a declaration of what it mutates and a fake stating its "
                    "output shapes."),
    )
    bad = (
        Example(f'''import torch
from torch.utils.cpp_extension import load_inline

ext = {_SOURCE}


class M(torch.nn.Module):
    def forward(self, x):
        w = x.abs().amax(dim=1)
        return ext.scale_rows(x, w) + 1  # <-
''', inputs="[(torch.randn(4, 3),)]", needs="cxx"),
        Example(f'''import torch
import torch.utils.cpp_extension

ext = torch.utils.cpp_extension.{_SOURCE}


class M(torch.nn.Module):
    def scale(self, x):
        return ext.scale_rows(x, x.mean(dim=1))  # <-

    def forward(self, x):
        return self.scale(x).relu()
''', inputs="[(torch.randn(4, 3),)]", needs="cxx"),
    )
    good = (
        Example(f'''import torch
from torch.utils.cpp_extension import load_inline

ext = {_SOURCE}


@torch.library.custom_op("co804::scale_rows", mutates_args=())
def scale_rows(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return ext.scale_rows(x, w)


@scale_rows.register_fake
def _(x, w):
    return torch.empty_like(x)


class M(torch.nn.Module):
    def forward(self, x):
        w = x.abs().amax(dim=1)
        return scale_rows(x, w) + 1
''', inputs="[(torch.randn(4, 3),)]", needs="cxx"),
    )

    path = ""
    names: frozenset[str] = frozenset()

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if type(func) is not cst.Attribute and type(func) is not cst.Name:
            return
        if ctx.path != self.path:
            self.path, self.names = ctx.path, _extension_names(ctx.module, ctx)
        written = dotted(func)
        if written is None:
            return
        head, _, rest = written.partition(".")
        qualified = ctx.qualify(func) or ""
        if (rest and head in self.names and head not in ctx.facts.env) or \
                (head in ctx.facts.aliases and _is_extension_module(qualified.rpartition(".")[0])):
            ctx.report(node, f"`{brief(written, 28)}` is a C++ extension function; wrap it in a custom op")
