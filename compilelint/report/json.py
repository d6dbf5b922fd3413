from __future__ import annotations

import json

from compilelint import __version__
from compilelint.findings import Finding


def render_json(findings: list[Finding], **_: object) -> str:
    payload = {"tool": "compilelint", "version": __version__, "findings": [f.to_dict() for f in findings]}
    return json.dumps(payload, indent=2, sort_keys=True) + "\n"
