"""GB412 c-builtin-graph-break: Flags calls to C builtins that Dynamo cannot trace: zlib, hashlib, pickle, bisect, heapq, os.getpid..."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import call_name
from compilelint.semantic.constructs import Construct
from compilelint.torchapi.dynamo import C_BUILTINS, HASHLIB


class CBuiltinGraphBreak(CallBreakRule):
    code = 'GB412'
    construct = Construct.PYTHON_LIBRARY_CALL
    name = 'c-builtin-graph-break'
    call_gate = gate(names=C_BUILTINS, heads={HASHLIB})
    loop_fix = "compute it once outside"
    gb_id = 'GB0007'
    severity = "warning"
    message = 'C-implemented stdlib call breaks the graph; do it outside'
    version_note = ('Verified on 2.13 and on 2.11 (its examples): each call breaks (GB0007), with constant arguments too (bisect.bisect_left([8, 16, 32], 20)). '
                    'gc.collect/disable/enable, threading.get_ident and uuid.uuid4/uuid1 (inside uuid: GB0007, then the frame is skipped) '
                    'too. heapq.nsmallest/nlargest are Python and break inside heapq (GB0059): not flagged.')
    doc = RuleDoc(
        what='Flags calls to C builtins that Dynamo cannot trace: zlib.crc32/adler32, hashlib.*, pickle.dumps/loads, bisect.bisect*/insort*, heapq.heappush/heappop/heapify/heappushpop/heapreplace, gc.collect/disable/enable, threading.get_ident, uuid.uuid4/uuid1, os.getpid, os.urandom, os.getcwd, socket.gethostname.',
        why=('Dynamo cannot trace functions implemented in C outside torch; it marks them skipped (GB0007) and '
             'splits the graph at every call. Compute it once outside the compiled code (at import or in '
             '`__init__`), or use a tensor op (`torch.bucketize` for bisect, `torch.topk` for heapq).'),
        example='seed = zlib.crc32(name.encode())\nreturn x + seed',
        use_instead='SEED = zlib.crc32(NAME.encode())  # module level\nreturn x + SEED',
    )
    bad = (
        Example('''import torch
import zlib

class M(torch.nn.Module):
    def forward(self, x):
        h = zlib.crc32(b"layer")  # <-
        return x + h
'''),
        Example('''import bisect
import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.buckets = [64, 128, 256, 512]

    def forward(self, tokens):
        bucket = bisect.bisect_left(self.buckets, tokens.shape[1])  # <-
        return tokens * (bucket + 1)
'''),
        Example('''import heapq
import torch

class M(torch.nn.Module):
    def forward(self, x):
        beams = []
        heapq.heappush(beams, (0.5, 1))  # <-
        return x * beams[0][1]
'''),
        Example('''import gc
import torch

class M(torch.nn.Module):
    def forward(self, x):
        gc.collect()  # <-
        return x * 2
'''),
        Example('''import threading
import torch

class M(torch.nn.Module):
    def forward(self, x):
        worker = threading.get_ident() % 4  # <-
        return x * (worker + 1)
'''),
        Example('''import uuid
import torch

class M(torch.nn.Module):
    def forward(self, x):
        tag = uuid.uuid4().hex  # <-
        return x * len(tag)
'''),
    )
    good = (
        Example('''import torch
import zlib
H = zlib.crc32(b"layer")

class M(torch.nn.Module):
    def forward(self, x):
        return x + H
'''),
        Example('''import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("buckets", torch.tensor([64, 128, 256, 512]))

    def forward(self, tokens):
        bucket = torch.bucketize(torch.tensor(tokens.shape[1]), self.buckets)
        return tokens * (bucket + 1)
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        if type(node) is cst.Call:
            q = call_name(node, ctx)
            if q in C_BUILTINS or q.startswith(HASHLIB + "."):
                return "GB0007"
        return None
