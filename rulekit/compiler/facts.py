"""What generated code does, as a record: the facts the planner works on.

The code generator records the facts of what it writes at the points where it writes
it (:class:`Recorder`, :meth:`rulekit.compiler.codegen_base.CodeGenBase.recording`): a
field read when it writes ``F[(owner, 'field')]``, a rules function when it writes its
call, a built-in, a use of the runtime ``R`` or of the acting player ``me``; in a
statement block (an effect, a trigger, a procedure, a flow block:
:meth:`rulekit.compiler.codegen.CodeGen.block_facts`) also each field it assigns
(``F[(owner, 'field')] = ...``) and each way out of the block it writes (``raise`` for
``fail``).  The planner records the same of the enumerators it writes, with their
``return`` and ``continue`` (:func:`combine`), and the fusion of a decision's
enumerators turns their ``return`` into ``break``.  The generated text is never read
back.  The planner (:mod:`rulekit.compiler.planner`: which fields a memoized function
depends on, whether it depends on the acting player), the enumerator planner (a domain
that is a whole collection, a test that charges no step) and the fusion of a decision's
enumerators (:mod:`rulekit.compiler.planner_decisions`: which first tests are worth
sharing, which lines end an enumerator) read those records.

* a field read is ``(owner, field)``: the owner when it is written as a literal
  (``'game'``, ``'turn'``, a component id), else None (that field of any owner);
* a rules function call is ``fn_name(F, R, me, ...)`` (its reads are the callee's);
* any other use of ``F`` (the whole state: an effect's built-in, an event) makes the
  reads unknown (``opaque``).
"""

from __future__ import annotations

from collections.abc import Iterable

from attrs import frozen

#: (owner, field): owner a literal owner ("game", "turn", a component id), None for a
#: computed one (that field of any owner).
Read = tuple[str | None, str]


@frozen
class Facts:
    """The facts of one generated expression (or function body)."""

    #: The fields it reads directly (see :data:`Read`).
    reads: frozenset[Read]
    #: It uses the state otherwise than by such reads (or a rules function otherwise than
    #: by such a call): what it reads is unknown.
    opaque: bool
    #: The rules functions (``fn_name``) it calls as ``fn_name(F, R, me, ...)``.
    calls: frozenset[str]
    #: The built-ins it calls (``B_name``, ``E_name``, ``BC_name``), by generated name.
    builtins: frozenset[str]
    #: The attributes of the runtime ``R`` it uses (``steps``, ``left``, ``num_players``...).
    runtime: frozenset[str]
    #: It names the acting player ``me`` other than to pass it on to a rules function.
    me: bool
    #: It may charge the step budget: it calls a rules function or uses the runtime ``R``.
    charges: bool
    #: Field reads plus built-in calls, counted (each occurrence): what asking it costs.
    work: int
    #: It is a whole collection of components (``C_kind``): the kind, else None.
    collection: str | None = None
    #: The fields a statement block assigns (``F[(owner, 'field')] = ...``, see :data:`Read`);
    #: it may change the state otherwise too (an effect built-in, an event, a procedure)
    #: when ``opaque``.
    writes: frozenset[Read] = frozenset()
    #: The ways out of a block it writes, other than running to its end: ``"return"``,
    #: ``"continue"``, ``"break"``, ``"fail"`` (a ``raise``), each once.
    exits: frozenset[str] = frozenset()


#: The kinds of exit a generated block may have (:attr:`Facts.exits`).
EXITS = frozenset({"return", "continue", "break", "fail"})


def combine(parts: Iterable[Facts], exits: Iterable[str] = (), reads: Iterable[Read] = ()) -> Facts:
    """The facts of a function the planner writes from generated ``parts`` (their union),
    with the ``exits`` and the extra ``reads`` it writes around them itself."""
    recorder = Recorder()
    for part in parts:
        recorder.add_facts(part)
    for read in reads:
        recorder.read(*read)
    for kind in exits:
        recorder.exit(kind)
    return recorder.facts()


class Recorder:
    """The facts of one expression while it is generated: the code generator notes each
    fact where it writes the code that has it (see :meth:`rulekit.compiler.codegen_base.
    CodeGenBase.recording`); a nested recording adds its facts to the enclosing one."""

    __slots__ = (
        "builtins",
        "calls",
        "collection",
        "exits",
        "last",
        "me",
        "opaque",
        "reads",
        "runtime",
        "work",
        "writes",
    )

    def __init__(self) -> None:
        self.reads: set[Read] = set()
        self.calls: set[str] = set()
        self.builtins: set[str] = set()
        self.runtime: set[str] = set()
        self.me = False
        self.opaque = False
        self.work = 0
        #: A collection of components written (``C_kind``): (the generator's nesting depth
        #: there, the kind); the whole expression when written at its top.
        self.collection: tuple[int, str] | None = None
        self.writes: set[Read] = set()
        self.exits: set[str] = set()
        #: The last field read noted (an assignment's target is the last one it writes).
        self.last: Read | None = None

    def read(self, owner: str | None, field: str) -> None:
        """``F[(owner, field)]`` is written (owner None: computed)."""
        self.last = (owner, field)
        self.reads.add(self.last)
        self.work += 1

    def write(self, field: Read) -> None:
        """``F[field] = ...``, an assignment to a field, is written."""
        self.writes.add(field)

    def exit(self, kind: str) -> None:
        """A way out of the block (one of :data:`EXITS`) is written."""
        assert kind in EXITS, kind
        self.exits.add(kind)

    def call(self, function: str) -> None:
        """``function(F, R, me, ...)``, a rules function, is written."""
        self.calls.add(function)

    def builtin(self, name: str, counted: bool = True) -> None:
        """The built-in ``name`` (``B_``, ``E_``, ``BC_``) is called (``counted``: a ``B_``
        call, part of what asking the expression costs)."""
        self.builtins.add(name)
        if counted:
            self.work += 1

    def uses(self, attribute: str | None = None) -> None:
        """The runtime ``R`` is used (``R.attribute``, or ``R`` itself when None)."""
        if attribute is not None:
            self.runtime.add(attribute)
        else:
            self.runtime.add("")  # R itself: charges, not one of the stateless services

    def add(self, other: Recorder) -> None:
        """Add the facts of a nested expression."""
        self.reads |= other.reads
        self.calls |= other.calls
        self.builtins |= other.builtins
        self.runtime |= other.runtime
        self.me = self.me or other.me
        self.opaque = self.opaque or other.opaque
        self.work += other.work
        self.writes |= other.writes
        self.exits |= other.exits

    def add_facts(self, facts: Facts) -> None:
        """Add the recorded facts of a part."""
        self.reads |= facts.reads
        self.calls |= facts.calls
        self.builtins |= facts.builtins
        self.runtime |= facts.runtime
        if facts.charges and not facts.runtime and not facts.calls:
            self.runtime.add("")
        self.me = self.me or facts.me
        self.opaque = self.opaque or facts.opaque
        self.work += facts.work
        self.writes |= facts.writes
        self.exits |= facts.exits

    def facts(self, collection: str | None = None) -> Facts:
        """The record of what was noted (``collection``: the whole expression is that
        collection of components)."""
        runtime = frozenset(self.runtime)
        return Facts(
            frozenset(self.reads),
            self.opaque,
            frozenset(self.calls),
            frozenset(self.builtins),
            runtime - {""},
            self.me,
            bool(runtime or self.calls),
            self.work,
            collection,
            frozenset(self.writes),
            frozenset(self.exits),
        )
