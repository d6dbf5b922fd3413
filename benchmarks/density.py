"""Findings per 1,000 lines on whole real libraries, with the default configuration.

    python benchmarks/density.py [--json FILE] [--select CODES] [--targets all]

Each library's wheel is downloaded once (`pip download --no-deps`, cached in ~/.cache/compilelint-density) and
its package folder is linted as a user would lint it (`compilelint --no-cache <package>`, the defaults; nothing
is imported). Reports per library: lines, findings, findings per 1,000 lines, the share of flagged lines that
carry more than one finding, and the findings by family. `--targets all` adds the TorchScript and trace rules that
the default ("auto") leaves off in a library that never calls torch.jit: the figures from before that default.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from collections import Counter

LIBRARIES = {  # distribution -> (version, package folder)
    "kornia": ("0.9.0", "kornia"),
    "diffusers": ("0.42.1", "diffusers"),
    "monai": ("1.6.1", "monai"),
    "segmentation-models-pytorch": ("0.6.0", "segmentation_models_pytorch"),
    "open-clip-torch": ("3.3.0", "open_clip"),
}
CACHE = os.path.expanduser("~/.cache/compilelint-density")


def package_root(dist: str, version: str, package: str) -> str:
    target = os.path.join(CACHE, f"{dist}-{version}")
    if not os.path.isdir(os.path.join(target, package)):
        os.makedirs(target, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "-q",
                            "-d", tmp, f"{dist}=={version}"], check=True)
            wheel = glob.glob(os.path.join(tmp, "*.whl"))[0]
            with zipfile.ZipFile(wheel) as zf:
                zf.extractall(target, [n for n in zf.namelist() if n.startswith(package + "/")])
    return target


def lint(root: str, package: str, select: str | None, targets: str | None = None) -> list[dict]:
    cmd = [sys.executable, "-m", "compilelint", "--no-cache", "--exit-zero", "--output-format", "json", package]
    if select:
        cmd += ["--select", select]
    if targets:
        cmd += ["--targets", targets]
    out = subprocess.run(cmd, cwd=root, capture_output=True, text=True, check=True).stdout
    data = json.loads(out)
    return data["findings"] if isinstance(data, dict) else data


def measure(select: str | None = None, targets: str | None = None) -> dict:
    result = {}
    for dist, (version, package) in LIBRARIES.items():
        root = package_root(dist, version, package)
        lines = 0
        for path in glob.glob(os.path.join(root, package, "**", "*.py"), recursive=True):
            with open(path, encoding="utf-8", errors="replace") as fh:
                lines += sum(1 for _ in fh)
        findings = lint(root, package, select, targets)
        per_line = Counter((f["path"], f["line"]) for f in findings)
        families = Counter(f["code"].rstrip("0123456789") for f in findings)
        result[dist] = {
            "version": version, "lines": lines, "findings": len(findings),
            "per_kloc": round(1000 * len(findings) / lines, 1) if lines else None,
            "lines_with_several": round(sum(1 for n in per_line.values() if n > 1) / len(per_line), 3)
            if per_line else 0.0,
            "by_family": dict(families.most_common()),
        }
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--select", help="rule codes or prefixes, as for compilelint --select")
    parser.add_argument("--targets", help="as for compilelint --targets (default: the default, auto)")
    ns = parser.parse_args(argv)
    result = measure(ns.select, ns.targets)
    print("| library | version | lines | findings | per 1,000 lines | flagged lines with >1 finding | by family |")
    print("|---|---|---:|---:|---:|---:|---|")
    for dist, r in result.items():
        fams = ", ".join(f"{k} {v}" for k, v in r["by_family"].items())
        print(f"| {dist} | {r['version']} | {r['lines']} | {r['findings']} | {r['per_kloc']} | "
              f"{r['lines_with_several']:.1%} | {fams} |")
    if ns.json:
        with open(ns.json, "w") as fh:
            json.dump(result, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
