"""``rulekit lsp`` without pygls installed: a usage error naming the extra, not a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_lsp_without_pygls_says_which_extra_to_install() -> None:
    code = "import sys; sys.modules['pygls'] = None; from rulekit.cli import main; sys.exit(main(['lsp']))"
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert "pip install 'rulekit[lsp]'" in done.stderr
    assert "Traceback" not in done.stderr
