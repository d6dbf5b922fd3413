"""GB445 jit-module-in-compiled-code: Flags calls of a TorchScript module (`torch.jit.script(Module())`, `torch.jit.load`, `torch.jit.freeze`, `torch.jit.trace`) from compiled code"""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import BreakRule
from compilelint.semantic.paths import dead_under_dynamo
from compilelint.torchapi.dynamo import JIT_MODULE_CALL


class JitModuleInCompiledCode(BreakRule):
    code = 'GB445'
    also_gb_ids = ('GB0008',)
    name = 'jit-module-in-compiled-code'
    gb_id = 'GB4695'
    older_gb_ids = {"2.11": "GB0357"}
    severity = "warning"
    message = 'TorchScript module call: Dynamo gives up on the whole function'
    trace_message = 'traced module call breaks the graph; call the eager module'
    version_note = ('Verified on 2.13: a submodule built with torch.jit.script(Module()), torch.jit.load(path) or '
                    'torch.jit.freeze(...), called in forward (also after other work), leaves Dynamo with no graph at '
                    'all (GB4695, the frame skipped); a module-level one the same. A torch.jit.trace(Module(), ...) '
                    'submodule breaks the graph inside torch (GB0008). A torch.jit.script-ed *function* is traced '
                    'through and is not flagged. torch 2.11 (its examples through the harness) skips '
                    'the frame on the same line with GB0357.')
    doc = RuleDoc(
        what=('Flags calls, in code torch.compile traces, of a module attribute or module-level name built with '
              '`torch.jit.script(SomeModule(...))`, `torch.jit.load(...)`, `torch.jit.freeze(...)` or '
              '`torch.jit.trace(SomeModule(...), ...)`.'),
        why=('Teams moving from TorchScript to torch.compile often keep a scripted post-processing or NMS '
             'submodule. A ScriptModule runs in the TorchScript interpreter, which Dynamo cannot look into: it '
             'abandons the calling function entirely, so the compiled model is in fact eager, with no error. '
             'Traced modules are skipped too, splitting the graph.'),
        example='self.post = torch.jit.script(BoxDecoder())\n...\nboxes = self.post(deltas, anchors)',
        use_instead='self.post = BoxDecoder()  # script it only when exporting to TorchScript',
    )
    bad = (
        Example('''import torch


class Decoder(torch.nn.Module):
    def forward(self, x):
        return x.sigmoid() * 2.0


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.head = torch.nn.Linear(4, 4)
        self.post = torch.jit.script(Decoder())

    def forward(self, x):
        h = self.head(x)
        return self.post(h)  # <-
''', inputs="[(torch.randn(3, 4),), (torch.randn(3, 4),)]"),
        Example('''import torch


class Decoder(torch.nn.Module):
    def forward(self, x):
        return x.sigmoid() * 2.0


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.head = torch.nn.Linear(4, 4)
        self.post = torch.jit.trace(Decoder(), (torch.randn(3, 4),))

    def forward(self, x):
        h = self.head(x)
        return self.post(h) + 1.0  # <-
''', inputs="[(torch.randn(3, 4),), (torch.randn(3, 4),)]", gb_id="GB0008"),
    )
    good = (
        Example('''import torch


class Decoder(torch.nn.Module):
    def forward(self, x):
        return x.sigmoid() * 2.0


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.head = torch.nn.Linear(4, 4)
        self.post = Decoder()

    def forward(self, x):
        h = self.head(x)
        return self.post(h)
''', inputs="[(torch.randn(3, 4),), (torch.randn(3, 4),)]"),
        Example('''import torch


@torch.jit.script
def decode(x: torch.Tensor) -> torch.Tensor:
    return x.sigmoid() * 2.0


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.head = torch.nn.Linear(4, 4)

    def forward(self, x):
        return decode(self.head(x))
''', inputs="[(torch.randn(3, 4),), (torch.randn(3, 4),)]"),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        if type(node) is not cst.Call:
            return None
        func = node.func
        kind = ""
        if type(func) is cst.Name and func.value not in ctx.facts.env:
            kind = ctx.module_facts.jit_modules.get(func.value, "")
        elif (type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self"
              and ctx.class_facts is not None):
            kind = getattr(ctx.class_facts, "jit_modules", {}).get(func.attr.value, "")
        return JIT_MODULE_CALL.get(kind)

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        gb_id = self.detect(node, ctx)
        if not gb_id or dead_under_dynamo(ctx, node):
            return
        if gb_id == "GB4695":  # the whole function runs eagerly wherever the call sits: no escalation by position
            ctx.report(node, self.message, severity="error", gb_id=gb_id)
        else:
            self.check(node, ctx)

    def message_for(self, node: cst.CSTNode, ctx, gb_id: str) -> str:  # noqa: ANN001
        return self.trace_message
