"""Run one benchmark variant in a child process with a time limit (a GPU kernel that hangs or crashes costs
that variant, not the run), and print the child's result lines."""

from __future__ import annotations

import subprocess
import sys
import time


def run_child(args: list[str], marker: str, label: str, limit: float, last_only: bool = False) -> None:
    """`python *args`; print its stdout lines holding `marker` (only the last with `last_only`), else why
    there are none: its last stderr line, or that it ran past `limit` seconds and was killed."""
    t0 = time.time()
    try:
        r = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        print(f"{label}: no result in {time.time() - t0:.0f} s (killed)", flush=True)
        return
    lines = [ln for ln in r.stdout.splitlines() if marker in ln]
    if last_only:
        lines = lines[-1:]
    print("\n".join(lines) if lines else f"{label} failed: {(r.stderr.strip().splitlines() or ['?'])[-1][:300]}",
          flush=True)
