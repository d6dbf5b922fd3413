"""GitHub code scanning's `primaryLocationLineHash`, computed as github/codeql-action does (src/fingerprints.ts).

A line's hash is a polynomial rolling hash (base 37, modulo 2**64) over the first 100 characters of the file
from the line's start, after dropping spaces and tabs and turning CR LF and CR into LF. Characters are UTF-16
code units (JavaScript's charCodeAt); the file ends with the code unit 65535 and is padded with zeros. A hash
seen on an earlier line gets the next count (`hash:2`), so repeated lines stay apart. Computing it here, from
the same bytes, means the upload action finds the value it would have computed itself, and alerts keep their
identity when lines above them move.
"""

from __future__ import annotations

import os
import sys

_BLOCK = 100
_MOD = 37
_MASK = (1 << 64) - 1
_EOF = 65535
_LF = 10
_FIRST_MOD = pow(_MOD, _BLOCK, 1 << 64)


def _code_units(text: str) -> list[int]:
    normalized = text.replace("\r\n", "\n").replace("\r", "\n").replace(" ", "").replace("\t", "")
    data = normalized.encode("utf-16-le" if sys.byteorder == "little" else "utf-16-be", "surrogatepass")
    return list(memoryview(data).cast("H"))  # native order, as encoded


def line_hashes(text: str) -> list[str]:
    """The hash of every line of `text`, in order (index 0 is line 1): "hexdigits:count"."""
    units = _code_units(text)
    starts = [0] + [i + 1 for i, unit in enumerate(units) if unit == _LF]
    units.append(_EOF)
    units.extend([0] * _BLOCK)
    prefix = [0] * (len(units) + 1)  # prefix[i]: the hash of units[:i]
    value = 0
    for i, unit in enumerate(units):
        value = (value * _MOD + unit) & _MASK
        prefix[i + 1] = value
    counts: dict[str, int] = {}
    out = []
    for start in starts:
        digest = format((prefix[start + _BLOCK] - prefix[start] * _FIRST_MOD) & _MASK, "x")
        counts[digest] = counts.get(digest, 0) + 1
        out.append(f"{digest}:{counts[digest]}")
    return out


def file_line_hashes(path: str) -> list[str] | None:
    """line_hashes of a file as the upload action reads it (UTF-8, invalid bytes replaced); None if unreadable."""
    if not os.path.isfile(path):  # a FIFO or device named *.py is never opened (engine.py reports it E003)
        return None
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    return line_hashes(data.decode("utf-8", "replace"))
