"""The front door: load, check and compile a ruleset with modules and variants."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import attrs

from rulekit.compiler.build import compile_rules
from rulekit.compiler.program import Program
from rulekit.engine.game import Game
from rulekit.errors import DiagnosticBag, RulesetError
from rulekit.rules.compose import (
    CompositionError,
    ModuleSource,
    RulesetSource,
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
from rulekit.rules.variant_files import VariantSource
from rulekit.rules.yaml_source import LocDict

_CACHE: dict[tuple[str, tuple[str, ...], tuple[str, ...], str], Program] = {}
#: How many programs :data:`_CACHE` keeps (the oldest goes first): a long-running process that
#: loads every edit of a ruleset (``rulekit lsp``) must not keep them all.
_CACHE_SIZE = 32
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
            with cache.recording() as reads, _collector_paused():
                program = _load_program(ruleset, modules, variants, players, before_compile)
            cache.store(entry, program, reads, directory)
            _LOADED[entry] = (program, reads, cache.listing(directory))
            return program
        program, reads = found
        _LOADED[entry] = (program, reads, cache.listing(directory))
    if before_compile is not None:
        before_compile(program.fingerprint, program.rules.variants, program.semantic_fingerprint)
    return program


@contextmanager
def _collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while a ruleset is compiled: compiling allocates hundreds
    of thousands of objects that live until it ends (trees, nodes, spans), and the collector
    would walk them again and again (~10% of a cold load).  What became garbage is collected
    as usual afterwards."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


#: Programs loaded in this process, by cache entry, with the files they were made from.
_LOADED: dict[Path, tuple[Program, list[tuple[str, str, str]], list[str]]] = {}


@attrs.frozen
class Composed:
    """A ruleset composed once with its modules and variants: the composed located data (for
    tools that show the rules' own text and positions: ``rulekit rules``, ``rulekit diff``) and
    the checked program built from that same composition (whose model says who wrote what)."""

    data: LocDict
    source: RulesetSource
    modules: tuple[ModuleSource, ...]
    variants: tuple[VariantSource, ...]
    program: Program


def load_composed(
    ruleset: str, modules: Sequence[str] = (), variants: Sequence[str] = (), *, players: int | None = None
) -> Composed:
    """Compose, check and compile a ruleset, keeping the composed data.

    Raises:
        RulesetError: anything wrong in the files, all of it, with positions.
    """
    source = load_source(ruleset)
    chosen = module_order(source, list(modules), players)
    loaded = _load_variants(source, variants)
    key = _cache_key(source, chosen, _variant_key(loaded, players))
    data = _compose(source, chosen, loaded, players)
    program = _CACHE.get(key) or _program_from(chosen, data, loaded, None, key)
    return Composed(data, source, tuple(chosen), tuple(loaded), program)


def _load_program(
    ruleset: str,
    modules: Sequence[str],
    variants: Sequence[str],
    players: int | None,
    before_compile: BeforeCompile | None,
) -> Program:
    source = load_source(ruleset)
    chosen = module_order(source, list(modules), players)
    loaded = _load_variants(source, variants)  # each variant file is read once, here
    key = _cache_key(source, chosen, _variant_key(loaded, players))
    if key in _CACHE:
        if before_compile is not None:
            cached = _CACHE[key]
            before_compile(cached.fingerprint, cached.rules.variants, cached.semantic_fingerprint)
        return _CACHE[key]
    data = _compose(source, chosen, loaded, players)
    return _program_from(chosen, data, loaded, before_compile, key)


def _load_variants(source: RulesetSource, variants: Sequence[str]) -> list[VariantSource]:
    """Read each variant file (or ``--param`` setting) once, for the cache key and the composition.

    Raises:
        RulesetError: a variant file cannot be read or is not shaped like one.
    """
    if not variants:
        return []
    from rulekit.rules.variants import load_variant

    return [load_variant(v, source) for v in variants]


def _variant_key(loaded: Sequence[VariantSource], players: int | None) -> tuple[str, ...]:
    if not loaded:
        return ()
    from rulekit.rules.variants import variant_cache_key

    return variant_cache_key(loaded, players)


def _cache_key(
    source: RulesetSource, chosen: Sequence[ModuleSource], variant_key: tuple[str, ...]
) -> tuple[str, tuple[str, ...], tuple[str, ...], str]:
    # The files' content is part of the key, so edited rules are never served from the cache.
    content = fingerprint([source.data, *(m.data for m in chosen)])
    return (str(source.directory.resolve()), tuple(m.name for m in chosen), variant_key, content)


def _compose(
    source: RulesetSource,
    chosen: Sequence[ModuleSource],
    loaded: Sequence[VariantSource],
    players: int | None,
) -> LocDict:
    """The composed data: the modules, then the variants (:func:`rulekit.rules.compose.compose`).

    Raises:
        RulesetError: a module's or variant's problems; a variant's together with the shape
            and DSL errors of what the variants did write.
    """
    try:
        return compose(source, chosen, loaded, players)
    except CompositionError as composition:
        raise _with_model_errors(composition, composition.data, chosen) from None


def _program_from(
    chosen: Sequence[ModuleSource],
    data: LocDict,
    loaded: Sequence[VariantSource],
    before_compile: BeforeCompile | None,
    key: tuple[str, tuple[str, ...], tuple[str, ...], str],
) -> Program:
    """Check and compile composed data; the program is kept in this process under ``key``."""
    variant_names = [(v.display, v.fingerprint) for v in loaded]
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
    while len(_CACHE) > _CACHE_SIZE:
        del _CACHE[next(iter(_CACHE))]
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
