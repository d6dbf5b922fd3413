"""Data-dependent sizes that reach a Python decision, written the ways real detectors write them (kornia's
SOLD2 junctions: `torch.stack(torch.where(prob >= t), -1)`, then `if len(junctions) == 0`): EX702 names the
line, and real torch.export (strict=False) fails with GuardOnDataDependentSymNode on that line."""

from __future__ import annotations

import importlib.util
import textwrap

import pytest

torch = pytest.importorskip("torch")

from compilelint.config import Config  # noqa: E402
from compilelint.engine import lint  # noqa: E402

CASES = {
    "stacked_where": '''
        junctions = torch.stack(torch.where(prob >= 0.5), -1).float()
        if len(junctions) == 0:  # <-
            return prob
        return junctions
    ''',
    "element_of_where": '''
        rows = torch.where(prob >= 0.5)
        if rows[0].shape[0] == 0:  # <-
            return prob
        return prob[rows]
    ''',
    "nonzero_as_tuple_element": '''
        idx = prob.nonzero(as_tuple=True)
        if idx[1].numel() > 3:  # <-
            return prob
        return prob * 2
    ''',
}
# A tuple's own length is the rank: static, nothing to report.
CLEAN = '''
        rows = torch.where(prob >= 0.5)
        if len(rows) == 2:
            return prob * 2
        return prob
'''


def write(tmp_path, name, body):
    source = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, prob):\n" + textwrap.indent(
        textwrap.dedent(body).strip("\n"), " " * 8) + "\n"
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    marked = next(i for i, ln in enumerate(source.splitlines(), 1) if "# <-" in ln) if "# <-" in source else None
    return path, marked


def export_failure_line(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        torch.export.export(module.M(), (torch.rand(4, 4),), strict=False)
    except Exception as exc:  # noqa: BLE001
        text = str(exc)
        assert "GuardOnDataDependentSymNode" in type(exc).__name__ + text, text[:500]
        marker = f"{path.name}:"
        return int(text.split(marker, 1)[1].split()[0]) if marker in text else None
    return None


@pytest.mark.parametrize("name", sorted(CASES))
def test_ex702_names_the_line_export_fails_on(tmp_path, name):
    path, marked = write(tmp_path, name, CASES[name])
    findings = lint([str(path)], Config(root=str(tmp_path), select=["EX"]), jobs=1).findings
    assert ("EX702", marked) in {(f.code, f.line) for f in findings}
    assert export_failure_line(path) == marked


def test_the_length_of_the_tuple_itself_is_static(tmp_path):
    path, _ = write(tmp_path, "clean", CLEAN)
    findings = lint([str(path)], Config(root=str(tmp_path), select=["EX"]), jobs=1).findings
    assert not [f for f in findings if f.code == "EX702"]
    assert export_failure_line(path) is None


MASK_PRODUCT = '''import torch


class M(torch.nn.Module):
    def forward(self, feat, index_map):
        results = feat.mean(-1) > 0.1
        if feat.shape[1] > 2:
            inliers = feat.sum(-1) >= 0.5
            results = results * inliers
        return index_map[results]  # <-
'''


def test_a_product_of_masks_is_a_mask_and_indexing_with_it_breaks(tmp_path):
    """bool * bool is bool in torch, so the product still selects (kornia SOLD2's line detection)."""
    path = tmp_path / "mask_product.py"
    path.write_text(MASK_PRODUCT)
    findings = lint([str(path)], Config(root=str(tmp_path), select=["GB404"]), jobs=1).findings
    assert [f.line for f in findings] == [10]
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch._dynamo.reset()
    explained = torch._dynamo.explain(module.M())(torch.rand(5, 3), torch.arange(10).view(5, 2))
    assert [b.user_stack[-1].lineno for b in explained.break_reasons] == [10]
    assert "aten.nonzero" in str(explained.break_reasons[0].reason)
