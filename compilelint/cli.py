"""Command line: `compilelint [check] PATHS...`, `compilelint rule CODE`, `compilelint rules`,
`compilelint probe TARGET...`, `compilelint bench UNFIXED --compare FIXED`. Exit codes as ruff: 0 no findings, 1 findings, 2 usage or internal error.
"""

from __future__ import annotations

import math
import os
import sys

import click

from compilelint import __version__
from compilelint.atomic import write_atomic
from compilelint.config import (ALL, AUTO, Config, ConfigError, check_selectors, check_targets, default_config,
                                find_vcs_root, load_config)
from compilelint.findings import SEVERITIES, TARGETS
from compilelint.report import FORMATS, PROBE_FORMATS

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class _DefaultGroup(click.Group):
    """`compilelint src/` means `compilelint check src/`."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h", "--version"):
            args = ["check", *args]
        elif not args:
            args = ["check"]
        return super().parse_args(ctx, args)


def _split(values: tuple[str, ...]) -> list[str]:
    return [v.strip() for value in values for v in value.split(",") if v.strip()]


def _emit(text: str, output: str | None, flag: str = "--output") -> None:
    if output:
        _write_or_fail(output, text, flag)
    else:
        click.echo(text, nl=False)


def _write_or_fail(path: str, text: str, flag: str) -> None:
    try:
        write_atomic(path, text)
    except OSError as err:
        raise click.UsageError(f"{flag} {path}: cannot write: {err.strerror or err}") from err


def _number_check(minimum: float, maximum: float, *, above: bool = False, note: str = ""):  # noqa: ANN202
    """A click callback: the value is a number from minimum (excluded with `above`) to maximum. click's FLOAT
    takes "inf" and "nan", which no limit here can mean, and the system's timers and reads overflow long
    before a float does."""

    def check(ctx: click.Context, param: click.Parameter, value):  # noqa: ANN001, ANN202
        if value is None:
            return value
        if not (math.isfinite(value) and minimum <= value <= maximum) or (above and value == minimum):
            kind = "a whole number" if isinstance(value, int) else "a number"
            low = f"above {minimum:g}" if above else f"from {minimum:g}"
            raise click.BadParameter(f"must be {kind} {low} to {maximum:.0f}{note} (got {value!r})", ctx, param)
        return value

    return check


def _targets_check(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
    """`--targets dynamo,export`, `--target dynamo --target export`, `--targets all`, `--targets auto`."""
    if not values:
        return ()
    try:
        return tuple(check_targets(_split(values), "--targets"))
    except ConfigError as err:
        raise click.BadParameter(str(err).removeprefix("--targets: ").removeprefix("--targets "), ctx, param) from None


# As ruff: --output-format full (the default; "text" is the same) or concise, and machine formats.
CHECK_FORMATS = ("full", "concise", "text", "json", "sarif", "github", "html")
_SEVERITY_RANK = {name: rank for rank, name in enumerate(reversed(SEVERITIES))}  # note 0, warning 1, error 2


def _torch_version_check(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    from compilelint.config import check_torch_version

    if value is None:
        return None
    try:
        return check_torch_version(value, "--torch-version")
    except ConfigError as err:
        raise click.BadParameter(str(err).removeprefix("--torch-version "), ctx, param) from None


@click.group(cls=_DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="compilelint")
def main() -> None:
    """Find PyTorch code that will not compile (TorchScript, trace, torch.compile, export), and why."""


@main.command("check")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--select", multiple=True, help="Rule codes or prefixes to enable (comma-separated). Default: ALL.")
@click.option("--extend-select", multiple=True, help="Codes or prefixes to enable on top of the selection.")
@click.option("--ignore", multiple=True, help="Rule codes or prefixes to disable.")
@click.option("--targets", "--target", "targets", multiple=True, callback=_targets_check,
              metavar="auto|all|NAME,...",
              help="Compile paths to check, comma-separated or repeated: " + ", ".join(TARGETS) + ". Default "
                   "auto: dynamo, recompile and export, plus torchscript and trace where the tree uses torch.jit; "
                   "all: every one.")
@click.option("--output-format", type=click.Choice(CHECK_FORMATS), default="full", show_default=True,
              help="full (text): a line per finding, with evidence and --show-source; concise: a line per finding.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the report to this file.")
@click.option("-q", "--quiet", is_flag=True, help="Print the findings only: no targets line, no summary.")
@click.option("--min-severity", type=click.Choice(tuple(reversed(SEVERITIES))), default=None,
              help="Report only findings at this severity or above (note < warning < error).")
@click.option("-j", "--jobs", type=int, default=0, callback=_number_check(0, 4096),
              help="Worker processes (default: all cores).")
@click.option("--config", "config_path", type=click.Path(exists=True, dir_okay=False), help="pyproject.toml to read.")
@click.option("--isolated", is_flag=True, help="Read no configuration file: the defaults and these flags only.")
@click.option("--exclude", multiple=True, help="Extra exclude patterns.")
@click.option("--force-exclude", is_flag=True, help="Apply excludes to files named on the command line too.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("--statistics", is_flag=True,
              help="Count findings per rule (count, code, fixable, name) instead of listing them; JSON too.")
@click.option("--show-source", is_flag=True, help="Show the source line of each finding.")
@click.option("--explain-scope", is_flag=True,
              help="Say under each finding why its code is compiled: the entry point and the calls that reach it.")
@click.option("--file-timeout", type=float, default=60.0, show_default=True,
              callback=_number_check(0, 1e6, note=" (0: no limit)"),
              help="Seconds allowed per file before it is reported as E002 and skipped (0: no limit).")
@click.option("--max-file-size", type=float, default=4.0, show_default=True,
              callback=_number_check(0, 1e6, note=" (0: no limit)"),
              help="Files over this many MB are reported as E004 and not parsed (0: no limit).")
@click.option("--sarif-category", default="compilelint/static", show_default=True,
              help="SARIF automationDetails id, so several uploads do not replace each other.")
@click.option("--torch-version", callback=_torch_version_check,
              help='The torch version your code runs on, e.g. "2.11" (default from config, else 2.13).')
@click.option("--fix", is_flag=True, help="Apply safe fixes in place, then report what remains.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply fixes marked unsafe (with --fix or --diff).")
@click.option("--diff", "show_diff", is_flag=True, help="Print the fixes as a unified diff; change nothing.")
@click.option("--baseline", type=click.Path(dir_okay=False),
              help="Report only findings not in this baseline file (see --write-baseline).")
@click.option("--write-baseline", type=click.Path(dir_okay=False),
              help="Write the current findings to this baseline file and exit 0.")
@click.option("--add-noqa", is_flag=True, help="Add `# noqa: CODE` comments to every line with findings.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the cache.")
@click.option("--cache-dir", type=click.Path(file_okay=False),
              help="Cache folder (default: one per project under $XDG_CACHE_HOME/compilelint, "
                   "else ~/.cache/compilelint).")
@click.option("--shard", help="I/N: lint only the I-th of N deterministic shards (CI matrices).")
def check(paths: tuple[str, ...], select: tuple[str, ...], extend_select: tuple[str, ...], ignore: tuple[str, ...],
          targets: tuple[str, ...], output_format: str, output: str | None, jobs: int, config_path: str | None,
          exclude: tuple[str, ...], force_exclude: bool, exit_zero: bool, statistics: bool, show_source: bool,
          file_timeout: float, max_file_size: float, sarif_category: str, fix: bool, unsafe_fixes: bool,
          show_diff: bool, baseline: str | None, write_baseline: str | None, add_noqa: bool, no_cache: bool,
          cache_dir: str | None, shard: str | None, torch_version: str | None, isolated: bool, quiet: bool,
          min_severity: str | None, explain_scope: bool) -> None:
    """Lint PATHS (files or folders; default: the current folder). Never imports or runs them."""
    from compilelint.discovery import project_root
    from compilelint.engine import lint

    paths_list = list(paths) or ["."]
    if isolated and config_path:
        raise click.UsageError("--isolated and --config contradict each other")
    try:
        config = default_config() if isolated else load_config(paths_list[0], config_path)
    except ConfigError as err:
        raise click.UsageError(str(err)) from err
    # What baseline fingerprints and SARIF URIs are relative to: the pyproject.toml's folder, else the
    # repository's top (excludes and per-file-ignores keep the working directory there, as before).
    identity_root = config.root if config.root != "." else find_vcs_root(paths_list[0]) or "."
    try:
        for flag, values in (("--select", select), ("--extend-select", extend_select), ("--ignore", ignore)):
            check_selectors(_split(values), flag)
    except ConfigError as err:
        raise click.UsageError(str(err)) from err
    if select:
        config.select = _split(select)
        if not config.select:
            raise click.UsageError("--select is empty, which turns every rule off; leave it out (every rule) "
                                   "or name codes or prefixes")
    config.extend_select += _split(extend_select)
    config.ignore += _split(ignore)
    config.exclude += list(exclude)
    if targets:
        config.targets, config.targets_from = list(targets), "--targets"
    if torch_version:
        config.torch_version = torch_version
    _check_selection(config)
    shard_spec = _parse_shard(shard) if shard else None
    default_cache = not no_cache and cache_dir is None
    if default_cache:
        from compilelint.cache import default_cache_dir

        cache_dir = default_cache_dir(identity_root)  # None (run uncached) where there is no user cache folder

    from compilelint.rules.registry import ENGINE_CODES, select_codes

    ignored_engine = select_codes(sorted(ENGINE_CODES), config.ignore)

    # Files named one by one (pre-commit names the changed ones) are checked against the rest of their project,
    # which is read for scope only; folders are linted as given.
    project = project_root(config.source, paths_list[0]) if any(os.path.isfile(p) for p in paths_list) else None

    def run_lint():  # noqa: ANN202
        linted = lint(paths_list, config, jobs=jobs, file_timeout=file_timeout, force_exclude=force_exclude,
                      max_file_mb=max_file_size, cache_dir=None if no_cache else cache_dir, shard=shard_spec,
                      project=project)
        if ignored_engine:  # the engine reports E00x unconditionally; `ignore` (as in ruff) still removes them
            linted.findings = [f for f in linted.findings if f.code not in ignored_engine]
        return linted

    fixed = 0
    if fix or show_diff:
        from compilelint.fix import fix_files, unified_diff

        changes, fixed = fix_files(run_lint, unsafe_fixes, write=fix and not show_diff)
        if show_diff:
            click.echo(unified_diff(changes), nl=False)
            sys.exit(EXIT_FINDINGS if changes else EXIT_CLEAN)
    result = run_lint()
    if cache_dir is not None and not no_cache:
        from compilelint.cache import prune, prune_user_cache

        prune_user_cache() if default_cache else prune(cache_dir)  # at most once a day: by age, then by size
    if add_noqa:
        from compilelint.suppress import add_noqa as add_noqa_to

        from compilelint.rules.registry import ENGINE_CODES

        by_path: dict[str, list] = {}
        for f in result.findings:
            if f.code not in ENGINE_CODES:  # (EX7xx are rules, E00x are the engine's own)
                by_path.setdefault(f.path, []).append(f)
        changed = sum(add_noqa_to(path, items) for path, items in sorted(by_path.items()))
        click.echo(f"Added noqa comments to {changed} line{'s' if changed != 1 else ''}.")
        sys.exit(EXIT_CLEAN)
    if write_baseline:
        from compilelint.baseline import write_baseline as write_baseline_file

        try:
            write_baseline_file(write_baseline, result.findings, root=identity_root)
        except OSError as err:
            raise click.UsageError(f"--write-baseline {write_baseline}: cannot write: {err.strerror or err}") from err
        click.echo(f"Wrote {len(result.findings)} findings to baseline {write_baseline}.")
        sys.exit(EXIT_CLEAN)
    if baseline:
        from compilelint.baseline import load_baseline, new_findings

        try:
            known = load_baseline(baseline)
        except (OSError, ValueError) as err:
            raise click.UsageError(f"cannot read baseline: {err}") from err
        result.findings = new_findings(result.findings, known, root=identity_root)
    if fix and fixed:
        click.echo(f"Fixed {fixed} finding{'s' if fixed != 1 else ''}.", err=True)
    for missing in result.missing:
        click.echo(f"compilelint: {missing}: no such file or directory", err=True)
    if min_severity:
        floor = _SEVERITY_RANK[min_severity]
        result.findings = [f for f in result.findings if _SEVERITY_RANK.get(f.severity, 1) >= floor]
    render = FORMATS[output_format]
    # SARIF URIs are resolved by code scanning against the repository's top, wherever the project root is
    uri_root = find_vcs_root(paths_list[0]) or identity_root
    text = render(result.findings, files=len(result.files), root=identity_root, uri_root=uri_root,
                  rule_codes=result.rule_codes, show_source=show_source, statistics=statistics,
                  category=sarif_category, quiet=quiet, targets_note=result.targets_note, targets=result.targets,
                  explain_scope=explain_scope)
    _emit(text, output)
    if result.missing:
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FINDINGS if result.findings and not exit_zero else EXIT_CLEAN)


@main.command("rule")
@click.argument("code")
def rule_command(code: str) -> None:
    """Explain one rule: what it does, why, an example and what to use instead."""
    from compilelint.docs import render_rule_doc
    from compilelint.rules.registry import all_rules

    rules = all_rules()
    rule = rules.get(code.upper())
    if rule is None:
        raise click.UsageError(f"unknown rule {code!r}; `compilelint rules` lists them")
    click.echo(render_rule_doc(rule))


@main.command("rules")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text")
def rules_command(output_format: str) -> None:
    """List every rule: code, family, targets, severity, fix availability."""
    import json as _json

    from compilelint.rules.registry import all_rules

    rows = [(r.code, r.name, r.family, ",".join(r.targets), r.severity, "yes" if r.has_fix else "", r.gb_id or "")
            for r in all_rules().values()]
    if output_format == "json":
        keys = ("code", "name", "family", "targets", "severity", "fix", "gb_id")
        click.echo(_json.dumps([dict(zip(keys, row)) for row in rows], indent=2))
        return
    header = ("CODE", "NAME", "FAMILY", "TARGETS", "SEVERITY", "FIX", "GB")
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    for row in (header, *rows):
        click.echo("  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip())


@main.command("probe")
@click.argument("targets", nargs=-1)
@click.option("--device", default="cpu", show_default=True, type=click.Choice(["cpu", "cuda"]))
@click.option("--output-format", type=click.Choice(PROBE_FORMATS), default="text", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the report to this file.")
@click.option("--timeout", type=float, default=600.0, show_default=True, callback=_number_check(0, 1e6, above=True),
              help="Seconds allowed per target.")
@click.option("--memory-mb", type=int, default=8192, show_default=True, callback=_number_check(0, 1 << 30),
              help="Memory bound per target (address space with a CPU-only torch, resident size with a "
                   "CUDA build; 0: none).")
@click.option("--config", "config_path", type=click.Path(exists=True, dir_okay=False), help="pyproject.toml to read.")
@click.option("--target", "compile_targets", multiple=True, type=click.Choice(TARGETS),
              help="Compile paths to probe (repeatable); default: the config's targets.")
@click.option("--dynamic", type=click.Choice(["auto", "true", "false"]), default="auto", show_default=True,
              help="torch.compile(dynamic=...) for the Dynamo check; auto: the factory's or module's DYNAMIC, "
                   "else torch's default.")
@click.option("-j", "--jobs", type=int, default=1, show_default=True, callback=_number_check(1, 4096),
              help="Targets probed at once (each in its own process; timings are cleaner with 1).")
@click.option("--progress/--no-progress", default=None,
              help="Each target's stage on stderr as it runs (default: when stderr is a terminal).")
@click.option("--sarif-category", default="compilelint/probe", show_default=True,
              help="SARIF automationDetails id, so probe and static uploads do not replace each other.")
@click.option("--scope", "scope", multiple=True, metavar="PACKAGE|DIR|all",
              help="Also count these files as yours (repeatable): an installed package's, a folder's, or every "
                   "installed package's ('all'); events inside them are reported there. Default: the config's "
                   "probe scope, else only files outside installed packages.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when the probe confirms findings.")
def probe_command(targets: tuple[str, ...], device: str, output_format: str, output: str | None, timeout: float,
                  memory_mb: int, config_path: str | None, compile_targets: tuple[str, ...], dynamic: str, jobs: int,
                  progress: bool | None, sarif_category: str, scope: tuple[str, ...], exit_zero: bool) -> None:
    """Run TARGETs (path/to/file.py:factory or package.module:factory, or [tool.compilelint.probe] targets)
    under real torch, each in its own child process, and mark each static finding confirmed,
    not-reproduced or not-exercised; report what torch found that no rule predicted."""
    from compilelint.runtime_probe.probe import enabled_checks, exit_code, probe, progress_printer, render
    from compilelint.runtime_probe.scope import ScopeError, resolve

    try:
        config = load_config(".", config_path)
    except ConfigError as err:
        raise click.UsageError(str(err)) from err
    if compile_targets:
        config.targets = list(compile_targets)
    if AUTO in config.targets or ALL in config.targets:  # the probe runs every compile path unless narrowed
        config.targets = list(TARGETS)
    chosen = list(targets) or list(config.probe_targets)
    base = "." if targets or not config.source else config.root
    if not chosen:
        raise click.UsageError("no targets: name path/to/file.py:factory, or list them in [tool.compilelint.probe]")
    try:
        scope_dirs = resolve(list(scope), ".") if scope else resolve(config.probe_scope, config.root)
    except ScopeError as err:
        raise click.UsageError(str(err)) from err
    # On a terminal: each target's stage as it runs (import, eager, dynamo, script, trace, export, isolate)
    show = progress if progress is not None else sys.stderr.isatty()
    printer = progress_printer(checks=enabled_checks(config)) if show else None
    result = probe(chosen, config, device=device, timeout=timeout, memory_mb=memory_mb, base=base, jobs=jobs,
                   dynamic={"auto": None, "true": True, "false": False}[dynamic], progress=printer,
                   scope=scope_dirs)
    _emit(render(result, output_format, category=sarif_category), output)
    sys.exit(EXIT_CLEAN if exit_zero else exit_code(result))


def _scale_check(ctx: click.Context, param: click.Parameter, value: str) -> int | str:
    from compilelint.runtime_probe.bench import parse_scale

    try:
        return parse_scale(value)
    except ValueError as err:
        raise click.BadParameter(str(err)) from None


@main.command("bench")
@click.argument("unfixed")
@click.option("--compare", "fixed", required=True, help="The fixed twin's target, PATH.py:FACTORY or module:FACTORY.")
@click.option("--device", type=click.Choice(["cpu", "cuda"]), default="cpu", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the results as JSON to this file.")
@click.option("--chart", type=click.Path(dir_okay=False), help="Write a self-contained HTML chart to this file.")
@click.option("--rounds", "--iters", "rounds", type=int, default=200, show_default=True,
              callback=_number_check(1, 1e9), help="At most this many timed rounds over the input sets.")
@click.option("--seconds", type=float, default=60.0, show_default=True, callback=_number_check(0, 1e6),
              help="Stop the timed rounds after this long, once --min-rounds are done.")
@click.option("--min-rounds", type=int, default=20, show_default=True, callback=_number_check(1, 1e9),
              help="Timed rounds done whatever --seconds says.")
@click.option("--warmup", type=int, default=3, show_default=True, callback=_number_check(0, 1e9),
              help="Untimed rounds after the first.")
@click.option("--setup-seconds", type=float, default=0.0, show_default=True, callback=_number_check(0, 1e6),
              help="Start no further variant's setup (build, compile, first round) after this long; 0: no limit.")
@click.option("--scale", default="1", show_default=True, callback=_scale_check,
              help="Passed to factories that take `scale`: a positive int, or 'deploy'.")
@click.option("--backend", default="inductor", show_default=True, help="torch.compile backend.")
@click.option("--timeout", type=float, default=900.0, show_default=True, callback=_number_check(0, 1e6, above=True),
              help="Seconds allowed for the child process; what it measured by then is kept.")
@click.option("--variants", default="", help="Comma-separated columns to run, in this order (default: all).")
def bench_command(unfixed: str, fixed: str, device: str, output: str | None, chart: str | None, rounds: int,
                  seconds: float, min_rounds: int, warmup: int, setup_seconds: float, scale: int | str, backend: str,
                  timeout: float, variants: str) -> None:
    """Time UNFIXED against its fixed twin, eager and compiled, on the same inputs, in a child process:
    variants interleaved round by round, each speedup with a 95 % interval over rounds."""
    import json as _json

    from compilelint.runtime_probe.bench import render_html, render_table, run_bench

    data = run_bench(unfixed, fixed, device=device, rounds=rounds, warmup=warmup, scale=scale, backend=backend,
                     timeout=timeout, variants=_split((variants,)) or None, seconds=seconds, min_rounds=min_rounds,
                     setup_seconds=setup_seconds)
    click.echo(render_table(data), nl=False)
    if output:
        _write_or_fail(output, _json.dumps(data, indent=2) + "\n", "--output")
    if chart:
        _write_or_fail(chart, render_html(data), "--chart")
    sys.exit(EXIT_ERROR if data.get("error") or data.get("errors") else EXIT_CLEAN)


def _check_selection(config: Config) -> None:
    """Select, ignore, targets and torch-version together must leave something to check: an empty selection
    would pass every file silently. Naming an engine code ("E001", "E") on its own is a choice, not a mistake."""
    from compilelint.engine import selected_rules
    from compilelint.rules.registry import ENGINE_CODES, select_codes

    if selected_rules(config):
        return
    named = [s for s in config.select + config.extend_select if s.strip().upper() != "ALL"]
    if select_codes(sorted(ENGINE_CODES), named) - set(select_codes(sorted(ENGINE_CODES), config.ignore)):
        return
    raise click.UsageError(
        f"no rule is left to run: select {config.select} + extend-select {config.extend_select}, minus ignore "
        f"{config.ignore}, for targets {config.targets} on torch {config.torch_version}; "
        "`compilelint rules` lists each rule's targets")


def _parse_shard(spec: str) -> tuple[int, int]:
    try:
        index, count = (int(x) for x in spec.split("/"))
    except ValueError:
        raise click.UsageError(f"--shard takes I/N, e.g. 1/4 (got {spec!r})") from None
    if not (count >= 1 and 1 <= index <= count):
        raise click.UsageError(f"--shard {spec}: need 1 <= I <= N")
    return index, count


def run() -> None:
    """Console-script entry: usage errors exit 2 with a message; no traceback for user input."""
    try:
        main(standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(EXIT_ERROR)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(EXIT_ERROR)
    except KeyboardInterrupt:
        sys.exit(130)
    except SystemExit:
        raise
    except Exception as exc:  # an internal error: say so plainly, exit 2
        if os.environ.get("COMPILELINT_DEBUG"):
            raise
        click.echo(f"compilelint: internal error: {type(exc).__name__}: {exc} "
                   "(set COMPILELINT_DEBUG=1 for a traceback)", err=True)
        sys.exit(EXIT_ERROR)
