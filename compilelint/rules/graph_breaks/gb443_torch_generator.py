"""GB443 torch-generator-graph-break: Flags building, seeding or passing a `torch.Generator` in compiled code"""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.attributes import seeded_generator_attrs
from compilelint.semantic.calls import call_name
from compilelint.torchapi.dynamo import GENERATOR_SEEDING, TORCH_GENERATOR


def _is_generator(expr: cst.BaseExpression, ctx) -> bool:  # noqa: ANN001
    """`self.<attr>` built in __init__ as `torch.Generator(...)` (also `torch.Generator().manual_seed(s)`)."""
    if not (type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value == "self"
            and ctx.class_facts is not None and ctx.class_node is not None):
        return False
    if getattr(ctx.class_facts, "attr_calls", {}).get(expr.attr.value) == TORCH_GENERATOR:
        return True
    return expr.attr.value in seeded_generator_attrs(ctx)


class TorchGeneratorGraphBreak(CallBreakRule):
    code = 'GB443'
    also_gb_ids = ('GB0007', 'GB0363', 'GB7650')
    name = 'torch-generator-graph-break'
    gb_id = 'GB0055'
    older_gb_ids = {"2.11": "GB0156"}  # seeding a Generator (its GB7650 on 2.13)
    severity = "warning"
    message = '`torch.Generator` breaks the graph; use the global RNG'
    version_note = ('Verified on 2.13: `generator=` a Generator (a module attribute or an argument) in torch.randn, '
                    'torch.randint, torch.multinomial and Tensor.normal_ breaks with GB0055 ("Failed to convert '
                    'args/kwargs to proxy"); `torch.Generator()` with GB0363; `self.gen.manual_seed(0)` with GB7650. '
                    '`generator=None` is traced. torch 2.11: `generator=` breaks with GB0055 too, '
                    'seeding with GB0156 on the same line, and building one with GB0007 inside torch (that example is '
                    'marked min_torch 2.13).')
    doc = RuleDoc(
        what=('Flags, in code torch.compile traces, calls with a `generator=` argument (other than None), '
              '`torch.Generator(...)`, and `manual_seed()` / `seed()` of a Generator built in `__init__`.'),
        why=('Sampling policies and augmentation modules keep their own seeded Generator for reproducible noise. '
             'Dynamo cannot put a Generator object into the graph: every draw that takes one ends the graph and '
             'runs eagerly, and creating or seeding one breaks too. torch.compile does trace draws from the global '
             'RNG (and keeps them reproducible under `torch.manual_seed`).'),
        example='noise = torch.randn(action.shape, generator=self.gen)',
        use_instead='noise = torch.randn(action.shape)  # torch.manual_seed(...) once, outside the compiled model',
    )
    bad = (
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.gen = torch.Generator().manual_seed(0)
        self.denoise = torch.nn.Linear(4, 4)

    def forward(self, action):
        noise = torch.randn(action.shape, generator=self.gen)  # <-
        return self.denoise(action + 0.1 * noise)
''', inputs="[(torch.randn(2, 4),), (torch.randn(2, 4),)]"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, logits):
        gen = torch.Generator()  # <-
        probs = logits.softmax(-1)
        return probs * 2.0
''', inputs="[(torch.randn(3, 5),), (torch.randn(3, 5),)]", gb_id="GB0363", min_torch="2.13"),
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.gen = torch.Generator(device="cpu")

    def forward(self, x):
        self.gen.manual_seed(7)  # <-
        return x.relu() + 1.0
''', inputs="[(torch.randn(3, 5),), (torch.randn(3, 5),)]", gb_id="GB7650"),
    )
    good = (
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.denoise = torch.nn.Linear(4, 4)

    def forward(self, action):
        noise = torch.randn(action.shape)
        return self.denoise(action + 0.1 * noise)
''', inputs="[(torch.randn(2, 4),), (torch.randn(2, 4),)]"),
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.denoise = torch.nn.Linear(4, 4)

    def forward(self, action, noise):
        return self.denoise(action + 0.1 * noise)
''', inputs="[(torch.randn(2, 4), torch.randn(2, 4)), (torch.randn(2, 4), torch.randn(2, 4))]"),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        if type(node) is not cst.Call:
            return None
        name = call_name(node, ctx)
        if name == TORCH_GENERATOR:
            return "GB0363"
        func = node.func
        torch_call = name.startswith("torch.") or (type(func) is cst.Attribute and ctx.facts.is_tensor(func.value))
        for arg in node.args if torch_call else ():  # a user's own `generator=` parameter is not claimed
            if arg.keyword is not None and arg.keyword.value == "generator" and not (
                    type(arg.value) is cst.Name and arg.value.value == "None"):
                return "GB0055"
        if type(func) is cst.Attribute and func.attr.value in GENERATOR_SEEDING and _is_generator(func.value, ctx):
            return "GB7650"
        return None
