"""Probe targets that leave processes behind or flood their output, for tests/test_probe_containment.py.

The factories write the pids of what they start to a file in $CONTAINMENT_PIDS_DIR (named after the
factory and the child's pid), so a test knows what must be gone once the probe returns.
"""

import os
import subprocess
import sys
import time

import torch

SLEEPER = [sys.executable, "-c", "import time; time.sleep(600)"]


def _daemon() -> int:
    """A double-forked, setsid'd sleeper: re-parented to init, outside the child's session and group."""
    read, write = os.pipe()
    if os.fork() == 0:
        os.setsid()
        pid = os.fork()
        if pid == 0:
            time.sleep(600)
            os._exit(0)
        os.write(write, str(pid).encode())
        os._exit(0)
    os.close(write)
    pid = int(os.read(read, 32))
    os.close(read)
    return pid


def _record(factory: str, pids: list[int]) -> None:
    directory = os.environ["CONTAINMENT_PIDS_DIR"]
    path = os.path.join(directory, f"{factory}-{os.getpid()}")
    with open(path + ".tmp", "w") as fh:
        fh.write(" ".join(map(str, pids)))
    os.replace(path + ".tmp", path)  # a reader never sees half the list


def make_setsid_sleepers():
    _record("sleepers", [subprocess.Popen(SLEEPER, start_new_session=True).pid, _daemon()])
    return {"model": torch.nn.Identity(), "inputs": [torch.ones(2)], "checks": ["trace"]}


def _hang(factory: str):
    _record(factory, [os.getpid(), subprocess.Popen(SLEEPER, start_new_session=True).pid])
    while True:
        time.sleep(1)


def make_hang():
    _hang("hang")


def make_hang_too():
    _hang("hang_too")


def make_flood():
    while True:
        print("flood " * 10000)
