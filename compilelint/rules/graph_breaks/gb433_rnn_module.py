"""GB433 rnn-module-graph-break: Flags calls of `self.<attr>(...)` where the attribute was built as `nn.LSTM`, `nn.GRU` or `nn.RNN` in `__init__`"""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.torchapi.dynamo import RNN_MODULES


class RnnModuleGraphBreak(CallBreakRule):
    code = 'GB433'
    name = 'rnn-module-graph-break'
    gb_id = 'GB0014'
    severity = "warning"
    message = 'RNN module call: Dynamo gives up on the frame'
    doc = RuleDoc(
        what='Flags calls of `self.<attr>(...)` where the attribute was built as `nn.LSTM`, `nn.GRU` or `nn.RNN` in `__init__`.',
        why='Dynamo does not trace the cuDNN/fused RNN modules (GB0014); it skips the whole frame, so nothing of the calling function is compiled.',
        example='h, _ = self.lstm(seq)\nreturn self.out(h[:, -1])',
        use_instead='h = run_lstm_eagerly(self.lstm, seq)  # @torch.compiler.disable wrapper\nreturn self.out(h[:, -1])',
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.GRU(3, 4, batch_first=True)

    def forward(self, x):
        h, _ = self.rnn(x[None])  # <-
        return h * 2
'''),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = torch.nn.Linear(3, 4)

    def forward(self, x):
        h = self.cell(x)
        return h * 2
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        """Calling an nn.LSTM / nn.GRU / nn.RNN submodule (built in __init__)."""
        if type(node) is not cst.Call:
            return None
        func = node.func
        if (type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self"
                and ctx.class_facts is not None):
            if getattr(ctx.class_facts, "attr_calls", {}).get(func.attr.value) in RNN_MODULES:
                return "GB0014"
        return None
