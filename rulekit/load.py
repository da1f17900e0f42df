"""The front door: load, check and compile a ruleset with modules and variants."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import attrs

from rulekit.compiler.program import Program, compile_rules
from rulekit.engine.game import Game
from rulekit.errors import DiagnosticBag, RulesetError
from rulekit.rules.compose import (
    ModuleSource,
    compose,
    display_path,
    entry_origins,
    find_ruleset,
    fingerprint,
    load_source,
    module_order,
)
from rulekit.rules.fingerprint import semantic_fingerprint
from rulekit.rules.loader import build_model
from rulekit.rules.yaml_source import LocDict

_CACHE: dict[tuple[str, tuple[str, ...], tuple[str, ...], str], Program] = {}
BeforeCompile = Callable[[str, tuple[tuple[str, str], ...], str], None]


def load_program(
    ruleset: str,
    modules: Sequence[str] = (),
    variants: Sequence[str] = (),
    *,
    players: int | None = None,
    before_compile: BeforeCompile | None = None,
) -> Program:
    """Load, check and compile a ruleset (a bundled name or a directory).

    ``before_compile`` is called with the composed rules' fingerprint, the variants'
    (path, fingerprint) pairs and the semantic fingerprint before anything is compiled
    (replay refuses changed rules there).

    A program already loaded by this process, or found in the on-disk program cache
    (:mod:`rulekit.compiler.cache`), is reused when none of the files it was made from
    changed.

    Raises:
        RulesetError: anything wrong in the files, all of it, with positions.
    """
    from rulekit.compiler import cache

    directory = find_ruleset(ruleset)
    entry = cache.entry_path(directory, modules, variants, players)
    if entry is None:  # caching is off (RULEKIT_NO_CACHE)
        return _load_program(ruleset, modules, variants, players, before_compile)
    known = _LOADED.get(entry)
    if known is not None and cache.unchanged(known[1], known[2], directory) is not None:
        program = known[0]
    else:
        found = cache.fetch(entry, directory)
        if found is None:
            with cache.recording() as reads:
                program = _load_program(ruleset, modules, variants, players, before_compile)
            cache.store(entry, program, reads, directory)
            _LOADED[entry] = (program, reads, cache.listing(directory))
            return program
        program, reads = found
        _LOADED[entry] = (program, reads, cache.listing(directory))
    if before_compile is not None:
        before_compile(program.fingerprint, program.rules.variants, program.semantic_fingerprint)
    return program


#: Programs loaded in this process, by cache entry, with the files they were made from.
_LOADED: dict[Path, tuple[Program, list[tuple[str, str, str]], list[str]]] = {}


def _load_program(
    ruleset: str,
    modules: Sequence[str],
    variants: Sequence[str],
    players: int | None,
    before_compile: BeforeCompile | None,
) -> Program:
    source = load_source(ruleset)
    chosen = module_order(source, list(modules), players)
    variant_key: tuple[str, ...] = ()
    if variants:
        from rulekit.rules.variants import variant_cache_key

        variant_key = variant_cache_key(source, variants, players)
    # The files' content is part of the key, so edited rules are never served from the cache.
    content = fingerprint([source.data, *(m.data for m in chosen)])
    key = (str(source.directory.resolve()), tuple(m.name for m in chosen), variant_key, content)
    if key in _CACHE:
        if before_compile is not None:
            cached = _CACHE[key]
            before_compile(cached.fingerprint, cached.rules.variants, cached.semantic_fingerprint)
        return _CACHE[key]
    data = compose(source, chosen)
    variant_names: list[tuple[str, str]] = []
    if variants:
        from rulekit.rules.variants import apply_variants

        try:
            data, variant_names = apply_variants(data, source, list(variants), chosen, players=players)
        except RulesetError as composition:
            raise _with_model_errors(composition, data, chosen) from None
    semantics = semantic_fingerprint(data)
    if before_compile is not None:
        before_compile(fingerprint(data), tuple(variant_names), semantics)
    model = build_model(data, fingerprint(data), tuple(m.name for m in chosen))
    sources = {file: f"module {m.name}" for m in chosen for file in (display_path(m.path), *m.files)}
    sources.update({path: f"variant {path}" for path, _ in variant_names})
    model = attrs.evolve(
        model,
        variants=tuple(variant_names),
        semantic_fingerprint=semantics,
        origins=entry_origins(data, sources),
    )
    program = compile_rules(model)
    _CACHE[key] = program
    return program


def _with_model_errors(
    composition: RulesetError, data: LocDict, chosen: Sequence[ModuleSource]
) -> RulesetError:
    """A variant's composition errors together with the shape and DSL errors of what it did write
    (the operations that failed changed nothing, so nothing is reported twice)."""
    try:
        build_model(data, "", tuple(m.name for m in chosen))
    except RulesetError as built:
        bag = DiagnosticBag()
        bag.extend(composition.diagnostics)
        bag.extend(d for d in built.diagnostics if d not in composition.diagnostics)
        try:
            bag.raise_if_any()
        except RulesetError as together:
            return together
    return composition


def load_game(
    ruleset: str,
    players: int,
    modules: Sequence[str] = (),
    variants: Sequence[str] = (),
) -> Game:
    """A :class:`Game` ready for ``new_initial_state(seed)``."""
    program = load_program(ruleset, modules, variants, players=players)
    return Game(program, players)
