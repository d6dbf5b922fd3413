"""Messages read like ruff's: one short fact per finding, the explanation in the rule's docs.

Every rule's bad examples are linted and each finding's message, names interpolated, must fit MAX_MESSAGE
characters; the long text belongs in `compilelint rule CODE` and SARIF's help, which every rule has.
"""

from __future__ import annotations

from compilelint.config import Config
from compilelint.engine import lint
from compilelint.rules.registry import all_rules

MAX_MESSAGE = 88


def _bad_example_messages(tmp_path) -> dict[str, list[str]]:
    """code -> the messages its bad examples get, each example linted in a folder of its own with only its rule."""
    out: dict[str, list[str]] = {}
    for code, rule in sorted(all_rules().items()):
        for i, example in enumerate(rule.bad):
            folder = tmp_path / f"{code.lower()}_{i}"
            folder.mkdir()
            path = folder / f"ex_{code.lower()}_{i}.py"
            path.write_text(example.code)
            config = Config(select=[code], root=str(folder))
            if rule.max_torch:  # a rule about older releases is off for the default torch-version
                config.torch_version = rule.max_torch
            out.setdefault(code, []).extend(f.message for f in lint([str(path)], config, jobs=1).findings
                                            if f.code == code)
    return out


def test_every_message_is_short(tmp_path):
    messages = _bad_example_messages(tmp_path)
    assert not [code for code in all_rules() if not messages.get(code)], "rules whose bad examples gave no message"
    long = sorted((len(m), code, m) for code, ms in messages.items() for m in ms if len(m) > MAX_MESSAGE)
    assert long == [], "\n".join(f"{n} {code}: {m}" for n, code, m in long)


def test_every_rule_explains_itself_in_its_docs():
    """The short message leaves the why to the docs: each rule has them."""
    assert [code for code, rule in all_rules().items() if rule.doc is None or not rule.doc.why] == []


def test_long_names_are_cut_and_prose_is_kept():
    from compilelint.rules.base import MAX_MESSAGE, fit_message

    text = ("`controlnet_single_block_samples=None` unannotated is typed Tensor; annotate "
            "`torch.Tensor | None`")
    fitted = fit_message(text)
    assert len(fitted) == MAX_MESSAGE and fitted.endswith("` unannotated is typed Tensor; annotate `torch.Tensor | None`")
    assert fitted.startswith("`controlnet_") and "…" in fitted  # the longest name gave way, the suggestion did not
    short = "`x` is never set by default: the scripted module lacks it"
    assert fit_message(short) == short
    prose = "a message of prose only, with no name in it, " * 3
    assert fit_message(prose) == prose  # nothing to cut: the rule's own text decides its length
    names = "`" + "a" * 40 + "` and `" + "b" * 40 + "` " + "c" * 20
    assert len(fit_message(names)) == MAX_MESSAGE
