"""Rules data as text for ``rulekit diff``: YAML-like dumps, one-line values and unified diffs."""

from __future__ import annotations

import difflib
import json
from typing import Any

#: Values up to this many characters are shown inline (old -> new) rather than as a diff.
INLINE = 60


def dump(value: Any) -> str:
    """Rules data as readable YAML-like text, one DSL line per line, for diffs."""
    if value is None:
        return ""
    lines: list[str] = []
    _emit(value, 0, lines)
    return "\n".join(lines) + "\n"


def _scalar(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value.rstrip("\n")
    return str(value)


def _flow_text(value: Any) -> str | None:
    """A one-line rendering of a small list or mapping, or None if it does not fit."""
    if isinstance(value, list):
        parts = [_flow_text(v) if isinstance(v, list | dict) else _scalar(v) for v in value]
        if any(p is None or "\n" in p for p in parts):
            return None
        text = "[" + ", ".join(p for p in parts if p is not None) + "]"
    elif isinstance(value, dict):
        texts = [_flow_text(v) if isinstance(v, list | dict) else _scalar(v) for v in value.values()]
        if any(t is None or "\n" in t for t in texts):
            return None
        text = "{" + ", ".join(f"{k}: {t}" for k, t in zip(value, texts, strict=True)) + "}"
    else:
        return _scalar(value)
    return text if len(text) <= 90 else None


def _emit(value: Any, indent: int, lines: list[str]) -> None:
    pad = " " * indent
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str) and "\n" in item.rstrip("\n"):
                lines.append(f"{pad}{key}: |")
                lines.extend(f"{pad}  {line}" for line in item.rstrip("\n").split("\n"))
            elif isinstance(item, list | dict):
                flow = _flow_text(item)
                if flow is not None:
                    lines.append(f"{pad}{key}: {flow}")
                else:
                    lines.append(f"{pad}{key}:")
                    _emit(item, indent + 2, lines)
            else:
                lines.append(f"{pad}{key}: {_scalar(item)}")
    elif isinstance(value, list):
        for item in value:
            flow = _flow_text(item) if isinstance(item, list | dict) else None
            if isinstance(item, list | dict) and flow is None:
                sub: list[str] = []
                _emit(item, indent + 2, sub)
                if sub:
                    sub[0] = pad + "- " + sub[0][indent + 2 :]
                lines.extend(sub)
            elif isinstance(item, str) and "\n" in item.rstrip("\n"):
                lines.append(f"{pad}- |")
                lines.extend(f"{pad}    {line}" for line in item.rstrip("\n").split("\n"))
            else:
                lines.append(f"{pad}- {flow if flow is not None else _scalar(item)}")
    else:
        text = _scalar(value)
        lines.extend(pad + line for line in text.rstrip("\n").split("\n"))


def unified(old: str, new: str, old_at: str | None, new_at: str | None) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=f"before ({old_at})" if old_at else "before",
        tofile=f"after ({new_at})" if new_at else "after",
        n=2,
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def inline(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False) if ("\n" in value or not value) else value
    return json.dumps(value, ensure_ascii=False).replace('"', "")


def fits_inline(old: Any, new: Any) -> bool:
    return len(inline(old)) <= INLINE and len(inline(new)) <= INLINE
