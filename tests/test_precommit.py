"""The pre-commit hook, for real: `pre-commit try-repo` against a temporary git repo."""

from __future__ import annotations

import os
import shutil
import subprocess
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
pytestmark = pytest.mark.skipif(shutil.which("pre-commit") is None or shutil.which("git") is None,
                                reason="pre-commit and git are needed")

BAD = textwrap.dedent('''
    import torch
    class Head(torch.nn.Module):
        def forward(self, x):
            return x * x.max().item()
''')
CLEAN = textwrap.dedent('''
    import torch
    class Head(torch.nn.Module):
        def forward(self, x):
            return x * x.max()
''')


def git(*args: str, cwd) -> None:  # noqa: ANN001
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t"})


def try_repo(project, hook: str = "compilelint"):  # noqa: ANN001, ANN201
    env = {**os.environ, "PRE_COMMIT_HOME": str(project.parent / "pre-commit-home")}
    return subprocess.run(["pre-commit", "try-repo", ROOT, hook, "--all-files", "--verbose"], cwd=project,
                          capture_output=True, text=True, timeout=900, env=env)


def test_hook_fails_on_bad_file_passes_on_clean_one_and_honours_excludes(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    git("init", "-q", cwd=project)
    (project / "head.py").write_text(BAD)
    (project / "pyproject.toml").write_text('[tool.compilelint]\nexclude = ["vendor"]\n')
    (project / "vendor").mkdir()
    (project / "vendor" / "third.py").write_text(BAD)  # excluded, although pre-commit names it
    git("add", "-A", cwd=project)
    failed = try_repo(project)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "GB401" in failed.stdout and "head.py" in failed.stdout
    assert "third.py" not in failed.stdout
    (project / "head.py").write_text(CLEAN)
    git("add", "-A", cwd=project)
    passed = try_repo(project)
    assert passed.returncode == 0, passed.stdout + passed.stderr


def test_hook_checks_a_changed_helper_against_the_model_that_calls_it(tmp_path):
    # pre-commit passes only the changed file: the forward that calls it, in another file, still decides scope
    project = tmp_path / "project"
    project.mkdir()
    git("init", "-q", cwd=project)
    (project / "helper.py").write_text("def scale(x):\n    return x / x.max().item()\n")
    (project / "model.py").write_text(textwrap.dedent('''
        import torch
        from helper import scale
        class Head(torch.nn.Module):
            def forward(self, x):
                return scale(x)
    '''))
    git("add", "-A", cwd=project)
    env = {**os.environ, "PRE_COMMIT_HOME": str(project.parent / "pre-commit-home")}
    run = subprocess.run(["pre-commit", "try-repo", ROOT, "compilelint", "--files", "helper.py", "--verbose"],
                         cwd=project, capture_output=True, text=True, timeout=900, env=env)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "helper.py:2" in run.stdout and "GB401" in run.stdout
    assert "model.py:" not in run.stdout  # read for scope, reported only where asked
