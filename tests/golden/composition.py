"""Composition goldens: what every shipped combination of modules and variants composes to.

For each ruleset of ``rulesets/`` and ``tests/golden/cases/``, each set of its modules (every
subset, up to four modules) and the shipped variants (none, each, all), plus every variant file
of the tests for that ruleset (the planted bugs of ``tests/verify/corpus``, fixtures; on the
shipped variant a corpus file names, with no modules and with all of them), the file
``tests/golden/composed.json`` records a hash of the composed located data (every value, the
span of every value and key, each text's origin) or the error messages.  The compiled program
is made from that data alone, so a change of the composer that changes no entry changes no
program.  When a change is intended (a ruleset edited), regenerate and review::

    python -m tests.golden.composition --update
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from rulekit.errors import RulesetError
from rulekit.rules.compose import compose, load_source, module_order
from rulekit.rules.variants import load_variant
from rulekit.rules.yaml_source import LocStr, span_of
from tests.rulesets import ROOT

GOLDEN = ROOT / "tests" / "golden" / "composed.json"
REGENERATE = "python -m tests.golden.composition --update"


def located(value: Any) -> Any:
    """``value`` with the span of every value and key, as plain JSON data."""
    span = span_of(value)
    where = None if span is None else [span.file, span.line, span.column, span.end_line, span.end_column]
    if isinstance(value, dict):
        keys = getattr(value, "key_spans", {})
        return ["map", where, [[str(k), str(keys.get(k)), located(v)] for k, v in value.items()]]
    if isinstance(value, list):
        return ["list", where, [located(v) for v in value]]
    if isinstance(value, LocStr):
        return ["text", where, str(value), str(value.origin)]
    return ["value", repr(value)]


def _test_variants() -> dict[str, list[Path]]:
    """The variant files under ``tests/``, by the ruleset they name."""
    found: dict[str, list[Path]] = {}
    for path in sorted((ROOT / "tests").rglob("*.yaml")):
        head = path.read_text(encoding="utf-8", errors="replace")[:4000]
        if not ("\n" + head).count("\nvariant:"):
            continue
        for line in head.splitlines():
            if line.startswith("ruleset:"):
                found.setdefault(line.split(":", 1)[1].strip().strip("'\""), []).append(path)
    return found


def cases() -> Iterator[tuple[Path, list[str], list[Path]]]:
    """(ruleset directory, modules, variant files) of every recorded combination."""
    directories = sorted(p.parent for p in (ROOT / "rulesets").glob("*/ruleset.yaml"))
    directories += sorted(p.parent for p in (ROOT / "tests/golden/cases").glob("*/ruleset.yaml"))
    tests = _test_variants()
    for directory in directories:
        names = sorted(p.stem for p in (directory / "modules").glob("*.yaml"))
        subsets = [list(c) for n in range(len(names) + 1) for c in itertools.combinations(names, n)]
        if len(names) > 4:
            subsets = [[], *([name] for name in names), names]
        shipped = sorted((directory / "variants").glob("*.yaml"))
        base = [[], *([v] for v in shipped), *([shipped] if len(shipped) > 1 else [])]
        more: list[list[Path]] = []
        for extra in tests.get(directory.name, []):
            more.append([extra])
            head = extra.read_text(encoding="utf-8")[:2000]
            more += [
                [v, extra]
                for v in shipped
                if f"on variant: rulesets/{directory.name}/variants/{v.name}" in head
            ]
        for index, modules in enumerate(subsets):
            for variants in base + (more if index in (0, len(subsets) - 1) else []):
                yield directory, modules, variants


def composed(directory: Path, modules: Sequence[str], variants: Sequence[Path]) -> str:
    """The hash of what the combination composes to, or its error messages."""
    try:
        source = load_source(str(directory))
        chosen = module_order(source, list(modules), None)
        loaded = [load_variant(str(v), source) for v in variants]
        data = compose(source, chosen, loaded)
    except RulesetError as error:
        return "error: " + " | ".join(f"{d.span}: {d.message} [{d.hint}]" for d in error.diagnostics)
    return hashlib.sha256(json.dumps(located(data)).encode()).hexdigest()[:20]


def snapshot() -> dict[str, str]:
    """Every combination's key and result (run from the repository's root: spans name files from it)."""
    here = Path.cwd()
    os.chdir(ROOT)
    try:
        return {
            "|".join(
                [str(d.relative_to(ROOT)), ",".join(m), ",".join(str(v.relative_to(ROOT)) for v in vs)]
            ): composed(d, m, [v.relative_to(ROOT) for v in vs])
            for d, m, vs in cases()
        }
    finally:
        os.chdir(here)


def differences(recorded: dict[str, str], now: dict[str, str]) -> list[str]:
    return [
        f"{key}: recorded {recorded.get(key)!r}, now {now.get(key)!r}"
        for key in sorted(set(recorded) | set(now))
        if recorded.get(key) != now.get(key)
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help=f"rewrite {GOLDEN.name}")
    args = parser.parse_args(argv)
    now = snapshot()
    if args.update:
        GOLDEN.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {len(now)} combinations to {GOLDEN}")
        return 0
    found = differences(json.loads(GOLDEN.read_text(encoding="utf-8")), now)
    print("\n".join(found) or f"{len(now)} combinations as recorded")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
