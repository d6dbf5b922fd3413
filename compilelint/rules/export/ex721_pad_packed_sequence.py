"""EX721: `pad_packed_sequence` under torch.export."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.export._common import ExportRule

PAD_PACKED = "torch.nn.utils.rnn.pad_packed_sequence"


class ExportPadPackedSequence(ExportRule):
    code = "EX721"
    call_gate = gate(names={PAD_PACKED})
    name = "export-pad-packed-sequence"
    torch_error = ("GuardOnDataDependentSymNode",)
    message = '`pad_packed_sequence` has a data-dependent size: export fails'
    version_note = ("Verified on 2.13 and 2.11 (its examples through the harness) with "
                    "torch.export.export(strict=False): pad_packed_sequence after "
                    "pack_padded_sequence fails (`Could not extract specialized integer`, and with total_length "
                    "`Could not guard on ... u0 > N`); pack_padded_sequence alone exports. Feeding the packed batch to "
                    "an nn.GRU fails too, with a TypeError inside the module (not this rule's claim). torch.compile "
                    "breaks the graph on both packing helpers (GB441).")
    doc = RuleDoc(
        what="Flags `torch.nn.utils.rnn.pad_packed_sequence(...)` in exported code.",
        why=("The padded length is the largest of the lengths, which pad_packed_sequence reads from the packed "
             "sequence's batch sizes, and checks against `total_length` with a Python comparison. Under export both "
             "are unbacked symbols, so export cannot size the output or decide the check and stops."),
        example=("packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)\n"
                 "out, _ = pad_packed_sequence(self.encode(packed), batch_first=True)"),
        use_instead=("out, _ = self.gru(x)  # the padded batch\n"
                     "out = out * (torch.arange(x.size(1)) < lengths[:, None])[..., None]"),
    )
    bad = (
        Example('''import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class M(torch.nn.Module):
    def forward(self, x, lengths):
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        out, _ = pad_packed_sequence(packed, batch_first=True)  # <-
        return out.relu()
''', inputs="[(torch.randn(5, 9, 4), torch.tensor([9, 3, 6, 9, 1]))]"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, x, lengths):
        packed = torch.nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        out, _ = torch.nn.utils.rnn.pad_packed_sequence(packed, batch_first=True, total_length=x.shape[1])  # <-
        return out.sum(1)
''', inputs="[(torch.randn(5, 9, 4), torch.tensor([9, 3, 6, 9, 1]))]"),
    )
    good = (
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = torch.nn.GRU(4, 8, batch_first=True)

    def forward(self, x, lengths):
        out, _ = self.gru(x)
        keep = torch.arange(x.shape[1], device=x.device)[None, :] < lengths[:, None]
        return out * keep[..., None]
''', inputs="[(torch.randn(5, 9, 4), torch.tensor([9, 3, 6, 9, 1]))]"),
        Example('''import torch
from torch.nn.utils.rnn import pack_padded_sequence


class M(torch.nn.Module):
    def forward(self, x, lengths):
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        return packed.data.sum(0)
''', inputs="[(torch.randn(5, 9, 4), torch.tensor([9, 3, 6, 9, 1]))]"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if ctx.qualify(node.func) == PAD_PACKED:
            self.report(ctx, node, self.message)
