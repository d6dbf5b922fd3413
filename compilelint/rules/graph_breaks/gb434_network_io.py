"""GB434 network-io-graph-break: Flags `requests.get/post/...`, `urllib.request.urlopen`, `socket.create_connection`/`socket.socket` and `http.client` calls"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import call_name
from compilelint.semantic.constructs import Construct
from compilelint.torchapi.dynamo import NETWORK_PACKAGES, REQUESTS_CALLS, SOCKET_CONNECT, URLLIB_OPEN


class NetworkIoGraphBreak(CallBreakRule):
    code = 'GB434'
    construct = Construct.PYTHON_LIBRARY_CALL
    also_gb_ids = ('GB0059', 'GB0156')
    name = 'network-io-graph-break'
    call_gate = gate(heads=NETWORK_PACKAGES)
    gb_id = 'GB0007'
    severity = "warning"
    message = 'network I/O breaks the graph; fetch data outside'
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

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        """requests.* / urllib.request.urlopen / socket connections (each made Dynamo skip the frame)."""
        if type(node) is not cst.Call:
            return None
        q = call_name(node, ctx)
        if q.startswith("requests.") and q.rsplit(".", 1)[-1] in REQUESTS_CALLS:
            return "GB0156"
        if q in URLLIB_OPEN:
            return "GB0059"
        if q in SOCKET_CONNECT:
            return "GB0007"
        if q.startswith("http.client."):
            return "GB0156"
        return None
