"""GB441 packed-sequence-graph-break: Flags `pack_padded_sequence` / `pad_packed_sequence` / `pack_sequence` in compiled code"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import call_name
from compilelint.torchapi.dynamo import PACKED_SEQUENCE


class PackedSequenceGraphBreak(CallBreakRule):
    code = 'GB441'
    name = 'packed-sequence-graph-break'
    call_gate = gate(names=PACKED_SEQUENCE)
    gb_id = 'GB0007'
    severity = "warning"
    message = 'sequence packing breaks the graph; pad and mask instead'
    version_note = ('Verified on 2.13 and 2.11 (its examples): pack_padded_sequence (also with enforce_sorted=False), pad_packed_sequence '
                    'and pack_sequence break with GB0007 ("Attempted to call function marked as skipped"); '
                    'pack_sequence breaks inside torch, on the call the rule names. The recurrent modules that '
                    'usually consume packed batches skip the frame on their own (GB433).')
    doc = RuleDoc(
        what=('Flags calls of `torch.nn.utils.rnn.pack_padded_sequence`, `pad_packed_sequence` and `pack_sequence` '
              'in code torch.compile traces.'),
        why=('Dynamo has these helpers on its skip list: each call ends the graph and runs in eager Python, and the '
             'code after it starts a new graph. Sequence models for trajectories or driver-command histories call '
             'them once per forward, so every step pays the break.'),
        example=('packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)\n'
                 'h = self.encoder(packed)'),
        use_instead=('mask = torch.arange(x.size(1), device=x.device) < lengths[:, None]\n'
                     'h = self.encoder(x * mask[..., None])'),
    )
    bad = (
        Example('''import torch
from torch.nn.utils.rnn import pack_padded_sequence


class M(torch.nn.Module):
    def forward(self, x, lengths):
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)  # <-
        return packed.data.sum(0) * 2.0
''', inputs="[(torch.randn(3, 5, 4), torch.tensor([5, 2, 4]))]"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, x, lengths):
        packed = torch.nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True)  # <-
        out, _ = torch.nn.utils.rnn.pad_packed_sequence(packed, batch_first=True)  # <-
        return out.relu()
''', inputs="[(torch.randn(3, 5, 4), torch.tensor([5, 4, 2]))]"),
        Example('''import torch
from torch.nn.utils import rnn


class M(torch.nn.Module):
    def forward(self, a, b):
        packed = rnn.pack_sequence([a, b])  # <-
        return packed.data.tanh()
''', inputs="[(torch.randn(5, 4), torch.randn(3, 4))]"),
    )
    good = (
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, x, lengths):
        mask = torch.arange(x.size(1), device=x.device) < lengths[:, None]
        return (x * mask[..., None]).sum(1) * 2.0
''', inputs="[(torch.randn(3, 5, 4), torch.tensor([5, 2, 4]))]"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, a, b):
        padded = torch.nn.utils.rnn.pad_sequence([a, b], batch_first=True)
        return padded.tanh()
''', inputs="[(torch.randn(5, 4), torch.randn(3, 4))]"),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        if type(node) is cst.Call and call_name(node, ctx) in PACKED_SEQUENCE:
            return "GB0007"
        return None
