# ruff: noqa
"""Names vulture cannot see being used; read by ``make deadcode`` (never imported or run).

``make deadcode`` runs vulture over rulekit/ and tests/ (tests count as users), ignoring the
built-ins registered by decorator and the code generator's ``_expr_*``/``_stmt_*`` methods
(dispatched by node type name). What it still reports is dead code, or a name used in a way
vulture cannot follow: then add that name here, with the reason.
"""

# Called by generated rule code (rulekit/compiler/emit.py, codegen.py).
_.tick
_.mul

# The pickle protocol (rulekit/compiler/cache.py).
_.persistent_id
_.persistent_load

# lark's Indenter options and Transformer callbacks, named after grammar rules (rulekit/dsl/parser.py, rulekit/dsl/transform.py).
INDENT_type
tab_len
_.assign
_.add_assign
_.sub_assign
_.let_stmt
_.emit_stmt
_.fail_stmt
_.pass_stmt
_.call_stmt
_.if_stmt
_.elif_clause
_.else_clause
_.for_stmt
_.suite
_.conditional
_.or_op
_.and_op
_.not_op
_.not_contains
_.binary
_.negate
_.aggregate
_.int_literal
_.string_literal
_.true_literal
_.false_literal
_.none_literal
_.tuple_literal
_.list_literal
_.list_comprehension
_.for_clause
_.if_clause
_.by_clause

# OpenSpiel's and PettingZoo's Python game APIs (rulekit/openspiel.py, rulekit/pettingzoo.py).
_.make_py_observer
_._legal_actions
_._apply_action
_._action_to_string
_.observation_space
_.action_space
_.observe

# Augmented assignment to a list vulture reads as an unused variable (rulekit/tools/balance.py).
into

# Bench figures read by name through getattr (rulekit/tools/bench/report.py FIGURES).
actions_per_s

# pytest and hypothesis hooks, fixtures and rules (tests/).
pytest_addoption
_fresh_cache
_.apply_a_legal_action
_.a_clone_is_independent
_.json_round_trip_is_exact
_.replaying_the_log_gives_the_same_hash
_.an_illegal_action_is_rejected_and_changes_nothing
_.the_decision_matches_the_legal_actions

# Signal handler and callback signatures fixed by their caller (tests/).
signum
prompt

# Attributes set on library objects (Selenium options, a uvicorn server; tests/view/conftest.py).
_.binary_location
_.should_exit
