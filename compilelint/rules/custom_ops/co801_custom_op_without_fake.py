"""CO801: a custom op called from compiled code, with no fake implementation anywhere in the linted tree."""
from __future__ import annotations

import dataclasses
import json

import libcst as cst

from compilelint.analysis.names import dotted
from compilelint.rules.base import Example, RuleDoc, brief, fit_message
from compilelint.rules.custom_ops._common import NOT_TREE_HEADS, CustomOpRule
from compilelint.semantic.custom_ops import OpDefinition, op_name_of_ops_path


def _message(written: str, op: OpDefinition) -> str:
    if op.how == "define":
        return f"`{brief(written, 20)}` calls custom op `{op.name}`: no fake or Meta kernel"
    return f"`{brief(written, 20)}` calls custom op `{op.name}`, which has no fake"


class CustomOpWithoutFake(CustomOpRule):
    code = "CO801"
    name = "custom-op-without-fake"
    tree_facts = True
    message = "custom op with no fake implementation in the tree is called here"
    torch_error = ("no fake impl registered", "when making fake tensor call", "does not support running with fake tensors",
                   "UnsupportedOperatorException")
    version_note = ("Verified on 2.13 (CPU): a `torch.library.custom_op` with no fake scripts and traces, but "
                    "torch.compile raises TorchRuntimeError \"RuntimeError when making fake tensor call\" (GB4315's text, "
                    "yet not a graph break: it raises with or without fullgraph) and torch.export raises \"There was no "
                    "fake impl registered for <CustomOpDef(...)>\". An op from `torch.library.define` / `Library.define` "
                    "with only a CPU kernel breaks the graph (GB0090 \"Operator does not support running with fake "
                    "tensors\"; fullgraph=True raises Unsupported) and export raises UnsupportedOperatorException. A Meta "
                    "kernel, a CompositeImplicitAutograd / CompositeExplicitAutograd (\"default\") kernel, "
                    "`impl_abstract` and `triton_op` each compile with fullgraph=True and export.")
    doc = RuleDoc(
        what=("Flags calls, in code torch.compile or torch.export runs, of an op registered with "
              "`torch.library.custom_op`, `torch.library.define` or `Library.define` that has no fake implementation "
              "in any file of the linted tree (`register_fake`, `@op.register_fake`, `impl_abstract`, a Meta or "
              "composite kernel). Ops defined outside the tree (C++ `TORCH_LIBRARY`, installed packages) are not "
              "judged."),
        why=(('A custom op is opaque to the compilers: Dynamo and export run it on fake tensors, which carry shapes'
              ' and no data, to learn what it returns. Without a fake implementation that run has nothing to call, '
              'so torch.compile fails (a `custom_op`: TorchRuntimeError, even without fullgraph; a `define`d op: a '
              'graph break, GB0090) and torch.export stops. Eager, TorchScript and jit.trace never ask for it, so '
              'the op passes every test until the model is compiled. NMS, voxelisation and point-sampling ops '
              'wrapped for a perception stack are the usual case. Register a fake with `@<op>.register_fake` (or '
              '`torch.library.register_fake("ns::op")`) returning empty tensors of the output\'s shape and dtype; an'
              ' op declared with a schema breaks the graph (GB0090), one without fails outright.')),
        example=('@torch.library.custom_op("det::nms", mutates_args=())\n'
                 "def nms(boxes: Tensor, scores: Tensor, iou: float) -> Tensor:\n"
                 "    ...\n\n"
                 "keep = nms(boxes, scores, 0.5)  # in forward"),
        use_instead=('@torch.library.custom_op("det::nms", mutates_args=())\n'
                     "def nms(boxes: Tensor, scores: Tensor, iou: float) -> Tensor:\n"
                     "    ...\n\n"
                     "@nms.register_fake\n"
                     "def _(boxes, scores, iou):\n"
                     "    n = torch.library.get_ctx().new_dynamic_size()  # data-dependent length: see CO802\n"
                     "    return boxes.new_empty(n, dtype=torch.long)\n\n"
                     "keep = nms(boxes, scores, 0.5)  # in forward"),
        fix_safety=("No fix is offered: a fake implementation states the op's output shapes and dtypes, which only "
                    "the op's author knows (a fixed shape where the real output's length depends on the data gives "
                    "wrong results under compile: CO802)."),
    )
    bad = (
        Example('''import torch


@torch.library.custom_op("co801::scale_rows", mutates_args=())
def scale_rows(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return x * w[:, None]


class M(torch.nn.Module):
    def forward(self, x):
        w = x.abs().amax(dim=1)
        return scale_rows(x, w) + 1  # <-
''', inputs="[(torch.randn(4, 3),)]"),
        Example('''import torch

torch.library.define("co801::box_area", "(Tensor boxes) -> Tensor")


@torch.library.impl("co801::box_area", "cpu")
def _box_area(boxes):
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


class M(torch.nn.Module):
    def forward(self, boxes):
        area = torch.ops.co801.box_area(boxes)  # <-
        return area.sqrt()
''', inputs="[(torch.tensor([[0., 0., 2., 3.], [1., 1., 4., 5.]]),)]"),
        Example('''import torch
from torch.library import Library

lib = Library("co801lib", "DEF")
lib.define("clip_boxes(Tensor boxes, float size) -> Tensor")


def _clip(boxes, size):
    return boxes.clamp(0, size)


lib.impl("clip_boxes", _clip, "CPU")


class M(torch.nn.Module):
    def forward(self, boxes):
        return torch.ops.co801lib.clip_boxes.default(boxes, 8.0) * 2  # <-
''', inputs="[(torch.randn(5, 4) * 10,)]"),
    )
    good = (
        Example('''import torch


@torch.library.custom_op("co801::scale_rows_ok", mutates_args=())
def scale_rows(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return x * w[:, None]


@scale_rows.register_fake
def _(x, w):
    return torch.empty_like(x)


class M(torch.nn.Module):
    def forward(self, x):
        w = x.abs().amax(dim=1)
        return scale_rows(x, w) + 1
''', inputs="[(torch.randn(4, 3),)]"),
        Example('''import torch

torch.library.define("co801::box_area_ok", "(Tensor boxes) -> Tensor")


@torch.library.impl("co801::box_area_ok", "cpu")
def _box_area(boxes):
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


@torch.library.register_fake("co801::box_area_ok")
def _box_area_fake(boxes):
    return boxes.new_empty(boxes.shape[0])


class M(torch.nn.Module):
    def forward(self, boxes):
        area = torch.ops.co801.box_area_ok(boxes)
        return area.sqrt()
''', inputs="[(torch.tensor([[0., 0., 2., 3.], [1., 1., 4., 5.]]),)]"),
        Example('''import torch
from torch.library import Library

lib = Library("co801lib_ok", "DEF")
lib.define("clip_boxes(Tensor boxes, float size) -> Tensor")


def _clip(boxes, size):
    return boxes.clamp(0, size)


def _clip_meta(boxes, size):
    return torch.empty_like(boxes)


lib.impl("clip_boxes", _clip, "CPU")
lib.impl("clip_boxes", _clip_meta, "Meta")


class M(torch.nn.Module):
    def forward(self, boxes):
        return torch.ops.co801lib_ok.clip_boxes.default(boxes, 8.0) * 2
''', inputs="[(torch.randn(5, 4) * 10,)]"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if type(func) not in (cst.Name, cst.Attribute):
            return
        written = dotted(func)
        if written is None or written.startswith("self."):
            return
        callee = ctx.qualify(func)
        facts = ctx.custom_ops
        name = op_name_of_ops_path(callee) if callee and callee.startswith("torch.ops.") else None
        if name is not None:
            op = facts.by_name(name)
            if name in facts.faked or (op is not None and facts.has_local_fake(op)):
                return
            ctx.report(node, _message(written, op) if op else None,
                       pending=json.dumps({"written": written, "op": op.name if op else name}))
            return
        head = written.partition(".")[0]
        if head in ctx.facts.aliases:  # imported: another file of the tree may define it
            if callee and callee.partition(".")[0] not in NOT_TREE_HEADS:
                ctx.report(node, pending=json.dumps({"written": written, "callee": callee}))
            return
        op = facts.by_python(f"{ctx.module_name}.{written}")
        if op is not None and not facts.has_local_fake(op):
            ctx.report(node, _message(written, op), gb_id="GB0090" if op.how == "define" else None,
                       pending=json.dumps({"written": written, "op": op.name}))

    @classmethod
    def settle(cls, finding, index, scope):  # noqa: ANN001, ANN206
        """Keep the finding where the op is defined in the tree and no file of it registers a fake."""
        if not finding.pending:
            return finding  # settled already: a copy the engine keeps (the original still holds its data)
        registry = index.custom_ops
        # the op's name where the call names it (`torch.ops.ns.op`, a local op), else the imported callee
        pending = json.loads(finding.pending)
        op = registry.by_name.get(pending["op"]) if "op" in pending else registry.lookup(pending["callee"])
        if op is None or registry.has_fake(op):
            return None
        # a copy: the engine settles the same finding again after placing other files' findings
        return dataclasses.replace(finding, message=fit_message(_message(pending["written"], op)),
                                   gb_id="GB0090" if op.how == "define" else None, pending="")
