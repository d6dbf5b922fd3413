"""EX719: a tensor read at a 0-d index computed from tensor data (`t[x.argmax()]`), under torch.export on torch 2.11."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc, brief
from compilelint.rules.export._common import ExportRule
from compilelint.semantic.constructs import Construct

# Evidence: benchmarks/export_scalar_index.py, run on torch 2.11 and 2.13; raw output in
# docs/bench/export_scalar_index.txt. A write at such an index fails on 2.13 too: EX718, which this rule leaves
# to itself.


class ExportTensorIndexedByDataScalarOldTorch(ExportRule):
    code = "EX719"
    construct = Construct.DATA_DEPENDENT_VALUE
    name = "export-tensor-indexed-by-data-scalar-old-torch"
    torch_error = ("GuardOnDataDependentSymNode",)
    max_torch = "2.11"  # verified there; 2.13 exports these; 2.12 was not checked
    verified_on = "2.11"
    message = '`{target}` indexes with data index `{index}` (torch 2.11)'
    version_note = ("Verified on torch 2.11 with torch.export.export(strict=False): a buffer, a "
                    "Parameter, an input and a local tensor read at `x.argmax()`, `torch.argmax(x)`, `best + 1`, "
                    "`t[:, best]`, `t[best, 0]` and `feat[:, y, x]` (y, x from a flat argmax) fail on the "
                    "subscript; a 1-element index (`t[i.view(1)]`, `t[i[None]]`, `index_select`, `gather`, "
                    "`torch.take`, `argmax(0, keepdim=True)`) exports. On 2.13 all of these reads export and 2.12 "
                    "was not checked, so the rule is off unless the project sets `torch-version` to 2.11 or older.")
    doc = RuleDoc(
        what=("For projects on torch 2.11 or older (`torch-version` in `[tool.compilelint]`): flags a tensor "
              "read at a 0-d index computed from tensor data, `t[i]` or `t[:, i]` where `i` is `x.argmax()` / "
              "`x.argmin()` without a dim, `torch.argmax(x)`, or integer arithmetic, `clamp` or `torch.div` of "
              "one (directly or through a name). Writes at such an index are EX718's, on every version."),
        why=(('`t[i]` with a 0-d integer tensor is `t.select(0, int(i))` to PyTorch: the index becomes a Python '
              'number. Under export the number is read from tensor data, so it is an unbacked symbol; torch 2.11 '
              'needs its concrete value to select and stops with `GuardOnDataDependentSymNode`. A 1-element index '
              'tensor is advanced indexing (a gather), which needs no number. torch 2.13 exports both. Index with a'
              ' 1-element tensor (`t[i.view(1)]`, `index_select`), or export with torch 2.13, which handles it.')),
        example="best = scores.argmax()\nreturn boxes[best]",
        use_instead="best = scores.argmax()\nreturn boxes[best.view(1)][0]  # or boxes.index_select(0, best.view(1))[0]",
    )
    bad = (
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("scales", torch.tensor([0.5, 1.0, 2.0]))

    def forward(self, boxes):
        best = boxes[:3].mean(1).argmax()
        return boxes * self.scales[best]  # <-
''', inputs="[(torch.randn(5, 4),)]", max_torch="2.11"),
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.tensor([0.5, 1.0, 2.0]))

    def forward(self, boxes):
        best = boxes[:3].mean(1).argmax()
        return boxes * self.w[best]  # <-
''', inputs="[(torch.randn(5, 4),)]", max_torch="2.11"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, boxes, scores):
        return boxes[scores.argmax()]  # <-
''', inputs="[(torch.randn(5, 4), torch.rand(5))]", max_torch="2.11"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, boxes, scores):
        best = torch.argmax(scores)
        return boxes[best] * 2.0  # <-
''', inputs="[(torch.randn(5, 4), torch.rand(5))]", max_torch="2.11"),
    )
    good = (
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("scales", torch.tensor([0.5, 1.0, 2.0]))

    def forward(self, boxes):
        best = boxes[:3].mean(1).argmax()
        return boxes * self.scales[best.view(1)]
''', inputs="[(torch.randn(5, 4),)]"),
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("scales", torch.tensor([0.5, 1.0, 2.0]))

    def forward(self, boxes):
        best = boxes[:3].mean(1).argmax()
        return boxes * self.scales.index_select(0, best.view(1))
''', inputs="[(torch.randn(5, 4),)]"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, boxes, scores):
        best = scores.argmax(0, keepdim=True)
        return boxes[best]
''', inputs="[(torch.randn(5, 4), torch.rand(5))]"),
    )

    def visit_Subscript(self, node: cst.Subscript, ctx) -> None:  # noqa: ANN001
        parent = ctx.parent
        if (type(parent) is cst.Assign and any(t.target is node for t in parent.targets)) or (
                type(parent) is cst.AugAssign and parent.target is node):
            return  # a write: EX718, on every torch version
        facts = ctx.facts
        if not facts.is_tensor(node.value):
            return
        index = next((element.slice.value for element in node.slice
                      if type(element.slice) is cst.Index and facts.is_data_scalar_index(element.slice.value)), None)
        if index is not None:
            self.report(ctx, node, self.message.format(target=brief(ctx.code_for(node), 24), index=brief(ctx.code_for(index), 24),
                                                       value=brief(ctx.code_for(node.value), 24)))
