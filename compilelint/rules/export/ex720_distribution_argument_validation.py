"""EX720: a torch.distributions distribution built with argument validation on, under torch.export."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc, brief
from compilelint.rules.export._common import ExportRule

# Distributions that validate nothing of their own at construction (they wrap one that does, which is flagged
# where it is built), and the abstract bases. Verified on 2.13: Independent(Normal(..., validate_args=False), 1)
# and TransformedDistribution(Normal(..., validate_args=False), [TanhTransform()]) export with rsample/log_prob.
_WRAPPERS = {"Distribution", "ExponentialFamily", "Independent", "TransformedDistribution"}


class ExportDistributionArgumentValidation(ExportRule):
    code = "EX720"
    call_gate = gate(heads={"torch"})  # torch.distributions.*
    name = "export-distribution-argument-validation"
    torch_error = ("GuardOnDataDependentSymNode",)
    message = '`{name}(...)` validates arguments on tensor data; export fails'
    version_note = ("Verified on 2.13 and 2.11 (the examples through the harness; the probe "
                    "confirms it on both) with torch.export.export(strict=False): Normal (also with a float scale), "
                    "Categorical, Bernoulli, Uniform, Beta and MultivariateNormal fail in their constructor "
                    "(distribution.py's `if not valid.all()`), for sampling, log_prob and entropy alike; with "
                    "validate_args=False, or the module-level set_default_validate_args(False), they export. "
                    "torch.compile traces the same code without a break: the first time Dynamo runs it switches "
                    "validation off for the whole process (torch._dynamo.eval_frame.TorchPatcher.patch), so an export "
                    "after a torch.compile in the same process does not fail; an export script on its own does.")
    doc = RuleDoc(
        what=("Flags, in exported code, a `torch.distributions` distribution (Normal, Categorical, Bernoulli, "
              "Beta, ...) built without `validate_args=False`, unless the file switches validation off at module "
              "level with `torch.distributions.Distribution.set_default_validate_args(False)`. Wrappers that "
              "validate nothing themselves (Independent, TransformedDistribution) are not flagged."),
        why=(('Policy heads for control and planning build a `Normal` or `Categorical` in `forward`. Every '
              'distribution checks its parameters against their constraints when built (`scale > 0`, probabilities '
              'in [0, 1]) with `if not valid.all(): raise`: a branch on tensor data. Export traces with fake '
              'tensors and cannot decide it, so the whole export stops at the constructor. Pass '
              '`validate_args=False`, or call `torch.distributions.Distribution.set_default_validate_args(False)` '
              'once at import.')),
        example="dist = torch.distributions.Normal(mu, log_std.exp())\naction = dist.rsample()",
        use_instead="dist = torch.distributions.Normal(mu, log_std.exp(), validate_args=False)\naction = dist.rsample()",
    )
    bad = (
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mu = torch.nn.Linear(8, 2)
        self.log_std = torch.nn.Parameter(torch.zeros(2))

    def forward(self, obs):
        dist = torch.distributions.Normal(self.mu(obs), self.log_std.exp())  # <-
        action = dist.rsample()
        return action.tanh(), dist.log_prob(action).sum(-1)
''', inputs="[(torch.randn(4, 8),)]"),
        Example('''import torch
from torch.distributions import Categorical


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.logits = torch.nn.Linear(8, 5)

    def forward(self, obs):
        dist = Categorical(logits=self.logits(obs))  # <-
        return dist.probs.argmax(-1), dist.entropy()
''', inputs="[(torch.randn(4, 8),)]"),
        Example('''import torch
import torch.distributions as D


class M(torch.nn.Module):
    def forward(self, p):
        gate = D.Bernoulli(probs=p.sigmoid(), validate_args=True)  # <-
        return gate.mean * 2.0
''', inputs="[(torch.randn(3, 4),)]"),
    )
    good = (
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mu = torch.nn.Linear(8, 2)
        self.log_std = torch.nn.Parameter(torch.zeros(2))

    def forward(self, obs):
        dist = torch.distributions.Normal(self.mu(obs), self.log_std.exp(), validate_args=False)
        action = dist.rsample()
        return action.tanh(), dist.log_prob(action).sum(-1)
''', inputs="[(torch.randn(4, 8),)]"),
        Example('''import torch
from torch.distributions import Categorical

torch.distributions.Distribution.set_default_validate_args(False)


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.logits = torch.nn.Linear(8, 5)

    def forward(self, obs):
        dist = Categorical(logits=self.logits(obs))
        return dist.probs.argmax(-1), dist.entropy()
''', inputs="[(torch.randn(4, 8),)]"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, mu, log_std):
        base = torch.distributions.Normal(mu, log_std.exp(), validate_args=False)
        dist = torch.distributions.Independent(base, 1)
        return dist.log_prob(mu * 0.5)
''', inputs="[(torch.randn(4, 2), torch.zeros(4, 2))]"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        name = ctx.qualify(node.func) or ""
        if not name.startswith("torch.distributions.") or ctx.module_facts.distribution_validation_off:
            return
        cls = name.rsplit(".", 1)[-1]
        if not cls[:1].isupper() or cls in _WRAPPERS or ".transforms." in name or ".constraints." in name:
            return
        validate = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "validate_args"),
                        None)
        if validate is None or (type(validate) is cst.Name and validate.value in ("True", "None")):
            self.report(ctx, node, self.message.format(name=brief(ctx.code_for(node.func), 24)))
