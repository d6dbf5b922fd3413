"""EX709: `torch.autograd.grad` in code torch.export runs."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.export._common import ExportRule


class ExportAutogradGrad(ExportRule):
    code = "EX709"
    call_gate = gate(names={"torch.autograd.grad"})
    name = "export-autograd-grad"
    torch_error = ("fake tensor in the exported program constant's list",)
    torch_names_line = False  # raised after tracing, about the traced program's constants
    message = '`torch.autograd.grad` in exported code: export fails'
    version_note = ("Verified on 2.13 and 2.11 with torch.export.export(strict=False). With strict=True (2.13) the "
                    "export fails earlier, on `requires_grad_()` or on the grad call (Dynamo: unsupported).")
    doc = RuleDoc(
        what="Flags calls of `torch.autograd.grad` in a `forward` (or what it calls) that torch.export runs.",
        why=("Gradient penalties (WGAN-GP, R1), physics-informed losses and input-gradient saliency call "
             "`torch.autograd.grad` inside `forward`. torch.export records one forward graph; the backward pass "
             "that autograd.grad runs is not part of it, and non-strict export ends with `RuntimeError: We found "
             "a fake tensor in the exported program constant's list` (no line of the model named). The term is "
             "usually a training loss: it does not belong in the exported inference program."),
        example=("x = x.requires_grad_(True)\nscore = self.critic(x).sum()\n"
                 "(g,) = torch.autograd.grad(score, x, create_graph=True)\n"
                 "return score, (g.norm(dim=-1) - 1).pow(2).mean()"),
        use_instead=("score = self.critic(x).sum()\npenalty = score.new_zeros(())\n"
                     "if not torch.compiler.is_exporting():\n    ...  # or compute the penalty in the training step"),
    )
    bad = (
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.critic = torch.nn.Linear(4, 1)

    def forward(self, x):
        x = x.requires_grad_(True)
        score = self.critic(x).sum()
        (g,) = torch.autograd.grad(score, x, create_graph=True)  # <-
        return score, (g.norm(dim=-1) - 1).pow(2).mean()
''', inputs="[(torch.randn(8, 4),)]"),
        Example('''import torch
from torch import autograd


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.energy = torch.nn.Sequential(torch.nn.Linear(3, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))

    def forward(self, pos):
        pos = pos.detach().requires_grad_(True)
        e = self.energy(pos).sum()
        forces = -autograd.grad(e, pos, create_graph=True)[0]  # <-
        return e, forces
''', inputs="[(torch.randn(10, 3),)]"),
    )
    good = (
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.critic = torch.nn.Linear(4, 1)

    def forward(self, x):
        score = self.critic(x).sum()
        penalty = score.new_zeros(())
        if not torch.compiler.is_exporting():
            x = x.detach().requires_grad_(True)
            (g,) = torch.autograd.grad(self.critic(x).sum(), x, create_graph=True)
            penalty = (g.norm(dim=-1) - 1).pow(2).mean()
        return score, penalty
''', inputs="[(torch.randn(8, 4),)]"),
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.critic = torch.nn.Linear(4, 1)

    def forward(self, x):
        return self.critic(x).sum()


def gradient_penalty(model, x):
    x = x.detach().requires_grad_(True)
    (g,) = torch.autograd.grad(model(x), x, create_graph=True)
    return (g.norm(dim=-1) - 1).pow(2).mean()
''', inputs="[(torch.randn(8, 4),)]"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if ctx.qualify(node.func) == "torch.autograd.grad":
            self.report(ctx, node, self.message)
