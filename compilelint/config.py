"""Settings from `[tool.compilelint]` in pyproject.toml, overridden by command-line flags.

    [tool.compilelint]
    select = ["ALL"]              # codes or prefixes ("TS", "GB4"); default: every rule
    ignore = ["TR310"]
    extend-select = []
    per-file-ignores = {"tests/*" = ["GB"]}
    exclude = ["third_party/"]
    extend-exclude = []
    targets = ["dynamo", "recompile"]   # a team that never scripts: no TorchScript rules at all
    torch-version = "2.13"            # or target-version: rules whose claim differs by version follow it

    [tool.compilelint.probe]
    targets = ["fixtures/models/yolo_post.py:make_unfixed"]
    scope = ["kornia"]                # events inside these packages/folders are reported there too
"""

from __future__ import annotations

import fnmatch
import os
import tomllib
from dataclasses import dataclass, field

from compilelint.findings import TARGETS


class ConfigError(ValueError):
    """A setting that cannot be used: reported as a usage error (exit 2)."""


@dataclass
class Config:
    select: list[str] = field(default_factory=lambda: ["ALL"])
    ignore: list[str] = field(default_factory=list)
    extend_select: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    exclude: list[str] = field(default_factory=list)
    extend_exclude: list[str] = field(default_factory=list)
    targets: list[str] = field(default_factory=lambda: list(TARGETS))
    torch_version: str = "2.13"
    probe_targets: list[str] = field(default_factory=list)
    probe_scope: list[str] = field(default_factory=list)  # packages/folders whose files count as the user's
    root: str = "."
    source: str | None = None  # the pyproject.toml it came from

    def validate(self) -> None:
        unknown = [t for t in self.targets if t not in TARGETS]
        if unknown:
            raise ConfigError(f"unknown target(s) {', '.join(unknown)}; choose from {', '.join(TARGETS)}")

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


def load_config(start: str = ".", explicit: str | None = None) -> Config:
    path = explicit or find_pyproject(start)
    config = Config()
    if path is None:
        return config
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise ConfigError(f"cannot read {path}: {err}") from err
    section = data.get("tool", {}).get("compilelint")
    config.root = os.path.dirname(os.path.abspath(path))
    if section is None:
        return config
    config.source = path
    unknown = set(section) - _KEYS
    if unknown:
        raise ConfigError(f"{path}: unknown [tool.compilelint] key(s): {', '.join(sorted(unknown))}")

    def strings(key: str) -> list[str]:
        value = section.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: [tool.compilelint] {key} must be a list of strings")
        return value

    if "select" in section:
        config.select = strings("select")
    config.ignore = strings("ignore")
    config.extend_select = strings("extend-select")
    config.exclude = strings("exclude")
    config.extend_exclude = strings("extend-exclude")
    if "targets" in section:
        config.targets = strings("targets")
    pfi = section.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise ConfigError(f"{path}: [tool.compilelint] per-file-ignores must be a table")
    config.per_file_ignores = {k: list(v) for k, v in pfi.items()}
    for key in ("torch-version", "target-version"):
        if key in section:
            config.torch_version = str(section[key])
    if not all(part.isdigit() for part in config.torch_version.split(".")[:2]):
        raise ConfigError(f"{path}: torch-version must look like \"2.11\" (got {config.torch_version!r})")
    probe = section.get("probe", {})
    if isinstance(probe, dict):
        config.probe_targets = list(probe.get("targets", []))
        scope = probe.get("scope", [])
        if not isinstance(scope, list) or not all(isinstance(v, str) for v in scope):
            raise ConfigError(f"{path}: [tool.compilelint.probe] scope must be a list of strings")
        config.probe_scope = scope
    config.validate()
    return config
