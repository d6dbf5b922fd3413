"""TS173: a local TorchScript types Optional passed where a torch layer or function takes a Tensor."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.calls import call_name
from compilelint.semantic.script_types import optional_at


class OptionalPassedAsTensor(Rule):
    code = "TS173"
    name = "optional-passed-as-tensor"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`{name}` may be None here, but {callee} takes a Tensor'
    doc = RuleDoc(
        what=("Flags a local or parameter of type `Optional[Tensor]` at that point, passed as the input of a torch "
              "layer (`self.act(emb)` with `self.act = nn.SiLU()`) or the first argument of a torch function."),
        why=("TorchScript types locals with its own refinement rules: an `Optional` parameter is refined only "
             "inside `if x is not None:` (or past `assert x is not None`), and a variable assigned in one branch of "
             "an `if` keeps the union of both branches' types. The call then fails: `Expected a value of type "
             "'Tensor' for argument 'input' but instead found type 'Optional[Tensor]'`."),
        example=("def forward(self, x, emb: Optional[torch.Tensor] = None):\n    if self.proj is not None:\n"
                 "        emb = self.proj(x)\n    return self.act(emb)"),
        use_instead=("def forward(self, x, emb: Optional[torch.Tensor] = None):\n    if self.proj is not None:\n"
                     "        emb = self.proj(x)\n    assert emb is not None\n    return self.act(emb)"),
    )
    bad = (
        Example('''
import torch
from typing import Optional
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(3, 3)
        self.act = torch.nn.SiLU()
    def forward(self, x, emb: Optional[torch.Tensor] = None):
        if x.sum() > 0:
            emb = self.proj(x)
        return self.act(emb)  # <-
'''),
        Example('''
import torch
from typing import Optional
class M(torch.nn.Module):
    def forward(self, x, mask: Optional[torch.Tensor] = None):
        return torch.relu(mask) + x  # <-
'''),
    )
    good = (
        Example('''
import torch
from typing import Optional
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(3, 3)
        self.act = torch.nn.SiLU()
    def forward(self, x, emb: Optional[torch.Tensor] = None, mask: Optional[torch.Tensor] = None):
        if emb is None:
            emb = self.proj(x)
        if mask is not None:
            x = x + torch.relu(mask)
        return self.act(emb) + x
''', check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        positional = [a for a in node.args if a.keyword is None and not a.star]
        if not positional or type(positional[0].value) is not cst.Name or ctx.function is None:
            return
        func = node.func
        callee = None
        if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self":
            built = (ctx.class_facts.attr_calls.get(func.attr.value, "") if ctx.class_facts is not None else "")
            last = built.rsplit(".", 1)[-1]
            if built.startswith("torch.nn.") and last[:1].isupper() and "Multihead" not in last:
                callee = f"`self.{func.attr.value}` (`{built}`)"
        else:
            name = call_name(node, ctx)
            if name.startswith(("torch.", "torch.nn.functional.")) and not name.startswith(("torch.jit.", "torch._")):
                callee = f"`{name}`"
        if callee is None:
            return
        arg = positional[0].value
        if optional_at(arg, ctx):
            ctx.report(arg, self.message.format(name=arg.value, callee=callee))
