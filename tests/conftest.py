"""Shared test configuration: Hypothesis profiles, the --update-goldens option, fixtures.

Select a Hypothesis profile with ``HYPOTHESIS_PROFILE`` (``dev`` by default; ``make test``
uses ``ci``; ``long`` runs many more examples).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=60,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.register_profile(
    "long", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

ROOT = Path(__file__).resolve().parent.parent


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens",
        action="store_true",
        default=False,
        help="rewrite the expected outputs of golden tests instead of comparing",
    )


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


@pytest.fixture
def write_ruleset(tmp_path: Path) -> Callable[..., Path]:
    """Write a throwaway ruleset directory: ``write_ruleset(ruleset_yaml, modules={name: yaml})``."""

    def write(text: str, modules: dict[str, str] | None = None, name: str = "rs") -> Path:
        directory = tmp_path / name
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "ruleset.yaml").write_text(text, encoding="utf-8")
        for module, body in (modules or {}).items():
            (directory / "modules").mkdir(exist_ok=True)
            (directory / "modules" / f"{module}.yaml").write_text(body, encoding="utf-8")
        return directory

    return write
