"""The code passes ruff, as `make lint` runs it (the CI runs `make test` only)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUFF = Path(sys.executable).parent / "ruff"
PATHS = ["src", "tools", "tests", "scripts", "docs_src", "conftest.py"]


def ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(RUFF), *args, *PATHS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


def test_ruff_finds_nothing() -> None:
    result = ruff("check", "--no-cache")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_code_is_formatted_as_ruff_formats_it() -> None:
    result = ruff("format", "--check", "--no-cache")
    assert result.returncode == 0, result.stdout + result.stderr
