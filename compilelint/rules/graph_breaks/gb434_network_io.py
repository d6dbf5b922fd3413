"""GB434 network-io-graph-break: Flags `requests.get/post/...`, `urllib.request.urlopen`, `socket.create_connection`/`socket.socket` and `http.client` calls"""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule


class NetworkIoGraphBreak(CallBreakRule):
    code = 'GB434'
    name = 'network-io-graph-break'
    detector = 'network'
    gb_id = 'GB0007'
    severity = "warning"
    message = ('Network I/O (`requests`, `urllib.request.urlopen`, `socket` connections) in compiled code breaks the graph and on 2.13 made Dynamo skip the whole function (GB0007/GB0059/GB0156): fetch data outside the compiled code and pass tensors in')
    version_note = ('Verified on 2.13 with socket.create_connection (GB0007), urllib.request.urlopen (GB0059) and requests.get (GB0156) to a closed local port: each left the frame uncompiled (graphs=0).')
    doc = RuleDoc(
        what='Flags `requests.get/post/...`, `urllib.request.urlopen`, `socket.create_connection`/`socket.socket` and `http.client` calls in compiled code.',
        why='Dynamo cannot trace sockets; it breaks the graph inside the library and cannot resume there cleanly, so the whole function runs eagerly, on every call.',
        example='labels = requests.get(self.url).json()\nreturn self.head(x)',
        use_instead='# fetch once at startup, outside the model\nreturn self.head(x)',
    )
    bad = (
        Example('''import torch
import socket

class M(torch.nn.Module):
    def forward(self, x):
        y = x + 1
        try:
            socket.create_connection(("127.0.0.1", 9), timeout=0.1)  # <-
        except OSError:
            pass
        return y * 2
'''),
    )
    good = (
        Example('''import torch
import socket

class M(torch.nn.Module):
    def forward(self, x):
        y = x + 1
        return y * 2
'''),
    )
