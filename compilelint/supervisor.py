"""Worker processes that a bad input cannot take down with the run.

`run_supervised` hands tasks to worker processes one at a time (plus one queued, so a worker never waits
for the next) and watches each: a worker that dies (LibCST's native parser overflowing its stack is a
SIGSEGV) or that overruns the hard deadline on one task (native code that no signal interrupts) is killed
and replaced; that task gets an outcome saying so, and every other task still runs. multiprocessing.Pool
cannot do this: it never notices that a worker died, and waits for its result forever.

Workers ignore SIGINT (the parent handles Ctrl-C and stops them all), die with the parent where the system
allows it (Linux: PR_SET_PDEATHSIG), and exit when their pipe closes.
"""

from __future__ import annotations

import collections
import multiprocessing
import os
import signal
import sys
import time
import traceback
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Any, Callable

QUEUED_PER_WORKER = 2  # the task in hand and the next, so that no worker waits on the parent between tasks
STARTUP_LIMIT_S = 120.0  # a worker that is not ready by then (importing, with `spawn`) is a failure to start
MAX_START_FAILURES = 3


@dataclass
class Outcome:
    """What became of one task: `value` (done), or why there is none."""

    value: Any = None
    crashed: str = ""  # how the worker died: "SIGSEGV", "exit status 3"
    overran: float = 0.0  # seconds after which the worker was killed


class WorkerStartError(RuntimeError):
    pass


def _die_with_parent(parent: int) -> None:
    """Ask Linux to SIGKILL this process when its parent dies (a SIGKILLed parent runs no cleanup)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the request was made
        os._exit(1)


# The parent's ends of every worker's pipe. A forked worker inherits copies of them all; it closes them first,
# or a worker whose parent died would never see its own pipe close while a sibling holds the other end open.
_PARENT_ENDS: list = []


def _worker_main(conn, parent: int, initializer: Callable | None, initargs: tuple, work: Callable) -> None:  # noqa: ANN001
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for inherited in _PARENT_ENDS:
        inherited.close()
    _PARENT_ENDS.clear()
    _die_with_parent(parent)
    if initializer is not None:
        initializer(*initargs)
    conn.send(("ready", -1, None))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        index, task = message
        try:
            reply = ("done", index, work(task))
        except BaseException as err:  # noqa: BLE001 - an internal error: the parent raises it, as Pool would
            reply = ("error", index, (err, traceback.format_exc()))
        try:
            conn.send(reply)
        except Exception as err:  # noqa: BLE001 - a result that does not pickle is an internal error too
            conn.send(("error", index, (RuntimeError(f"cannot send the result: {err!r}"), traceback.format_exc())))


class _Worker:
    def __init__(self, ctx, initializer: Callable | None, initargs: tuple, work: Callable) -> None:  # noqa: ANN001
        self.conn, child_conn = ctx.Pipe(duplex=True)
        self.process = ctx.Process(target=_worker_main, args=(child_conn, os.getpid(), initializer, initargs, work),
                                   daemon=True)
        _PARENT_ENDS.append(self.conn)  # before the fork: the worker closes its copy of this end too
        try:
            self.process.start()
        except BaseException:
            _PARENT_ENDS.remove(self.conn)
            self.conn.close()
            raise
        finally:
            child_conn.close()
        self.ready = False
        self.born = time.monotonic()
        self.queued: collections.deque[int] = collections.deque()
        self.started = 0.0  # when the head of `queued` began

    def stop(self, kill: bool) -> None:
        if kill and self.process.is_alive():
            self.process.kill()
        else:
            try:
                self.conn.send(None)
            except OSError:
                pass
        self.process.join(timeout=None if kill else 5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        if self.conn in _PARENT_ENDS:
            _PARENT_ENDS.remove(self.conn)
        self.conn.close()

    def death(self) -> str:
        code = self.process.exitcode
        if code is not None and code < 0:
            try:
                return signal.Signals(-code).name
            except ValueError:
                return f"signal {-code}"
        return f"exit status {code}"


def run_supervised(tasks: list, work: Callable, *, jobs: int, initializer: Callable | None = None,
                   initargs: tuple = (), deadline: float | None = None) -> list[Outcome]:
    """Run work(task) for every task in `jobs` worker processes (work and initializer: module-level
    functions). `deadline`: seconds one task may take before its worker is killed (None: no limit)."""
    ctx = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    outcomes: list[Outcome | None] = [None] * len(tasks)
    pending = collections.deque(range(len(tasks)))
    workers: list[_Worker] = []
    start_failures = 0

    def spawn() -> None:
        workers.append(_Worker(ctx, initializer, initargs, work))

    def feed(worker: _Worker) -> None:
        # a second task only while there are enough for every worker: the last ones go to whoever is free first
        while pending and (not worker.queued or
                           (len(worker.queued) < QUEUED_PER_WORKER and len(pending) >= len(workers))):
            index = pending.popleft()
            try:
                worker.conn.send((index, tasks[index]))
            except OSError:  # it died meanwhile: its sentinel says so next, and the task waits for another worker
                pending.appendleft(index)
                return
            if not worker.queued:
                worker.started = time.monotonic()
            worker.queued.append(index)

    def retire(worker: _Worker, outcome: Outcome | None) -> None:
        """Kill a worker; `outcome` goes to its task in hand, the tasks queued behind it go back to the queue."""
        nonlocal start_failures
        workers.remove(worker)
        worker.stop(kill=True)
        if outcome is not None and worker.queued:
            outcomes[worker.queued.popleft()] = outcome
        pending.extendleft(reversed(worker.queued))
        if outcome is None:
            start_failures += 1
            if start_failures >= MAX_START_FAILURES:
                raise WorkerStartError(f"worker processes fail to start ({worker.death()})")
        if pending:
            spawn()

    def receive(worker: _Worker) -> bool:
        """Read one message; False if the worker is gone."""
        try:
            kind, index, payload = worker.conn.recv()
        except (EOFError, OSError):
            return False
        now = time.monotonic()
        if kind == "ready":
            worker.ready = True
            worker.started = now
        else:
            worker.queued.popleft()
            worker.started = now
            if kind == "error":
                err, remote = payload
                err.add_note(f"in a worker process, on task {tasks[index]!r}:\n{remote}")
                raise err
            outcomes[index] = Outcome(value=payload)
        if worker.ready:
            feed(worker)
            if not worker.queued and not pending:
                workers.remove(worker)
                worker.stop(kill=False)
        return True

    try:
        for _ in range(min(max(jobs, 1), len(tasks))):
            spawn()
        for worker in list(workers):
            feed(worker)
        while workers:
            now = time.monotonic()
            limits = [w.born + STARTUP_LIMIT_S if not w.ready else w.started + deadline
                      for w in workers if not w.ready or (deadline is not None and w.queued)]
            timeout = max(0.0, min(limits) - now) if limits else None
            ready = set(wait([w.conn for w in workers] + [w.process.sentinel for w in workers], timeout))
            for worker in list(workers):
                if worker not in workers:
                    continue
                if worker.conn in ready and not receive(worker):
                    ready.add(worker.process.sentinel)
                if worker in workers and worker.process.sentinel in ready:
                    while worker.conn.poll() and receive(worker):  # what it sent before it went
                        if worker not in workers:
                            break
                    if worker in workers:
                        worker.process.join()
                        retire(worker, Outcome(crashed=worker.death()) if worker.ready else None)
            now = time.monotonic()
            for worker in list(workers):
                if not worker.ready and now - worker.born > STARTUP_LIMIT_S:
                    retire(worker, None)
                elif worker.ready and worker.queued and deadline is not None and now - worker.started > deadline \
                        and not worker.conn.poll():  # (a result that came in meanwhile is read first)
                    retire(worker, Outcome(overran=now - worker.started))
    finally:
        for worker in workers:
            worker.stop(kill=True)
    missing = [i for i, o in enumerate(outcomes) if o is None]
    if missing:  # every worker gone with tasks left: cannot happen unless starting workers failed
        raise WorkerStartError(f"{len(missing)} tasks were never run")
    return outcomes  # type: ignore[return-value]
