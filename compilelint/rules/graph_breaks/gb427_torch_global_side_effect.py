"""GB427 torch-global-side-effect: Flags `torch.manual_seed`, `torch.seed`, `torch.get/set_rng_state`, `torch.save` and `torch.load`"""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule


class TorchGlobalSideEffect(CallBreakRule):
    code = 'GB427'
    name = 'torch-global-side-effect'
    detector = 'torch_side_effect'
    gb_id = 'GB0007'
    severity = "warning"
    message = ('`torch.manual_seed`/`torch.save`/`torch.load` (global RNG state or files) breaks the graph (GB0007): seed and save/load outside the compiled code (or pass a torch.Generator)')
    doc = RuleDoc(
        what='Flags `torch.manual_seed`, `torch.seed`, `torch.get/set_rng_state`, `torch.save` and `torch.load` in compiled code.',
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
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        return x + 1
'''),
    )
