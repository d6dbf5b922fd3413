"""TS132: `torch.cuda` queries TorchScript cannot compile."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.script_support import CUDA_UNSUPPORTED
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule


class TorchCudaQuery(SemanticScriptRule):
    code = "TS132"
    call_gate = gate(names={f"torch.cuda.{name}" for name in CUDA_UNSUPPORTED})
    name = "torch-cuda-query-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = "`{name}()` is not scriptable; use the input's device"
    version_note = ("Verified on 2.13 CPU and 2.11+cu130; `torch.cuda.device_count`/`synchronize`/"
                    "`current_device`/`set_device` script on CUDA builds and are not flagged.")
    doc = RuleDoc(
        what="Flags `torch.cuda.is_available()`, `is_initialized()`, `empty_cache()`, `memory_allocated()`, "
             "`max_memory_allocated()`, `get_device_name()`, `get_device_capability()`, `is_bf16_supported()` "
             "and `current_stream()` in code `torch.jit.script` compiles.",
        why="Each fails to script on CPU and on CUDA builds (`attribute lookup is not defined on python value "
            "of type 'module'`, `Unknown type name 'Device'`, ...).",
        example="if torch.cuda.is_available():\n    x = x.half()",
        use_instead="if x.is_cuda:\n    x = x.half()",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        if torch.cuda.is_available():  # <-
            return x.half()
        return x
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        used = torch.cuda.memory_allocated()  # <-
        return x
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.use_half = torch.cuda.is_available()
    def forward(self, x):
        if x.is_cuda and self.use_half:
            return x.half()
        return x
''', check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if ctx.function is None:
            return
        name = ctx.qualify(node.func) or ""
        if name.startswith("torch.cuda.") and name.count(".") == 2 and name.rsplit(".", 1)[-1] in CUDA_UNSUPPORTED:
            ctx.report(node, self.message.format(name=name))
