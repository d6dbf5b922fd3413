"""Run a Python module in a child process with a timeout and a memory bound, and read back its JSON.

`run_in_child` is generic (the probe uses it; so can `bench`): the child gets `--result FILE` appended to
its arguments and should write its JSON there (atomically, and as often as it likes: a partial result
survives a later crash). Whatever happens in the child — an exception, a segfault or abort, a hang, an
allocation past the bound — comes back as a `ChildResult`, never as an exception in the parent.

Memory: with `memory_mb` the child's address space is capped (`resource.setrlimit(RLIMIT_AS)`, set in
the child before it imports anything), so a runaway allocation fails inside the child; with
`rss_limit_mb` the parent also polls the child's resident size and kills it past the bound (use that on
CUDA, where the driver reserves far more address space than it uses and RLIMIT_AS cannot be applied).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

OK, ERROR, CRASHED, TIMEOUT, OOM = "ok", "error", "crashed", "timeout", "oom"
_OOM_TEXT = ("MemoryError", "not enough memory", "can't allocate memory", "Cannot allocate memory",
             "std::bad_alloc", "out of memory")


@dataclass
class ChildResult:
    status: str  # ok | error | crashed | timeout | oom
    reason: str  # one line, for people
    returncode: int | None
    payload: dict | None  # the child's last written JSON (may be partial), or None
    stdout_tail: str = ""
    stderr_tail: str = ""
    wall_s: float = 0.0
    peak_rss_mb: float = 0.0
    extra: dict = field(default_factory=dict)


# The child's first statements: bound its address space, then run the module as __main__. Done in the
# child itself (not with preexec_fn, which is unsafe when the parent runs children from several threads).
_BOOT = (
    "import resource, runpy, sys\n"
    "mb = int(sys.argv[1])\n"
    "resource.setrlimit(resource.RLIMIT_CORE, (0, 0))\n"
    "if mb > 0:\n"
    "    resource.setrlimit(resource.RLIMIT_AS, (mb << 20, mb << 20))\n"
    "module = sys.argv[2]\n"
    "sys.argv = [module] + sys.argv[3:]\n"
    "runpy.run_module(module, run_name='__main__', alter_sys=True)\n"
)


def _rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _tail(path: str, limit: int = 4000) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - limit))
            return fh.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _read_json(path: str) -> dict | None:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        return data if isinstance(data, dict) else None
    except (OSError, ValueError):
        return None


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the child leads its own session: this is its group only
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.kill()
    except ProcessLookupError:
        pass


def _signal_name(num: int) -> str:
    try:
        return signal.Signals(num).name
    except ValueError:
        return f"signal {num}"


def run_in_child(module: str, args: list[str], *, timeout: float | None = 300.0, memory_mb: int = 0,
                 rss_limit_mb: int = 0, env: dict[str, str] | None = None, cwd: str | None = None,
                 python: str | None = None, poll_s: float = 0.05) -> ChildResult:
    """`python -m module *args --result FILE` in a new session (address space capped at `memory_mb` when
    > 0); wait at most `timeout` seconds. Thread-safe: several may run at once."""
    workdir = tempfile.mkdtemp(prefix="compilelint-child-")
    result_path = os.path.join(workdir, "result.json")
    out_path, err_path = os.path.join(workdir, "stdout"), os.path.join(workdir, "stderr")
    child_env = dict(os.environ if env is None else env)
    child_env.setdefault("PYTHONFAULTHANDLER", "1")  # a segfault prints the Python stack to stderr
    cmd = [python or sys.executable, "-c", _BOOT, str(max(0, memory_mb)), module, *args, "--result", result_path]
    start = time.monotonic()
    peak = 0.0
    status, reason = OK, ""
    try:
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=cwd, env=child_env,
                                    start_new_session=True)
            try:
                while True:
                    returncode = proc.poll()
                    if returncode is not None:
                        break
                    elapsed = time.monotonic() - start
                    rss = _rss_mb(proc.pid)
                    peak = max(peak, rss)
                    if timeout is not None and elapsed > timeout:
                        _kill_group(proc)
                        proc.wait()
                        status, reason = TIMEOUT, f"timed out after {timeout:g}s (killed)"
                        break
                    if rss_limit_mb > 0 and rss > rss_limit_mb:
                        _kill_group(proc)
                        proc.wait()
                        status, reason = OOM, (f"out of memory: resident memory {rss:.0f} MB passed the {rss_limit_mb} MB "
                                               "bound (killed)")
                        break
                    time.sleep(poll_s)
            except BaseException:  # Ctrl-C in the parent: the child (its own session) must not outlive it
                _kill_group(proc)
                proc.wait()
                raise
            returncode = proc.returncode
        # A child that left grandchildren behind: they go with its session.
        if status == OK:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        payload = _read_json(result_path)
        stdout_tail, stderr_tail = _tail(out_path), _tail(err_path)
    finally:
        for p in (result_path, out_path, err_path):
            try:
                os.unlink(p)
            except OSError:
                pass
        try:
            os.rmdir(workdir)
        except OSError:
            pass
    wall = time.monotonic() - start
    if status == OK:
        if returncode is not None and returncode < 0:
            name = _signal_name(-returncode)
            status = CRASHED
            reason = f"the child process died from {name}"
            if name == "SIGKILL":
                reason += " (killed from outside: often the kernel's out-of-memory killer)"
                status = OOM
            elif memory_mb and name in ("SIGABRT", "SIGSEGV") and any(t in stderr_tail for t in _OOM_TEXT):
                status, reason = OOM, f"{reason}, out of memory under the {memory_mb} MB bound"
        elif returncode != 0 and payload is None:
            status = ERROR
            last = next((ln for ln in reversed(stderr_tail.splitlines()) if ln.strip()), "")
            reason = f"the child exited with status {returncode}: {last}"[:500]
        elif payload is None:
            status, reason = ERROR, "the child wrote no result"
    return ChildResult(status=status, reason=reason, returncode=returncode, payload=payload,
                       stdout_tail=stdout_tail, stderr_tail=stderr_tail, wall_s=wall, peak_rss_mb=peak)
