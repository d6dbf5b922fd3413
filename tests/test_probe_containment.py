"""Probe containment: nothing a target starts outlives the probe, and a signal to the probe ends it promptly.

The runner tests use tests/probe_targets/runner_child.py (no torch: each takes a second or two); the probe
and CLI tests run tests/probe_targets/containment.py in the real child (torch imported) and are marked
slow. Leftovers are counted from /proc: every process started by a test carries that test's own token in
its environment, so probes run by other tests at the same time are never counted.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import pytest

from compilelint.config import Config
from compilelint.runtime_probe.probe import Cancellation, exit_code, probe
from compilelint.runtime_probe.runner import TREE_ENV, run_in_child

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="counts processes through /proc")

ROOT = Path(__file__).resolve().parent.parent
RUNNER_CHILD = "tests.probe_targets.runner_child"
CONTAINED = "tests/probe_targets/containment.py"
PROMPT_S = 5.0  # a cancelled probe must be gone within this (its children poll every 0.05 s)


def _state(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    return data[data.rindex(b")") + 2:].split()[0].decode()


def _alive(pid: int) -> bool:
    """Running, sleeping or stopped; a zombie has died and only waits for its parent to reap it."""
    return _state(pid) not in (None, "Z", "X")


def _tagged(token: str) -> list[int]:
    """Live processes other than this one whose environment holds CONTAINMENT_TOKEN=token."""
    needle = f"\0CONTAINMENT_TOKEN={token}\0".encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as fh:
                env = b"\0" + fh.read() + b"\0"
        except OSError:
            continue
        if needle in env and _alive(int(name)):
            found.append(int(name))
    return found


def _wait_for(condition, timeout: float, step: float = 0.05) -> bool:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


def _pids(path: Path) -> list[int]:
    return [int(p) for p in path.read_text().split()]


def _kill_quietly(pids: list[int]) -> None:
    """Clean-up after a failed assertion: the processes a test started must not outlive it either."""
    for pid in pids:
        if _alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """A temp folder of the test's own for run_in_child's working folders (tempfile caches the default)."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


# ---- the runner: no torch ---------------------------------------------------------------------------

def test_setsid_grandchildren_do_not_outlive_the_child(tmp_path, private_tmp):
    result = run_in_child(RUNNER_CHILD, ["--mode", "setsid", "--dir", str(tmp_path)], timeout=60, cwd=str(ROOT))
    pids = _pids(tmp_path / "pids")
    try:
        assert result.status == "ok", result.reason
        assert len(pids) == 3
        # a new session, a new session with an empty environment, and a double-forked setsid daemon
        assert [p for p in pids if _alive(p)] == []
        assert result.extra["leftovers_killed"] == 3
        assert list(private_tmp.iterdir()) == []
    finally:
        _kill_quietly(pids)


def test_cancel_kills_the_tree_and_removes_the_folder(tmp_path, private_tmp):
    cancel = threading.Event()
    pidfile = tmp_path / "pids"
    seen: list[int] = []

    def cancel_once_started() -> None:
        if _wait_for(pidfile.exists, 60):
            seen.extend(p for p in _pids(pidfile) if _alive(p))
        cancel.set()

    watcher = threading.Thread(target=cancel_once_started)
    watcher.start()
    start = time.monotonic()
    result = run_in_child(RUNNER_CHILD, ["--mode", "hang", "--dir", str(tmp_path)], timeout=300, cwd=str(ROOT),
                          cancel=cancel)
    waited = time.monotonic() - start
    watcher.join()
    try:
        assert len(seen) == 2, "the child and its sleeper were not both running"
        assert result.status == "cancelled" and result.reason == "cancelled (killed)"
        assert waited < 60
        assert [p for p in seen if _alive(p)] == []
        assert list(private_tmp.iterdir()) == []
    finally:
        _kill_quietly(seen)


def test_cancel_before_start_starts_nothing(private_tmp):
    cancel = threading.Event()
    cancel.set()
    result = run_in_child(RUNNER_CHILD, ["--mode", "hang", "--dir", "."], timeout=300, cancel=cancel)
    assert result.status == "cancelled" and result.returncode is None
    assert list(private_tmp.iterdir()) == []


def test_child_dies_with_its_parent(tmp_path):
    """The parent killed outright (no handler can run): PR_SET_PDEATHSIG takes the child, which had no
    deadline of its own (timeout=None), down with it."""
    code = ("import sys; from compilelint.runtime_probe.runner import run_in_child; "
            f"run_in_child({RUNNER_CHILD!r}, ['--mode', 'hang', '--dir', sys.argv[1]], timeout=None)")
    parent = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], cwd=ROOT)
    pidfile = tmp_path / "pids"
    pids: list[int] = []
    try:
        assert _wait_for(pidfile.exists, 60), "the child never started"
        pids = _pids(pidfile)
        child = pids[0]
        assert _alive(child)
        parent.kill()
        parent.wait()
        assert _wait_for(lambda: not _alive(child), 10), "the child outlived its parent"
    finally:
        parent.kill()
        parent.wait()
        _kill_quietly(pids)  # the child's own setsid sleeper: only a living parent can sweep it


def test_output_is_capped_and_a_flood_is_killed(tmp_path):
    result = run_in_child(RUNNER_CHILD, ["--mode", "flood", "--dir", str(tmp_path)], timeout=120, cwd=str(ROOT),
                          output_limit_mb=32)
    assert result.status == "error" and result.reason.startswith("flooded its output: more than 32 MB")
    assert result.extra["stdout_bytes"] > 32 << 20
    text = result.stdout_tail
    assert len(text) < 10_000
    assert text.startswith("<chunk 0>")  # the head is kept ...
    assert "bytes of output cut ...]" in text
    last = int(text.rsplit("<chunk ", 1)[1].split(">")[0])  # ... and so is the tail: the latest chunks
    assert last > 20_000  # 32 MB of 1 KB chunks


def test_each_file_the_child_writes_is_bounded(tmp_path):
    result = run_in_child(RUNNER_CHILD, ["--mode", "big_file", "--dir", str(tmp_path)], timeout=60, cwd=str(ROOT),
                          file_size_mb=1)
    assert result.status == "ok", result.reason
    assert result.payload["written"] == 1 << 20 and "File too large" in result.payload["error"]
    assert (tmp_path / "big").stat().st_size == 1 << 20


def test_cpu_time_is_bounded(tmp_path):
    result = run_in_child(RUNNER_CHILD, ["--mode", "spin", "--dir", str(tmp_path)], timeout=120, cwd=str(ROOT),
                          cpu_limit_s=1)
    assert result.status == "timeout" and "SIGXCPU" in result.reason and "1 s bound" in result.reason
    assert result.wall_s < 60


def test_every_process_of_the_tree_carries_the_marker(tmp_path):
    code = "import json, os, sys; json.dump({'marker': os.environ.get(sys.argv[1])}, open(sys.argv[-1], 'w'))"
    script = tmp_path / "marker_child.py"
    script.write_text(code)
    result = run_in_child("marker_child", [TREE_ENV], timeout=60, cwd=str(tmp_path))
    assert result.status == "ok", result.reason
    assert result.payload["marker"].startswith(f"{os.getpid()}-")


def test_cancellation_handlers_respect_ignored_signals_and_are_put_back():
    before_term = signal.getsignal(signal.SIGTERM)
    before_hup = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with Cancellation() as cancelling:
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN  # nohup'd: stays deaf to hang-ups
            os.kill(os.getpid(), signal.SIGTERM)  # handled: the test process lives on
            assert _wait_for(cancelling.event.is_set, 5)
            assert cancelling.signum == signal.SIGTERM
        assert signal.getsignal(signal.SIGTERM) == before_term
    finally:
        signal.signal(signal.SIGHUP, before_hup)


# ---- the probe and the CLI: torch in the child ------------------------------------------------------

@pytest.fixture
def tagged_env(tmp_path, monkeypatch):
    """(token, pids folder): set in this process's environment, which every child inherits."""
    token = uuid.uuid4().hex
    pids_dir = tmp_path / "pids"
    pids_dir.mkdir()
    monkeypatch.setenv("CONTAINMENT_TOKEN", token)
    monkeypatch.setenv("CONTAINMENT_PIDS_DIR", str(pids_dir))
    return token, pids_dir


def _recorded(pids_dir: Path, prefix: str) -> list[int]:
    return [p for f in sorted(pids_dir.glob(f"{prefix}-*")) if not f.name.endswith(".tmp") for p in _pids(f)]


@pytest.mark.slow
def test_probe_leaves_no_process_behind(tagged_env, private_tmp, monkeypatch):
    token, pids_dir = tagged_env
    monkeypatch.chdir(ROOT)
    result = probe([f"{CONTAINED}:make_setsid_sleepers"], Config(root=str(ROOT)), timeout=120, memory_mb=2048,
                   base=str(ROOT))
    pids = _recorded(pids_dir, "sleepers")
    try:
        assert result.runs[0].status == "ok", result.runs[0].reason
        assert len(pids) == 2
        assert [p for p in pids if _alive(p)] == []
        assert _tagged(token) == []
        assert list(private_tmp.iterdir()) == []
    finally:
        _kill_quietly(pids)


@pytest.mark.slow
def test_a_flooding_target_is_a_result(tagged_env, monkeypatch):
    monkeypatch.chdir(ROOT)
    result = probe([f"{CONTAINED}:make_flood"], Config(root=str(ROOT)), timeout=300, memory_mb=2048,
                   base=str(ROOT), output_limit_mb=16)
    (run,) = result.runs
    assert run.status == "error" and "flooded its output: more than 16 MB" in run.reason
    assert run.wall_s < 120
    assert any(f.code == "RT001" and "flooded" in f.message for f in result.findings)
    assert exit_code(result) == 1


def _cli(targets: list[str], env_extra: dict[str, str], *extra: str) -> subprocess.Popen:
    env = {**os.environ, **env_extra,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    # The terminal's Ctrl-C goes to the foreground process group: the CLI gets one of its own, and SIGINT
    # its default disposition (a test runner may have started with SIGINT ignored, which children inherit).
    return subprocess.Popen([sys.executable, "-m", "compilelint", "probe", *targets, "--timeout", "300",
                             "--output-format", "json", "--no-progress", *extra],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


@pytest.mark.slow
def test_sigterm_cancels_a_running_probe(tmp_path):
    token, pids_dir, tmp = uuid.uuid4().hex, tmp_path / "pids", tmp_path / "tmp"
    pids_dir.mkdir()
    tmp.mkdir()
    cli = _cli([f"{CONTAINED}:make_hang"], {"CONTAINMENT_TOKEN": token, "CONTAINMENT_PIDS_DIR": str(pids_dir),
                                            "TMPDIR": str(tmp)})
    pids: list[int] = []
    try:
        assert _wait_for(lambda: _recorded(pids_dir, "hang"), 120), "the target never started"
        pids = _recorded(pids_dir, "hang")
        assert list(tmp.glob("compilelint-child-*"))  # the child's working folder, while it runs
        start = time.monotonic()
        cli.send_signal(signal.SIGTERM)
        out, err = cli.communicate(timeout=60)
        took = time.monotonic() - start
        assert cli.returncode == 128 + signal.SIGTERM, err
        assert took < PROMPT_S
        report = json.loads(out)
        assert report["interrupted"] == "SIGTERM"
        (target,) = report["targets"]
        assert target["status"] == "cancelled" and target["reason"].startswith("cancelled by SIGTERM")
        assert [p for p in pids if _alive(p)] == []
        assert _tagged(token) == []
        assert list(tmp.glob("compilelint-child-*")) == []
    finally:
        cli.kill()
        cli.communicate()
        _kill_quietly(pids + _recorded(pids_dir, "hang"))


@pytest.mark.slow
def test_ctrl_c_with_two_jobs_returns_promptly_with_what_finished(tmp_path):
    token, pids_dir = uuid.uuid4().hex, tmp_path / "pids"
    pids_dir.mkdir()
    targets = [f"{CONTAINED}:make_setsid_sleepers", f"{CONTAINED}:make_hang", f"{CONTAINED}:make_hang_too"]
    cli = _cli(targets, {"CONTAINMENT_TOKEN": token, "CONTAINMENT_PIDS_DIR": str(pids_dir)}, "-j", "2")
    started: list[int] = []
    try:
        # the quick target finishes and frees its slot for the third: then both hanging targets are running
        assert _wait_for(lambda: _recorded(pids_dir, "hang") and _recorded(pids_dir, "hang_too"), 240), \
            "the hanging targets never started"
        started = _recorded(pids_dir, "hang") + _recorded(pids_dir, "hang_too") + _recorded(pids_dir, "sleepers")
        start = time.monotonic()
        os.killpg(cli.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        out, err = cli.communicate(timeout=60)
        took = time.monotonic() - start
        assert cli.returncode == 128 + signal.SIGINT, err
        assert took < PROMPT_S
        report = json.loads(out)
        assert [(t["target"].rsplit(":", 1)[1], t["status"]) for t in report["targets"]] == \
            [("make_setsid_sleepers", "ok"), ("make_hang", "cancelled"), ("make_hang_too", "cancelled")]
        assert all(t["reason"].startswith("cancelled by SIGINT") for t in report["targets"][1:])
        assert [p for p in started if _alive(p)] == []
        assert _tagged(token) == []
    finally:
        cli.kill()
        cli.communicate()
        _kill_quietly(started)
