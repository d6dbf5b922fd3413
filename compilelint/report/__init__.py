"""Reporters: full (also text; the default), concise, json, github (workflow annotations), sarif (2.1.0, built
with sarif-om), html (a self-contained page)."""

from __future__ import annotations

from compilelint.report.github import render_github
from compilelint.report.html import render_html
from compilelint.report.json import render_json
from compilelint.report.sarif import render_sarif
from compilelint.report.text import render_concise, render_text

FORMATS = {"full": render_text, "text": render_text, "concise": render_concise, "json": render_json,
           "github": render_github, "sarif": render_sarif, "html": render_html}
# The probe's own text report adds a summary per target: it keeps its own list.
PROBE_FORMATS = ("text", "json", "github", "sarif", "html")
