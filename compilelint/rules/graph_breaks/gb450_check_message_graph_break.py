"""GB450 check-message-graph-break: Flags a torch._check*() message Dynamo cannot use: a lambda over the function's variables, or a string"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import argument, call_name
from compilelint.semantic.frames import closure_names
from compilelint.torchapi.dynamo import CHECK_IS_SIZE, CHECK_MESSAGE_POSITION


class CheckMessageGraphBreak(CallBreakRule):
    code = 'GB450'
    also_gb_ids = ('GB0055', 'GB9840')
    name = 'check-message-graph-break'
    call_gate = gate(names={*CHECK_MESSAGE_POSITION, CHECK_IS_SIZE})
    gb_id = 'GB9158'
    older_gb_ids = {"2.11": "GB0288"}
    severity = "warning"
    message = '`torch._check` message reads a variable; pass a constant lambda'
    version_note = ('Verified on 2.13 (its examples), with static and dynamic shapes alike: a lambda reading a '
                    'parameter, `self` or a local (`lambda: f"{x.shape}"`) GB9158, for torch._check, _check_index and '
                    '_check_with; a string or f-string message GB9840; a lambda over literals and module-level '
                    'constants is traced. `torch._check_is_size(n, msg)` breaks with any lambda as its message (GB0055) '
                    'and takes a plain string without a break. Each break is reported on the call. On 2.11 the lambda and string examples '
                    'break with GB0288 instead, `_check_index` with GB0055, and a lambda whose body is an f-string '
                    'breaks even over constants (GB0288; a lambda returning a plain string is traced): the examples '
                    'with `_check_index` and with an f-string over constants are judged from 2.13.')
    doc = RuleDoc(
        what=('Flags, in compiled code, `torch._check(cond, msg)` (and `_check_index`, `_check_value`, `_check_type`, '
              '`_check_not_implemented`, `_check_with`) whose message is a lambda reading a variable of the '
              'enclosing function, or a string rather than a function; and `torch._check_is_size(n, msg)` with a '
              'lambda message.'),
        why=('`torch._check` is how code prepared for `torch.export` and dynamic shapes states its assumptions, and '
             'its message is usually an f-string in a lambda that names the offending shapes. Dynamo evaluates the '
             'condition in the graph but must keep the message as a constant: a closure over a tensor, a size or '
             '`self` cannot be, so Dynamo splits the graph at every such check (GB9158); a plain string is rejected '
             'outright (GB9840). Checks sit at the top of `forward`, so each one costs a graph break per call.'),
        example='torch._check(boxes.shape[-1] == 4, lambda: f"boxes must be (N, 4), got {tuple(boxes.shape)}")',
        use_instead='torch._check(boxes.shape[-1] == 4, lambda: "boxes must be (N, 4)")',
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, boxes, scores):
        torch._check(boxes.shape[0] == scores.shape[0], lambda: f"{boxes.shape} vs {scores.shape}")  # <-
        return boxes * scores[:, None]
''', inputs="[(torch.randn(n, 4), torch.randn(n)) for n in (5, 6)]"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, boxes):
        torch._check(boxes.shape[-1] == 4, "boxes must be (N, 4)")  # <-
        return boxes * 2
''', inputs="[(torch.randn(n, 4),) for n in (5, 6)]", gb_id="GB9840"),
        Example('''import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.channels = 8

    def forward(self, x):
        torch._check(x.shape[1] == self.channels, lambda: f"expected {self.channels} channels")  # <-
        return x.relu()
''', inputs="[(torch.randn(2, 8),)]"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x, index):
        n = x.shape[0]
        torch._check_index(index.numel() <= n, lambda: f"{index.numel()} indices for {n} rows")  # <-
        return x * 2
''', inputs="[(torch.randn(4, 2), torch.tensor([0, 1]))]", min_torch="2.13"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x, lengths):
        n = lengths.shape[0]
        torch._check_is_size(n, lambda: "need one length per row")  # <-
        return x[:n] * 2
''', inputs="[(torch.randn(6, 2), torch.ones(4))]", gb_id="GB0055"),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x, lengths):
        n = lengths.shape[0]
        torch._check_is_size(n)
        return x[:n] * 2
''', inputs="[(torch.randn(6, 2), torch.ones(4))]"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, boxes, scores):
        torch._check(boxes.shape[0] == scores.shape[0], lambda: "one score per box")
        return boxes * scores[:, None]
''', inputs="[(torch.randn(n, 4), torch.randn(n)) for n in (5, 6)]"),
        Example('''import torch

CHANNELS = 8

class M(torch.nn.Module):
    def forward(self, x):
        limit = 8
        torch._check(x.shape[1] == CHANNELS, lambda: f"expected {CHANNELS} channels, at most {limit}")
        return x.relu()
''', inputs="[(torch.randn(2, 8),)]", min_torch="2.13"),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        """A `torch._check*()` message Dynamo cannot use (reported on the call, with static and dynamic shapes
        alike): a lambda that reads a parameter (`self` too) or a local of the enclosing function, GB9158
        (`lambda: f"bad {x.shape}"`); a message that is not a function at all (a string, an f-string), GB9840. A lambda
        over constants and module-level names is traced. `torch._check_is_size(n, msg)` breaks with any lambda as its
        message (GB0055), and takes a string without a break."""
        if type(node) is not cst.Call:
            return None
        name = call_name(node, ctx)
        if name == CHECK_IS_SIZE:  # any function as its message breaks (GB0055); a string is dropped
            return "GB0055" if type(argument(node, 1, "message")) is cst.Lambda else None
        position = CHECK_MESSAGE_POSITION.get(name)
        if position is None:
            return None
        message = argument(node, position, "message")
        if type(message) is cst.Lambda:
            return "GB9158" if closure_names(message, ctx) else None
        if type(message) in (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString):
            return "GB9840"
        if type(message) is cst.BinaryOperation and type(message.operator) is cst.Modulo and type(message.left) in (
                cst.SimpleString, cst.ConcatenatedString):
            return "GB9840"
        if (type(message) is cst.Call and type(message.func) is cst.Attribute and message.func.attr.value == "format"
                and type(message.func.value) in (cst.SimpleString, cst.ConcatenatedString)):
            return "GB9840"
        return None
