"""A file's identity for everything that must outlive one run: its real path relative to the project root.

Baseline entries and SARIF fingerprints and URIs are keyed by it, so they do not change with the working
directory, with a path given absolute or relative, or with a symlink the file was reached through.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from compilelint.findings import Finding


def root_relative(path: str, root: str) -> str | None:
    """`path`'s real path relative to `root`'s real path, with "/" separators; None when outside the root."""
    real, real_root = os.path.realpath(path), os.path.realpath(root)
    try:
        rel = os.path.relpath(real, real_root)
    except ValueError:  # another drive (Windows)
        return None
    if rel == os.pardir or rel.startswith(os.pardir + os.sep) or os.path.isabs(rel):
        return None
    return rel.replace(os.sep, "/")


def project_path(path: str, root: str) -> str:
    """The root-relative real path; for a file outside the root, its absolute real path."""
    rel = root_relative(path, root)
    return rel if rel is not None else Path(os.path.realpath(path)).as_posix()


def stable_fingerprint(finding: Finding, root: str) -> str:
    """Finding.fingerprint() with the path as the project knows it, not as it was typed."""
    return dataclasses.replace(finding, path=project_path(finding.path, root)).fingerprint()
