"""`--fix` is a verified write (issue #31): it writes only over the bytes it analyzed, so an edit saved
meanwhile survives; it leaves read-only files alone, fixes a symlink's target in place, keeps hard links,
mode and owner; a file it cannot write is a message and the run goes on to its report."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from compilelint import atomic, fix
from compilelint.config import Config
from compilelint.engine import lint

# GB405's fix (unsafe: it changes behaviour) replaces the print with `pass`
PRINTS = textwrap.dedent('''\
    import torch


    class Head(torch.nn.Module):
        def forward(self, x):
            print(x.shape)
            return x * 2
''')
FIXED = PRINTS.replace("print(x.shape)", "pass")


def run_fix(*paths: Path, cwd: Path | None = None, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    return subprocess.run([*prefix, sys.executable, "-m", "compilelint", *map(str, paths), "--fix", "--unsafe-fixes",
                           "--no-cache", "-j1"], capture_output=True, text=True, timeout=120, cwd=cwd)


def test_fix_applies_and_reports(tmp_path):
    target = tmp_path / "m.py"
    target.write_text(PRINTS)
    proc = run_fix(target)
    assert target.read_text() == FIXED, proc.stderr
    assert "Fixed 1 finding" in proc.stderr and "Traceback" not in proc.stderr


def test_an_edit_saved_after_the_analysis_survives(tmp_path):
    """The analysis read one version; the user saved another before the fixes were applied: the file is
    skipped with a message, the user's edit kept (this used to put `pass` over the new line)."""
    target = tmp_path / "m.py"
    target.write_text(PRINTS)
    edited = PRINTS.replace("import torch\n", "import torch\nimport logging  # saved while --fix ran\n")
    skipped: list[tuple[str, str]] = []

    def lint_then_the_user_saves():  # noqa: ANN202
        result = lint([str(target)], Config(root=str(tmp_path)), jobs=1)
        target.write_text(edited)
        return result

    changes, applied = fix.fix_files(lint_then_the_user_saves, unsafe=True, write=True,
                                     on_skip=lambda p, why: skipped.append((p, why)))
    assert target.read_text() == edited
    assert (changes, applied) == ({}, 0)
    assert skipped == [(str(target), "it changed since it was analyzed (saved meanwhile?); left as it is")]


def test_an_edit_saved_while_the_fix_is_computed_survives(tmp_path, monkeypatch):
    """The same when the save lands after --fix read the file and before it replaces it: the hash is
    compared once more just before the replacement."""
    target = tmp_path / "m.py"
    target.write_text(PRINTS)
    edited = PRINTS + "# saved while --fix ran\n"
    real_apply = fix.apply_to_text

    def apply_while_the_user_saves(text, fixes):  # noqa: ANN001, ANN202
        target.write_text(edited)
        return real_apply(text, fixes)

    monkeypatch.setattr(fix, "apply_to_text", apply_while_the_user_saves)
    skipped: list[str] = []
    changes, applied = fix.fix_files(lambda: lint([str(target)], Config(root=str(tmp_path)), jobs=1), unsafe=True,
                                     write=True, on_skip=lambda p, why: skipped.append(why))
    assert target.read_text() == edited and applied == 0 and changes == {}
    assert skipped and "changed since it was analyzed" in skipped[0]


def test_replace_verified_refuses_other_bytes_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "m.py"
    target.write_bytes(b"new content\n")
    with pytest.raises(atomic.FileChanged):
        atomic.replace_verified(str(target), b"fixed\n", hashlib.sha256(b"old content\n").hexdigest())
    assert target.read_bytes() == b"new content\n"
    assert [p.name for p in tmp_path.iterdir()] == ["m.py"]


def test_read_only_file_is_not_rewritten_and_the_report_still_comes(tmp_path):
    """0444 is the owner's word: not rewritten, even by root (whom the system would let)."""
    (tmp_path / "ro.py").write_text(PRINTS)
    (tmp_path / "rw.py").write_text(PRINTS)
    os.chmod(tmp_path / "ro.py", 0o444)
    proc = run_fix(tmp_path)
    assert (tmp_path / "ro.py").read_text() == PRINTS
    assert stat.S_IMODE(os.stat(tmp_path / "ro.py").st_mode) == 0o444
    assert (tmp_path / "rw.py").read_text() == FIXED
    assert f"{tmp_path / 'ro.py'}: fixes not written: read-only" in proc.stderr
    assert proc.returncode == 1 and "ro.py:6:9: GB405" in proc.stdout  # the finding stays in the report


def test_symlink_target_is_fixed_in_place_and_the_link_kept(tmp_path):
    (tmp_path / "real").mkdir()
    real = tmp_path / "real" / "model.py"
    real.write_text(PRINTS)
    link = tmp_path / "link.py"
    link.symlink_to(real)
    proc = run_fix(link)
    assert link.is_symlink() and os.readlink(link) == str(real), proc.stderr
    assert real.read_text() == FIXED


def test_hard_links_stay_one_file(tmp_path):
    first = tmp_path / "a.py"
    first.write_text(PRINTS)
    second = tmp_path / "b_link.py"
    os.link(first, second)
    inode = os.stat(first).st_ino
    proc = run_fix(first)
    assert os.stat(first).st_ino == inode == os.stat(second).st_ino, proc.stderr
    assert os.stat(first).st_nlink == 2
    assert second.read_text() == FIXED


def test_mode_and_owner_are_kept(tmp_path):
    target = tmp_path / "m.py"
    target.write_text(PRINTS)
    os.chmod(target, 0o640)
    owner = (os.getuid(), os.getgid())
    if os.geteuid() == 0:  # root can hand the file to someone else first: the rewrite must keep that owner
        owner = (12345, 12346)
        os.chown(target, *owner)
    proc = run_fix(target)
    st = os.stat(target)
    assert target.read_text() == FIXED, proc.stderr
    assert stat.S_IMODE(st.st_mode) == 0o640
    assert (st.st_uid, st.st_gid) == owner


def _without_root() -> tuple[str, ...] | None:
    """A command prefix under which folder permissions apply: none needed for a normal user; for root, a new
    user namespace (root there holds no rights over this system's files)."""
    if os.geteuid() != 0:
        return ()
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    probe = subprocess.run([unshare, "-U", sys.executable, "-c", "import os; print(os.geteuid())"],
                           capture_output=True, text=True)
    return (unshare, "-U") if probe.returncode == 0 else None


def test_an_unwritable_folder_is_a_message_and_the_run_goes_on(tmp_path):
    prefix = _without_root()
    if prefix is None:
        pytest.skip("running as root without `unshare -U`: folder permissions cannot be made to apply")
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "m.py").write_text(PRINTS)
    (tmp_path / "open.py").write_text(PRINTS)
    os.chmod(locked, 0o555)
    try:
        proc = run_fix(tmp_path, prefix=prefix)
    finally:
        os.chmod(locked, 0o755)
    assert (locked / "m.py").read_text() == PRINTS
    assert (tmp_path / "open.py").read_text() == FIXED, proc.stderr
    assert f"{locked / 'm.py'}: fixes not written: cannot create a file in its folder" in proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    assert proc.returncode == 1 and "m.py:6:9: GB405" in proc.stdout
    assert sorted(p.name for p in locked.iterdir()) == ["m.py"]


def test_a_file_we_may_not_write_is_a_message(tmp_path):
    """Write bits set, but not for us (someone else's 0644 file): a message, not a traceback."""
    prefix = _without_root()
    if prefix is None or os.geteuid() != 0:
        pytest.skip("needs root (to give the file to someone else) and `unshare -U` (to then be refused)")
    theirs = tmp_path / "theirs.py"
    theirs.write_text(PRINTS)
    os.chown(theirs, 12345, 12345)
    proc = run_fix(theirs, prefix=prefix)
    assert theirs.read_text() == PRINTS
    assert f"{theirs}: fixes not written: no permission to write it" in proc.stderr, proc.stderr
    assert proc.returncode == 1 and "Traceback" not in proc.stderr


def test_someone_elses_writable_file_is_written_in_place(tmp_path, monkeypatch):
    """Where the temporary copy cannot be given the file's owner, the bytes go into the file itself."""
    target = tmp_path / "m.py"
    target.write_text(PRINTS)
    inode = os.stat(target).st_ino

    def refuse(*_):  # noqa: ANN002, ANN202
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(atomic.os, "chown", refuse)
    monkeypatch.setattr(atomic, "_owner", lambda path: (-1, -1))  # the temporary file is not the owner's
    atomic.replace_verified(str(target), FIXED.encode(), hashlib.sha256(PRINTS.encode()).hexdigest())
    assert target.read_text() == FIXED and os.stat(target).st_ino == inode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.py"]
