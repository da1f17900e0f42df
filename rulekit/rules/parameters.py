"""Game parameters: ``parameters:`` in a ruleset, ``--param NAME=VALUE`` on the command line.

A ruleset declares what a player may choose before a game (a board size, a pile count)::

    parameters:
      ROWS: {type: int, default: 11, min: 1, max: 26, doc: the board's rows}
      MISERE: {type: bool, default: true, doc: the player who takes the last object loses}
      SPEED: {type: choice, choices: [slow, fast], default: slow, doc: how many moves a turn}

and reads each as a constant of the same name.  A chosen value travels with the variant
references (``param:NAME=VALUE``): every command that takes ``--variant`` takes ``--param``,
the program cache keys on it, a game log records it in its ``variants`` (so ``replay``
plays the same game) and it is checked here, before anything is composed, against the
declared type and range.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rulekit.errors import Diagnostic, DiagnosticBag, RulesetError, Span, did_you_mean
from rulekit.rules import model as m
from rulekit.rules.structure import Entries, Node
from rulekit.rules.values import plain
from rulekit.rules.yaml_source import LocDict

#: How a parameter setting is written among the variant references.
PREFIX = "param:"
#: The constant type of each parameter type.
CONSTANT_TYPES = {"int": "int", "bool": "bool", "choice": "str"}


def setting_ref(text: str) -> str:
    """The variant reference of a ``--param NAME=VALUE`` argument."""
    return PREFIX + text.strip()


def is_setting(ref: str | Path) -> bool:
    """Whether a variant reference is a parameter setting (``param:NAME=VALUE``)."""
    return str(ref).startswith(PREFIX)


def split_setting(ref: str | Path) -> tuple[str, str]:
    """The name and the value text of a setting.

    Raises:
        RulesetError: not written NAME=VALUE.
    """
    body = str(ref)[len(PREFIX) :]
    name, equals, value = body.partition("=")
    if not equals or not name.strip():
        raise RulesetError(Diagnostic(f"--param takes NAME=VALUE, not {_shown(body)}"))
    return name.strip(), value.strip()


def setting_value(ref: str | Path, data: Any, ruleset: str) -> tuple[str, Any]:
    """The parameter a setting names and its value, checked against the ruleset's declaration
    (``data``: the ruleset's located data).

    Raises:
        RulesetError: no such parameter, or a value of the wrong type or out of range.
    """
    name, text = split_setting(ref)
    declared = data.get("parameters") if isinstance(data, dict) else None
    declared = declared if isinstance(declared, dict) else {}
    spec = declared.get(name)
    if not isinstance(spec, dict):
        hint = did_you_mean(name, [str(k) for k in declared])
        if hint is None:
            listed = ", ".join(str(k) for k in declared)
            hint = f"{ruleset}'s parameters: {listed}" if listed else f"{ruleset} declares no parameters"
        raise RulesetError(Diagnostic(f"{ruleset} has no parameter {_shown(name)}", hint=hint))
    parameter = _declared(name, spec)
    value = _parse(text, parameter)
    if value is None:
        raise RulesetError(
            Diagnostic(
                f"parameter {name} must be {parameter.allowed()}, not {_shown(text)}", hint=parameter.doc
            )
        )
    return name, value


def _shown(text: str) -> str:
    """Text from a command line or a log, quoted, escaped and cut short."""
    return repr(text if len(text) <= 40 else text[:40] + "...")


def setting_variant_data(name: str, value: Any, ruleset: str, display: str) -> LocDict:
    """The located data of the one-line variant a setting stands for."""
    data = LocDict({"variant": f"--param {name}", "ruleset": ruleset, "parameter": {name: value}})
    data.span = Span(display, 1, 1)
    data.key_spans = {}
    return data


def apply_setting(data: LocDict, setting: dict[str, Any], bag: DiagnosticBag) -> None:
    """Write a setting's value as its parameter's ``default`` in the composed data."""
    section = data.get("parameters")
    for name, value in setting.items():
        spec = section.get(name) if isinstance(section, dict) else None
        if not isinstance(spec, dict):
            bag.error(f"no parameter '{name}' in the composed rules", getattr(data, "span", None))
            continue
        spec["default"] = value


def read_parameters(section: Entries, bag: DiagnosticBag) -> dict[str, m.Parameter]:
    """The parameters of a structured ``parameters:`` section, each checked for consistency."""
    result: dict[str, m.Parameter] = {}
    for name, node in section.items():
        if not isinstance(node, Node):
            continue  # already reported
        kind = node.get("type")
        if kind is None:
            continue
        low, high, choices = node.get("min"), node.get("max"), tuple(node.get("choices") or ())
        value = plain(node.get("default"))
        parameter = m.Parameter(
            str(name), str(kind), value, str(node.get("doc") or ""), low, high, choices, section.spans[name]
        )
        problem = _inconsistency(parameter, node)
        if problem is not None:
            bag.error(f"parameter {name}: {problem[0]}", problem[1])
            continue
        result[str(name)] = parameter
    return result


def _inconsistency(parameter: m.Parameter, node: Node) -> tuple[str, Span] | None:
    kind = parameter.kind
    if kind != "int" and ("min" in node.values or "max" in node.values):
        return "min and max are for int parameters", node.where("min" if "min" in node.values else "max")
    if kind != "choice" and "choices" in node.values:
        return "choices are for choice parameters", node.where("choices")
    if kind == "choice" and not parameter.choices:
        return "a choice parameter needs choices: [A, B, ...]", node.span
    if parameter.low is not None and parameter.high is not None and parameter.low > parameter.high:
        return f"min {parameter.low} is above max {parameter.high}", node.where("min")
    if _parse(value_text(parameter.value), parameter) != parameter.value or isinstance(
        parameter.value, float
    ):
        return f"the default must be {parameter.allowed()}, not {parameter.value!r}", node.where("default")
    return None


def value_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _declared(name: str, spec: dict[str, Any]) -> m.Parameter:
    """A parameter as written in the ruleset's own data (before it is checked by the loader)."""
    low, high = spec.get("min"), spec.get("max")
    choices = spec.get("choices")
    return m.Parameter(
        name,
        str(spec.get("type")),
        plain(spec.get("default")),
        " ".join(str(spec.get("doc") or "").split()),
        low if isinstance(low, int) and not isinstance(low, bool) else None,
        high if isinstance(high, int) and not isinstance(high, bool) else None,
        tuple(str(c) for c in choices) if isinstance(choices, list) else (),
    )


def _parse(text: str, parameter: m.Parameter) -> Any:
    """The value ``text`` stands for, or None when the parameter does not allow it."""
    if parameter.kind == "bool":
        return {"true": True, "false": False}.get(text.lower())
    if parameter.kind == "choice":
        return text if text in parameter.choices else None
    digits = text[1:] if text[:1] in "+-" else text
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 18:
        return None
    number = int(text)
    if (parameter.low is not None and number < parameter.low) or (
        parameter.high is not None and number > parameter.high
    ):
        return None
    return number


def constant_of(parameter: m.Parameter) -> m.Constant:
    """The constant a parameter is read as (its declared type: int, bool or str)."""
    from rulekit.rules.values import parse_declared

    return m.Constant(
        parameter.name,
        parameter.value,
        parameter.span,
        parse_declared(CONSTANT_TYPES[parameter.kind], frozenset()),
    )


def settings(values: Mapping[str, Any]) -> list[str]:
    """The variant references setting parameters to ``values`` (an OpenSpiel game's params,
    PettingZoo's keyword arguments): ``{"ROWS": 5}`` gives ``["param:ROWS=5"]``."""
    return [setting_ref(f"{name}={value_text(value)}") for name, value in values.items()]
