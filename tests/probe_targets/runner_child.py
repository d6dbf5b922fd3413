"""A child for runner.run_in_child that misbehaves the ways a probe target can, without importing torch:
`python -m tests.probe_targets.runner_child --mode MODE --dir DIR --result FILE`.

  setsid    starts three sleepers that leave the child's process group (a `start_new_session` child, one
            that also clears its environment, and a double-forked `os.setsid` daemon), writes their pids
            to DIR/pids, waits a second and exits cleanly
  hang      starts a `start_new_session` sleeper, writes DIR/pids, then sleeps for ever
  flood     writes to stdout without end (numbered chunks: the first and the latest are recognisable)
  big_file  writes 3 MB to DIR/big and records how far it got
  spin      burns CPU for ever
"""

import argparse
import json
import os
import subprocess
import sys
import time

SLEEPER = [sys.executable, "-c", "import time; time.sleep(600)"]


def _daemon() -> int:
    """A double-forked, setsid'd sleeper (the classic daemon): re-parented to init, in a session of its own."""
    read, write = os.pipe()
    if os.fork() == 0:
        os.setsid()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            os.close(write)
            time.sleep(600)
            os._exit(0)
        os.write(write, str(pid).encode())
        os._exit(0)
    os.close(write)
    pid = int(os.read(read, 32))
    os.close(read)
    return pid


def _write_pids(directory: str, pids: list[int]) -> None:
    tmp = os.path.join(directory, "pids.tmp")
    with open(tmp, "w") as fh:
        fh.write(" ".join(map(str, pids)))
    os.replace(tmp, os.path.join(directory, "pids"))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", required=True)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--result", required=True)
    ns = parser.parse_args()
    result: dict = {"mode": ns.mode}
    if ns.mode == "setsid":
        pids = [subprocess.Popen(SLEEPER, start_new_session=True).pid,
                subprocess.Popen(SLEEPER, start_new_session=True, env={}).pid, _daemon()]
        _write_pids(ns.dir, pids)
        time.sleep(1.0)
    elif ns.mode == "hang":
        _write_pids(ns.dir, [os.getpid(), subprocess.Popen(SLEEPER, start_new_session=True).pid])
        while True:
            time.sleep(1)
    elif ns.mode == "flood":
        chunk = 0
        while True:
            sys.stdout.write(f"<chunk {chunk}>" + "x" * 1000 + "\n")
            chunk += 1
    elif ns.mode == "big_file":
        written = 0
        try:
            with open(os.path.join(ns.dir, "big"), "wb") as fh:
                for _ in range(48):
                    fh.write(b"y" * 65536)
                    fh.flush()
                    written += 65536
        except OSError as err:
            result["error"] = f"{type(err).__name__}: {err}"
        result["written"] = written
    elif ns.mode == "spin":
        while True:
            pass
    with open(ns.result, "w") as fh:
        json.dump(result, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
