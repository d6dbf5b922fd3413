"""`compilelint probe --scope`: which files count as the user's. A model built from a library's blocks
(kornia's HardNet) whose trace problem sits inside the library: by default the probe says nothing about the
library's files; with the library in scope the TracerWarning is pinned to kornia's own line and the static
finding there is confirmed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from compilelint.config import ConfigError, load_config
from compilelint.findings import CONFIRMED, RUNTIME_ONLY
from compilelint.runtime_probe.scope import ALL, FileScope, ScopeError, resolve

ROOT = Path(__file__).resolve().parent.parent
TARGET = "tests/probe_targets/library_blocks.py:make_descriptor"


def test_resolve_names_packages_folders_and_all(tmp_path):
    pytest.importorskip("kornia")
    kornia_dirs = resolve(["kornia"])
    assert kornia_dirs and all(d.endswith(os.sep) and os.path.isdir(d) for d in kornia_dirs)
    assert resolve([str(tmp_path)]) == [os.path.join(os.path.realpath(tmp_path), "")]
    assert resolve([ALL]) == [ALL]
    with pytest.raises(ScopeError, match="neither an installed package nor a folder"):
        resolve(["no_such_package_here_at_all"])


def test_file_scope_never_counts_torch(tmp_path):
    torch = pytest.importorskip("torch")
    torch_file = torch.nn.functional.__file__
    mine = tmp_path / "model.py"
    mine.write_text("x = 1\n")
    assert FileScope()(str(mine)) and not FileScope()(torch_file)
    assert not FileScope([ALL])(torch_file) and not FileScope(resolve(["torch"]))(torch_file)
    import kornia.core.check as check  # an installed package: the user's only when named

    assert not FileScope()(check.__file__)
    assert FileScope(resolve(["kornia"]))(check.__file__) and FileScope([ALL])(check.__file__)


def test_config_scope_must_be_a_list(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint.probe]\nscope = "kornia"\n')
    with pytest.raises(ConfigError, match="scope must be a list"):
        load_config(str(tmp_path))
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint.probe]\nscope = ["kornia"]\n')
    assert load_config(str(tmp_path)).probe_scope == ["kornia"]


def test_unknown_scope_is_a_usage_error():
    done = subprocess.run([sys.executable, "-m", "compilelint", "probe", TARGET, "--scope", "no_such_pkg_xyz"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2 and "no_such_pkg_xyz" in done.stderr


def test_library_events_are_reported_only_in_scope():
    pytest.importorskip("torch")
    kornia = pytest.importorskip("kornia")
    from compilelint.config import Config
    from compilelint.runtime_probe.probe import probe

    kornia_dir = os.path.join(os.path.realpath(os.path.dirname(kornia.__file__)), "")
    check_py = os.path.realpath(os.path.join(kornia_dir, "core", "check.py"))
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        default = probe([TARGET], Config(root=str(ROOT)), base=str(ROOT), timeout=300)
        scoped = probe([TARGET], Config(root=str(ROOT)), base=str(ROOT), timeout=300, scope=resolve(["kornia"]))
    finally:
        os.chdir(cwd)
    assert default.failed == [] and scoped.failed == []
    # torch warned inside kornia in both runs; the default scope reports nothing in kornia's files
    warned = default.runs[0].checks["trace"]["warnings"]
    assert any(os.path.realpath(w["file"]) == check_py for w in warned)
    assert not any(os.path.realpath(f.path).startswith(kornia_dir) for f in default.findings)
    # in scope: the warning is pinned to kornia's line, and that line's finding is confirmed (or runtime-only)
    at_check = [f for f in scoped.findings if os.path.realpath(f.path) == check_py and
                f.probe_state in (CONFIRMED, RUNTIME_ONLY)]
    assert at_check, [(f.code, f.path, f.line, f.probe_state) for f in scoped.findings][:20]
    assert all("trace" in f.targets or f.code.startswith("RT3") for f in at_check)
