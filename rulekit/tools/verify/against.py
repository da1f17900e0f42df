"""``rulekit verify RULESET --against REV``: what a rules edit did, in the games it changes.

The other version of the rules is a git revision of the repository that holds RULESET (its
directory at that revision is exported read-only with ``git archive`` into a temporary
directory: the work tree is never touched) or a directory holding another version. Both
versions play the same seeded games: game *n* draws its player count and chance seed from
``(--seed, n)``, and at every decision one action of the other version's legal listing is drawn
(uniformly, by the game's random generator) and applied, by its text, to both. After setup and
after every action the two games are compared: the state (field by field), the legal listing and
the scores. The first divergence is shortened (verify's shrinker, as ``--differential``) and
explained in rule terms: the actions and triggers that fired under only one version on the
diverging action, the requirement that refuses an action one version offers
(:func:`rulekit.engine.explain.explain`), and the entries of the edit (``rulekit diff``) that
those rules are or read.
"""

from __future__ import annotations

import io
import random
import shutil
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from attrs import define, field

from rulekit.compiler.program import Program
from rulekit.engine.explain import explain
from rulekit.engine.game import Game, State
from rulekit.errors import Diagnostic, RulekitError, UsageError
from rulekit.load import load_program
from rulekit.rules.compose import find_ruleset
from rulekit.tools.diff import Change, Side, diff_sides
from rulekit.tools.verify.differential import DifferentialResult, Divergence, FieldMatcher, shorten
from rulekit.tools.verify.options import MAX_SEED, VerifyOptions

#: The time shrinking a divergence may take (seconds of work, as --differential).
SHRINK_SECONDS = 20.0
#: git commands get this long.
GIT_TIMEOUT = 60


# ---------------------------------------------------------------- the other version


@contextmanager
def other_version(ruleset: str, against: str) -> Iterator[Path]:
    """The ruleset's directory in the other version: ``against`` itself if it is a directory,
    else the ruleset's directory at git revision ``against``, exported into a temporary
    directory (removed afterwards).

    Raises:
        RulekitError: ``against`` is neither a directory nor a revision of the ruleset's
            repository, or the ruleset is not in it at that revision.
    """
    candidate = Path(against)
    if against and candidate.is_dir():
        yield candidate
        return
    here = find_ruleset(ruleset).resolve()
    if not against or against.startswith("-") or any(c in against for c in "\0\n"):
        raise RulekitError(Diagnostic(f"--against {against!r}: not a directory or a git revision"))
    top = _git(here, "rev-parse", "--show-toplevel")
    if top is None:
        raise RulekitError(Diagnostic(f"--against {against}: {here} is not in a git repository"))
    root = Path(top.strip())
    commit = _git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{against}^{{commit}}")
    if commit is None:
        raise RulekitError(
            Diagnostic(f"--against {against}: not a directory, nor a revision of the repository at {root}")
        )
    relative = here.relative_to(root.resolve()).as_posix()
    archive = _git_bytes(root, "archive", "--format=tar", commit.strip(), "--", relative)
    if archive is None:
        raise RulekitError(
            Diagnostic(f"--against {against}: the ruleset's directory {relative} is not in it")
        )
    scratch = Path(tempfile.mkdtemp(prefix="rulekit-against-"))
    try:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(scratch, filter="data")  # no links out, no absolute paths
        directory = scratch / relative
        if not directory.is_dir():
            raise RulekitError(
                Diagnostic(f"--against {against}: the ruleset's directory {relative} is not in it")
            )
        for path in directory.rglob("*"):  # read-only: nothing writes into the old version
            path.chmod(path.stat().st_mode & ~0o222)
        yield directory
    finally:
        for path in scratch.rglob("*"):
            if path.is_dir():
                path.chmod(0o700)
        shutil.rmtree(scratch, ignore_errors=True)


def _git(where: Path, *args: str) -> str | None:
    out = _git_bytes(where, *args)
    return None if out is None else out.decode("utf-8", "replace")


def _git_bytes(where: Path, *args: str) -> bytes | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(where), *args], capture_output=True, timeout=GIT_TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


# ---------------------------------------------------------------- playing both


@define
class Explanation:
    """The diverging action in rule terms."""

    action: str | None  # None: right after setup
    player: int | None
    fired_before: list[str] = field(factory=list)  # "action:x", "trigger:y" under the other version only
    fired_after: list[str] = field(factory=list)  # ... under this version only
    fired_both: list[str] = field(factory=list)  # ... under both
    refusals: list[str] = field(factory=list)  # why a version refuses what the other offers
    scores: tuple[tuple[int, ...], tuple[int, ...]] | None = None
    changes: list[Change] = field(factory=list)  # entries of the edit involved
    other_changes: int = 0


@define
class AgainstResult:
    """The outcome of :func:`against`."""

    label: str
    games: int = 0
    actions: int = 0
    seconds: float = 0.0
    divergence: Divergence | None = None
    explanation: Explanation | None = None
    edit: int = 0  # entries the edit changed (rulekit diff)

    def render(self) -> str:
        if self.divergence is None:
            return (
                f"against {self.label}: the same games in both versions "
                f"({self.games} games, {self.actions} actions side by side in {self.seconds:.1f}s; "
                f"the edit changed {self.edit} entr{'y' if self.edit == 1 else 'ies'})"
            )
        d, e = self.divergence, self.explanation
        lines = [f"against {self.label}: the rules behave differently"]
        where = (
            "right after setup"
            if e is None or e.action is None
            else f"at {e.action} (P{(e.player or 0) + 1})"
        )
        lines.append(f"  first divergence {where}: {d.what}")
        for name, left, right in d.fields[:8]:
            lines.append(f"    {name}: {self.label} {left}, now {right}")
        if e is not None:
            if e.scores is not None:
                lines.append(f"    scores: {self.label} {list(e.scores[0])}, now {list(e.scores[1])}")
            for refusal in e.refusals:
                lines.append(f"    {refusal}")
            if e.fired_before or e.fired_after or e.fired_both:
                lines.append("  rules that fired on that action:")
                lines.extend(f"    only at {self.label}: {_rule(k)}" for k in e.fired_before)
                lines.extend(f"    only now: {_rule(k)}" for k in e.fired_after)
                if e.fired_both:
                    lines.append(f"    in both versions: {', '.join(_rule(k) for k in e.fired_both)}")
            if e.changes:
                lines.append("  the edit's changes involved (rulekit diff):")
                for change in e.changes:
                    at = change.new_at or change.old_at or ""
                    lines.append(
                        f"    {change.kind} {change.section} {change.name}" + (f" ({at})" if at else "")
                    )
                    lines.extend(f"      {line}" for line in change.diff.splitlines()[:12])
            if e.other_changes:
                lines.append(f"  ({e.other_changes} other change(s) of the edit not involved here)")
        lines.append(f"  actions to reach it ({d.players} players, seed {d.seed}):")
        if not d.actions:
            lines.append("    (none: right after setup)")
        lines.extend(f"    {i:>3}. {text}" for i, text in enumerate(d.actions, start=1))
        lines.append(f"  {self.games} games, {self.actions} actions side by side in {self.seconds:.1f}s")
        return "\n".join(lines)


def _rule(key: str) -> str:
    kind, _, name = key.partition(":")
    return f"{kind} '{name}'"


def against(options: VerifyOptions, revision: str) -> AgainstResult:
    """Play the same seeded games with the other version (``revision``) and this one.

    Raises:
        RulekitError: ``revision`` is not a directory or a revision holding the ruleset, or
            either version does not load.
    """
    started = time.perf_counter()
    result = AgainstResult(label=revision)
    with other_version(options.ruleset, revision) as directory:
        old = load_program(str(directory), options.modules, options.variants, players=options.players)
        new = load_program(options.ruleset, options.modules, options.variants, players=options.players)
        low = max(old.rules.min_players, new.rules.min_players)
        high = min(old.rules.max_players, new.rules.max_players)
        counts = [options.players] if options.players else list(range(low, high + 1))
        if not counts:
            raise UsageError(Diagnostic("the two versions allow no player count in common"))
        edit = diff_sides(
            Side(str(directory), list(options.modules), list(options.variants), options.players),
            Side(options.ruleset, list(options.modules), list(options.variants), options.players),
        ).changes
        result.edit = len(edit)
        matcher = FieldMatcher(old, ())
        found: Divergence | None = None
        for number in range(options.examples):
            rng = random.Random(f"{options.seed}:{number}")
            players, seed = rng.choice(counts), rng.randrange(MAX_SEED)
            result.games += 1
            found = _play(old, new, players, seed, rng, options.max_actions, matcher, result)
            if found is not None:
                break
        if found is not None:
            if found.fields or found.what.startswith("the legal actions"):  # what the shrinker sees
                shadow = DifferentialResult(old, new, 0, 0, 0.0)
                short = shorten(old, new, found, matcher, shadow, SHRINK_SECONDS, counts[0])
                # described as this command does (the shrinker's words are --differential's)
                found = (
                    _play(
                        old,
                        new,
                        short.players,
                        short.seed,
                        None,
                        0,
                        matcher,
                        AgainstResult(""),
                        short.actions,
                    )
                    or found
                )
            result.divergence = found
            result.explanation = _explain(old, new, found, edit)
    result.seconds = time.perf_counter() - started
    return result


def _play(
    old: Program,
    new: Program,
    players: int,
    seed: int,
    rng: random.Random | None,
    limit: int,
    matcher: FieldMatcher,
    result: AgainstResult,
    replay: Sequence[str] = (),
) -> Divergence | None:
    """One game on both versions (random choices from the old listing, or ``replay``)."""
    left = Game(old, players).new_initial_state(seed)
    right = Game(new, players).new_initial_state(seed)
    texts: list[str] = []
    found = _differ(left, right, matcher, players, seed, texts)
    step = 0
    while found is None and not left.is_terminal() and step < (limit if rng is not None else len(replay)):
        legal = left.legal_action_strings()
        text = legal[rng.randrange(len(legal))] if rng is not None else replay[step]
        step += 1
        texts.append(text)
        result.actions += 1
        failed = []
        for version, state in (("the other version", left), ("this version", right)):
            try:  # offered by both (the listings were compared), but an effect may fail
                state.apply_action(text)
            except RulekitError as error:
                message = error.diagnostics[0].message if error.diagnostics else str(error)
                failed.append(f"{text} fails under {version}: {message}")
        if failed:
            return Divergence(players, seed, list(texts), "; ".join(failed))
        found = _differ(left, right, matcher, players, seed, texts)
    return found


def _differ(
    left: State, right: State, matcher: FieldMatcher, players: int, seed: int, texts: list[str]
) -> Divergence | None:
    """The first difference of the state, the legal listing or the scores."""
    differing = []
    for key in sorted(set(left.fields) | set(right.fields), key=repr):
        a, b = left.fields.get(key), right.fields.get(key)
        if a != b and key[0] != "_":
            differing.append((matcher.label(key), matcher.show(key, a), matcher.show(key, b)))
    if differing:
        return Divergence(players, seed, list(texts), "the state differs", differing)
    terminal = (left.is_terminal(), right.is_terminal())
    if terminal[0] != terminal[1]:
        return Divergence(players, seed, list(texts), "the game ends in one version only")
    if not terminal[0]:
        mine, theirs = set(left.legal_action_strings()), set(right.legal_action_strings())
        if mine != theirs:  # (the order does not matter: the choices are made by text)
            gone, new = sorted(mine - theirs), sorted(theirs - mine)
            parts = []
            if gone:
                parts.append(f"only the other version allows {', '.join(gone[:5])}")
            if new:
                parts.append(f"only this version allows {', '.join(new[:5])}")
            return Divergence(players, seed, list(texts), f"the legal actions differ: {'; '.join(parts)}")
    if left.scores() != right.scores():
        return Divergence(players, seed, list(texts), "the scores differ")
    return None


def _explain(old: Program, new: Program, found: Divergence, edit: list[Change]) -> Explanation:
    """Replay the divergence on both versions and say which rules acted differently."""
    fired: list[list[str]] = [[], []]
    games = [Game(old, found.players), Game(new, found.players)]
    states = [g.new_initial_state(found.seed) for g in games]
    player = None
    failed = False
    for text in found.actions[:-1]:
        for state in states:
            state.apply_action(text)
    last = found.actions[-1] if found.actions else None
    if last is not None:
        player = states[0].current_player()
        for side, (game, state) in enumerate(zip(games, states, strict=True)):
            game.runtime.fired = _recorder(fired[side])
            try:
                state.apply_action(last)
            except RulekitError:
                failed = True  # the divergence says how; the two states are not comparable
            finally:
                game.runtime.fired = None
    explanation = Explanation(last, player)
    explanation.fired_before = [k for k in dict.fromkeys(fired[0]) if k not in fired[1]]
    explanation.fired_after = [k for k in dict.fromkeys(fired[1]) if k not in fired[0]]
    explanation.fired_both = [k for k in dict.fromkeys(fired[0]) if k in fired[1]]
    involved = {_label(k) for k in fired[0] + fired[1]}
    left, right = states
    if not failed and not left.is_terminal() and not right.is_terminal():
        mine, theirs = set(left.legal_action_strings()), set(right.legal_action_strings())
        for side, (state, missing) in enumerate(((right, mine - theirs), (left, theirs - mine))):
            version = "now" if side == 0 else "the other version"
            for text in sorted(missing)[:3]:
                diagnostic = _why_not(state, text)
                at = f" ({diagnostic.span})" if diagnostic.span else ""
                explanation.refusals.append(f"{version}: {diagnostic.message}{at}")
                involved.add(f"action {text.split('(', 1)[0]}")
    if not failed and left.scores() != right.scores():
        explanation.scores = (tuple(left.scores()), tuple(right.scores()))
        involved.add("scoring")
    fields = {name.split(".", 1)[-1] for name, _, _ in found.fields}
    for change in edit:
        kind = change.section[:-1] if change.section in ("actions", "triggers") else change.section
        entry = f"{kind} {change.name}"
        touches = (
            entry in involved
            or any(user in involved for user in change.used_by)
            or (change.section == "state" and change.name.split(".", 1)[-1] in fields)
            or (change.section == "scoring" and "scoring" in involved)
        )
        if touches:
            explanation.changes.append(change)
    explanation.other_changes = len(edit) - len(explanation.changes)
    return explanation


def _why_not(state: State, text: str) -> Diagnostic:
    try:
        action = state.game.parse_action(text)
    except RulekitError as error:
        return error.diagnostics[0] if error.diagnostics else Diagnostic(f"{text}: {error}")
    return explain(state, action)


def _recorder(into: list[str]) -> Callable[[str], None]:
    return into.append


def _label(key: str) -> str:
    kind, _, name = key.partition(":")
    return f"{kind} {name}"
