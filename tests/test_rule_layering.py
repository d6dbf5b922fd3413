"""The layering issue #23 asks for: a rule's logic in its own file, the semantic model and the torch tables keyed
by no rule, and no rule importing another."""
from __future__ import annotations

import ast
from pathlib import Path

from compilelint.rules.graph_breaks._common import BreakRule
from compilelint.rules.registry import all_rules
from compilelint.semantic import breaks

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "compilelint"


def test_every_graph_break_detector_is_registered_once_in_file_order():
    rules = all_rules()
    break_rules = [rule for code, rule in rules.items() if issubclass(rule, BreakRule)]
    assert len(break_rules) > 40
    registered = [d.detect for d in breaks.detectors()]
    # each rule's own detect, in the order of the rule files (GB401, GB402, ...): GB410 takes the first that fires
    assert registered == [rule.detect for rule in sorted(break_rules, key=lambda r: r.__module__)]
    # the detector is the rule's own, written in its file (not a table of detectors somewhere else)
    assert all(rule.detect is not BreakRule.detect and rule.detect.__module__ == rule.__module__
               for rule in break_rules)
    assert len(set(map(id, registered))) == len(registered)
    data_reads = {rule.code for rule in break_rules if rule.reads_tensor_data}
    assert data_reads == {"GB401", "GB402", "GB403", "GB422"}


def _string_constants(path: Path) -> set[str]:
    return {n.value for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Constant)
            and isinstance(n.value, str)}


def test_the_semantic_model_and_torch_tables_name_no_rule():
    """Nothing outside a rule's file is keyed by its code or name: no string in the model or the tables is one."""
    rules = all_rules()
    names = {code for code in rules} | {rule.name for rule in rules.values()}
    files = [*sorted((PACKAGE / "semantic").glob("*.py")), *sorted((PACKAGE / "torchapi").glob("*.py")),
             PACKAGE / "analyzer.py"]
    offenders = {f"{path.relative_to(ROOT)}: {sorted(_string_constants(path) & names)}" for path in files
                 if _string_constants(path) & names}
    assert not offenders, offenders


def _rule_modules() -> set[str]:
    return {rule.__module__ for rule in all_rules().values()}


# Rules that import another rule's module (issue #23 asks for none).
_STILL_IMPORTING: set[str] = set()  # none left: shared logic lives in compilelint/semantic


def test_no_rule_imports_another_rule():
    rule_modules = _rule_modules()
    offenders = []
    for module in sorted(rule_modules):
        path = ROOT / (module.replace(".", "/") + ".py")
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported = {node.module} | {f"{node.module}.{a.name}" for a in node.names}
            elif isinstance(node, ast.Import):
                imported = {a.name for a in node.names}
            else:
                continue
            offenders += [f"{module} imports {name}" for name in sorted(imported & rule_modules) if name != module]
    assert set(offenders) <= _STILL_IMPORTING, sorted(set(offenders) - _STILL_IMPORTING)
    assert not [o for o in offenders if ".graph_breaks." in o or ".recompiles." in o], offenders
