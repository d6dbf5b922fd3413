"""Settings from `[tool.compilelint]` in pyproject.toml, overridden by command-line flags.

    [tool.compilelint]
    select = ["ALL"]              # codes or prefixes ("TS", "GB4"); default: every rule
    ignore = ["TR310"]
    extend-select = []
    per-file-ignores = {"tests/*" = ["GB"]}
    exclude = ["third_party/"]
    extend-exclude = []
    targets = "auto"                  # default: dynamo, recompile, export; torchscript and trace where the
                                      # tree uses them. ["all"]: every target; ["dynamo", "recompile"]: those only
    torch-version = "2.13"            # or target-version: rules whose claim differs by version follow it

    [tool.compilelint.probe]
    targets = ["fixtures/models/yolo_post.py:make_unfixed"]
    scope = ["kornia"]                # events inside these packages/folders are reported there too
"""

from __future__ import annotations

import fnmatch
import os
import re
import tomllib
from dataclasses import dataclass, field

from compilelint.findings import TARGETS


class ConfigError(ValueError):
    """A setting that cannot be used: reported as a usage error (exit 2)."""


AUTO, ALL = "auto", "all"
# Always on under "auto": the compile paths of current PyTorch. TorchScript and trace (deprecated in torch 2.13,
# unused by most teams) are added only where the linted tree uses them (compilelint/targets.py).
AUTO_ALWAYS = ("dynamo", "recompile", "export")
AUTO_IF_USED = ("torchscript", "trace")
TARGET_WORDS = (AUTO, ALL)


def check_targets(values: list[str], where: str) -> list[str]:
    """Target names, "auto" or "all" (case-insensitive), as written in the config or on the command line."""
    out = [v.strip().lower() for v in values]
    unknown = [v for v, low in zip(values, out) if low not in TARGETS and low not in TARGET_WORDS]
    if unknown:
        raise ConfigError(f"{where}: unknown target{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; "
                          f"choose from {', '.join(TARGETS)}, or \"auto\" or \"all\"")
    if not out:
        raise ConfigError(f"{where} is empty, which turns every rule off; choose from {', '.join(TARGETS)}, "
                          "or \"auto\" (the default) or \"all\"")
    return list(dict.fromkeys(out))


def candidate_targets(targets: list[str]) -> tuple[str, ...]:
    """Every target the requested ones may turn on: "auto" may add TorchScript and trace once the tree is read."""
    if ALL in targets or AUTO in targets:
        return TARGETS
    return tuple(t for t in TARGETS if t in targets)


@dataclass
class Config:
    select: list[str] = field(default_factory=lambda: ["ALL"])
    ignore: list[str] = field(default_factory=list)
    extend_select: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    exclude: list[str] = field(default_factory=list)
    extend_exclude: list[str] = field(default_factory=list)
    # A Config built in code checks every compile path unless told otherwise (a library caller says what it
    # wants); the command line and pyproject.toml default to ["auto"] (load_config, cli).
    targets: list[str] = field(default_factory=lambda: list(TARGETS))
    targets_from: str = ""  # where `targets` was set: the report's first line says so
    torch_version: str = "2.13"
    probe_targets: list[str] = field(default_factory=list)
    probe_scope: list[str] = field(default_factory=list)  # packages/folders whose files count as the user's
    root: str = "."
    source: str | None = None  # the pyproject.toml it came from

    def validate(self) -> None:
        self.targets = check_targets(self.targets, "targets")

    def ignored_for(self, path: str) -> list[str]:
        rel = os.path.relpath(os.path.abspath(path), os.path.abspath(self.root)).replace(os.sep, "/")
        out: list[str] = []
        for pattern, codes in self.per_file_ignores.items():
            if fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(os.path.basename(rel), pattern) or \
                    rel.startswith(pattern.rstrip("/") + "/"):
                out.extend(codes)
        return out


_KEYS = {"select", "ignore", "extend-select", "per-file-ignores", "exclude", "extend-exclude", "targets",
         "torch-version", "target-version", "probe"}
_PROBE_KEYS = {"targets", "scope"}


def find_pyproject(start: str) -> str | None:
    directory = os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or ".")
    while True:
        candidate = os.path.join(directory, "pyproject.toml")
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def find_vcs_root(start: str) -> str | None:
    """The nearest folder at or above `start` holding .git or .hg: what fingerprints and SARIF URIs are
    relative to when there is no pyproject.toml, so that they do not depend on the working directory."""
    directory = os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or ".")
    while True:
        if any(os.path.exists(os.path.join(directory, marker)) for marker in (".git", ".hg")):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def check_selectors(selectors: list[str], where: str) -> None:
    """A selector that is empty or matches no rule (a typo) is an error naming where it was written."""
    from compilelint.rules.registry import unknown_selectors

    if any(not s.strip() for s in selectors):
        raise ConfigError(f"{where}: an empty rule selector; write a code or prefix such as \"GB401\" or \"GB\"")
    unknown = unknown_selectors(selectors)
    if unknown:
        raise ConfigError(f"{where}: unknown rule selector{'s' if len(unknown) > 1 else ''} "
                          f"{', '.join(map(repr, unknown))}; `compilelint rules` lists the codes")


def check_torch_version(value: object, where: str) -> str:
    if not isinstance(value, str) or not re.fullmatch(r"\d+\.\d+([.+-][0-9A-Za-z][0-9A-Za-z.+-]*)?", value.strip()):
        # a TOML number is refused, not converted: 2.10 would read as 2.1
        raise ConfigError(f'{where} must be a version string such as "2.11" (got {value!r})')
    return value.strip()


def default_config() -> Config:
    """The settings of a run with no configuration (no pyproject.toml, or --isolated): targets "auto"."""
    return Config(targets=[AUTO], targets_from="default")


def load_config(start: str = ".", explicit: str | None = None) -> Config:
    path = explicit or find_pyproject(start)
    config = default_config()
    if path is None:
        return config
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise ConfigError(f"cannot read {path}: {err}") from err
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: [tool] must be a table")
    section = tool.get("compilelint")
    config.root = os.path.dirname(os.path.abspath(path))
    if section is None:
        return config
    where = f"{path}: [tool.compilelint]"
    if not isinstance(section, dict):
        raise ConfigError(f"{where} must be a table")
    config.source = path
    unknown = set(section) - _KEYS
    if unknown:
        raise ConfigError(f"{where} unknown key(s): {', '.join(sorted(unknown))}")

    def strings(key: str, table: dict = section, place: str = where) -> list[str]:
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{place} {key} must be a list of strings (got {value!r})")
        return list(value)

    def selectors(key: str) -> list[str]:
        value = strings(key)
        check_selectors(value, f"{where} {key}")
        return value

    if "select" in section:
        config.select = selectors("select")
        if not config.select:
            raise ConfigError(f"{where} select is empty, which turns every rule off; "
                              "leave it out (every rule) or name codes or prefixes")
    config.ignore = selectors("ignore")
    config.extend_select = selectors("extend-select")
    config.exclude = strings("exclude")
    config.extend_exclude = strings("extend-exclude")
    if "targets" in section:
        value = section["targets"]
        if isinstance(value, str) and value.strip().lower() in TARGET_WORDS:
            value = [value]  # targets = "auto" / "all"
        elif isinstance(value, str):
            raise ConfigError(f"{where} targets must be \"auto\", \"all\" or a list of target names such as "
                              f"[\"dynamo\", \"recompile\"] (got {value!r})")
        config.targets = check_targets(strings("targets", {"targets": value}), f"{where} targets")
        config.targets_from = os.path.basename(path)
    pfi = section.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise ConfigError(f"{where} per-file-ignores must be a table of patterns to lists of codes "
                          f"(got {pfi!r})")
    for pattern, codes in pfi.items():
        key = f"{where} per-file-ignores.{pattern!r}"
        if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
            raise ConfigError(f"{key} must be a list of rule codes or prefixes, e.g. [\"GB\"] (got {codes!r})")
        check_selectors(codes, key)
    config.per_file_ignores = {k: list(v) for k, v in pfi.items()}
    versions = {key: check_torch_version(section[key], f"{where} {key}")
                for key in ("torch-version", "target-version") if key in section}
    if len(set(versions.values())) > 1:
        raise ConfigError(f"{where} torch-version and target-version disagree ({versions['torch-version']!r}, "
                          f"{versions['target-version']!r}); keep one")
    if versions:
        config.torch_version = next(iter(versions.values()))
    probe = section.get("probe", {})
    if not isinstance(probe, dict):
        raise ConfigError(f"{where} probe must be a table ([tool.compilelint.probe]; got {probe!r})")
    probe_where = f"{path}: [tool.compilelint.probe]"
    unknown = set(probe) - _PROBE_KEYS
    if unknown:
        raise ConfigError(f"{probe_where} unknown key(s): {', '.join(sorted(unknown))}")
    config.probe_targets = strings("targets", probe, probe_where)
    config.probe_scope = strings("scope", probe, probe_where)
    return config
