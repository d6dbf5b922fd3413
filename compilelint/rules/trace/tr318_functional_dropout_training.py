"""TR318: functional dropout left in training mode: it stays random in the traced (deployed) model."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, Rule, RuleDoc

_DROPOUTS = {"torch.nn.functional.dropout", "torch.nn.functional.dropout1d", "torch.nn.functional.dropout2d",
             "torch.nn.functional.dropout3d", "torch.nn.functional.alpha_dropout",
             "torch.nn.functional.feature_alpha_dropout", "torch.dropout", "torch.nn.functional.batch_norm"}
_TRAINING_POS = {"torch.nn.functional.batch_norm": 5, "torch.dropout": 2}


class FunctionalDropoutTraining(Rule):
    code = "TR318"
    call_gate = gate(names=_DROPOUTS)
    name = "trace-functional-dropout-training"
    family = "trace"
    targets = ("trace",)
    severity = "error"
    message = '`{fn}` with `training={value}` is traced in training mode'
    doc = RuleDoc(
        what=("Flags `F.dropout*(...)` without `training=` (it defaults to True) or with a literal `True`, "
              "and `F.batch_norm(..., training=True)`, in traced code."),
        why=("nn.Dropout follows `module.eval()`, but F.dropout's `training` argument defaults to True: tracing "
             "an eval-mode model still records a random dropout, so the traced model's outputs are random and "
             "differ from what was validated."),
        example="x = F.dropout(x, 0.1)",
        use_instead="x = F.dropout(x, 0.1, training=self.training)",
    )
    bad = (
        Example('''
import torch
import torch.nn.functional as F
class M(torch.nn.Module):
    def forward(self, x):
        return F.dropout(x, 0.5) * 2  # <-
''', inputs="[(torch.ones(64),), (torch.ones(64),)]", check="trace-eval"),
    )
    good = (
        Example('''
import torch
import torch.nn.functional as F
class M(torch.nn.Module):
    def forward(self, x):
        return F.dropout(x, 0.5, training=self.training) * 2
''', inputs="[(torch.ones(64),), (torch.ones(64),)]", check="trace-eval"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        fn = ctx.qualify(node.func) or ""
        if fn not in _DROPOUTS:
            return
        training = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "training"), None)
        pos = _TRAINING_POS.get(fn, 2)
        if training is None:
            positional = [a for a in node.args if a.keyword is None]
            if len(positional) > pos:
                training = positional[pos].value
        short = fn.replace("torch.nn.functional.", "F.")
        cls = "BatchNorm" if "batch_norm" in fn else "Dropout"
        if training is None:
            if "batch_norm" in fn:
                return  # F.batch_norm defaults to training=False
            ctx.report(node, self.message.format(fn=short, value="True (the default)", cls=cls))
        elif type(training) is cst.Name and training.value == "True":
            ctx.report(node, self.message.format(fn=short, value="True", cls=cls))
