"""SARIF 2.1.0 built with sarif-om, serialized the way Bandit does (sarif-om has no serializer):
walk the attrs objects, drop attributes left at their defaults and None, and rename each to its
schema property name. What GitHub code scanning needs is here: tool.driver.rules with markdown
help, artifact URIs relative to %SRCROOT% (the repository's top; absolute file: URIs for files outside it),
regions, partialFingerprints that survive line moves and do not depend on the working directory (GitHub's own
primaryLocationLineHash, and compilelint's hash of rule, file, function and line text), a helpUri per rule
(torch's graph-break page for a rule with a Dynamo GB id),
an automationDetails id so static and probe uploads do not replace each other, and a result cap
below GitHub's 25,000 results per run. One construct that several rules report for different targets is one
result (compilelint/report/merge.py): its rule's id, fingerprints and location, `properties.targets` with every
target, `properties.codes` with every code, and `properties.also` with each other rule's id, targets, level and
message; the fixes of all of them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import quote

import attr
import sarif_om as om

from compilelint import __version__
from compilelint.findings import Finding
from compilelint.paths import root_relative, stable_fingerprint
from compilelint.report.line_hash import file_line_hashes
from compilelint.report.merge import one_per_construct, parts
from compilelint.rules.base import RuleMeta
from compilelint.rules.registry import ENGINE_DESCRIPTIONS, all_rules

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/compilelint/compilelint"
# torch's page for each id of its graph-break registry: the link torch itself prints with a graph break
# (torch/_dynamo/exc.py get_gbid_documentation_link: ".../gb/gb" + the id without "GB" + ".html")
GRAPH_BREAK_SITE = "https://meta-pytorch.github.io/compile-graph-break-site/gb/"
MAX_RESULTS = 20000  # GitHub rejects runs over 25,000 results
_LEVEL = {"error": "error", "warning": "warning", "note": "note"}
_SECURITY_SEVERITY = {"error": "7.0", "warning": "4.0", "note": "1.0"}
_ENGINE_RULES = ENGINE_DESCRIPTIONS


def _to_json(obj):  # noqa: ANN001, ANN202
    if attr.has(type(obj)):
        out = {}
        for a in attr.fields(type(obj)):
            value = getattr(obj, a.name)
            default = a.default.factory() if isinstance(a.default, attr.Factory) else a.default
            if value is None or (value == default and a.name not in ("version", "level")):
                continue
            out[a.metadata.get("schema_property_name", a.name)] = _to_json(value)
        return out
    if isinstance(obj, dict):
        return {k: _to_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_to_json(v) for v in obj]
    return obj


def help_uri(code: str, gb_id: str | None) -> str:
    """torch's own page for a rule's Dynamo graph-break id where it has one, else the rule's page here."""
    if gb_id and gb_id.upper().startswith("GB") and gb_id[2:].isdigit():
        return f"{GRAPH_BREAK_SITE}gb{gb_id[2:]}.html"
    return f"{INFORMATION_URI}/blob/main/docs/rules/{code}.md"


def _rule_descriptor(meta: RuleMeta) -> om.ReportingDescriptor:
    doc = meta.doc
    if doc is not None:
        markdown = (f"## {meta.code} {meta.name}\n\n**What it does**: {doc.what}\n\n**Why is this bad?** {doc.why}\n\n"
                    f"**Example**\n\n```python\n{doc.example.strip()}\n```\n\n**Use instead**\n\n"
                    f"```python\n{doc.use_instead.strip()}\n```\n")
        text = f"{doc.what} {doc.why}"
    else:
        markdown = text = meta.message
    tags = list(dict.fromkeys([meta.family, *meta.targets]))
    props = {"tags": tags, "precision": meta.precision,
             "problem.severity": {"note": "recommendation"}.get(meta.severity, meta.severity),
             "targets": list(meta.targets), "verifiedOnTorch": meta.verified_on}
    if meta.gb_id:
        props["gbId"] = meta.gb_id
    if meta.version_note:
        props["torchVersionNote"] = meta.version_note
    return om.ReportingDescriptor(
        id=meta.code, name=meta.name,
        short_description=om.MultiformatMessageString(text=short_description(meta)),
        full_description=om.MultiformatMessageString(text=text[:4000]),
        help=om.MultiformatMessageString(text=text, markdown=markdown),
        help_uri=help_uri(meta.code, meta.gb_id),
        default_configuration=om.ReportingConfiguration(level=_LEVEL.get(meta.severity, "warning")),
        properties=props,
    )


def short_description(meta) -> str:  # noqa: ANN001
    """The rule's message where it names no value of the finding, else its name as words: a message template
    (`self.{attr}` is ...) would show its placeholders in the code-scanning rule list."""
    if meta.message and "{" not in meta.message:
        return meta.message[:1000]
    words = meta.name.replace("-", " ")
    return words[:1].upper() + words[1:]


def _engine_descriptor(code: str) -> om.ReportingDescriptor:
    name, text = _ENGINE_RULES[code]
    return om.ReportingDescriptor(id=code, name=name, short_description=om.MultiformatMessageString(text=text),
                                  full_description=om.MultiformatMessageString(text=text),
                                  help=om.MultiformatMessageString(text=text, markdown=text),
                                  default_configuration=om.ReportingConfiguration(level="error"),
                                  properties={"tags": ["engine"], "precision": "very-high", "problem.severity": "error"})


def _runtime_rules() -> dict[str, tuple[str, str]]:
    from compilelint.runtime_probe.codes import RUNTIME_CODES  # plain data: no torch

    return RUNTIME_CODES


def _runtime_descriptor(code: str) -> om.ReportingDescriptor:
    from compilelint.runtime_probe.codes import SEVERITY

    name, text = _runtime_rules()[code]
    level = SEVERITY.get(code, "warning")
    return om.ReportingDescriptor(id=code, name=name, short_description=om.MultiformatMessageString(text=text),
                                  full_description=om.MultiformatMessageString(text=text),
                                  help=om.MultiformatMessageString(text=text, markdown=text),
                                  default_configuration=om.ReportingConfiguration(level=level),
                                  properties={"tags": ["runtime-probe"], "precision": "very-high",
                                              "problem.severity": level})


def _artifact(path: str, root: str) -> om.ArtifactLocation:
    """The file's real path under %SRCROOT% (percent-encoded, as a URI must be); a file outside the root gets
    an absolute file: URI, never a "../" one that code scanning would resolve outside the repository."""
    rel = root_relative(path, root)
    if rel is None:
        return om.ArtifactLocation(uri=Path(os.path.realpath(path)).as_uri())
    return om.ArtifactLocation(uri=quote(rel, safe="/", errors="surrogateescape"), uri_base_id="%SRCROOT%")


def _fingerprints(f: Finding, root: str, hashes: dict[str, list[str] | None]) -> dict[str, str]:
    out = {"compilelint/v1": stable_fingerprint(f, root)}
    if f.path not in hashes:
        hashes[f.path] = file_line_hashes(f.path)
    lines = hashes[f.path]
    if lines and 1 <= f.line <= len(lines):
        out["primaryLocationLineHash"] = lines[f.line - 1]
    return out


def render_sarif(findings: list[Finding], *, root: str = ".", rule_codes: list[str] | None = None,
                 category: str = "compilelint/static", uri_root: str | None = None, **_: object) -> str:
    """`root`: what compilelint's own fingerprints are relative to (the project root, as for baselines);
    `uri_root`: what artifact URIs are relative to (the repository's top, which code scanning resolves them
    against; default: `root`)."""
    uri_root = uri_root or root
    findings = one_per_construct(findings)
    rules = all_rules()
    codes = sorted(set(rule_codes or []) | {f.code for f in findings})
    descriptors, index_of = [], {}
    for code in codes:
        if code in rules:
            descriptors.append(_rule_descriptor(RuleMeta.of(rules[code])))
        elif code in _ENGINE_RULES:
            descriptors.append(_engine_descriptor(code))
        elif code in _runtime_rules():
            descriptors.append(_runtime_descriptor(code))
        else:
            descriptors.append(om.ReportingDescriptor(id=code, short_description=om.MultiformatMessageString(text=code)))
        index_of[code] = len(descriptors) - 1

    shown = findings[:MAX_RESULTS]
    results = []
    hashes: dict[str, list[str] | None] = {}
    for f in shown:
        region = om.Region(start_line=f.line, start_column=f.col + 1, end_line=max(f.end_line, f.line),
                           end_column=(f.end_col + 1) if (f.end_line, f.end_col) > (f.line, f.col) else f.col + 2)
        props = {"targets": list(f.targets), "probeState": f.probe_state, "context": f.context}
        if f.gb_id:
            props["gbId"] = f.gb_id
        if f.evidence:
            props["evidence"] = list(f.evidence)
        if f.also:
            props["codes"] = list(f.codes)
            props["also"] = [{"ruleId": p.code, "targets": list(p.targets), "level": _LEVEL.get(p.severity, "warning"),
                              "message": p.message, **({"gbId": p.gb_id} if p.gb_id else {})} for p in f.also]
        result = om.Result(
            rule_id=f.code, rule_index=index_of[f.code], level=_LEVEL.get(f.severity, "warning"),
            message=om.Message(text=f.message),
            locations=[om.Location(physical_location=om.PhysicalLocation(
                artifact_location=_artifact(f.path, uri_root), region=region))],
            partial_fingerprints=_fingerprints(f, root, hashes),
            properties=props,
        )
        # where the same finding shows elsewhere in the function, and the entry point and calls that make its code
        # compiled (SARIF 3.27.22)
        places = [*f.related, *(r for r in f.reached_from if r.line > 0)]
        if places:
            result.related_locations = [om.Location(
                id=i, message=om.Message(text=r.message), physical_location=om.PhysicalLocation(
                    artifact_location=_artifact(r.path or f.path, root),
                    region=om.Region(start_line=r.line, start_column=r.col + 1))) for i, r in enumerate(places)]
        fixes = list({(x.start_line, x.start_col, x.end_line, x.end_col, x.text): x
                      for x in (p.fix for p in parts(f)) if x is not None}.values())
        if fixes:
            result.fixes = [om.Fix(description=om.Message(text=fix.description), artifact_changes=[om.ArtifactChange(
                artifact_location=_artifact(f.path, uri_root),
                replacements=[om.Replacement(deleted_region=om.Region(
                    start_line=fix.start_line, start_column=fix.start_col + 1, end_line=fix.end_line,
                    end_column=fix.end_col + 1), inserted_content=om.ArtifactContent(text=fix.text))])]) for fix in fixes]
        results.append(result)

    notifications = []
    if len(findings) > MAX_RESULTS:
        notifications.append(om.Notification(
            level="warning", message=om.Message(
                text=f"{len(findings)} results; only the first {MAX_RESULTS} are included (GitHub accepts at most "
                     f"25,000 per run). Run with --select to narrow the report.")))
    run = om.Run(
        tool=om.Tool(driver=om.ToolComponent(name="compilelint", version=__version__, semantic_version=__version__,
                                             information_uri=INFORMATION_URI, rules=descriptors)),
        automation_details=om.RunAutomationDetails(id=f"{category}/"),
        results=results,
        invocations=[om.Invocation(execution_successful=True, tool_execution_notifications=notifications or None)],
        column_kind="unicodeCodePoints",
    )
    log = om.SarifLog(version="2.1.0", schema_uri=SCHEMA_URI, runs=[run])
    return json.dumps(_to_json(log), indent=2, sort_keys=False) + "\n"
