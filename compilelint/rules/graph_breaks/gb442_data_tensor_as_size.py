"""GB442 data-tensor-as-size: Flags a 0-d tensor computed from data passed where PyTorch needs an int (`torch.arange(mask.sum())`) in compiled code"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import call_name
from compilelint.torchapi.shapes import SIZE_ARGUMENT_FUNCTIONS, SIZE_ARGUMENT_METHODS, STEPS_FUNCTIONS


def _size_arguments(call: cst.Call, ctx) -> list[cst.BaseExpression]:  # noqa: ANN001
    """The arguments of `call` that PyTorch reads as Python ints (sizes, bounds, counts), tuples unpacked."""
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    keyword = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    name = call_name(call, ctx)
    func = call.func
    if name in SIZE_ARGUMENT_FUNCTIONS:
        chosen = positional[:1] if name == "torch.full" else positional
        chosen += [keyword[k] for k in ("size", "n", "end", "start", "m") if k in keyword]
    elif name in STEPS_FUNCTIONS:
        chosen = positional[2:3] + ([keyword["steps"]] if "steps" in keyword else [])
    elif type(func) is cst.Attribute and func.attr.value in SIZE_ARGUMENT_METHODS and ctx.facts.is_tensor(func.value):
        method = func.attr.value
        if method == "new_full":
            chosen = positional[:1]
        elif method == "narrow":
            chosen = positional[1:3] + [keyword[k] for k in ("start", "length") if k in keyword]
        elif method in ("topk", "kthvalue"):
            chosen = positional[:1] + ([keyword["k"]] if "k" in keyword else [])
        else:
            chosen = positional + ([keyword["size"]] if "size" in keyword else [])
    else:
        return []
    flat = []
    for arg in chosen:
        if type(arg) in (cst.Tuple, cst.List):
            flat.extend(e.value for e in arg.elements)
        else:
            flat.append(arg)
    return flat


class DataTensorAsSize(CallBreakRule):
    code = 'GB442'
    name = 'data-tensor-as-size'
    call_gate = gate(names=SIZE_ARGUMENT_FUNCTIONS | STEPS_FUNCTIONS, methods=SIZE_ARGUMENT_METHODS)
    gb_id = 'GB0033'
    severity = "warning"
    message = 'data-dependent 0-d tensor used as a size breaks the graph'
    version_note = ('Verified on 2.13 (and its examples on 2.11): torch.zeros/ones/empty/full/arange/randperm/linspace, new_zeros/new_full, '
                    'expand/view/reshape/repeat/narrow and topk with such a tensor break with GB0033 ("Data dependent '
                    'operator", aten._local_scalar_dense); with capture_scalar_outputs = True they are traced (an '
                    'unbacked size), and the rule is silent in a file that sets it. Slicing with one (`x[:n]`) breaks '
                    'with GB0124 instead and is not flagged by this rule. Only the first such use of a name breaks: '
                    'the resumed frame takes the count as an input and later uses guard on it (a recompile per new '
                    'value) instead; a use after some other graph break in the same function is such an input too, '
                    'which the rule does not model.')
    doc = RuleDoc(
        what=('Flags, in code torch.compile traces, a call that takes a size, bound or count (`torch.zeros`, '
              '`torch.arange`, `torch.linspace` steps, `new_zeros`, `expand`, `view`, `reshape`, `repeat`, '
              '`narrow`, `topk`) given a 0-d integer tensor computed from tensor data: `mask.sum()`, '
              '`torch.count_nonzero(mask)`, the `max()` of an integer tensor, `x.argmax()`, arithmetic on one, '
              'directly or through a name.'),
        why=(('Detection and tracking code counts what survived a threshold (`n = keep.sum()`) and builds tensors '
              'of that size. The count is a tensor; PyTorch turns it into a Python int for the size, which Dynamo '
              'cannot trace: the graph ends there (GB0033) and everything after runs in a new graph, guarded on the'
              ' count. `.item()` breaks the same way (GB401). Keep a fixed size and mask (`torch.arange(N) < n`), '
              'or set `torch._dynamo.config.capture_scalar_outputs = True`.')),
        example='n = (scores > self.thresh).sum()\nranks = torch.arange(n)',
        use_instead=('n = (scores > self.thresh).sum()\n'
                     'valid = torch.arange(scores.numel(), device=scores.device) < n  # fixed size, masked'),
    )
    bad = (
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, scores):
        n = (scores > 0.5).sum()
        ranks = torch.arange(n)  # <-
        pad = scores.new_zeros(n)
        return ranks.float().mean() + scores.sum() + pad.sum()
''', inputs="[(torch.rand(16),), (torch.rand(16),)]"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, boxes, scores):
        num = torch.count_nonzero(scores > 0.3)
        slots = boxes.new_zeros(num, 4)  # <-
        return slots.sum() + boxes.mean()
''', inputs="[(torch.randn(12, 4), torch.rand(12))]"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, scores, labels):
        k = labels.max() + 1
        top, _ = scores.topk(k)  # <-
        return top.sigmoid().sum()
''', inputs="[(torch.randn(20), torch.tensor([0, 2, 1, 3]))]"),
    )
    good = (
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, scores):
        n = (scores > 0.5).sum()
        valid = torch.arange(scores.numel(), device=scores.device) < n
        return valid.float().mean() + scores.sum()
''', inputs="[(torch.rand(16),), (torch.rand(16),)]"),
        Example('''import torch
import torch._dynamo

torch._dynamo.config.capture_scalar_outputs = True


class M(torch.nn.Module):
    def forward(self, scores):
        n = (scores > 0.5).sum()
        ranks = torch.arange(n)
        return ranks.float().mean() + scores.sum()
''', inputs="[(torch.rand(16),), (torch.rand(16),)]"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, boxes, scores):
        slots = boxes.new_zeros(boxes.shape[0], 4)
        return slots.sum() + boxes.mean() + (scores > 0.3).sum()
''', inputs="[(torch.randn(12, 4), torch.rand(12))]"),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        """`torch.arange(n)`, `x.new_zeros(n, 4)`, `x.topk(k)` with n / k a 0-d tensor computed from data
        (FunctionFacts.is_data_scalar_int)."""
        if type(node) is not cst.Call or ctx.module_facts.capture_scalar_outputs:
            return None
        facts = ctx.facts
        read = [a for a in _size_arguments(node, ctx) if facts.is_data_scalar_int(a)]
        return "GB0033" if read and facts.first_number_read(node, read) else None
