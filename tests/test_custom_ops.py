"""The custom-op family (CO8xx) beyond each rule's own examples: facts that cross files (an op defined in one file,
its fake registered in another, called from a third), what compilelint/semantic/custom_ops.py reads from a file,
and that the body of a `torch.library.custom_op` is compiled code for no compile path."""
from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from compilelint.config import Config
from compilelint.engine import lint
from compilelint.semantic.custom_ops import file_custom_ops, mutated_schema_args

OPS = '''
import torch


@torch.library.custom_op("det::nms", mutates_args=())
def nms(boxes: torch.Tensor, scores: torch.Tensor, iou: float) -> torch.Tensor:
    order = scores.argsort(descending=True)
    keep = torch.nonzero(scores[order] > iou).squeeze(1)
    return order[keep]
'''
MODEL = '''
import torch
from pkg.ops import nms


class Head(torch.nn.Module):
    def forward(self, boxes, scores):
        keep = nms(boxes, scores, 0.5)
        return boxes[keep]
'''


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return tmp_path


def _findings(root: Path, select: list[str]) -> list[tuple[str, str, int, str]]:
    result = lint([str(root)], Config(select=select, root=str(root)), jobs=1)
    return [(f.code, Path(f.path).relative_to(root).as_posix(), f.line, f.message) for f in result.findings]


def test_op_without_fake_in_another_file_is_reported_at_the_call(tmp_path):
    root = _tree(tmp_path, {"pkg/__init__.py": "", "pkg/ops.py": OPS, "pkg/model.py": MODEL})
    found = _findings(root, ["CO801"])
    assert [(c, p, line) for c, p, line, _ in found] == [("CO801", "pkg/model.py", 8)]


def test_fake_registered_in_a_third_file_settles_it(tmp_path):
    fakes = {
        "by the op object": "from pkg.ops import nms\n\n@nms.register_fake\ndef _(boxes, scores, iou):\n"
                            "    return boxes.new_empty(0, dtype=torch.long)\n",
        "by name": "import torch\n\n@torch.library.register_fake(\"det::nms\")\ndef _(boxes, scores, iou):\n"
                   "    return boxes.new_empty(0, dtype=torch.long)\n",
        "by a call": "import torch\nfrom pkg import ops\n\ndef _fake(boxes, scores, iou):\n"
                     "    return boxes.new_empty(0, dtype=torch.long)\n\nops.nms.register_fake(_fake)\n",
    }
    for how, text in fakes.items():
        root = _tree(tmp_path / how.replace(" ", "_"), {"pkg/__init__.py": "", "pkg/ops.py": OPS,
                                                      "pkg/model.py": MODEL, "pkg/fakes.py": "import torch\n" + text})
        assert _findings(root, ["CO801"]) == [], how


def test_op_re_exported_by_a_package_init(tmp_path):
    model = MODEL.replace("from pkg.ops import nms", "from pkg import nms")
    root = _tree(tmp_path, {"pkg/__init__.py": "from .ops import nms\n", "pkg/ops.py": OPS, "pkg/model.py": model})
    assert [(c, p, line) for c, p, line, _ in _findings(root, ["CO801"])] == [("CO801", "pkg/model.py", 8)]


def test_defined_op_called_through_torch_ops_and_its_meta_kernel_elsewhere(tmp_path):
    ops = '''
    import torch

    torch.library.define("vox::count", "(Tensor coords) -> Tensor")


    @torch.library.impl("vox::count", "cpu")
    def _count(coords):
        return torch.unique(coords, dim=0, return_counts=True)[1]
    '''
    model = '''
    import torch
    import pkg.ops


    class Voxels(torch.nn.Module):
        def forward(self, coords):
            return torch.ops.vox.count(coords).float().mean()
    '''
    root = _tree(tmp_path / "a", {"pkg/__init__.py": "", "pkg/ops.py": ops, "pkg/model.py": model})
    result = lint([str(root)], Config(select=["CO801"], root=str(root)), jobs=1)
    assert [(f.line, f.gb_id) for f in result.findings] == [(8, "GB0090")]
    meta = "import torch\n\n@torch.library.impl(\"vox::count\", \"Meta\")\ndef _count_meta(coords):\n" \
           "    return coords.new_empty(coords.shape[0], dtype=torch.long)\n"
    root = _tree(tmp_path / "b", {"pkg/__init__.py": "", "pkg/ops.py": ops, "pkg/model.py": model, "pkg/meta.py": meta})
    assert _findings(root, ["CO801"]) == []


def test_ops_defined_outside_the_tree_are_not_judged(tmp_path):
    model = '''
    import torch
    import torchvision  # registers torchvision::nms, with its fake


    class Head(torch.nn.Module):
        def forward(self, boxes, scores):
            keep = torch.ops.ext.fused_nms(boxes, scores, 0.5)
            return boxes[torch.ops.torchvision.nms(boxes, scores, 0.5)], keep
    '''
    assert _findings(_tree(tmp_path, {"model.py": model}), ["CO801"]) == []


def test_custom_op_body_is_compiled_by_no_compile_path(tmp_path):
    """Dynamo, export and jit.trace record one call of a custom op and TorchScript calls it through the dispatcher:
    a data-dependent `nonzero` in its body breaks no graph (GB404 is for traced code)."""
    plain = OPS.replace('@torch.library.custom_op("det::nms", mutates_args=())\n', "")
    model = MODEL.replace("from pkg.ops import nms", "from pkg.ops import nms")
    opaque = _tree(tmp_path / "op", {"pkg/__init__.py": "", "pkg/ops.py": OPS, "pkg/model.py": model})
    traced = _tree(tmp_path / "plain", {"pkg/__init__.py": "", "pkg/ops.py": plain, "pkg/model.py": model})
    assert [c for c, p, _, _ in _findings(opaque, ["GB404"]) if p == "pkg/ops.py"] == []
    assert [c for c, p, _, _ in _findings(traced, ["GB404"]) if p == "pkg/ops.py"] == ["GB404"]


def _facts(text: str, module: str = "m"):
    source = textwrap.dedent(text).encode()
    aliases = {"torch": "torch", "custom_op": "torch.library.custom_op", "Library": "torch.library.Library"}
    return file_custom_ops(source, ast.parse(source), aliases, module)


def test_facts_of_each_way_to_define_an_op_and_give_it_a_fake():
    facts = _facts('''
    import torch
    from torch.library import Library, custom_op

    @custom_op("a::deco", mutates_args=("out",))
    def deco(out: torch.Tensor, x: torch.Tensor) -> None: ...

    def _impl(x): ...
    wrapped = torch.library.custom_op("a::wrapped", mutates_args="unknown")(_impl)
    torch.library.define("a::defined", "(Tensor(a!) out, Tensor x, *, float s=1.0) -> ()")

    @torch.library.impl("a::defined", "CPU")
    def _defined_cpu(out, x, s=1.0): ...

    lib = Library("b", "DEF")
    lib.define("libop(Tensor x) -> Tensor")
    lib.impl("libop", _impl, "Meta")

    @deco.register_fake
    def _(out, x): ...
    ''')
    by_name = {d.name: d for d in facts.definitions}
    assert sorted(by_name) == ["a::deco", "a::defined", "a::wrapped", "b::libop"]
    assert by_name["a::deco"].mutates == ("out",) and by_name["a::deco"].python == "m.deco"
    assert by_name["a::wrapped"].mutates is None and by_name["a::wrapped"].function == "_impl"
    assert facts.impl_functions == {"_defined_cpu": "a::defined"}
    assert facts.definition_of_function("_defined_cpu").schema.startswith("(Tensor(a!) out")
    assert facts.faked == {"b::libop"} and facts.faked_refs == {"m.deco"}
    assert [d.name for d in facts.definitions if facts.has_local_fake(d)] == ["a::deco", "b::libop"]


def test_files_that_mention_no_torch_library_cost_a_byte_search():
    assert not _facts("import torch\n\ndef f(x):\n    return x.nonzero()\n")


def test_schema_arguments_and_the_ones_declared_mutated():
    assert mutated_schema_args("(Tensor(a!) out, Tensor x, *, float s=1.0) -> ()") == (["out", "x", "s"], {"out"})
    assert mutated_schema_args("nms(Tensor boxes, Tensor(b!)[] bufs, int[2] size) -> Tensor") == \
        (["boxes", "bufs", "size"], {"bufs"})


def _lines(tmp_path: Path, text: str, code: str) -> list[int]:
    root = _tree(tmp_path, {"ops.py": text})
    return [line for c, _, line, _ in _findings(root, [code]) if c == code]


def test_undeclared_write_in_a_kernel_registered_by_a_library_call(tmp_path):
    text = '''
    import torch
    from torch.library import Library

    lib = Library("vox", "DEF")
    lib.define("scatter_add(Tensor grid, Tensor idx, Tensor src) -> ()")


    def _scatter_add(grid, idx, src):
        grid.index_add_(0, idx, src)


    lib.impl("scatter_add", _scatter_add, "CPU")
    '''
    assert _lines(tmp_path / "a", text, "CO803") == [10]
    declared = text.replace("scatter_add(Tensor grid", "scatter_add(Tensor(a!) grid")
    assert _lines(tmp_path / "b", declared, "CO803") == []


def test_writes_co803_does_not_claim(tmp_path):
    """`mutates_args="unknown"` declares every argument; a module-level tensor named like an argument is no
    argument; a write into a fresh tensor of the op's own is none."""
    text = '''
    import torch


    @torch.library.custom_op("a::anything", mutates_args="unknown")
    def anything(out: torch.Tensor, x: torch.Tensor) -> None:
        out.copy_(x)


    @torch.library.custom_op("a::fresh", mutates_args=())
    def fresh(out: torch.Tensor, scale: float) -> torch.Tensor:
        buf = torch.zeros_like(out)
        buf.add_(out)
        scale += 1.0
        return buf * scale


    out = torch.zeros(3)
    out.add_(1)
    '''
    assert _lines(tmp_path, text, "CO803") == []


def test_fake_registered_by_a_call_and_fixed_shapes_where_the_op_has_them(tmp_path):
    text = '''
    import torch


    @torch.library.custom_op("a::kept", mutates_args=())
    def kept(x: torch.Tensor) -> torch.Tensor:
        return x[x > 0]


    @torch.library.custom_op("a::scaled", mutates_args=())
    def scaled(x: torch.Tensor) -> torch.Tensor:
        return x * 2


    def _kept_fake(x):
        return torch.empty_like(x)


    def _scaled_fake(x):
        return torch.empty_like(x)


    torch.library.register_fake("a::kept", _kept_fake)
    scaled.register_fake(_scaled_fake)
    '''
    assert _lines(tmp_path, text, "CO802") == [16]


def test_custom_nms_fixture_fails_at_the_op_and_its_fixed_twin_compiles_and_exports():
    """fixtures/models/custom_nms.py: the op without a fake fails torch.compile(fullgraph=True) and torch.export at
    the line CO801 reports; the same kernel with its fake compiles whole, exports, and returns what eager does."""
    import pytest

    torch = pytest.importorskip("torch")
    from fixtures.models import custom_nms
    from tests.harness import _custom_op_runs

    path = Path(custom_nms.__file__)
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "keep = nms_without_fake(" in text)
    assert [f.line for f in lint([str(path)], Config(select=["CO801"], root=str(path.parent)), jobs=1).findings] == [line]
    unfixed, inputs = custom_nms.make_unfixed()
    runs = _custom_op_runs(unfixed, inputs, path, "eager")
    assert "RuntimeError when making fake tensor call" in runs["dynamo"][0] and line in runs["dynamo"][1]
    assert "no fake impl registered" in runs["export"][0] and line in runs["export"][1]
    fixed, inputs = custom_nms.make_fixed()
    runs = _custom_op_runs(fixed, inputs, path, "eager")
    assert runs == {"dynamo": (None, set(), True), "export": (None, set(), True)}
    with torch.no_grad():
        counts = [fixed(*args)[1] for args in inputs]
    assert len({tuple(c.tolist()) for c in counts}) == len(inputs) and all((c > 0).all() for c in counts)


FUNCTION = '''
import torch


class Quantize(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        scale = x.abs().max().item() / 127
        return (x / scale).round() * scale

    @staticmethod
    def backward(ctx, grad):
        return grad
'''


def test_autograd_function_applied_from_compiled_code_in_another_file(tmp_path):
    applied = '''
    import torch
    from pkg.quant import Quantize


    class Head(torch.nn.Module):
        def forward(self, x):
            return Quantize.apply(x) + 1
    '''
    eager_only = '''
    from pkg.quant import Quantize


    def calibrate(x):
        return Quantize.apply(x)
    '''
    root = _tree(tmp_path / "a", {"pkg/__init__.py": "", "pkg/quant.py": FUNCTION, "pkg/model.py": applied})
    found = _findings(root, ["CO805"])
    assert [(c, p, line) for c, p, line, _ in found] == [("CO805", "pkg/quant.py", 8)]
    (finding,) = lint([str(root)], Config(select=["CO805"], root=str(root)), jobs=1).findings
    assert (finding.gb_id, finding.context) == ("GB0124", "Quantize.forward")
    root = _tree(tmp_path / "b", {"pkg/__init__.py": "", "pkg/quant.py": FUNCTION, "pkg/tools.py": eager_only})
    assert _findings(root, ["CO805"]) == []


def test_compiled_extension_modules_of_a_package(tmp_path):
    """A package's `_C` / `_ext` module is a compiled extension; torch's own `torch._C` is not one of them, and the
    body of a custom op that wraps the call is compiled by nothing."""
    text = '''
    import torch
    from detectron2 import _C
    from mmcv._ext import voxelize_forward


    @torch.library.custom_op("d2::nms_rotated", mutates_args=())
    def nms_rotated(boxes: torch.Tensor, scores: torch.Tensor, iou: float) -> torch.Tensor:
        return _C.nms_rotated(boxes, scores, iou)


    class Head(torch.nn.Module):
        def forward(self, boxes, scores, points):
            keep = _C.nms_rotated(boxes, scores, 0.5)
            voxels = voxelize_forward(points)
            wrapped = nms_rotated(boxes, scores, 0.5)
            return torch._C._nn.gelu(boxes[keep]), voxels, wrapped
    '''
    assert _lines(tmp_path, text, "CO804") == [14, 15]


def test_call_in_a_helper_of_another_file_keeps_its_message_through_the_second_pass(tmp_path):
    """The call sits in a helper that only another file's forward reaches: its position is computed in the engine's
    second pass, and the finding is settled again there, to the same message."""
    helper = '''
    from pkg.ops import nms


    def postprocess(boxes, scores):
        return nms(boxes, scores, 0.5)
    '''
    model = '''
    import torch
    from pkg.helpers import postprocess


    class Head(torch.nn.Module):
        def forward(self, boxes, scores):
            return boxes[postprocess(boxes, scores)]
    '''
    root = _tree(tmp_path, {"pkg/__init__.py": "", "pkg/ops.py": OPS, "pkg/helpers.py": helper, "pkg/model.py": model})
    found = _findings(root, ["CO801"])
    assert [(c, p, line) for c, p, line, _ in found] == [("CO801", "pkg/helpers.py", 6)]
    direct = _findings(_tree(tmp_path / "direct", {"pkg/__init__.py": "", "pkg/ops.py": OPS, "pkg/model.py": MODEL}),
                       ["CO801"])
    assert found[0][3] == direct[0][3]  # the settled message, as where the first pass places the call


def test_data_for_settle_rides_beside_a_message_cut_to_fit(tmp_path):
    """A tree-settled call whose names are long enough that its message is cut to fit: what settle needs (the
    imported callee) travels in Finding.pending, so the cut cannot lose it. The settled finding holds no pending
    data, the JSON report never shows it, and the per-file result carries it through the cache's codec."""
    import json

    from compilelint.analyzer import analyze_source
    from compilelint.cache import result_from_json, result_to_json
    from compilelint.report.json import render_json
    from compilelint.rules.base import MAX_MESSAGE
    from compilelint.rules.registry import all_rules

    name = "suppress_overlapping_rotated_detection_boxes_by_score"
    ops = OPS.replace("def nms(", f"def {name}(")
    model = MODEL.replace("import nms", f"import {name}").replace("nms(boxes", f"{name}(boxes")
    long_module = "rotated_detection_postprocessing_kernels"
    model = model.replace("pkg.ops", f"pkg.{long_module}")
    root = _tree(tmp_path, {"pkg/__init__.py": "", f"pkg/{long_module}.py": ops, "pkg/model.py": model})
    result = lint([str(root)], Config(select=["CO801"], root=str(root)), jobs=1)
    assert [(f.code, f.line) for f in result.findings] == [("CO801", 8)]
    finding = result.findings[0]
    assert len(finding.message) <= MAX_MESSAGE and "det::nms" in finding.message and finding.pending == ""
    assert "pending" not in json.dumps(json.loads(render_json(result.findings, root=str(root))))

    path = root / "pkg" / "model.py"
    first_pass = analyze_source(str(path), path.read_bytes(), [all_rules()["CO801"]()])
    (found, _, _), = first_pass.findings
    pending = json.loads(found.pending)
    assert pending["callee"] == f"pkg.{long_module}.{name}" and pending["written"] == name
    assert "\0" not in found.message and len(found.message) <= MAX_MESSAGE
    assert result_from_json(result_to_json(first_pass)) == first_pass


def test_a_settled_finding_on_a_training_path_still_says_so(tmp_path):
    """The walk lowers a claim only a training step meets and says so; settle writes the message anew and the
    engine keeps the note."""
    training = MODEL.replace("        keep = nms(boxes, scores, 0.5)\n",
                             "        keep = boxes[:, 0].argsort()\n        if self.training:\n"
                             "            keep = nms(boxes, scores, 0.5)\n")
    root = _tree(tmp_path, {"pkg/__init__.py": "", "pkg/ops.py": OPS, "pkg/model.py": training})
    result = lint([str(root)], Config(select=["CO801"], root=str(root)), jobs=1)
    (finding,) = result.findings
    assert finding.line == 10 and finding.severity == "warning"  # an error, one level lower
    assert finding.message.endswith(" (training only)") and "calls custom op `det::nms`" in finding.message
