"""Which compile paths a run checks: the `targets` setting, and for "auto", what the linted tree uses.

"auto" (the default) always checks dynamo, recompile and export, and adds TorchScript and trace only where the
tree shows it uses them: a call of `torch.jit.script` / `torch.jit.trace` (or `trace_module`), or a
`@torch.jit.*` decorator (script, export, ignore, unused, script_method, ...). It is decided from the per-file
summaries after indexing, so no file is read twice and nothing is imported. A TorchScript or trace rule named
in `select` (`--select TS103`, `--select TR`; not "ALL") turns its target on too: asking for a rule runs it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from compilelint.analysis.index import FileSummary
from compilelint.config import ALL, AUTO, AUTO_ALWAYS, AUTO_IF_USED
from compilelint.findings import TARGETS

# The order the report names them in: today's compile paths first.
DISPLAY_ORDER = ("dynamo", "recompile", "export", "torchscript", "trace")
_USE_CALLS = {"torch.jit.script": "torchscript", "torch.jit.trace": "trace", "torch.jit.trace_module": "trace"}
_FAMILY_TARGET = {"torchscript": "torchscript", "annotations": "torchscript", "trace": "trace"}
_JIT_DECORATOR_PREFIXES = ("torch.jit.", "torch._jit_internal.")


@dataclass(frozen=True)
class TargetChoice:
    enabled: tuple[str, ...]  # in TARGETS order
    note: str  # the report's first line: which targets are on and why


def tree_usage(summaries: list[FileSummary]) -> dict[str, tuple[str, str]]:
    """{"torchscript"|"trace": (first file, what it uses)}: where the tree uses each of them."""
    found: dict[str, tuple[str, str]] = {}

    def seen(target: str, path: str, what: str) -> None:
        if target not in found:
            found[target] = (path, what)

    for summary in sorted(summaries, key=lambda s: s.path):
        for kind, _ in summary.compile_targets:
            if kind in AUTO_IF_USED:
                seen(kind, summary.path, "torch.jit.script" if kind == "torchscript" else "torch.jit.trace")
        functions = [*summary.functions.values(), *(m for c in summary.classes.values() for m in c.methods.values())]
        for fn in functions:
            for decorator in fn.decorators:
                if decorator.startswith(_JIT_DECORATOR_PREFIXES):
                    seen("torchscript", summary.path, f"@{decorator}")
            for kind, name in (*fn.calls, *fn.unscripted_calls, *fn.untraced_calls):
                if kind == "name" and name in _USE_CALLS:
                    seen(_USE_CALLS[name], summary.path, name)
        if len(found) == len(AUTO_IF_USED):
            break
    return found


def _shown(path: str) -> str:
    rel = os.path.relpath(path) if os.path.isabs(path) else path
    return path if rel.startswith(os.pardir) else rel


def _names(targets) -> str:  # noqa: ANN001
    return ", ".join(t for t in DISPLAY_ORDER if t in targets)


def selected_targets(selectors: list[str]) -> dict[str, str]:
    """{target: selector} for TorchScript and trace rules named by selectors other than "ALL"."""
    from compilelint.rules.registry import all_rules, select_codes

    rules = all_rules()
    found: dict[str, str] = {}
    for selector in selectors:
        if selector.strip().upper() == "ALL":
            continue
        for code in sorted(select_codes(list(rules), [selector])):
            target = _FAMILY_TARGET.get(rules[code].family)
            if target is not None:
                found.setdefault(target, selector.strip())
    return found


def choose(requested: list[str], summaries: list[FileSummary], source: str = "",
           selectors: list[str] = ()) -> TargetChoice:  # type: ignore[assignment]
    """The targets a run checks. `requested`: the setting (names, "auto", "all"); `source`: where it was set;
    `selectors`: select and extend-select, whose TorchScript and trace rules "auto" turns on."""
    if ALL in requested:
        return TargetChoice(TARGETS, f"targets: all ({_names(TARGETS)})")
    explicit = [t for t in TARGETS if t in requested]
    if AUTO not in requested:
        where = f" (from {source})" if source and source != "default" else ""
        return TargetChoice(tuple(explicit), f"targets: {_names(explicit)}{where}")
    usage = tree_usage(summaries)
    asked = {t: s for t, s in selected_targets(list(selectors)).items() if t not in usage}
    on = set(AUTO_ALWAYS) | set(explicit) | set(usage) | set(asked)
    reasons = [f"{target}: {what} in {_shown(path)}" for target, (path, what) in sorted(usage.items())
               if target not in explicit]
    reasons += [f"{target}: {selector} selected" for target, selector in sorted(asked.items())
                if target not in explicit]
    unused = [t for t in AUTO_IF_USED if t not in on]
    if unused:
        reasons.append(f"{', '.join(unused)}: not used in this tree; --targets all to add "
                       f"{'them' if len(unused) > 1 else 'it'}")
    enabled = tuple(t for t in TARGETS if t in on)
    return TargetChoice(enabled, f"targets: {_names(enabled)}" + (f" ({'; '.join(reasons)})" if reasons else ""))
