"""Import an optional integration for its tests: skip with the reason on a dev machine
without it, fail in CI (``CI=true``), where ``make test`` installs every extra."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest


def require(module: str, extra: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError as error:
        message = f"{module} is not installed ({error}); install it with: pip install -e '.[{extra}]'"
        if os.environ.get("CI", "").lower() in ("true", "1"):
            pytest.fail(f"CI must run the {extra} tests, but {message}", pytrace=False)
        pytest.skip(message, allow_module_level=True)
