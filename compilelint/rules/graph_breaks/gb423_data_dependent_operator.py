"""GB423 data-dependent-operator: Flags `torch.equal`, `torch.allclose` (and the methods) and `math.*` functions applied to tensors"""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule


class DataDependentOperator(CallBreakRule):
    code = 'GB423'
    name = 'data-dependent-operator'
    detector = 'data_dependent_op'
    gb_id = 'GB0033'
    severity = "warning"
    message = ('A Python number or bool computed from tensor data (`torch.equal`, `torch.allclose`, `math.*` of a tensor) breaks the graph (GB0033): use the tensor form (`(a == b).all()`, `torch.isclose(...).all()`, `torch.sqrt`) and keep the result on device')
    doc = RuleDoc(
        what='Flags `torch.equal`, `torch.allclose` (and the methods) and `math.*` functions applied to tensors in compiled code.',
        why='These return Python values computed from tensor data; Dynamo cannot put them in the graph and breaks there (GB0033, data dependent operator).',
        example='scale = math.sqrt(x.pow(2).sum())',
        use_instead='scale = torch.sqrt(x.pow(2).sum())',
    )
    bad = (
        Example('''import torch
import math

class M(torch.nn.Module):
    def forward(self, x):
        scale = math.sqrt(x.abs().sum())  # <-
        return x / scale
'''),
    )
    good = (
        Example('''import torch
import math

class M(torch.nn.Module):
    def forward(self, x):
        scale = torch.sqrt(x.abs().sum())
        return x / scale
'''),
        Example('''import torch
import math

class M(torch.nn.Module):
    def forward(self, x):
        scale = math.sqrt(x.shape[-1])
        return x / scale
'''),
    )
