"""HTML report (`--output-format html`): one self-contained page, findings grouped by file and then by rule,
each with its source line and the rule's explanation. No scripts, no external resources; every piece of text
from the linted tree or a message is escaped."""

from __future__ import annotations

import html
import re
from collections import Counter, defaultdict

from compilelint import __version__
from compilelint.findings import UNVERIFIED, Finding
from compilelint.report.merge import one_per_construct, targets_text
from compilelint.report.sarif import help_uri
from compilelint.report.text import summary_line

_STYLE = """
body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.4em}h2{font-size:1.1em;margin:1.6em 0 .4em;word-break:break-all}
table{border-collapse:collapse;margin:.5em 0}td,th{padding:.2em .8em;text-align:left;border-bottom:1px solid #eee}
details{border:1px solid #ddd;border-radius:4px;margin:.5em 0;padding:.3em .8em}
summary{cursor:pointer;font-weight:600}.why{color:#444;margin:.4em 0}
.sev{display:inline-block;min-width:4.5em;font-size:.85em;padding:0 .4em;border-radius:3px;color:#fff}
.error{background:#b42318}.warning{background:#b54708}.note{background:#475467}
ol{padding-left:1.2em}li{margin:.5em 0}.loc{font-family:ui-monospace,monospace;color:#555}
pre{background:#f6f8fa;padding:.4em .6em;margin:.2em 0;overflow-x:auto;font-size:12.5px}
.meta{color:#555}
"""


def _inline(text: str) -> str:
    """Escaped text with `code` spans: the rules' explanations are written with backticks."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text, quote=True))


def _source_lines(path: str) -> list[str] | None:
    try:
        with open(path, "rb") as fh:
            return fh.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return None


def _rule_text(code: str) -> tuple[str, str, str]:
    """(name, explanation, help link) of a rule or engine code."""
    from compilelint.rules.registry import ENGINE_DESCRIPTIONS, all_rules

    rule = all_rules().get(code)
    if rule is not None:
        doc = rule.doc
        text = f"{doc.what} {doc.why}" if doc is not None else rule.message
        return rule.name, text, help_uri(code, rule.gb_id)
    if code in ENGINE_DESCRIPTIONS:
        name, text = ENGINE_DESCRIPTIONS[code]
        return name, text, ""
    from compilelint.runtime_probe.codes import RUNTIME_CODES  # plain data: no torch

    name, text = RUNTIME_CODES.get(code, (code, ""))
    return name, text, ""


def render_html(findings: list[Finding], *, files: int = 0, targets_note: str = "", **_: object) -> str:
    findings = one_per_construct(findings)
    by_file: dict[str, dict[str, list[Finding]]] = defaultdict(lambda: defaultdict(list))
    for f in findings:
        by_file[f.path][f.code].append(f)
    severities = Counter(f.severity for f in findings)
    per_rule = Counter(f.code for f in findings)
    esc = html.escape
    parts = ["<!doctype html><html lang=en><head><meta charset=utf-8>",
             "<meta name=viewport content='width=device-width, initial-scale=1'>",
             f"<title>compilelint report</title><style>{_STYLE}</style></head><body>",
             "<h1>compilelint report</h1>",
             f"<p class=meta>{esc(summary_line(findings, files))} "
             + esc(", ".join(f"{severities[s]} {s}" for s in ("error", "warning", "note") if severities[s]))
             + f" · compilelint {esc(__version__)}</p>"]
    if targets_note:
        parts.append(f"<p class=meta>{esc(targets_note)}</p>")
    if per_rule:
        parts.append("<table><tr><th>rule</th><th>name</th><th>findings</th></tr>")
        for code, n in sorted(per_rule.items(), key=lambda kv: (-kv[1], kv[0])):
            parts.append(f"<tr><td>{esc(code)}</td><td>{esc(_rule_text(code)[0])}</td><td>{n}</td></tr>")
        parts.append("</table>")
    for path in sorted(by_file):
        rules = by_file[path]
        lines = _source_lines(path)
        count = sum(len(v) for v in rules.values())
        parts.append(f"<section><h2>{esc(path)} <span class=meta>({count} finding{'s' if count != 1 else ''})"
                     "</span></h2>")
        for code in sorted(rules):
            items = sorted(rules[code], key=Finding.sort_key)
            name, text, link = _rule_text(code)
            severity = items[0].severity
            parts.append(f"<details open><summary><span class='sev {esc(severity, quote=True)}'>{esc(severity)}"
                         f"</span> {esc(code)} {esc(name)} ({len(items)})</summary>")
            if text:
                more = f" <a href='{esc(link, quote=True)}'>More</a>" if link else ""
                parts.append(f"<p class=why>{_inline(text)}{more}</p>")
            parts.append("<ol>")
            for f in items:
                source = lines[f.line - 1] if lines and 1 <= f.line <= len(lines) else f.source_line
                state = f" ({f.probe_state})" if f.probe_state != UNVERIFIED else ""
                gb = f" [{f.gb_id}]" if f.gb_id else ""
                shared = f" ({targets_text(f)})" if f.also else ""
                parts.append(f"<li><span class=loc>{esc(path)}:{f.line}:{f.col + 1}</span> "
                             f"{esc(f.message)}{esc(gb)}{esc(shared)}{esc(state)}")
                if source:
                    parts.append(f"<pre>{f.line:>5} | {esc(source.rstrip())}</pre>")
                for ev in f.evidence:
                    parts.append(f"<div class=meta>evidence: {esc(ev)}</div>")
                parts.append("</li>")
            parts.append("</ol></details>")
        parts.append("</section>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
