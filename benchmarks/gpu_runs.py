"""What the Gluon benchmark scripts share: running one variant in a child process with a time limit (a GPU
kernel that hangs or crashes costs that variant, not the run), and the copy ceiling they report against."""

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


def copy_ceiling_tbps() -> float:
    """A 1 GiB bf16 device-to-device copy (torch's copy_), in TB/s of bytes read + written: the ceiling issue 7
    measures memory-bound kernels against."""
    import torch
    from triton.testing import do_bench

    src = torch.empty(1 << 29, dtype=torch.bfloat16, device="cuda")
    dst = torch.empty_like(src)
    ms = do_bench(lambda: dst.copy_(src), warmup=20, rep=200)
    return 2 * src.numel() * src.element_size() / ms / 1e9
