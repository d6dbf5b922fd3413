"""GB412 c-builtin-graph-break: Flags calls to C builtins that Dynamo cannot trace: zlib.crc32/adler32, hashlib.*, pickle.dumps/loads, os.getpid, os.urandom, os.getcwd, socket.gethostname"""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule


class CBuiltinGraphBreak(CallBreakRule):
    code = 'GB412'
    name = 'c-builtin-graph-break'
    detector = 'c_builtin'
    gb_id = 'GB0007'
    severity = "warning"
    message = ('A C-implemented library function (`zlib`, `hashlib`, `pickle`, `os.getpid`, `os.urandom`...) breaks the graph (GB0007): compute it once outside the compiled code (e.g. at import or in __init__)')
    doc = RuleDoc(
        what='Flags calls to C builtins that Dynamo cannot trace: zlib.crc32/adler32, hashlib.*, pickle.dumps/loads, os.getpid, os.urandom, os.getcwd, socket.gethostname.',
        why='Dynamo cannot trace functions implemented in C outside torch; it marks them skipped (GB0007) and splits the graph at every call.',
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
    )
    good = (
        Example('''import torch
import zlib
H = zlib.crc32(b"layer")

class M(torch.nn.Module):
    def forward(self, x):
        return x + H
'''),
    )
