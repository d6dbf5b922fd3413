"""Content-hash cache of per-file analysis results, so an unchanged tree re-lints without parsing.

The key is the file's bytes plus everything that changes what the analysis produces: compilelint's own
source (so a new or edited rule invalidates it), the selected rules, the module name and the limits.
Entries are written atomically; a corrupt or unreadable entry is a miss, never an error.
"""

from __future__ import annotations

import glob
import hashlib
import os
import pickle
from functools import lru_cache

import compilelint

CACHE_DIR_NAME = ".compilelint_cache"


@lru_cache(maxsize=1)
def tool_fingerprint() -> str:
    root = os.path.dirname(os.path.abspath(compilelint.__file__))
    digest = hashlib.sha256(compilelint.__version__.encode())
    for path in sorted(glob.glob(os.path.join(root, "**", "*.py"), recursive=True)):
        if os.sep + "runtime_probe" + os.sep in path or os.sep + "kernels" + os.sep in path:
            continue
        with open(path, "rb") as fh:
            digest.update(path[len(root):].encode())
            digest.update(fh.read())
    return digest.hexdigest()[:16]


class Cache:
    def __init__(self, directory: str, salt: str) -> None:
        self.directory = os.path.join(directory, tool_fingerprint())
        self.salt = salt

    def key(self, path: str, source: bytes, extra: str) -> str:
        digest = hashlib.sha256()
        for part in (self.salt, extra, os.path.abspath(path)):
            digest.update(part.encode("utf-8", "surrogateescape"))
            digest.update(b"\0")
        digest.update(source)
        return digest.hexdigest()

    def _file(self, key: str) -> str:
        return os.path.join(self.directory, key[:2], key + ".pickle")

    def get(self, key: str):  # noqa: ANN201
        try:
            with open(self._file(key), "rb") as fh:
                return pickle.load(fh)
        except Exception:
            return None

    def put(self, key: str, value: object) -> None:
        target = self._file(key)
        try:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            tmp = f"{target}.{os.getpid()}.tmp"
            with open(tmp, "wb") as fh:
                pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, target)
        except OSError:
            pass  # a read-only tree just runs uncached
