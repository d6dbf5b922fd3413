"""Robustness of what a scanned tree or a careless user controls: the cache (no code runs, nothing is forged,
no symlink is followed, no timeout is replayed), file identity (fingerprints and URIs from the root-relative
real path, one result per real file) and every config and flag value (a clear exit 2 naming the key)."""

from __future__ import annotations

import json
import os
import pickle
import sys
import textwrap
import time
from pathlib import Path

import pytest

from compilelint import cache as cache_mod
from compilelint.analyzer import FileResult, analyze_source
from compilelint.cache import Cache, prune, result_from_json, result_to_json
from compilelint.cli import run
from compilelint.config import Config
from compilelint.engine import lint

SOURCE = textwrap.dedent('''
    import torch
    class Head(torch.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                x = x * x.max().item()
            return x
''')


@pytest.fixture(autouse=True)
def private_user_cache(tmp_path, monkeypatch):
    """Every test gets its own user cache folder (and so its own HMAC secret), never the real home's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "compilelint"


def invoke(args: list[str], cwd, monkeypatch, capsys) -> tuple[int, str, str]:  # noqa: ANN001
    """The console script in-process: (exit code, stdout, stderr)."""
    monkeypatch.chdir(cwd)
    monkeypatch.setattr(sys, "argv", ["compilelint", *args])
    with pytest.raises(SystemExit) as exit_info:
        run()
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


def project(tmp_path: Path, files: int = 1) -> Path:
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.compilelint]\n")
    for i in range(files):
        (root / "pkg" / f"m{i}.py").write_text(SOURCE)
    return root


def entries(directory: Path) -> list[Path]:
    return sorted(directory.rglob("*.json"))


def findings_of(stdout: str) -> list[tuple[str, int, str]]:
    """Every rule's finding, those shown with another one's (one construct, `also`) included."""
    return sorted((p["path"], p["line"], p["code"]) for f in json.loads(stdout)["findings"] for p in (f, *f["also"]))


# --- the cache ------------------------------------------------------------------------------------------------

class _Payload:
    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):  # noqa: ANN204
        return (os.system, (f"touch {self.marker}",))


def test_poisoned_cache_entries_are_never_executed_or_trusted(tmp_path, monkeypatch, capsys):
    """A repository that ships a cache (a pickle that runs a command when loaded, under the entry's own name
    and under the old pickle name) gets neither code execution nor a say in the findings."""
    root = project(tmp_path, files=2)
    in_tree = root / ".compilelint_cache"
    code, clean, _ = invoke(["pkg", "--output-format", "json", "--no-cache", "-j1"], root, monkeypatch, capsys)
    assert code == 1 and findings_of(clean)
    assert invoke(["pkg", "--cache-dir", str(in_tree), "-j1"], root, monkeypatch, capsys)[0] == 1
    written = entries(in_tree)
    assert len(written) == 2
    marker = tmp_path / "pwned"
    poison = pickle.dumps(_Payload(str(marker)))
    for entry in written:
        entry.write_bytes(poison)
        entry.with_suffix(".pickle").write_bytes(poison)
    code, warm, _ = invoke(["pkg", "--cache-dir", str(in_tree), "--output-format", "json", "-j1"], root,
                           monkeypatch, capsys)
    assert not marker.exists()
    assert code == 1 and findings_of(warm) == findings_of(clean)


def test_forged_entries_cannot_hide_or_inject_findings(tmp_path, monkeypatch, capsys, private_user_cache):
    """Well-formed entries that say "no findings" or carry an invented one: without this user's secret
    (another key, or no MAC at all) they are misses, and the real findings come back."""
    root = project(tmp_path)
    in_tree = root / ".compilelint_cache"
    _, clean, _ = invoke(["pkg", "--output-format", "json", "--cache-dir", str(in_tree), "-j1"], root,
                         monkeypatch, capsys)
    (entry,) = entries(in_tree)
    header, mac, payload = entry.read_bytes().split(b"\n", 2)
    forged = json.loads(payload)
    invented = dict(forged["findings"][0][0], code="GB401", message="invented", line=1)
    forged["findings"] = [[invented, "", True]]
    forged_bytes = json.dumps(forged).encode()
    key = entry.stem
    other_secret = Cache(str(in_tree), "x", secret=b"k" * 32)._mac(b"k" * 32, key, forged_bytes)
    for fake in (header + b"\n" + mac + b"\n" + forged_bytes,          # the real MAC, another payload
                 header + b"\n" + other_secret + b"\n" + forged_bytes,  # a MAC under a different secret
                 header + b"\n\n" + forged_bytes):                      # no MAC
        entry.write_bytes(fake)
        _, warm, _ = invoke(["pkg", "--output-format", "json", "--cache-dir", str(in_tree), "-j1"], root,
                            monkeypatch, capsys)
        assert findings_of(warm) == findings_of(clean)
        assert "invented" not in warm
    secret = private_user_cache / "secret"
    assert secret.stat().st_mode & 0o777 == 0o600 and secret.stat().st_size == 32


def test_authentic_but_malformed_entries_are_misses(tmp_path):
    """Even an entry MAC'd with the right secret decodes only into exactly the result types: a wrong type,
    an unknown or missing field, an impossible value or a cached timeout (E002) is a miss, never an error."""
    path = tmp_path / "m.py"
    path.write_text(SOURCE)
    from compilelint.rules.registry import all_rules

    result = analyze_source(str(path), SOURCE.encode(), [r() for r in all_rules().values()])
    assert result.findings and result.summary is not None
    assert result_from_json(result_to_json(result)) == result  # the round trip is exact
    good = json.loads(result_to_json(result))
    store = Cache(str(tmp_path / "cache"), "salt", secret=b"s" * 32)
    key = store.key(str(path), SOURCE.encode(), "extra")

    def mutated(change) -> bytes:  # noqa: ANN001
        data = json.loads(json.dumps(good))
        change(data)
        return json.dumps(data).encode()

    bad_payloads = [
        mutated(lambda d: d["findings"][0][0].__setitem__("line", "3")),
        mutated(lambda d: d["findings"][0][0].__setitem__("severity", "fatal")),
        mutated(lambda d: d["findings"][0][0].__setitem__("targets", ["everything"])),
        mutated(lambda d: d["findings"][0][0].__setitem__("__class__", "os.system")),
        mutated(lambda d: d["findings"][0][0].pop("code")),
        mutated(lambda d: d["findings"][0][0].__setitem__("code", "E002")),
        mutated(lambda d: d["findings"][0].append("extra")),
        mutated(lambda d: d["summary"].__setitem__("classes", [])),
        b"[" * 100_000,
        b"\xff\xfe not json",
    ]
    for payload in bad_payloads:
        entry = tmp_path / "cache" / cache_mod.tool_fingerprint() / key[:2] / f"{key}.json"
        entry.parent.mkdir(parents=True, exist_ok=True)
        entry.write_bytes(cache_mod.FORMAT + b"\n" + store._mac(b"s" * 32, key, payload) + b"\n" + payload)
        assert store.get(key) is None, payload[:80]
    store.put(key, result)
    assert store.get(key) == result


CUSTOM_OP = textwrap.dedent('''
    import torch

    @torch.library.custom_op("mylib::scale", mutates_args=())
    def scale(x: torch.Tensor) -> torch.Tensor:
        return x * 2

    @scale.register_fake
    def _(x):
        return torch.empty_like(x)
''')


def test_every_result_round_trips_through_json_exactly(tmp_path):
    """The codec covers every type a result holds (a field of a new type would make every file a miss, slowly):
    each fixture's and corpus file's result, and a custom op's, comes back equal."""
    from compilelint.rules.registry import all_rules

    rules = [r() for r in all_rules().values()]
    here = Path(__file__).resolve().parent
    paths = sorted([*here.glob("corpus/**/*.py"), *(here.parent / "fixtures").glob("**/*.py")])
    (tmp_path / "ops.py").write_text(CUSTOM_OP)
    paths.append(tmp_path / "ops.py")
    assert len(paths) > 100
    for path in paths:
        result = analyze_source(str(path), path.read_bytes(), rules)
        assert result_from_json(result_to_json(result)) == result, path


def test_planted_symlinks_in_the_cache_are_not_followed(tmp_path, monkeypatch):
    """The temporary file is opened with O_CREAT|O_EXCL|O_NOFOLLOW, folders with O_NOFOLLOW, and the entry is
    renamed into place: symlinks planted at the temporary name, the entry's name or a shard folder never
    lead a write outside the cache."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    base = tmp_path / "cache"
    store = Cache(str(base), "salt", secret=b"s" * 32)
    result = FileResult(path="m.py", summary=None)
    key = "ab" + "0" * 62
    folder = base / cache_mod.tool_fingerprint() / key[:2]
    folder.mkdir(parents=True)
    # 1. the temporary name, made predictable here so that a link can sit exactly where the write goes
    with monkeypatch.context() as patched:
        patched.setattr(cache_mod.secrets, "token_hex", lambda n: "f" * (2 * n))
        os.symlink(victim, folder / f".{key[:16]}.{'f' * 16}.tmp")
        store.put(key, result)
    assert victim.read_text() == "precious\n"
    assert store.get(key) is None  # the write was refused, not redirected
    # 2. the entry's own name: replaced as a name, the link's target untouched
    os.symlink(victim, folder / f"{key}.json")
    store.put(key, result)
    assert victim.read_text() == "precious\n"
    assert not (folder / f"{key}.json").is_symlink() and store.get(key) == result
    # 3. a shard folder that is a link to elsewhere
    other = "cd" + "0" * 62
    os.symlink(outside, base / cache_mod.tool_fingerprint() / other[:2])
    store.put(other, result)
    assert list(outside.iterdir()) == []


def test_a_timed_out_parse_is_reported_as_e002_and_never_cached(tmp_path, monkeypatch):
    """A parse that overruns --file-timeout is E002 (not E001 "cannot parse: _FileTimeout": the alarm used to
    fire inside the parser and be taken for a parse error), is not written to the cache, and so is analyzed
    again, in full, by the next run with more time. The parser is slowed for one file (as LibCST is by some
    inputs) so the overrun does not depend on the machine's speed."""
    import libcst

    real_parse = libcst.parse_module

    def slow_parse(source, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        if b"# slow to parse" in source:
            time.sleep(1.0)
        return real_parse(source, *args, **kwargs)

    monkeypatch.setattr(libcst, "parse_module", slow_parse)
    (tmp_path / "slow.py").write_text("# slow to parse\n" + SOURCE)
    (tmp_path / "ok.py").write_text(SOURCE)
    cache_dir = tmp_path / "cache"
    hurried = lint([str(tmp_path)], Config(root=str(tmp_path)), jobs=1, file_timeout=0.3,
                   cache_dir=str(cache_dir)).findings
    slow = [f for f in hurried if f.path.endswith("slow.py")]
    assert [f.code for f in slow] == ["E002"], [(f.code, f.message) for f in slow]
    assert len(entries(cache_dir)) == 1  # ok.py only
    patient = lint([str(tmp_path)], Config(root=str(tmp_path)), jobs=1, file_timeout=0, cache_dir=str(cache_dir))
    slow = sorted(f.code for f in patient.findings if f.path.endswith("slow.py"))
    assert slow and "E002" not in slow
    assert slow == sorted(f.code for f in patient.findings if f.path.endswith("ok.py"))
    assert len(entries(cache_dir)) == 2


def test_default_cache_is_outside_the_tree_and_no_cache_writes_nothing(tmp_path, monkeypatch, capsys,
                                                                        private_user_cache):
    root = project(tmp_path)
    assert invoke(["pkg", "--no-cache", "-j1"], root, monkeypatch, capsys)[0] == 1
    assert not private_user_cache.exists()
    assert invoke(["pkg", "-j1"], root, monkeypatch, capsys)[0] == 1
    assert not (root / ".compilelint_cache").exists()
    assert [p.name for p in root.rglob("*") if p.is_file()] == ["pyproject.toml", "m0.py"]
    projects = list((private_user_cache / "projects").iterdir())
    assert len(projects) == 1 and len(entries(projects[0])) == 1
    assert (projects[0] / "CACHEDIR.TAG").is_file()
    code, second, _ = invoke(["pkg", "-j1"], root, monkeypatch, capsys)
    assert code == 1 and "m0.py" in second


def test_a_warm_entry_names_the_file_as_this_run_typed_it(tmp_path, monkeypatch, capsys):
    """Runs from two working directories share a cache; each reports the path as it was given."""
    root = project(tmp_path)
    shared = str(tmp_path / "shared-cache")
    _, first, _ = invoke(["pkg", "--cache-dir", shared, "-j1", "-q"], root, monkeypatch, capsys)
    _, second, _ = invoke(["m0.py", "--cache-dir", shared, "-j1", "-q"], root / "pkg", monkeypatch, capsys)
    assert first.startswith("pkg/m0.py:") and second.startswith("m0.py:")


def test_prune_removes_old_then_oldest_entries_and_nothing_else(tmp_path):
    base = tmp_path / "cache"
    store = Cache(str(base), "salt", secret=b"s" * 32)
    result = FileResult(path="m.py", summary=None)
    keys = [f"{i:02x}" + "0" * 62 for i in range(6)]
    for key in keys:
        store.put(key, result)
    unrelated = base / "notes.json"
    unrelated.write_text("{}")
    now = 1_000_000_000.0
    files = {key: base / cache_mod.tool_fingerprint() / key[:2] / f"{key}.json" for key in keys}
    for age_days, key in zip((40, 31, 3, 2, 1, 0), keys):
        os.utime(files[key], (now - age_days * 86400, now - age_days * 86400))
    assert prune(str(base), now=now) == 2  # the two over 30 days
    assert not files[keys[0]].exists() and not files[keys[1]].exists() and files[keys[2]].exists()
    assert prune(str(base), now=now) == 0  # at most once a day
    size = files[keys[2]].stat().st_size
    assert prune(str(base), now=now, force=True, max_bytes=2 * size) == 2  # then the least recently used
    assert [k for k in keys if files[k].exists()] == keys[4:]
    assert unrelated.exists()
    assert store.get(keys[5]) == result


# --- one identity per real file -------------------------------------------------------------------------------

def sarif_locations(stdout: str) -> list[tuple[str, str | None, str]]:
    results = json.loads(stdout)["runs"][0]["results"]
    return sorted((r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                   r["locations"][0]["physicalLocation"]["artifactLocation"].get("uriBaseId"),
                   r["partialFingerprints"]["compilelint/v1"]) for r in results)


def test_fingerprints_and_uris_do_not_depend_on_cwd_or_spelling(tmp_path, monkeypatch, capsys):
    root = project(tmp_path)
    os.symlink(root / "pkg", tmp_path / "via-link")
    runs = [(root, "pkg/m0.py"), (root / "pkg", "m0.py"), (root / "pkg", "../pkg/./m0.py"),
            (tmp_path, str(root / "pkg" / "m0.py")), (tmp_path, "via-link/m0.py")]
    seen = set()
    for cwd, spelled in runs:
        code, out, err = invoke([spelled, "--output-format", "sarif", "--no-cache", "-j1",
                                 "--config", str(root / "pyproject.toml")], cwd, monkeypatch, capsys)
        assert code == 1, err
        locations = sarif_locations(out)
        assert locations and all(uri == "pkg/m0.py" and base == "%SRCROOT%" for uri, base, _ in locations)
        seen.add(tuple(locations))
    assert len(seen) == 1
    baseline = tmp_path / "base.json"
    assert invoke(["pkg/m0.py", "--write-baseline", str(baseline), "--no-cache", "-j1"], root, monkeypatch,
                  capsys)[0] == 0
    for cwd, spelled in runs[1:]:
        code, out, _ = invoke([spelled, "--baseline", str(baseline), "--no-cache", "-j1",
                               "--config", str(root / "pyproject.toml")], cwd, monkeypatch, capsys)
        assert code == 0 and "All checks passed" in out, (cwd, spelled, out)


def test_without_pyproject_the_repository_top_is_the_root(tmp_path, monkeypatch, capsys):
    root = project(tmp_path)
    (root / "pyproject.toml").unlink()
    (root / ".git").mkdir()
    _, top, _ = invoke(["pkg/m0.py", "--output-format", "sarif", "--no-cache", "-j1"], root, monkeypatch, capsys)
    _, inside, _ = invoke(["m0.py", "--output-format", "sarif", "--no-cache", "-j1"], root / "pkg", monkeypatch,
                          capsys)
    assert sarif_locations(top) == sarif_locations(inside)
    assert {uri for uri, _, _ in sarif_locations(top)} == {"pkg/m0.py"}


def test_a_file_reached_several_ways_is_analysed_and_reported_once(tmp_path, monkeypatch, capsys):
    root = project(tmp_path)
    os.symlink(root / "pkg" / "m0.py", root / "pkg" / "alias.py")
    _, once, _ = invoke(["pkg/m0.py", "--output-format", "json", "--no-cache", "-j1"], root, monkeypatch, capsys)
    code, many, _ = invoke(["pkg/m0.py", "./pkg/m0.py", str(root / "pkg" / "m0.py"), "pkg/alias.py", "pkg",
                            "--output-format", "json", "--no-cache", "-j1"], root, monkeypatch, capsys)
    assert code == 1 and findings_of(many) == findings_of(once) and findings_of(once)
    _, text, _ = invoke(["pkg", "pkg/m0.py", "--no-cache", "-j1"], root, monkeypatch, capsys)
    assert "(1 file)" in text or "in 1 file" in text


def test_a_file_outside_the_root_gets_an_absolute_file_uri(tmp_path, monkeypatch, capsys):
    root = project(tmp_path, files=0)
    elsewhere = tmp_path / "elsewhere dir"
    elsewhere.mkdir()
    (elsewhere / "x.py").write_text(SOURCE)
    code, out, _ = invoke([str(elsewhere / "x.py"), "--output-format", "sarif", "--no-cache", "-j1"], root,
                          monkeypatch, capsys)
    assert code == 1
    uris = {(uri, base) for uri, base, _ in sarif_locations(out)}
    assert uris == {((elsewhere / "x.py").resolve().as_uri(), None)}
    assert "%20" in next(iter(uris))[0] and ".." not in next(iter(uris))[0]


# --- config and flags -----------------------------------------------------------------------------------------

BAD_CONFIG = [
    ('select = "GB"', "select"),
    ("select = [1]", "select"),
    ("select = []", "select"),
    ('select = [""]', "select"),
    ('select = ["GBX9"]', "select"),
    ('ignore = ["ZZ"]', "ignore"),
    ('extend-select = ["Q1"]', "extend-select"),
    ('per-file-ignores = {"f" = "GB"}', "per-file-ignores.'f'"),
    ('per-file-ignores = {"f" = 3}', "per-file-ignores.'f'"),
    ('per-file-ignores = {"f" = ["XX9"]}', "per-file-ignores.'f'"),
    ("per-file-ignores = []", "per-file-ignores"),
    ('targets = "dynamo"', "targets"),
    ('targets = ["jit"]', "targets"),
    ("targets = []", "targets"),
    ("torch-version = 2.10", "torch-version"),
    ('torch-version = "two"', "torch-version"),
    ("target-version = true", "target-version"),
    ('torch-version = "2.11"\ntarget-version = "2.9"', "target-version"),
    ('exclude = "build"', "exclude"),
    ("probe = 3", "probe"),
    ('probe = {targets = "m.py:make"}', "targets"),
    ("probe = {scope = [1]}", "scope"),
    ("probe = {timeout = 5}", "timeout"),
    ("colour = true", "colour"),
]


@pytest.mark.parametrize("line, key", BAD_CONFIG, ids=[line for line, _ in BAD_CONFIG])
def test_each_bad_config_value_exits_2_naming_the_key(tmp_path, monkeypatch, capsys, line, key):
    root = project(tmp_path)
    (root / "pyproject.toml").write_text(f"[tool.compilelint]\n{line}\n")
    code, out, err = invoke(["pkg", "--no-cache", "-j1"], root, monkeypatch, capsys)
    assert code == 2, (out, err)
    assert key in err and "internal error" not in err and "Traceback" not in err, err


def test_a_non_table_tool_section_exits_2(tmp_path, monkeypatch, capsys):
    root = project(tmp_path)
    for text in ("tool = 3\n", "[tool]\ncompilelint = 3\n"):
        (root / "pyproject.toml").write_text(text)
        code, _, err = invoke(["pkg", "--no-cache", "-j1"], root, monkeypatch, capsys)
        assert code == 2 and "must be a table" in err and "internal error" not in err, err


BAD_FLAGS = [
    (["--select", ""], "--select"),
    (["--select", ","], "--select"),
    (["--select", "NOPE1"], "--select"),
    (["--ignore", "NOPE1"], "--ignore"),
    (["--file-timeout", "inf"], "--file-timeout"),
    (["--file-timeout", "nan"], "--file-timeout"),
    (["--file-timeout", "-1"], "--file-timeout"),
    (["--file-timeout", "1e300"], "--file-timeout"),
    (["--max-file-size", "inf"], "--max-file-size"),
    (["--max-file-size", "-4"], "--max-file-size"),
    (["--jobs", "-1"], "--jobs"),
    (["--torch-version", "latest"], "--torch-version"),
    (["--ignore", "ALL"], "no rule is left to run"),
    (["--select", "TS", "--target", "dynamo"], "no rule is left to run"),
    (["--output", "/nonexistent-dir/report.txt"], "--output"),
    (["--write-baseline", "/nonexistent-dir/base.json"], "--write-baseline"),
]


@pytest.mark.parametrize("flags, named", BAD_FLAGS, ids=[" ".join(f) for f, _ in BAD_FLAGS])
def test_each_bad_flag_exits_2_naming_it(tmp_path, monkeypatch, capsys, flags, named):
    root = project(tmp_path)
    code, out, err = invoke(["pkg", "--no-cache", "-j1", *flags], root, monkeypatch, capsys)
    assert code == 2, (out, err)
    assert named in err and "internal error" not in err and "Traceback" not in err, err


@pytest.mark.parametrize("command", [["probe", "m.py:make", "--timeout", "inf"],
                                     ["probe", "m.py:make", "--timeout", "0"],
                                     ["probe", "m.py:make", "--memory-mb", "-1"],
                                     ["probe", "m.py:make", "--jobs", "0"],
                                     ["bench", "a.py:f", "--compare", "b.py:f", "--iters", "0"],
                                     ["bench", "a.py:f", "--compare", "b.py:f", "--timeout", "nan"]])
def test_probe_and_bench_limits_are_checked_before_anything_runs(tmp_path, monkeypatch, capsys, command):
    code, _, err = invoke(command, tmp_path, monkeypatch, capsys)
    assert code == 2 and command[-2] in err and "internal error" not in err, err


def test_per_file_ignores_take_prefixes_as_in_ruff(tmp_path, monkeypatch, capsys):
    root = project(tmp_path, files=2)
    _, everything, _ = invoke(["pkg", "--output-format", "json", "--no-cache", "-j1"], root, monkeypatch, capsys)
    codes = {c for p, _, c in findings_of(everything) if p.endswith("m0.py")}
    assert any(c.startswith("GB") for c in codes) and any(not c.startswith("GB") for c in codes)
    (root / "pyproject.toml").write_text('[tool.compilelint]\nper-file-ignores = {"pkg/m0.py" = ["GB"]}\n')
    _, some, _ = invoke(["pkg", "--output-format", "json", "--no-cache", "-j1"], root, monkeypatch, capsys)
    left = {c for p, _, c in findings_of(some) if p.endswith("m0.py")}
    assert left == {c for c in codes if not c.startswith("GB")}
    assert {c for p, _, c in findings_of(some) if p.endswith("m1.py")} == codes  # the other file keeps them


def test_engine_codes_alone_are_a_selection_and_ignore_removes_them(tmp_path, monkeypatch, capsys):
    root = project(tmp_path)
    (root / "pkg" / "broken.py").write_text("def (:\n")
    code, out, _ = invoke(["pkg", "--select", "E001", "--no-cache", "-j1"], root, monkeypatch, capsys)
    assert code == 1 and "E001" in out and "GB" not in out
    code, out, _ = invoke(["pkg", "--ignore", "E001", "--no-cache", "-j1"], root, monkeypatch, capsys)
    assert code == 1 and "E001" not in out and "GB" in out


def test_the_console_script_does_not_import_the_working_folder(tmp_path):
    """README's advice: `python -m compilelint` inside a hostile tree imports the tree's click.py (Python puts
    the working folder first on sys.path); the console script does not."""
    import subprocess

    (tmp_path / "click.py").write_text("raise SystemExit(99)\n")
    script = os.path.join(os.path.dirname(sys.executable), "compilelint")
    assert os.path.exists(script)
    as_module = subprocess.run([sys.executable, "-m", "compilelint", "--version"], cwd=tmp_path,
                               capture_output=True, text=True, timeout=60)
    assert as_module.returncode == 99  # the hazard the README documents is real
    console = subprocess.run([script, "--version"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert console.returncode == 0 and "compilelint" in console.stdout
