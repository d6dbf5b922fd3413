"""Run a Python module in a child process with a timeout and a memory bound, and read back its JSON.

`run_in_child` is generic (the probe uses it; so can `bench`): the child gets `--result FILE` appended to
its arguments and should write its JSON there (atomically, and as often as it likes: a partial result
survives a later crash). Whatever happens in the child — an exception, a segfault or abort, a hang, an
allocation past the bound, a flood of output — comes back as a `ChildResult`, never as an exception in
the parent.

Memory: with `memory_mb` the child's address space is capped (`resource.setrlimit(RLIMIT_AS)`, set in
the child before it imports anything), so a runaway allocation fails inside the child; with
`rss_limit_mb` the parent also polls the child's resident size and kills it past the bound (use that on
CUDA, where the driver reserves far more address space than it uses and RLIMIT_AS cannot be applied).

Containment: the child leads its own session, and nothing it starts outlives the call. Every process of
its tree carries a marker in its environment (`TREE_ENV`, one value per call), and the parent keeps a
list of the child's descendants from /proc while it runs; on any exit (success, timeout, cancellation,
an exception in the parent) everything found either way, grandchildren that called `setsid` and were
re-parented to init included, is stopped and then killed. On Linux the child asks the kernel to kill it
when its parent dies (`PR_SET_PDEATHSIG`), so a parent killed outright leaves no child running without
a deadline; `RLIMIT_CPU` (the timeout's worth of CPU on every core) bounds whatever escapes even that.
`RLIMIT_FSIZE` bounds each file the child writes (a write past it fails with EFBIG in Python). The child's
stdout and stderr come through pipes, never to disk: the first and last few KB of each are kept, the rest
is counted and cut with a marker, and a child that writes more than `output_limit_mb` in all is killed.
`cancel`, an event set from another thread (the probe sets it on Ctrl-C or SIGTERM), kills the tree
within `poll_s` and returns status "cancelled". The working folder is removed on every path.
"""

from __future__ import annotations

import json
import math
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Callable

OK, ERROR, CRASHED, TIMEOUT, OOM, CANCELLED = "ok", "error", "crashed", "timeout", "oom", "cancelled"
_OOM_TEXT = ("MemoryError", "not enough memory", "can't allocate memory", "Cannot allocate memory",
             "std::bad_alloc", "out of memory")

TREE_ENV = "COMPILELINT_PROBE_TREE"  # inherited by every process the child starts, even after setsid
DEFAULT_FILE_SIZE_MB = 1024
DEFAULT_OUTPUT_LIMIT_MB = 256
OUTPUT_HEAD, OUTPUT_TAIL = 2000, 6000  # bytes of each stream kept for the result (the tail holds the error)
_SCAN_S = 0.2  # how often the parent lists the child's descendants while it runs
_DRAIN_S = 2.0  # how long the parent reads what is left in the pipes once the tree is dead
_PROC = "/proc"


@dataclass
class ChildResult:
    status: str  # ok | error | crashed | timeout | oom | cancelled
    reason: str  # one line, for people
    returncode: int | None
    payload: dict | None  # the child's last written JSON (may be partial), or None
    stdout_tail: str = ""  # the stream's first and last bytes, with a marker where the middle was cut
    stderr_tail: str = ""
    wall_s: float = 0.0
    peak_rss_mb: float = 0.0
    extra: dict = field(default_factory=dict)  # stdout_bytes, stderr_bytes, leftovers_killed


# The child's first statements: die with the parent, bound CPU time, file size and address space, then run
# the module as __main__. Done in the child itself (not with preexec_fn, which is unsafe when the parent
# runs children from several threads). PR_SET_PDEATHSIG fires when the parent *thread* that started the
# child ends: run_in_child waits for the child in that same thread, so the two end together. A parent that
# died before the prctl call leaves the child re-parented already: it stops there.
_BOOT = (
    "import os, resource, runpy, sys\n"
    "parent, mb, cpu_s, fsize_mb = (int(a) for a in sys.argv[1:5])\n"
    "if sys.platform.startswith('linux'):\n"
    "    try:\n"
    "        import ctypes, signal\n"
    "        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG\n"
    "    except (OSError, AttributeError):\n"
    "        pass\n"
    "    if os.getppid() != parent:\n"
    "        os._exit(70)\n"
    "def bound(kind, soft, hard):\n"
    "    ceiling = resource.getrlimit(kind)[1]\n"
    "    if ceiling != resource.RLIM_INFINITY:\n"
    "        soft, hard = min(soft, ceiling), min(hard, ceiling)\n"
    "    resource.setrlimit(kind, (soft, hard))\n"
    "bound(resource.RLIMIT_CORE, 0, 0)\n"
    "if cpu_s > 0:\n"
    "    bound(resource.RLIMIT_CPU, cpu_s, cpu_s + 5)  # SIGXCPU, then SIGKILL 5 s of CPU later\n"
    "if fsize_mb > 0:\n"
    "    bound(resource.RLIMIT_FSIZE, fsize_mb << 20, fsize_mb << 20)\n"
    "if mb > 0:\n"
    "    bound(resource.RLIMIT_AS, mb << 20, mb << 20)\n"
    "module = sys.argv[5]\n"
    "sys.argv = [module] + sys.argv[6:]\n"
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


def _read_json(path: str) -> dict | None:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        return data if isinstance(data, dict) else None
    except (OSError, ValueError):
        return None


def _signal_name(num: int) -> str:
    try:
        return signal.Signals(num).name
    except ValueError:
        return f"signal {num}"


class _Output:
    """One stream of the child: its first `head` and last `tail` bytes, and how many it wrote in all."""

    def __init__(self, head: int = OUTPUT_HEAD, tail: int = OUTPUT_TAIL) -> None:
        self._head_limit, self._tail_limit = head, tail
        self.head, self.tail = bytearray(), bytearray()
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = self._head_limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > self._tail_limit:
                del self.tail[:len(self.tail) - self._tail_limit]

    def text(self) -> str:
        cut = self.total - len(self.head) - len(self.tail)
        if cut <= 0:
            return bytes(self.head + self.tail).decode("utf-8", "replace")
        return (bytes(self.head).decode("utf-8", "replace") + f"\n[... {cut} bytes of output cut ...]\n"
                + bytes(self.tail).decode("utf-8", "replace"))


def _stat(pid: int) -> tuple[int, int, str] | None:
    """(parent pid, start time, state letter) of a process from /proc/PID/stat; None when it is gone."""
    try:
        with open(f"{_PROC}/{pid}/stat", "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    fields = data[data.rindex(b")") + 2:].split()  # the command name may hold spaces and parentheses
    try:
        return int(fields[1]), int(fields[19]), fields[0].decode()
    except (IndexError, ValueError):
        return None


class _Tree:
    """The processes of one child's tree: its descendants by parent pid, every process whose environment
    carries the call's marker (a grandchild that called setsid and was re-parented to init keeps it), and
    every process seen as either before (one that cleared its environment after it was seen). Processes
    are known by (pid, start time), so a pid reused by an unrelated process is never signalled."""

    def __init__(self, root: int, marker: str) -> None:
        self.root = root
        self._marker = f"{TREE_ENV}={marker}".encode()
        self.seen: dict[int, int] = {}
        self._unmarked: set[tuple[int, int]] = set()  # environments read once: exec keeps a process's pid
        self._me = os.getpid()

    def _marked(self, pid: int, start: int) -> bool:
        if (pid, start) in self._unmarked:
            return False
        try:
            with open(f"{_PROC}/{pid}/environ", "rb") as fh:
                env = fh.read()
        except OSError:  # another user's process, or gone
            env = b""
        marked = b"\0" + self._marker + b"\0" in b"\0" + env + b"\0"
        if not marked and env:
            self._unmarked.add((pid, start))
        return marked

    def scan(self) -> dict[int, int]:
        """{pid: start time} of the tree's live processes (zombies are dead already); remembered for later."""
        if not os.path.isdir(_PROC):
            return {}
        table: dict[int, tuple[int, int, str]] = {}
        try:
            names = os.listdir(_PROC)
        except OSError:
            return {}
        for name in names:
            if name.isdigit():
                st = _stat(int(name))
                if st is not None:
                    table[int(name)] = st
        children: dict[int, list[int]] = {}
        for pid, (ppid, _, _) in table.items():
            children.setdefault(ppid, []).append(pid)
        found: dict[int, int] = {}
        stack = [self.root] if self.root in table else []
        while stack:
            pid = stack.pop()
            if pid not in found:
                found[pid] = table[pid][1]
                stack.extend(children.get(pid, ()))
        for pid, start in self.seen.items():
            if pid in table and table[pid][1] == start:
                found[pid] = start
        for pid, (_, start, _) in table.items():
            if pid not in found and self._marked(pid, start):
                found[pid] = start
        found = {p: s for p, s in found.items() if p != self._me and table[p][2] not in "ZX"}
        self.seen.update(found)
        return found

    def _send(self, pid: int, start: int, sig: int) -> bool:
        st = _stat(pid)
        if st is None or st[1] != start:
            return False
        try:
            os.kill(pid, sig)
            return True
        except (ProcessLookupError, PermissionError):
            return False

    def kill(self) -> set[int]:
        """Stop every process of the tree (so none forks past the sweep), then kill them all; also the
        child's process group, for systems without /proc. Returns the pids killed."""
        stopped: dict[int, int] = {}
        for _ in range(200):
            fresh = {p: s for p, s in self.scan().items() if p not in stopped}
            if not fresh:
                break
            for pid, start in fresh.items():
                if self._send(pid, start, signal.SIGSTOP):
                    stopped[pid] = start
        try:
            os.killpg(self.root, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        return {pid for pid, start in stopped.items() if self._send(pid, start, signal.SIGKILL)}


def _read_ready(sel: selectors.BaseSelector, timeout: float) -> None:
    for key, _ in sel.select(timeout=timeout):
        try:
            data = os.read(key.fd, 1 << 16)
        except BlockingIOError:
            continue
        except OSError:
            data = b""
        if data:
            key.data.add(data)
        else:
            sel.unregister(key.fileobj)


def _classify(returncode: int | None, payload: dict | None, stderr_text: str, memory_mb: int,
              cpu_s: int) -> tuple[str, str]:
    """Status and reason of a child that exited by itself."""
    if returncode is not None and returncode < 0:
        name = _signal_name(-returncode)
        reason = f"the child process died from {name}"
        if name == "SIGXCPU":
            return TIMEOUT, f"{reason} (its CPU time passed the {cpu_s} s bound)"
        if name == "SIGKILL":
            return OOM, reason + " (killed from outside: often the kernel's out-of-memory killer)"
        if memory_mb and name in ("SIGABRT", "SIGSEGV") and any(t in stderr_text for t in _OOM_TEXT):
            return OOM, f"{reason}, out of memory under the {memory_mb} MB bound"
        return CRASHED, reason
    if returncode != 0 and payload is None:
        last = next((ln for ln in reversed(stderr_text.splitlines()) if ln.strip()), "")
        return ERROR, f"the child exited with status {returncode}: {last}"[:500]
    if payload is None:
        return ERROR, "the child wrote no result"
    return OK, ""


def run_in_child(module: str, args: list[str], *, timeout: float | None = 300.0, memory_mb: int = 0,
                 rss_limit_mb: int = 0, env: dict[str, str] | None = None, cwd: str | None = None,
                 python: str | None = None, poll_s: float = 0.05, cpu_limit_s: float | None = None,
                 file_size_mb: int = DEFAULT_FILE_SIZE_MB, output_limit_mb: int = DEFAULT_OUTPUT_LIMIT_MB,
                 cancel: threading.Event | None = None,
                 on_poll: Callable[[str], None] | None = None) -> ChildResult:
    """`python -m module *args --result FILE` in a new session (address space capped at `memory_mb` when
    > 0); wait at most `timeout` seconds. `cpu_limit_s`: the child's RLIMIT_CPU (default: the timeout on
    every core, plus 30 s; 0: none); `file_size_mb`: its RLIMIT_FSIZE (0: none); `output_limit_mb`: stdout
    and stderr together, past which it is killed (0: none). `on_poll`: called with the
    result file's path at each check of the child (every _SCAN_S seconds; the file may not exist yet), so a
    caller can show the child's progress. Thread-safe: several may run at once."""
    if cancel is not None and cancel.is_set():
        return ChildResult(status=CANCELLED, reason="cancelled before it started", returncode=None, payload=None)
    if cpu_limit_s is None:
        cpu_limit_s = timeout * (os.cpu_count() or 1) + 30 if timeout else 0
    cpu_s = max(1, math.ceil(cpu_limit_s)) if cpu_limit_s > 0 else 0
    workdir = tempfile.mkdtemp(prefix="compilelint-child-")
    result_path = os.path.join(workdir, "result.json")
    child_env = dict(os.environ if env is None else env)
    child_env.setdefault("PYTHONFAULTHANDLER", "1")  # a segfault prints the Python stack to stderr
    child_env[TREE_ENV] = f"{os.getpid()}-{uuid.uuid4().hex}"
    cmd = [python or sys.executable, "-c", _BOOT, str(os.getpid()), str(max(0, memory_mb)), str(cpu_s),
           str(max(0, file_size_mb)), module, *args, "--result", result_path]
    out, err = _Output(), _Output()
    output_limit = max(0, output_limit_mb) << 20
    start = time.monotonic()
    peak = 0.0
    status, reason = OK, ""
    killed: set[int] = set()
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                cwd=cwd, env=child_env, start_new_session=True)
        tree = _Tree(proc.pid, child_env[TREE_ENV])
        sel = selectors.DefaultSelector()
        try:
            sel.register(proc.stdout, selectors.EVENT_READ, out)
            sel.register(proc.stderr, selectors.EVENT_READ, err)
            next_check = 0.0
            while True:
                if sel.get_map():
                    _read_ready(sel, poll_s)
                else:  # the child closed both streams: keep polling at the same pace
                    time.sleep(poll_s)
                if proc.poll() is not None:
                    break
                now = time.monotonic()
                if cancel is not None and cancel.is_set():
                    status, reason = CANCELLED, "cancelled (killed)"
                    break
                if timeout is not None and now - start > timeout:
                    status, reason = TIMEOUT, f"timed out after {timeout:g}s (killed)"
                    break
                if output_limit and out.total + err.total > output_limit:
                    status, reason = ERROR, (f"flooded its output: more than {output_limit_mb} MB written to "
                                             "stdout and stderr (killed)")
                    break
                if now >= next_check:
                    next_check = now + _SCAN_S
                    tree.scan()
                    if on_poll is not None:
                        on_poll(result_path)
                    rss = _rss_mb(proc.pid)
                    peak = max(peak, rss)
                    if rss_limit_mb > 0 and rss > rss_limit_mb:
                        status, reason = OOM, (f"out of memory: resident memory {rss:.0f} MB passed the "
                                               f"{rss_limit_mb} MB bound (killed)")
                        break
        finally:  # every path, an exception in the parent (Ctrl-C) included: nothing of the tree survives
            killed = tree.kill()
            if proc.poll() is None:  # no /proc and no process group to signal: the child itself, at least
                proc.kill()
            proc.wait()
            drain_until = time.monotonic() + _DRAIN_S
            while sel.get_map() and time.monotonic() < drain_until:
                _read_ready(sel, 0.05)
            sel.close()
            proc.stdout.close()
            proc.stderr.close()
        returncode = proc.returncode
        payload = _read_json(result_path)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    wall = time.monotonic() - start
    stdout_text, stderr_text = out.text(), err.text()
    if status == OK:
        status, reason = _classify(returncode, payload, stderr_text, memory_mb, cpu_s)
    return ChildResult(status=status, reason=reason, returncode=returncode, payload=payload,
                       stdout_tail=stdout_text, stderr_tail=stderr_text, wall_s=wall, peak_rss_mb=peak,
                       extra={"stdout_bytes": out.total, "stderr_bytes": err.total,
                              "leftovers_killed": len(killed - {proc.pid})})
