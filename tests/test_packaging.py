"""Installable the way the docs say: the wheel and sdist build and run away from the source tree, the composite
GitHub Action installs, lints and uploads, the example workflows use it, and every pinned revision is the newest release."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
import yaml

import compilelint

ROOT = Path(__file__).resolve().parent.parent
VERSION = compilelint.__version__
DOCS = [ROOT / "README.md", ROOT / "docs" / "github.md", ROOT / ".pre-commit-hooks.yaml",
        ROOT / ".github" / "workflows" / "compilelint.yml", ROOT / "action.yml"]


def build(kind: str, source: Path, out: Path) -> Path:
    """setuptools' PEP 517 hook, as `python -m build` calls it (offline: the setuptools already installed)."""
    code = f"from setuptools import build_meta; print(build_meta.build_{kind}({str(out)!r}))"
    proc = subprocess.run([sys.executable, "-c", code], cwd=source, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out / proc.stdout.strip().splitlines()[-1]


def copy_tree(dest: Path) -> Path:
    """The files a build reads, copied, so the build's own folders never land in the shared tree."""
    dest.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, dest / name)
    shutil.copytree(ROOT / "compilelint", dest / "compilelint", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return dest


def test_wheel_and_sdist_carry_the_package_and_the_wheel_runs_outside_the_tree(tmp_path):
    source = copy_tree(tmp_path / "src")
    out = tmp_path / "dist"
    out.mkdir()
    sdist = build("sdist", source, out)
    wheel = build("wheel", source, out)
    assert sdist.name == f"compilelint-{VERSION}.tar.gz" and wheel.name == f"compilelint-{VERSION}-py3-none-any.whl"
    modules = {p.relative_to(source).as_posix() for p in (source / "compilelint").rglob("*.py")}
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        meta = zf.read(f"compilelint-{VERSION}.dist-info/METADATA").decode()
        entry_points = zf.read(f"compilelint-{VERSION}.dist-info/entry_points.txt").decode()
        zf.extractall(tmp_path / "site")
    assert modules <= names, sorted(modules - names)[:10]  # every rule module, reporter and probe file
    assert not any(n.startswith(("tests/", "benchmarks/", "fixtures/")) for n in names)
    assert f"Version: {VERSION}" in meta
    assert {"libcst", "click", "sarif-om"} <= {m.group(1) for m in re.finditer(r"^Requires-Dist: ([\w-]+)", meta, re.M)}
    assert re.search(r"^compilelint = compilelint\.cli:run$", entry_points, re.M)
    with tarfile.open(sdist) as tf:
        members = {m.name.split("/", 1)[1] for m in tf.getmembers() if "/" in m.name}
    assert {"pyproject.toml", "README.md", "compilelint/cli.py", "compilelint/report/sarif.py"} <= members
    # the unpacked wheel alone (no source tree on the path), from a folder outside the tree
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    run = [sys.executable, "-P", "-c", "import sys; from compilelint.cli import run; sys.argv[0] = 'compilelint'; "
           "import compilelint; assert compilelint.__file__.startswith(sys.argv.pop(1)), compilelint.__file__; run()",
           str(tmp_path / "site")]
    version = subprocess.run([*run, "--version"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert version.returncode == 0 and version.stdout.strip() == f"compilelint, version {VERSION}", version.stderr
    installed = subprocess.run([*run, str(ROOT / "fixtures"), "--no-cache", "--output-format", "json", "-j1"],
                               cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    here = subprocess.run([sys.executable, "-m", "compilelint", str(ROOT / "fixtures"), "--no-cache", "--output-format",
                           "json", "-j1"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert installed.returncode == here.returncode == 1, installed.stderr
    assert json.loads(installed.stdout)["findings"] == json.loads(here.stdout)["findings"] != []


def test_ci_builds_installs_the_wheel_in_a_fresh_venv_and_runs_it():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "python -m build" in ci and "-py3-none-any.whl" in ci and ".tar.gz" in ci
    fresh = re.search(r'python3 -m venv "(\$dist/venv)"', ci)
    assert fresh and f'"{fresh.group(1)}/bin/python" -m pip install -q "$dist"/compilelint-*-py3-none-any.whl' in ci
    assert '"$dist/venv/bin/compilelint" --version' in ci and '"$dist/venv/bin/compilelint" "$OLDPWD/fixtures"' in ci
    assert ci.index("python -m build") < ci.index("python -m pytest")  # packaging fails fast, before the suite


def action() -> dict:
    return yaml.safe_load((ROOT / "action.yml").read_text())


def test_action_is_composite_and_installs_lints_and_uploads():
    spec = action()
    assert spec["runs"]["using"] == "composite"
    steps = spec["runs"]["steps"]
    install = next(s for s in steps if "pip install" in s.get("run", ""))
    assert '"$GITHUB_ACTION_PATH"' in install["run"]  # from the action's own checkout at the ref used, not PyPI
    lint = next(s for s in steps if s.get("id") == "lint")
    assert "--output-format sarif" in lint["run"] and '-o "$SARIF_FILE"' in lint["run"]
    upload = next(s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif@"))
    assert upload["with"] == {"sarif_file": "${{ inputs.sarif-file }}", "category": "${{ inputs.category }}"}
    text = (ROOT / "action.yml").read_text()
    used = set(re.findall(r"inputs\.([\w-]+)", text.split("runs:", 1)[1] + text.split("outputs:", 1)[1]))
    assert used == set(spec["inputs"]), (used, set(spec["inputs"]))
    assert all(s.get("shell") == "bash" for s in steps if "run" in s)  # composite run steps must name a shell


def test_the_actions_lint_step_writes_sarif_and_reports_the_exit_status(tmp_path):
    lint = next(s for s in action()["runs"]["steps"] if s.get("id") == "lint")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "LINT_PATHS": str(ROOT / "fixtures"), "LINT_ARGS": "--no-cache -j1",
           "SARIF_FILE": str(tmp_path / "out.sarif"), "CATEGORY": "compilelint/static",
           "GITHUB_OUTPUT": str(tmp_path / "github_output")}
    assert shutil.which("compilelint", path=env["PATH"])
    proc = subprocess.run(["bash", "-e", "-c", lint["run"]], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr  # findings are code scanning's to judge, not a failed step
    assert (tmp_path / "github_output").read_text() == "exit-code=1\n"
    doc = json.loads((tmp_path / "out.sarif").read_text())
    assert doc["runs"][0]["results"] and doc["runs"][0]["automationDetails"]["id"] == "compilelint/static/"
    env["LINT_ARGS"] = "--select NOPE999"
    bad = subprocess.run(["bash", "-e", "-c", lint["run"]], env=env, cwd=tmp_path, capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode == 2 and "NOPE999" in bad.stderr  # a usage error fails the step


def test_example_workflows_use_the_action():
    doc = (ROOT / "docs" / "github.md").read_text()
    blocks = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", doc, re.S)]
    workflow = next(b for b in blocks if isinstance(b, dict) and "jobs" in b)
    uses = [s.get("uses") for job in workflow["jobs"].values() for s in job["steps"]]
    assert f"compilelint/compilelint@v{VERSION}" in uses
    ours = yaml.safe_load((ROOT / ".github" / "workflows" / "compilelint.yml").read_text())
    assert "./" in [s.get("uses") for s in ours["jobs"]["static"]["steps"]]


def test_docs_never_promise_a_pypi_package_and_pin_the_current_tag():
    for path in DOCS:
        text = path.read_text()
        assert not re.search(r"pip install (-U )?compilelint(\s|$|`|\")", text), path
        for rev in re.findall(r"rev: (v[\w.]+)", text):
            assert rev == f"v{VERSION}", (path, rev)
        for ref in re.findall(r"compilelint/compilelint@(v[\w.]+)", text):
            assert ref == f"v{VERSION}", (path, ref)
    assert "rev: v" in (ROOT / "docs" / "github.md").read_text()


def test_the_pinned_version_is_the_newest_release_in_the_changelog():
    releases = re.findall(r"^## (\d+\.\d+\.\d+)$", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert releases and releases[0] == VERSION, releases
    assert len(set(releases)) == len(releases)


@pytest.mark.skipif(not (ROOT / ".git").exists() or shutil.which("git") is None, reason="needs a git checkout")
def test_a_release_tag_where_one_exists_names_the_release_it_pins():
    """Clones made without tags have none to check; where `git tag -l` lists v<version>, it must be annotated and
    point at a commit that carries that version and the pre-commit hooks."""
    tag = f"v{VERSION}"
    kind = subprocess.run(["git", "cat-file", "-t", tag], cwd=ROOT, capture_output=True, text=True)
    if kind.returncode != 0:
        pytest.skip(f"this clone has no tag {tag}")
    assert kind.stdout.strip() == "tag", f"{tag} is a lightweight tag: git tag -a {tag}"
    at_tag = subprocess.run(["git", "show", f"{tag}:compilelint/__init__.py"], cwd=ROOT, capture_output=True,
                            text=True).stdout
    assert f'__version__ = "{VERSION}"' in at_tag
    hooks = subprocess.run(["git", "show", f"{tag}:.pre-commit-hooks.yaml"], cwd=ROOT, capture_output=True, text=True)
    assert hooks.returncode == 0 and {h["id"] for h in yaml.safe_load(hooks.stdout)} >= {"compilelint"}


def test_readme_starts_with_the_two_commands_and_the_first_one_runs(tmp_path):
    first_block = re.search(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), re.S).group(1)
    commands = [ln for ln in first_block.splitlines() if ln and not ln.startswith("#")]
    assert len(commands) == 2
    assert commands[0].endswith("pip install -e . && compilelint fixtures/ --exit-zero")
    assert commands[1].endswith('pip install "torch==2.13.0" -e ".[test,probe,kernels]" && python -m pytest -q')
    lint = subprocess.run([sys.executable, "-m", "compilelint", "fixtures/", "--exit-zero", "--no-cache"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert lint.returncode == 0 and lint.stdout.startswith("targets: ") and "Found " in lint.stdout
