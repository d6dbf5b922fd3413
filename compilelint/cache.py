"""Content-hash cache of per-file analysis results, so an unchanged tree re-lints without parsing.

The key is the file's bytes plus everything that changes what the analysis produces: compilelint's own
source (so a new or edited rule invalidates it), the selected rules, the path as given and its real path,
the module name and the limits.

A cache is data a scanned repository may have planted (a folder in the tree, a shared CI cache), so an
entry can neither run code nor inject findings:
- entries are JSON, decoded field by field into the known result types; anything malformed, unexpected
  or oversized is a miss, never an error and never trusted;
- each entry carries an HMAC-SHA256 of its key and bytes under a per-user secret (32 random bytes, mode
  0600, in the user cache folder), checked before the JSON is parsed: an entry compilelint did not write
  for this user is a miss, wherever the cache folder lies;
- writes go to a fresh, randomly named temporary file opened with O_CREAT|O_EXCL|O_NOFOLLOW inside
  folders opened with O_NOFOLLOW, then os.replace: a symlink planted in the cache is never followed;
- by default the cache lives outside the scanned tree, in $XDG_CACHE_HOME/compilelint (else
  ~/.cache/compilelint), one folder per project root, and is pruned by age and total size.
A result that timed out is never written: the time limit may have been the machine's load, not the file.
"""

from __future__ import annotations

import contextlib
import dataclasses
import glob
import hashlib
import hmac
import json
import os
import re
import secrets
import stat
import time
import types
import typing
from functools import lru_cache

import compilelint
from compilelint.findings import SEVERITIES, TARGETS

CACHE_DIR_NAME = ".compilelint_cache"  # excluded from discovery wherever a --cache-dir of that name lies
FORMAT = b"compilelint-cache-1"
SECRET_NAME = "secret"
SECRET_BYTES = 32
MAX_ENTRY_BYTES = 64 << 20  # a 4 MB source file's result is a few MB; more is not an entry compilelint wrote
MAX_AGE_S = 30 * 86400
MAX_TOTAL_BYTES = 512 << 20
PRUNE_INTERVAL_S = 86400
_PRUNE_STAMP = "last-prune"

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
# (os.replace takes dir_fd wherever os.rename does; supports_dir_fd lists only the latter)
_DIR_FD = os.open in os.supports_dir_fd and os.rename in os.supports_dir_fd and _NOFOLLOW != 0


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


def user_cache_root() -> str | None:
    """$XDG_CACHE_HOME/compilelint, else ~/.cache/compilelint; None where there is no home to put it in."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # the XDG spec: a relative value is invalid and ignored
        home = os.path.expanduser("~")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return os.path.join(base, "compilelint")


def default_cache_dir(project_root: str) -> str | None:
    """The cache folder of one project: outside its tree, named by a hash of the root's real path."""
    user_root = user_cache_root()
    if user_root is None:
        return None
    digest = hashlib.sha256(os.path.realpath(project_root).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return os.path.join(user_root, "projects", digest)


# --- the per-user secret -------------------------------------------------------------------------------------

def _read_secret(path: str) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        # someone else's file, or one others can read, is no secret
        if not stat.S_ISREG(st.st_mode) or st.st_mode & 0o077 or \
                (hasattr(os, "geteuid") and st.st_uid != os.geteuid()) or st.st_size != SECRET_BYTES:
            return None
        data = os.read(fd, SECRET_BYTES + 1)
        return data if len(data) == SECRET_BYTES else None
    finally:
        os.close(fd)


def _create_secret(path: str) -> bytes | None:
    """Write a new secret without ever showing a partial one: a private temporary file, linked into place
    (os.link fails if another process won the race; then its secret is the one)."""
    directory = os.path.dirname(path)
    tmp = os.path.join(directory, f".{SECRET_NAME}.{secrets.token_hex(8)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600)
    try:
        try:
            os.write(fd, secrets.token_bytes(SECRET_BYTES))
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        except OSError:  # a file system without hard links
            if not os.path.lexists(path):
                os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    return _read_secret(path)


def load_secret(user_root: str | None = None) -> bytes | None:
    """The per-user HMAC key, created on first use; None (the run goes uncached) where it cannot be kept."""
    user_root = user_root or user_cache_root()
    if user_root is None:
        return None
    path = os.path.join(user_root, SECRET_NAME)
    secret = _read_secret(path)
    if secret is not None:
        return secret
    try:
        os.makedirs(user_root, mode=0o700, exist_ok=True)
        if os.path.lexists(path):  # unreadable, too open, not ours, or the wrong size: a stale, untrusted key
            os.unlink(path)
        return _create_secret(path)
    except OSError:
        return None


# --- results to and from JSON --------------------------------------------------------------------------------

class _Invalid(Exception):
    """Raised while decoding: the entry is a miss."""


_SCALARS = (str, bool, int)  # JSON gives exactly these types back (bool is not taken for int, nor int for bool)


def _fail(tp: object) -> typing.NoReturn:
    raise _Invalid(tp)


@lru_cache(maxsize=None)
def _decoder(tp: object):  # noqa: ANN202
    """A function turning parsed JSON into an instance of the type annotation `tp`, checking it all the way
    down. Built once per type (a warm run decodes a million values), so the checks cost no type inspection."""
    if tp in _SCALARS:
        def scalar(value):  # noqa: ANN001, ANN202
            return value if type(value) is tp else _fail(tp)
        return scalar
    if tp is float:
        return lambda value: float(value) if type(value) in (int, float) else _fail(tp)
    if tp is type(None):
        return lambda value: None if value is None else _fail(tp)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        optional = len(options) < len(args)
        if len(options) == 1:
            only = _decoder(options[0])
            return lambda value: None if value is None and optional else only(value)

        def union(value):  # noqa: ANN001, ANN202
            if value is None and optional:
                return None
            for option in options:
                try:
                    return _decoder(option)(value)
                except _Invalid:
                    continue
            return _fail(tp)
        return union
    if origin in (list, set, frozenset) or (origin is tuple and len(args) == 2 and args[1] is Ellipsis):
        make = {list: None, tuple: tuple, set: set, frozenset: frozenset}[origin]
        if args[0] in _SCALARS:
            inner = args[0]

            def scalars(value):  # noqa: ANN001, ANN202
                if type(value) is not list or not all(type(v) is inner for v in value):
                    _fail(tp)
                return make(value) if make else value
            return scalars
        item = _decoder(args[0])

        def sequence(value):  # noqa: ANN001, ANN202
            if type(value) is not list:
                _fail(tp)
            return make(map(item, value)) if make else [item(v) for v in value]
        return sequence
    if origin is tuple and all(a in _SCALARS for a in args):
        def scalar_tuple(value):  # noqa: ANN001, ANN202
            if type(value) is not list or len(value) != len(args) or \
                    not all(type(v) is a for v, a in zip(value, args)):
                _fail(tp)
            return tuple(value)
        return scalar_tuple
    if origin is tuple:
        items = [_decoder(a) for a in args]

        def fixed(value):  # noqa: ANN001, ANN202
            if type(value) is not list or len(value) != len(items):
                _fail(tp)
            return tuple(d(v) for d, v in zip(items, value))
        return fixed
    if origin is dict:
        key, val = _decoder(args[0]), _decoder(args[1])

        def mapping(value):  # noqa: ANN001, ANN202
            if type(value) is not dict:
                _fail(tp)
            return {key(k): val(v) for k, v in value.items()}
        return mapping
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _dataclass_decoder(tp)
    return lambda value: _fail(tp)  # a type this codec was not written for: never guess


def _dataclass_decoder(cls: type):  # noqa: ANN202
    fields: dict[str, object] = {}
    required: frozenset[str] = frozenset()

    def build(value):  # noqa: ANN001, ANN202
        nonlocal fields, required
        if not fields:  # resolved on first use, so a dataclass may refer to itself
            hints = typing.get_type_hints(cls)
            init = [f for f in dataclasses.fields(cls) if f.init]
            required = frozenset(f.name for f in init
                                 if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)
            fields = {f.name: _decoder(hints[f.name]) for f in init}
        if type(value) is not dict or not required <= value.keys() or not value.keys() <= fields.keys():
            _fail(cls)
        return cls(**{name: fields[name](v) for name, v in value.items()})
    return build


def _decode(tp: object, value: object) -> object:
    """`value` (parsed JSON) as an instance of the type annotation `tp`, checked all the way down."""
    return _decoder(tp)(value)


_TARGETS = frozenset(TARGETS)


def _check_finding(finding: object) -> None:
    if finding.severity not in SEVERITIES or not _TARGETS.issuperset(finding.targets) or \
            min(finding.line, finding.col, finding.end_line, finding.end_col) < 0:
        raise _Invalid(finding)


def _sets_as_lists(value: object) -> list:
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)  # sorted: the same result gives the same bytes
    raise TypeError(f"{type(value).__name__} has no JSON form in the cache")


def result_to_json(result: object) -> bytes:
    """A FileResult as compact JSON (tuples and sets become lists; result_from_json turns them back)."""
    return json.dumps(dataclasses.asdict(result), separators=(",", ":"), allow_nan=False,
                      default=_sets_as_lists).encode("ascii")


def result_from_json(data: bytes | str):  # noqa: ANN201
    """The FileResult in `data`, or None if it is not exactly one (wrong shape, type, value or an E002)."""
    from compilelint.analyzer import FileResult
    from compilelint.rules.registry import FILE_TIMEOUT

    try:
        result = _decode(FileResult, json.loads(data))
        for finding, _, _ in result.findings:
            _check_finding(finding)
            if finding.code == FILE_TIMEOUT:
                raise _Invalid(finding)
    except Exception:  # noqa: BLE001 - whatever the bytes are, they are a miss, never the run's error
        return None
    return result


def _times_out(result: object) -> bool:
    from compilelint.rules.registry import FILE_TIMEOUT

    return any(f.code == FILE_TIMEOUT for f, _, _ in getattr(result, "findings", ()))


# --- the store -----------------------------------------------------------------------------------------------

def _open_dir(name: str, parent_fd: int | None, create: bool) -> int:
    """Open the folder `name` (under parent_fd) without following a symlink; create it (0700) if asked."""
    flags = os.O_RDONLY | _DIRECTORY | _CLOEXEC
    if parent_fd is None:  # the cache folder itself: the user named it (or it is ours); only below do we refuse links
        if create:
            os.makedirs(name, mode=0o700, exist_ok=True)
        return os.open(name, flags)
    try:
        return os.open(name, flags | _NOFOLLOW, dir_fd=parent_fd)
    except FileNotFoundError:
        if not create:
            raise
    try:
        os.mkdir(name, 0o700, dir_fd=parent_fd)
    except FileExistsError:
        pass
    return os.open(name, flags | _NOFOLLOW, dir_fd=parent_fd)


def _mark_cache_folder(directory: str) -> None:
    """CACHEDIR.TAG (backup tools skip the folder) and a .gitignore of `*` (nobody commits it), once."""
    for name, text in (("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n"
                                        "# compilelint's cache: https://bford.info/cachedir/\n"),
                       (".gitignore", "*\n")):
        try:
            fd = os.open(os.path.join(directory, name), os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC,
                         0o644)
        except OSError:
            continue
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)


class Cache:
    def __init__(self, directory: str, salt: str, secret: bytes | None = None) -> None:
        self.base = directory
        self.directory = os.path.join(directory, tool_fingerprint())
        self.salt = salt
        self._secret = secret
        self._secret_loaded = secret is not None

    @property
    def secret(self) -> bytes | None:
        if not self._secret_loaded:  # lazily, once per process (each worker of a pool reads it itself)
            self._secret = load_secret()
            self._secret_loaded = True
        return self._secret

    def key(self, path: str, source: bytes, extra: str) -> str:
        # The path as given is part of the key: a result names its file as the run that wrote it named it.
        digest = hashlib.sha256()
        for part in (self.salt, extra, path, os.path.abspath(path), os.path.realpath(path)):
            digest.update(part.encode("utf-8", "surrogateescape"))
            digest.update(b"\0")
        digest.update(source)
        return digest.hexdigest()

    def _mac(self, secret: bytes, key: str, payload: bytes) -> bytes:
        return hmac.new(secret, FORMAT + b"\0" + key.encode("ascii") + b"\0" + payload, hashlib.sha256) \
            .hexdigest().encode("ascii")

    @staticmethod
    def _valid_key(key: str) -> bool:
        return len(key) == 64 and all(c in "0123456789abcdef" for c in key)

    def _read(self, key: str) -> bytes | None:
        if not _DIR_FD:
            with open(os.path.join(self.directory, key[:2], key + ".json"), "rb") as fh:
                return fh.read(MAX_ENTRY_BYTES + 1)
        fds: list[int] = []
        try:
            fds.append(_open_dir(self.directory, None, False))
            fds.append(_open_dir(key[:2], fds[-1], False))
            fd = os.open(key + ".json", os.O_RDONLY | _NOFOLLOW | _CLOEXEC, dir_fd=fds[-1])
            fds.append(fd)
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_ENTRY_BYTES:
                return None
            if os.utime in os.supports_fd:  # a hit keeps its entry young: pruning goes by last use
                with contextlib.suppress(OSError):
                    os.utime(fd)
            with os.fdopen(os.dup(fd), "rb") as fh:
                return fh.read(MAX_ENTRY_BYTES + 1)
        finally:
            for fd in fds:
                os.close(fd)

    def get(self, key: str):  # noqa: ANN201
        """The FileResult stored under `key`, or None: missing, not ours (bad HMAC), malformed."""
        secret = self.secret
        if secret is None or not self._valid_key(key):
            return None
        try:
            data = self._read(key)
        except (OSError, ValueError):
            return None
        if data is None or len(data) > MAX_ENTRY_BYTES:
            return None
        header, _, rest = data.partition(b"\n")
        mac, _, payload = rest.partition(b"\n")
        if header != FORMAT or not hmac.compare_digest(mac, self._mac(secret, key, payload)):
            return None
        return result_from_json(payload)

    def put(self, key: str, value: object) -> None:
        secret = self.secret
        if secret is None or not self._valid_key(key) or _times_out(value):
            return
        try:
            payload = result_to_json(value)
        except Exception:  # noqa: BLE001 - a result this codec cannot write is simply not cached
            return
        if len(payload) > MAX_ENTRY_BYTES:
            return
        data = FORMAT + b"\n" + self._mac(secret, key, payload) + b"\n" + payload
        try:
            self._write(key, data)
        except OSError:
            pass  # a read-only or full disk just runs uncached

    def _write(self, key: str, data: bytes) -> None:
        fresh = not os.path.isdir(self.base)
        tmp = f".{key[:16]}.{secrets.token_hex(8)}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
        if not _DIR_FD:
            folder = os.path.join(self.directory, key[:2])
            os.makedirs(folder, mode=0o700, exist_ok=True)
            fd = os.open(os.path.join(folder, tmp), flags, 0o600)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                os.replace(os.path.join(folder, tmp), os.path.join(folder, key + ".json"))
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(folder, tmp))
                raise
            return
        fds: list[int] = []
        try:
            fds.append(_open_dir(self.base, None, True))
            if fresh:
                _mark_cache_folder(self.base)
            fds.append(_open_dir(os.path.basename(self.directory), fds[-1], True))
            folder = _open_dir(key[:2], fds[-1], True)
            fds.append(folder)
            fd = os.open(tmp, flags, 0o600, dir_fd=folder)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                # os.replace renames over whatever is at the name (a planted symlink included): it never writes
                # through it
                os.replace(tmp, key + ".json", src_dir_fd=folder, dst_dir_fd=folder)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp, dir_fd=folder)
                raise
        finally:
            for fd in fds:
                os.close(fd)


# --- pruning -------------------------------------------------------------------------------------------------

# Only names compilelint writes are ever deleted, so a --cache-dir that is some other folder loses nothing else.
_FINGERPRINT_DIR = re.compile(r"[0-9a-f]{16}")
_SHARD_DIR = re.compile(r"[0-9a-f]{2}")
_ENTRY = re.compile(r"[0-9a-f]{64}\.json|\.[0-9a-f]{16}\.[0-9a-f]{16}\.tmp")


def _entries(directory: str) -> list[tuple[float, int, str]]:
    """(mtime, size, path) of every entry and leftover temporary file under a cache folder."""
    out = []
    for fingerprint in _listdir(directory, _FINGERPRINT_DIR):
        for shard in _listdir(os.path.join(directory, fingerprint), _SHARD_DIR):
            folder = os.path.join(directory, fingerprint, shard)
            for name in _listdir(folder, _ENTRY):
                with contextlib.suppress(OSError):
                    st = os.lstat(os.path.join(folder, name))
                    out.append((st.st_mtime, st.st_size, os.path.join(folder, name)))
    return out


def _listdir(directory: str, pattern: re.Pattern) -> list[str]:
    try:
        return [name for name in os.listdir(directory) if pattern.fullmatch(name)]
    except OSError:
        return []


def prune(directory: str, *, max_age_s: float = MAX_AGE_S, max_bytes: int = MAX_TOTAL_BYTES,
          force: bool = False, now: float | None = None) -> int:
    """Delete a cache folder's entries unused for max_age_s, then the least recently used until it holds at
    most max_bytes; the entries of other compilelint versions age out the same way. At most once a day
    unless `force`. Returns the number of files removed; never raises."""
    now = time.time() if now is None else now
    stamp = os.path.join(directory, _PRUNE_STAMP)
    with contextlib.suppress(OSError):
        if not force and 0 <= now - os.lstat(stamp).st_mtime < PRUNE_INTERVAL_S:
            return 0
    if not os.path.isdir(directory):
        return 0
    entries = sorted(_entries(directory))
    total = sum(size for _, size, _ in entries)
    removed = 0
    for mtime, size, path in entries:
        if now - mtime <= max_age_s and total <= max_bytes:
            break
        with contextlib.suppress(OSError):
            os.unlink(path)
            removed += 1
            total -= size
    for fingerprint in _listdir(directory, _FINGERPRINT_DIR):
        for shard in _listdir(os.path.join(directory, fingerprint), _SHARD_DIR):
            with contextlib.suppress(OSError):
                os.rmdir(os.path.join(directory, fingerprint, shard))  # only an empty one goes
        with contextlib.suppress(OSError):
            os.rmdir(os.path.join(directory, fingerprint))
    with contextlib.suppress(OSError):
        os.close(os.open(stamp, os.O_WRONLY | os.O_CREAT | _NOFOLLOW | _CLOEXEC, 0o600))
        os.utime(stamp, (now, now))
    return removed


def prune_user_cache(**limits: object) -> int:
    """prune() every project folder of the user cache (a project not linted for a month goes entirely)."""
    user_root = user_cache_root()
    if user_root is None:
        return 0
    projects = os.path.join(user_root, "projects")
    removed = 0
    for project in _listdir(projects, _FINGERPRINT_DIR):
        folder = os.path.join(projects, project)
        removed += prune(folder, **limits)  # type: ignore[arg-type]
        with contextlib.suppress(OSError):
            if not _listdir(folder, _FINGERPRINT_DIR):
                for name in (_PRUNE_STAMP, "CACHEDIR.TAG", ".gitignore"):
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(os.path.join(folder, name))
                os.rmdir(folder)
    return removed
