"""GB427 torch-global-side-effect: Flags `torch.manual_seed`, `torch.seed`, `torch.get/set_rng_state`, `torch.save` and `torch.load`"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import called_function
from compilelint.torchapi.dynamo import TORCH_GLOBAL_STATE, TORCH_THREADS


class TorchGlobalSideEffect(CallBreakRule):
    code = 'GB427'
    also_gb_ids = ('GB0208',)
    name = 'torch-global-side-effect'
    call_gate = gate(names=TORCH_GLOBAL_STATE | set(TORCH_THREADS))
    loop_fix = "do it outside the compiled code"
    gb_id = 'GB0007'
    severity = "warning"
    message = 'global torch state call breaks the graph; do it outside'
    version_note = ('Verified on 2.13 and on 2.11 (its examples): the RNG and file functions and torch.set_num_threads / '
                    'set_num_interop_threads break with GB0007, torch.get_num_threads / get_num_interop_threads '
                    'with GB0208.')
    doc = RuleDoc(
        what='Flags `torch.manual_seed`, `torch.seed`, `torch.get/set_rng_state`, `torch.save`, `torch.load` and `torch.set/get_num_threads` (and the interop ones) in compiled code.',
        why='Dynamo marks these functions as skipped (GB0007): each call splits the graph.',
        example='torch.manual_seed(self.seed)\nreturn self.drop(x)',
        use_instead='return self.drop(x)  # seed once, outside',
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        torch.manual_seed(0)  # <-
        return x + 1
'''),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        torch.set_num_threads(2)  # <-
        return x + 1
'''),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        return x * torch.get_num_threads()  # <-
''', gb_id="GB0208"),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        return x + 1
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        if called_function(node, ctx, TORCH_GLOBAL_STATE):
            return "GB0007"
        name = called_function(node, ctx, TORCH_THREADS)
        return TORCH_THREADS[name] if name else None
