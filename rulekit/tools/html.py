"""The one way rulekit produces HTML: autoescaping templates, data for scripts, Content-Security-Policy.

Every page rulekit writes or serves is a Jinja2 template of ``rulekit/tools/assets`` rendered by
:func:`render`: autoescaping is on for every template, so any value from a ruleset, log or state
is written as text, and an undefined name is an error (StrictUndefined), not an empty string.
Data a page's script reads is embedded with :func:`script_data`; scripts and styles run only by
the nonce or hash the page's Content-Security-Policy names (:func:`policy`).  See docs/security.md.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

#: What JSON text may contain that HTML would read as markup (``</script``, ``<!--``, ``]]>``,
#: character references), and the line separators some JavaScript parsers end a line at.
_SCRIPT_UNSAFE = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


def script_data(data: Any) -> Markup:
    """``data`` as JSON to put inside ``<script type="application/json">``: valid JSON that
    ``JSON.parse`` turns back into exactly ``data``, with ``<``, ``>``, ``&``, U+2028 and U+2029
    written as ``\\u003c`` etc., so that no text in it can end the element or open a comment.

    Raises:
        ValueError: ``data`` holds a non-finite number (not JSON) or a circular reference.
        TypeError: ``data`` holds something that is not JSON data.
    """
    # ensure_ascii: every other non-ASCII character (lone surrogates too) is a \\u escape
    text = json.dumps(data, separators=(",", ":"), allow_nan=False, ensure_ascii=True)
    return Markup(text.translate(_SCRIPT_UNSAFE))


def source_hash(text: str) -> str:
    """The CSP source expression of an inline script or style: ``'sha256-BASE64'``."""
    digest = hashlib.sha256(str(text).encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def new_nonce() -> str:
    """A fresh CSP nonce (128 random bits, URL-safe base64): one per response."""
    return secrets.token_urlsafe(16)


def policy(script: str, style: str, *, served: bool = False) -> str:
    """A strict Content-Security-Policy: nothing loads or runs but the scripts and styles named by
    ``script`` and ``style`` (CSP source expressions: a nonce or a hash); images only as data: URLs.
    ``served``: the page may fetch from its own origin and may not be framed (a header; a
    ``<meta>`` policy cannot say ``frame-ancestors``)."""
    parts = [
        "default-src 'none'",
        f"script-src {script}",
        f"style-src {style}",
        "img-src data:",
        "base-uri 'none'",
        "form-action 'none'",
    ]
    if served:
        parts += ["connect-src 'self'", "frame-ancestors 'none'"]
    return "; ".join(parts)


ENV = Environment(
    loader=PackageLoader("rulekit.tools", "assets"),
    autoescape=True,
    undefined=StrictUndefined,
    keep_trailing_newline=True,
)
ENV.globals["source_hash"] = source_hash
ENV.globals["policy"] = policy


def render(template: str, **context: Any) -> str:
    """Render the page ``template`` (a file of ``rulekit/tools/assets``) with ``context``;
    every value is escaped unless it is :class:`markupsafe.Markup` made by rulekit itself."""
    return ENV.get_template(template).render(**context)
