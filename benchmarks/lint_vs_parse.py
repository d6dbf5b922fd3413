"""CPU time of `compilelint` on a large real tree against a bare LibCST parse of the same files.

Both run with the same number of worker processes; CPU time is user+sys of this process and its
children (wall time is noisy on a shared machine). The tree: a pinned wheel of timm, unpacked.

    python benchmarks/lint_vs_parse.py                 # downloads timm==1.0.15 into benchmarks/data/
    python benchmarks/lint_vs_parse.py --tree DIR --jobs 2
"""

from __future__ import annotations

import argparse
import glob
import multiprocessing
import os
import resource
import re
import subprocess
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
TIMM = "timm==1.0.15"


def cpu_seconds() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def fetch_timm() -> str:
    target = os.path.join(DATA, "timm")
    if not os.path.isdir(target):
        os.makedirs(DATA, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", TIMM, "-d", DATA], check=True)
        wheel = glob.glob(os.path.join(DATA, "timm-*.whl"))[0]
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(os.path.join(DATA, "timm_unpacked"))
        os.rename(os.path.join(DATA, "timm_unpacked", "timm"), target)
    return target


def _parse(path: str) -> int:
    import libcst

    with open(path, "rb") as fh:
        libcst.parse_module(fh.read())
    return 1


def bare_parse(files: list[str], jobs: int) -> None:
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(jobs) as pool:
        sum(pool.imap(_parse, files, chunksize=max(1, len(files) // (jobs * 4))))


def run_compilelint(tree: str, jobs: int, expected_files: int) -> int:
    # --isolated: the tree's default home, benchmarks/data/, is excluded by this repo's own pyproject
    proc = subprocess.run([sys.executable, "-m", "compilelint", tree, "--jobs", str(jobs), "--isolated",
                           "--no-cache", "--statistics"], capture_output=True, text=True)
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    found = re.search(r"(?:in |\()(\d+) files?", last)  # "Found N findings in M files." / "All checks passed (M files)."
    if not found or int(found.group(1)) != expected_files:
        raise SystemExit(f"compilelint did not lint the whole tree ({expected_files} files): {proc.stdout[-300:]}"
                         f"{proc.stderr[-300:]}")
    return proc.returncode


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tree")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    tree = args.tree or fetch_timm()
    files = sorted(glob.glob(os.path.join(tree, "**", "*.py"), recursive=True))
    size = sum(os.path.getsize(f) for f in files)
    print(f"tree: {tree}: {len(files)} files, {size / 1e6:.1f} MB; jobs={args.jobs}")
    parse_times, lint_times = [], []
    for _ in range(args.repeat):
        start = cpu_seconds()
        bare_parse(files, args.jobs)
        parse_times.append(cpu_seconds() - start)
        start = cpu_seconds()
        rc = run_compilelint(tree, args.jobs, len(files))
        lint_times.append(cpu_seconds() - start)
        if rc not in (0, 1):
            raise SystemExit(f"compilelint exited {rc}")
    p, c = min(parse_times), min(lint_times)
    print(f"bare libcst.parse_module: {p:.2f} s CPU")
    print(f"compilelint (all rules):  {c:.2f} s CPU")
    print(f"ratio compilelint / parse: {c / p:.2f}")


if __name__ == "__main__":
    main()
