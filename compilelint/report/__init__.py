"""Reporters: text, json, github (workflow annotations), sarif (2.1.0, built with sarif-om)."""

from __future__ import annotations

from compilelint.report.github import render_github
from compilelint.report.json import render_json
from compilelint.report.sarif import render_sarif
from compilelint.report.text import render_text

FORMATS = {"text": render_text, "json": render_json, "github": render_github, "sarif": render_sarif}
