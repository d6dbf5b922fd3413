"""Bad input never crashes the linter: generated and mutated sources, odd encodings, odd files.

Each case: no exception escapes, a parse-error finding (E001) where the file does not parse, and the
other files' findings are unchanged. A longer run of the same generators: benchmarks/fuzz.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compilelint.analyzer import analyze_source
from compilelint.config import Config
from compilelint.engine import lint
from compilelint.rules.registry import all_rules

RULES = [rule() for rule in all_rules().values()]
GOOD_CITIZEN = textwrap.dedent('''
    import torch
    class Head(torch.nn.Module):
        def forward(self, x, k=3):
            if x.sum() > 0:
                x = x * x.max().item()
            return x
''').encode()


def check_source(source: bytes) -> list:
    result = analyze_source("fuzzed.py", source, RULES, "fuzzed", False)
    findings = [f for f, _, _ in result.findings]
    for f in findings:
        assert f.line >= 1 and f.col >= 0 and f.end_line >= f.line
    if result.summary is None:  # did not parse: exactly one E001 (or E005: beyond the parser's limits) says so
        assert [f.code for f in findings] in (["E001"], ["E005"])
    return findings


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(hypothesmith.from_grammar())
def test_generated_valid_python(source):
    check_source(source.encode("utf-8", "surrogatepass"))


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_mutated_real_file(data):
    source = bytearray(GOOD_CITIZEN)
    mutation = data.draw(st.sampled_from(["truncate", "flip", "nul", "insert", "delete"]))
    position = data.draw(st.integers(0, len(source)))
    if mutation == "truncate":
        source = source[:position]
    elif mutation == "flip" and position < len(source):
        source[position] ^= 1 << data.draw(st.integers(0, 7))
    elif mutation == "nul":
        source[position:position] = b"\0"
    elif mutation == "insert":
        source[position:position] = data.draw(st.binary(min_size=1, max_size=8))
    elif mutation == "delete":
        del source[position:position + data.draw(st.integers(1, 20))]
    check_source(bytes(source))


@pytest.mark.parametrize("name,transform", [
    ("bom", lambda s: b"\xef\xbb\xbf" + s),
    ("crlf", lambda s: s.replace(b"\n", b"\r\n")),
    ("lone-cr", lambda s: s.replace(b"\n", b"\r")),
    ("tabs-mixed", lambda s: s.replace(b"            x = x", b"\t    x = x")),
    ("latin1-cookie", lambda s: b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + s),
    ("latin1-no-cookie", lambda s: b"# caf\xe9\n" + s),
    ("empty", lambda s: b""),
    ("only-nul", lambda s: b"\0\0\0"),
])
def test_odd_encodings_and_line_ends(name, transform):
    findings = check_source(transform(GOOD_CITIZEN))
    codes = {f.code for f in findings}
    if name in ("bom", "crlf", "latin1-cookie"):
        assert {"GB401", "TR301"} <= codes, codes
        gb = next(f for f in findings if f.code == "GB401")
        assert gb.line == 6 + (2 if name == "latin1-cookie" else 0)


def test_nul_byte_inside_string_literals():
    """A NUL byte inside a string literal parses (LibCST) but Python cannot evaluate the literal (SyntaxError
    from `evaluated_value`): the names it would give are unknown, the other findings stay (found by
    benchmarks/fuzz.py, case 2919 of seed 1: a crash in the class facts)."""
    source = (b'import torch\nclass M(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n'
              b'        self.register_buffer("a\0b", torch.zeros(1))\n        self.add_module("m\0", torch.nn.ReLU())\n'
              b'        setattr(self, "c\0", 1)\n    __constants__ = ["k\0"]\n'
              b'    def forward(self, x):\n        s = "{:.2f}\0".format(x)\n        return x.item()\n')
    findings = check_source(source)
    assert any(f.code == "GB401" and f.line == 11 for f in findings), [(f.code, f.line) for f in findings]


def test_deep_nesting_and_long_function():
    deep = "x = " + "(" * 1000 + "1" + ")" * 1000 + "\n"
    assert [f.code for f in check_source(deep.encode())] == ["E005"]  # over Python's 200 nested brackets
    nested_ifs = "def f(x):\n" + "".join("    " * (i + 1) + "if x:\n" for i in range(100)) + "    " * 101 + "pass\n"
    check_source(nested_ifs.encode())
    body = "".join(f"    y{i} = x * {i}\n" for i in range(50_000))
    findings = check_source(("import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n" + body +
                             "        return x.item()\n").replace("\n    y", "\n        y").encode())
    assert any(f.code == "GB401" and f.line == 50_004 for f in findings), [f.code for f in findings][:5]


def test_directory_broken_symlink_unreadable_and_huge_files_are_findings(tmp_path):
    (tmp_path / "good.py").write_bytes(GOOD_CITIZEN)
    (tmp_path / "dir.py").mkdir()
    os.symlink(tmp_path / "missing.py", tmp_path / "broken.py")
    (tmp_path / "big.py").write_bytes(b"x = 1\n" * 200_000)  # 1.2 MB
    (tmp_path / "loop").mkdir()
    os.symlink(tmp_path, tmp_path / "loop" / "back")  # a symlink loop
    expected = {f.line for f in lint([str(tmp_path / "good.py")], Config(), jobs=1).findings}
    proc = subprocess.run([sys.executable, "-m", "compilelint", str(tmp_path), "--output-format", "json",
                           "--max-file-size", "1", "--jobs", "2", "--targets", "all"],  # as Config() in code
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    findings = json.loads(proc.stdout)["findings"]
    by_file = {}
    for f in findings:
        by_file.setdefault(os.path.basename(f["path"]), set()).add(f["code"])
    assert {f["line"] for f in findings if f["path"].endswith("good.py")} == expected
    assert by_file["big.py"] == {"E004"}
    named = subprocess.run([sys.executable, "-m", "compilelint", str(tmp_path / "dir.py"), str(tmp_path / "broken.py")],
                           capture_output=True, text=True, timeout=60)
    assert named.returncode == 1 and "Traceback" not in named.stderr
    assert named.stdout.count("E003") == 1 and "broken.py" in named.stdout  # dir.py is a folder: walked


def test_determinism_across_jobs_and_argument_order(tmp_path):
    for i in range(8):
        (tmp_path / f"m{i}.py").write_bytes(GOOD_CITIZEN.replace(b"Head", f"Head{i}".encode()))
    (tmp_path / "broken.py").write_text("def (:\n")
    files = sorted(str(p) for p in tmp_path.glob("*.py"))
    outputs = set()
    for jobs, order in ((1, files), (2, files[::-1]), (2, files), (1, files[3:] + files[:3])):
        for fmt in ("sarif", "json"):
            proc = subprocess.run([sys.executable, "-m", "compilelint", *order, "--jobs", str(jobs),
                                   "--output-format", fmt], capture_output=True, timeout=120, cwd=tmp_path)
            outputs.add((fmt, proc.stdout))
    assert len(outputs) == 2  # one byte-identical output per format


def test_output_file_is_written_atomically(tmp_path, monkeypatch):
    from compilelint import atomic

    target = tmp_path / "out.sarif"
    target.write_text("previous complete report\n")

    def exploding_fsync(fd):
        raise OSError("disk full")

    monkeypatch.setattr(atomic.os, "fsync", exploding_fsync)
    with pytest.raises(OSError):
        atomic.write_atomic(str(target), "new report that must not be half-written\n")
    assert target.read_text() == "previous complete report\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.sarif"]  # no temporary left behind
