"""GB family beyond the per-rule examples: module-level Dynamo config, escalation, fixes, precision.

The config claims are checked on real torch in a fresh process (the config is global state)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from compilelint.config import Config
from compilelint.engine import lint


def findings(tmp_path: Path, code: str, select: str = "GB", name: str = "m.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(code))
    result = lint([str(path)], Config(select=[select], root=str(tmp_path)), jobs=1)
    return sorted(result.findings, key=lambda f: (f.line, f.code))


def codes(tmp_path: Path, code: str, select: str = "GB") -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in findings(tmp_path, code, select)]


# -- configuration that changes the verdict ---------------------------------------------------------

CONFIG_CASES = {
    # name: (module code, rule that must be silent)
    "scalar": ('''
        import torch
        torch._dynamo.config.capture_scalar_outputs = True
        class M(torch.nn.Module):
            def forward(self, x):
                s = x.abs().max().item()
                n = float(x.sum())
                return x * s * n
        ''', ("GB401", "GB422")),
    "dynamic": ('''
        import torch
        from torch._dynamo import config as dynamo_config
        dynamo_config.capture_dynamic_output_shape_ops = True
        class M(torch.nn.Module):
            def forward(self, x):
                idx = torch.nonzero(x)
                kept = x[x > 0]
                return idx.sum() + kept.sum() + torch.unique(x.round()).sum()
        ''', ("GB404",)),
    "print": ('''
        import torch, warnings
        torch._dynamo.config.reorderable_logging_functions.update({print, warnings.warn})
        class M(torch.nn.Module):
            def forward(self, x):
                y = x + 1
                print("hello")
                warnings.warn("careful")
                return y * 2
        ''', ("GB405", "GB408")),
    "logging": ('''
        import torch, logging
        torch._dynamo.config.reorderable_logging_functions.add(logging.info)
        class M(torch.nn.Module):
            def forward(self, x):
                y = x + 1
                logging.info("hello %s", 1)
                return y * 2
        ''', ("GB431",)),
}


@pytest.mark.parametrize("case", sorted(CONFIG_CASES))
def test_module_level_config_silences_the_affected_rules(tmp_path, case):
    code, silenced = CONFIG_CASES[case]
    found = {c for _, c in codes(tmp_path, code)}
    assert not found & set(silenced), found
    # Without the config line the same rules fire.
    stripped = "\n".join(ln for ln in textwrap.dedent(code).splitlines() if "config" not in ln)
    found = {c for _, c in codes(tmp_path, stripped)}
    assert set(silenced) <= found, found


_RUNNER = '''
import importlib.util, json, sys, warnings
warnings.simplefilter("ignore")
from compilelint.runtime_probe import observe
import torch
out = {}
for name, path in json.loads(sys.argv[1]).items():
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    report = observe.run_dynamo(mod.M(), [(torch.randn(4, 3),)])
    out[name] = [report.skipped_frames, [b.gb_ids for b in report.breaks], report.error]
print("RESULT" + json.dumps(out))
'''


GUARDED = '''
    import logging
    import torch
    logger = logging.getLogger(__name__)
    class M(torch.nn.Module):
        def forward(self, x):
            if not torch.compiler.is_compiling():
                print("eager only", x.sum().item())
                logger.info("eager only")
            y = x * 2 if torch.compiler.is_compiling() else x.tolist()
            return y + 1
    '''


def test_code_dynamo_never_traces_is_not_flagged(tmp_path):
    assert codes(tmp_path, GUARDED) == []


def test_config_claims_hold_on_real_torch(tmp_path):
    """Each config really removes its break, and the same module without it breaks.

    One fresh process (the config is process-global): first every module WITHOUT its config line (all
    must break), then every module with it (none may break). No case's config covers another case's
    constructs, so running them in one process cannot make a case pass by accident."""
    pytest.importorskip("torch")
    plain, configured = {}, {}
    for name, (code, _) in CONFIG_CASES.items():
        code = textwrap.dedent(code)
        (tmp_path / f"plain_{name}.py").write_text("\n".join(ln for ln in code.splitlines() if "config" not in ln))
        (tmp_path / f"cfg_{name}.py").write_text(code)
        plain[f"plain_{name}"] = str(tmp_path / f"plain_{name}.py")
        configured[f"cfg_{name}"] = str(tmp_path / f"cfg_{name}.py")
    guarded = tmp_path / "guarded.py"
    guarded.write_text(textwrap.dedent(GUARDED))
    configured["guarded"] = str(guarded)
    proc = subprocess.run([sys.executable, "-c", _RUNNER, json.dumps({**plain, **configured})], capture_output=True,
                          text=True, timeout=300, cwd=Path(__file__).resolve().parents[1])
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT")), None)
    assert line is not None, proc.stderr[-3000:]
    results = json.loads(line[len("RESULT"):])
    for name in plain:
        assert results[name][1], f"{name}: no break without the config"
    for name in configured:
        assert results[name] == [0, [], None], (name, results[name])


# -- escalation ----------------------------------------------------------------------------------

def test_break_in_loop_is_an_error_and_gb410_reports_the_frame(tmp_path):
    found = findings(tmp_path, '''
        import torch
        class M(torch.nn.Module):
            def forward(self, x):
                print("start")
                for i in range(3):
                    x = x * x.sum().item()
                y = x + 1
                print("end")
                return y
        ''')
    by = {(f.line, f.code): f for f in found}
    assert by[(5, "GB405")].severity == "warning"
    assert by[(7, "GB401")].severity == "error" and by[(7, "GB401")].gb_id == "GB0124"
    assert by[(7, "GB410")].severity == "error" and by[(7, "GB410")].gb_id == "GB7000"
    assert by[(7, "GB410")].context == "M.forward"
    assert by[(9, "GB405")].severity == "note"  # only a plain return follows
    assert (5, "GB410") not in by and (9, "GB410") not in by


def test_break_in_a_branch_only_some_inputs_take_is_a_note(tmp_path):
    found = findings(tmp_path, '''
        import torch, warnings
        class M(torch.nn.Module):
            def forward(self, x):
                if x.dim() != 3:
                    print("unexpected rank", x.dim())
                if (x < 0).any():
                    warnings.warn("negative input")
                if self.training:
                    print("train step")
                y = x * 2
                return y
        ''')
    by = {(f.line, f.code): f.severity for f in found}
    assert by[(6, "GB405")] == "note" and by[(8, "GB408")] == "note"
    assert by[(7, "GB403")] == "warning"
    # every training step takes `self.training`; an inference model in eval() never does: one level lower
    training = next(f for f in found if (f.line, f.code) == (10, "GB405"))
    assert training.severity == "note"


def test_while_condition_and_comprehension_are_not_loop_breaks(tmp_path):
    # Verified on 2.13: a break in a `while` condition or a list comprehension does not skip the frame.
    found = codes(tmp_path, '''
        import torch
        class M(torch.nn.Module):
            def forward(self, x):
                while x.sum() > 100:
                    x = x / 2
                vals = [t.item() for t in x.sum(1)]
                return x * vals[0]
        ''')
    assert (5, "GB403") in found and (7, "GB401") in found
    assert not [c for c in found if c[1] == "GB410"]


# -- fixes --------------------------------------------------------------------------------------

def apply_fix(source: str, fix) -> str:  # noqa: ANN001
    lines = source.splitlines(keepends=True)
    start = sum(len(ln) for ln in lines[:fix.start_line - 1]) + fix.start_col
    end = sum(len(ln) for ln in lines[:fix.end_line - 1]) + fix.end_col
    return source[:start] + fix.text + source[end:]


@pytest.mark.parametrize("line,expected,safe", [
    ("        y = copy.deepcopy(x)\n", "        y = x.clone()\n", True),
    ("        print('x', x.shape)\n", "        pass\n", False),
    ("        torch._dynamo.graph_break()\n", "        pass\n", False),
    ("        y = x.abs().max().item()\n", "        y = x.abs().max()\n", False),
])
def test_mechanical_fixes(tmp_path, line, expected, safe):
    source = "import copy\nimport torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n" + line \
        + "        return x\n"
    found = [f for f in findings(tmp_path, source) if f.fix is not None]
    assert len(found) == 1, found
    assert found[0].fix.safe is safe
    assert apply_fix(source, found[0].fix).splitlines(keepends=True)[4] == expected


# -- precision: what does not break on 2.13 is not flagged ---------------------------------------------

def test_no_false_alarms_on_code_that_compiles(tmp_path):
    found = codes(tmp_path, '''
        import copy, random, logging
        import numpy as np
        import torch
        log = logging.getLogger(__name__)
        class M(torch.nn.Module):
            def __init__(self, cfg=None):
                super().__init__()
                log.info("built")          # __init__ is not compiled
                print("built")
                self.flag = True
                self.proj = torch.nn.Linear(3, 3)
            def forward(self, x, mask=None, use_bias: bool = True, training_flag=False):
                if self.training and x.dim() == 2 and x.shape[0] > 1:
                    x = x * 2
                if mask is not None and self.flag and use_bias and training_flag:
                    x = x + 1
                try:
                    y = x.numpy()
                except Exception:
                    y = None
                if isinstance(x, torch.Tensor):
                    x = x[x.shape[0] - 1:]
                x = x.clone()
                x[x > 0] = 0
                s = torch.where(x > 0, x, 0)
                cfg = copy.deepcopy({"a": 1})
                k = random.randint(0, 3) + random.uniform(0, 1)
                order = sorted([3, 1, 2])
                msg = f"{x.sum()}"
                n = float(x.shape[-1]) + int(x.size(0))
                return self.proj(x) * n + s.sum()
        def helper_not_compiled(x):
            print(x.item())
            return x
        ''')
    assert found == [], found


def test_disabled_method_and_function_callees(tmp_path):
    found = codes(tmp_path, '''
        import torch
        @torch._dynamo.disable
        def stats(x):
            return x.mean()
        class M(torch.nn.Module):
            @torch.compiler.disable
            def log(self, x):
                return x
            def forward(self, x):
                x = self.log(x)
                return x + stats(x)
        ''')
    assert found == [(11, "GB419"), (12, "GB419")]


def test_logger_needs_a_real_logger(tmp_path):
    found = codes(tmp_path, '''
        import logging
        import torch
        logger = logging.getLogger(__name__)
        class M(torch.nn.Module):
            def forward(self, x, stats):
                logger.debug("x %s", 1)
                stats.info("not a logger")
                logging.getLogger("a").warning("direct")
                return x
        ''')
    assert found == [(7, "GB407"), (9, "GB407")]


def test_sarif_carries_gb_id(tmp_path):
    found = findings(tmp_path, '''
        import torch
        class M(torch.nn.Module):
            def forward(self, x):
                idx = x.nonzero()
                return idx
        ''')
    assert [(f.code, f.gb_id) for f in found] == [("GB404", "GB0036")]
