"""Writing files so that nothing is lost: a reader never sees half of one, and `--fix` writes only over the
very bytes it analyzed.

`write_atomic` (reports, baselines): a temporary file in the same folder, then a rename.

`replace_verified` (source files rewritten by --fix): the file must still hold the bytes the
fixes were computed from (a SHA-256 compared just before the replacement, so an edit saved meanwhile is
kept and the file skipped), and it stays the same file to everyone else:
- a symlink is followed: the target is rewritten, the link is left as it is;
- a file without any write permission bit is not rewritten, even by root (the owner marked it read-only);
- mode and owner are kept: the temporary file gets both before the rename; where the owner cannot be
  given (someone else's file that we may write), and for a file with several hard links, the bytes are
  written in place into the same inode instead, after reserving the space so that a full disk fails
  before anything is overwritten.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import tempfile


class NotWritten(Exception):
    """The file was left as it is; the message says why."""


class FileChanged(NotWritten):
    """The file no longer holds the bytes that were analyzed."""


def write_atomic(path: str, data: str | bytes) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".compilelint-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            mode = os.stat(path).st_mode & 0o7777
            os.chmod(tmp, mode)
        except FileNotFoundError:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def replace_verified(path: str, data: bytes, expected: str) -> None:
    """Write `data` over the file `path` names if it still holds the bytes whose SHA-256 is `expected`.
    Raises FileChanged or NotWritten (the file untouched), or OSError from the write itself."""
    target = os.path.realpath(path)
    try:
        st = os.stat(target)
    except OSError as err:
        raise NotWritten(f"cannot read it: {err.strerror or err}") from err
    if not stat.S_ISREG(st.st_mode):
        raise NotWritten("not a regular file")
    if not st.st_mode & 0o222:
        raise NotWritten(f"read-only (mode {stat.filemode(st.st_mode)})")
    if not os.access(target, os.W_OK):
        raise NotWritten("no permission to write it")
    if st.st_nlink > 1:
        _write_in_place(target, data, expected)
        return
    directory = os.path.dirname(target)
    try:
        fd, tmp = tempfile.mkstemp(prefix=".compilelint-", suffix=".tmp", dir=directory)
    except OSError as err:
        raise NotWritten(f"cannot create a file in its folder {directory}: {err.strerror or err}") from err
    try:
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        except OSError as err:
            raise NotWritten(f"cannot write a temporary copy in {directory}: {err.strerror or err}") from err
        if (st.st_uid, st.st_gid) != _owner(tmp):
            try:
                os.chown(tmp, st.st_uid, st.st_gid)
            except (OSError, AttributeError):  # someone else's file: keep its owner by writing into it
                os.unlink(tmp)
                _write_in_place(target, data, expected)
                return
        os.chmod(tmp, stat.S_IMODE(st.st_mode))  # after chown, which clears the set-id bits
        _check_unchanged(target, expected)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _sync_folder(directory)


def _owner(path: str) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_uid, st.st_gid


def _check_unchanged(target: str, expected: str) -> None:
    with open(target, "rb") as fh:
        if digest_of(fh.read()) != expected:
            raise FileChanged("it changed since it was analyzed (saved meanwhile?); left as it is")


def _write_in_place(target: str, data: bytes, expected: str) -> None:
    """Rewrite the file's own inode (hard links and owner stay): check, reserve space, write, cut, sync."""
    try:
        fd = os.open(target, os.O_RDWR | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    except OSError as err:
        raise NotWritten(f"cannot open it for writing: {err.strerror or err}") from err
    try:
        with os.fdopen(os.dup(fd), "rb") as fh:
            current = fh.read()
        if digest_of(current) != expected:
            raise FileChanged("it changed since it was analyzed (saved meanwhile?); left as it is")
        if len(data) > len(current) and hasattr(os, "posix_fallocate"):
            try:
                os.posix_fallocate(fd, 0, len(data))
            except OSError as err:
                if err.errno not in (errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS):  # (a file system that cannot)
                    raise NotWritten(f"no space to write it: {err.strerror or err}") from err
        view = memoryview(data)
        offset = 0
        while offset < len(data):
            offset += os.pwrite(fd, view[offset:], offset) if hasattr(os, "pwrite") else _seek_write(fd, view, offset)
        os.ftruncate(fd, len(data))
        os.fsync(fd)
    finally:
        os.close(fd)


def _seek_write(fd: int, view: memoryview, offset: int) -> int:
    os.lseek(fd, offset, os.SEEK_SET)
    return os.write(fd, view[offset:])


def _sync_folder(directory: str) -> None:
    """The rename itself survives a power cut once the folder is synced (where folders can be opened)."""
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
