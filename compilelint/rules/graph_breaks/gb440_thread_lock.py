"""GB440 thread-lock-in-compiled-code: Flags `with lock:` and `lock.acquire()` / `lock.release()` on a threading lock in compiled code"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.dynamo import BREAKS, dead_under_dynamo
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule


class ThreadLockInCompiledCode(CallBreakRule):
    code = 'GB440'
    name = 'thread-lock-in-compiled-code'
    detector = 'thread_lock'
    gb_id = 'GB0142'
    severity = "warning"
    message = ('`with` on a threading lock makes Dynamo give up on the whole function (GB0142: unsupported context '
               'manager), so none of it is compiled: take the lock outside the compiled function (around the call '
               'of the compiled module), or move the locked update into a `@torch.compiler.disable` helper (one '
               'graph break, GB0099, instead of the whole function)')
    acquire_message = ('`{call}` breaks the graph (GB0156: Dynamo does not trace a lock\'s methods): take the lock '
                       'outside the compiled function, or move the locked update into a `@torch.compiler.disable` helper')
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

    def message_for(self, node: cst.CSTNode, ctx, gb_id: str) -> str:  # noqa: ANN001
        return self.acquire_message.format(call=ctx.code_for(node))

    def visit_With(self, node: cst.With, ctx) -> None:  # noqa: ANN001
        gb_id = BREAKS[self.detector](node, ctx)
        if gb_id and not dead_under_dynamo(ctx, node):
            # the whole function runs eagerly wherever the `with` sits: no escalation by position
            ctx.report(node, self.message, severity="error", gb_id=gb_id)
