"""Rule documentation in ruff's shape: What it does / Why is this bad? / Example / Use instead."""

from __future__ import annotations

from compilelint.rules.base import Rule


def render_rule_doc(rule: type[Rule]) -> str:
    lines = [f"# {rule.code} {rule.name}", "",
             f"Family: {rule.family}. Affects: {', '.join(rule.targets)}. Default severity: {rule.severity}."]
    if rule.gb_id:
        lines.append(f"Dynamo graph-break id: {rule.gb_id}.")
    lines.append(f"Verified on torch {rule.verified_on}." + (f" {rule.version_note}" if rule.version_note else ""))
    if rule.has_fix:
        lines.append("Fix available (`--fix`).")
    doc = rule.doc
    if doc is not None:
        lines += ["", "## What it does", doc.what, "", "## Why is this bad?", doc.why, "", "## Example",
                  "```python", doc.example.strip("\n"), "```", "", "## Use instead", "```python",
                  doc.use_instead.strip("\n"), "```"]
    else:
        lines += ["", rule.message]
    return "\n".join(lines) + "\n"
