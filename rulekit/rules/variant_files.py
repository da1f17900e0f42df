"""Variant files: finding shipped ones and loading them (read by :mod:`rulekit.rules.patch_files`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rulekit.errors import Diagnostic, DiagnosticBag, RulesetError, did_you_mean
from rulekit.rules import schema
from rulekit.rules.compose import RulesetSource, is_file, load_source
from rulekit.rules.parameters import PREFIX, is_setting, setting_value, setting_variant_data, value_text
from rulekit.rules.patch_files import Patch, patch_fingerprint, read_patch

VARIANT_KEYS = schema.VARIANT.names

#: A variant file (a :class:`Patch` of kind ``"variant"``).
VariantSource = Patch


# ---------------------------------------------------------------- finding and loading


def shipped_variants(source: RulesetSource) -> dict[str, Path]:
    """The variant files shipped in the ruleset's ``variants/`` directory, by file stem."""
    directory = source.directory / "variants"
    if not directory.is_dir():
        return {}
    return {p.stem: p for p in sorted(directory.glob("*.yaml"))}


def find_variant(ref: str, source: RulesetSource | None = None) -> Path:
    """Resolve a variant reference: a file path, or the name of a variant shipped with the ruleset.

    Raises:
        RulesetError: no such file or shipped variant (with the nearest names).
    """
    path = Path(ref)
    if is_file(path):
        return path
    shipped = shipped_variants(source) if source is not None else {}
    stem = path.name[: -len(path.suffix)] if path.suffix in (".yaml", ".yml") else path.name
    if stem in shipped and ("/" not in ref or path.parent.name == "variants"):
        # a bare name, or a shipped variant's path recorded elsewhere (e.g. in a log)
        return shipped[stem]
    hint = did_you_mean(stem, shipped)
    if hint is None and shipped:
        hint = f"variants shipped with {source.name if source else 'the ruleset'}: {', '.join(shipped)}"
    raise RulesetError(
        Diagnostic(
            f"no variant file '{ref}'",
            hint=hint or "give the path of a variant YAML file",
        )
    )


def load_variant(ref: str | Path, source: RulesetSource | None = None) -> Patch:
    """Read and shape-check one variant file (operations are checked when applied).

    Raises:
        RulesetError: not a variant file, unknown keys, malformed constraints.
    """
    if is_setting(ref):
        return _setting(str(ref), source)
    bag = DiagnosticBag()
    variant = read_patch("variant", find_variant(str(ref), source), bag, source.name if source else None)
    bag.raise_if_any()
    assert variant is not None
    return variant


def _setting(ref: str, source: RulesetSource | None) -> VariantSource:
    """A parameter setting (``param:NAME=VALUE``) as the one-line variant it stands for.

    Raises:
        RulesetError: no such parameter, or a value it does not allow.
    """
    if source is None:
        raise RulesetError(Diagnostic(f"{ref}: a parameter setting needs its ruleset"))
    name, value = setting_value(ref, source.data, source.name)
    display = f"{PREFIX}{name}={value_text(value)}"
    data = setting_variant_data(name, value, source.name, display)
    return Patch(
        kind="variant",
        name=f"--param {name}",
        path=Path(display),
        display=display,
        data=data,
        title=f"{name} = {value_text(value)}",
        description="",
        ruleset=source.name,
        requires=(),
        conflicts=(),
        players=None,
        fingerprint=patch_fingerprint(data),
    )


variant_fingerprint = patch_fingerprint


def variant_fingerprints(paths: Sequence[str | Path], ruleset: str | None = None) -> list[dict[str, Any]]:
    """Name, title, description, path and fingerprint of each variant, for a game log header.

    ``ruleset`` (a name or directory) lets bare names find shipped variants.
    """
    source = load_source(ruleset) if ruleset is not None else None
    return [load_variant(p, source).info() for p in paths]
