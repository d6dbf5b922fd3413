"""GB418 third-party-library-graph-break: Flags calls to scipy, cv2, PIL, pandas, sklearn and skimage"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import call_name
from compilelint.torchapi.dynamo import THIRD_PARTY_PACKAGES


class ThirdPartyLibraryGraphBreak(CallBreakRule):
    code = 'GB418'
    also_gb_ids = ('GB0007',)
    name = 'third-party-library-graph-break'
    call_gate = gate(heads=THIRD_PARTY_PACKAGES)
    loop_fix = "use the torch equivalent"
    gb_id = 'GB0156'
    severity = "warning"
    precision = 'medium'
    message = 'non-torch library call breaks the graph; use a torch op'
    version_note = ('Verified with scipy (GB0156) on 2.13; cv2, PIL, pandas, sklearn and skimage were not installed on the verification machine (their C functions are outside what Dynamo traces).')
    doc = RuleDoc(
        what='Flags calls to scipy, cv2, PIL, pandas, sklearn and skimage in compiled code.',
        why='Dynamo only traces torch, Python and (through torch) numpy; these libraries run C code it cannot see, so it splits the graph at each call.',
        example='w = scipy.special.expit(self.temperature)\nreturn x * w',
        use_instead='w = torch.special.expit(self.temperature)\nreturn x * w',
    )
    bad = (
        Example('''import torch
import scipy.special

class M(torch.nn.Module):
    def forward(self, x):
        w = scipy.special.expit(0.5)  # <-
        return x * w
'''),
    )
    good = (
        Example('''import torch
import scipy.special

class M(torch.nn.Module):
    def forward(self, x):
        w = torch.special.expit(torch.tensor(0.5))
        return x * w
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        if type(node) is cst.Call:
            package, dot, _ = call_name(node, ctx).partition(".")
            if dot and package in THIRD_PARTY_PACKAGES:
                return "GB0156" if package == "scipy" else "GB0007"
        return None
