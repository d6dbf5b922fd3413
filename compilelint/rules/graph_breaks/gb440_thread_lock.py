"""GB440 thread-lock-in-compiled-code: Flags `with lock:` and `lock.acquire()` / `lock.release()` on a threading lock in compiled code"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import call_name
from compilelint.semantic.paths import dead_under_dynamo
from compilelint.torchapi.dynamo import LOCK_METHODS, THREAD_LOCKS


def _is_thread_lock(expr: cst.BaseExpression, ctx) -> bool:  # noqa: ANN001
    """A threading lock, semaphore or condition: a module-level name or `self.<attr>` built as one (THREAD_LOCKS),
    or one built in place (`threading.Lock()`)."""
    if type(expr) is cst.Call:
        return call_name(expr, ctx) in THREAD_LOCKS
    if type(expr) is cst.Name:
        return expr.value in ctx.module_facts.locks and expr.value not in ctx.facts.env
    if (type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value == "self"
            and ctx.class_facts is not None):
        return getattr(ctx.class_facts, "attr_calls", {}).get(expr.attr.value) in THREAD_LOCKS
    return False


class ThreadLockInCompiledCode(CallBreakRule):
    code = 'GB440'
    also_gb_ids = ('GB0099', 'GB0156')
    name = 'thread-lock-in-compiled-code'
    call_gate = gate(methods=LOCK_METHODS)  # its `with` statements are not calls: not gated
    gb_id = 'GB0142'
    severity = "warning"
    message = '`with` on a lock: Dynamo gives up on the whole function'
    acquire_message = '`{call}` breaks the graph; take the lock outside'
    version_note = ('Verified on 2.13 and 2.11 (its examples): threading.Lock, RLock, Semaphore and Condition used in `with` (a module-level '
                    'one or one built in __init__) make Dynamo skip the frame (GB0142); `with threading.Lock():` breaks '
                    'first on building it (GB0007), then skips; `acquire()` / `release()` break with GB0156 each. '
                    'A `with` on a lock always costs the whole function, so it is reported as an error wherever it is. '
                    'A `@torch.compiler.disable` helper that takes the lock breaks the graph once (GB0099).')
    doc = RuleDoc(
        what=('Flags, in code torch.compile traces, a `with` statement on a `threading` lock, semaphore or condition '
              '(a module-level one, one built in `__init__` as `self.<attr>`, or one built in place), and calls of '
              'its `acquire()` / `release()`.'),
        why=('Robotics and serving code guards shared state (a latest-pose cache, a command buffer) with a lock. '
             'Dynamo cannot enter a lock as a context manager: it abandons the frame and the whole `forward` runs '
             'eagerly, every call, with no error (GB0142). `acquire()`/`release()` are not traced either and split '
             'the graph at each call (GB0156).'),
        example='with self._state_lock:\n    self.latest = pose.detach()\nreturn self.head(pose)',
        use_instead=('# the caller: with state_lock: out = compiled_model(pose)\n'
                     'self.latest = pose.detach()\nreturn self.head(pose)'),
    )
    bad = (
        Example('''import threading

import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.head = torch.nn.Linear(4, 2)
        self._state_lock = threading.Lock()
        self.latest = torch.zeros(4)

    def forward(self, pose):
        with self._state_lock:  # <-
            self.latest = pose.detach()
        return self.head(pose)
''', inputs="[(torch.randn(4),), (torch.randn(4),)]"),
        Example('''import threading

import torch

_BUFFER_LOCK = threading.RLock()


class M(torch.nn.Module):
    def forward(self, cmd):
        with _BUFFER_LOCK:  # <-
            out = cmd.clamp(-1.0, 1.0)
        return out * 2.0
''', inputs="[(torch.randn(6),), (torch.randn(6),)]"),
        Example('''import threading

import torch

_LOCK = threading.Lock()


class M(torch.nn.Module):
    def forward(self, cmd):
        y = cmd.clamp(-1.0, 1.0)
        _LOCK.acquire()  # <-
        y = y * 2.0
        _LOCK.release()  # <-
        return y.sin()
''', inputs="[(torch.randn(6),), (torch.randn(6),)]", gb_id="GB0156"),
    )
    good = (
        Example('''import threading

import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.head = torch.nn.Linear(4, 2)
        self._state_lock = threading.Lock()  # taken by the caller, around the compiled call
        self.latest = torch.zeros(4)

    def forward(self, pose):
        self.latest = pose.detach()
        return self.head(pose)
''', inputs="[(torch.randn(4),), (torch.randn(4),)]"),
        Example('''import contextlib

import torch


class M(torch.nn.Module):
    def forward(self, cmd):
        with contextlib.nullcontext():
            out = cmd.clamp(-1.0, 1.0)
        return out * 2.0
''', inputs="[(torch.randn(6),), (torch.randn(6),)]"),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        """`with lock:` (GB0142: Dynamo skips the whole function) or `lock.acquire()` / `lock.release()` (GB0156)."""
        if type(node) is cst.With:
            return "GB0142" if any(_is_thread_lock(item.item, ctx) for item in node.items) else None
        if (type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in LOCK_METHODS
                and _is_thread_lock(node.func.value, ctx)):
            return "GB0156"
        return None

    def message_for(self, node: cst.CSTNode, ctx, gb_id: str) -> str:  # noqa: ANN001
        return self.acquire_message.format(call=ctx.code_for(node))

    def visit_With(self, node: cst.With, ctx) -> None:  # noqa: ANN001
        gb_id = self.detect(node, ctx)
        if gb_id and not dead_under_dynamo(ctx, node):
            # the whole function runs eagerly wherever the `with` sits: no escalation by position
            ctx.report(node, self.message, severity="error", gb_id=gb_id)
