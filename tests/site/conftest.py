"""The built site: one strict build of every language, shared by the site tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import LANGUAGES, ROOT


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build the whole site with ``scripts/build_site.py`` (``--strict``)."""
    site_dir = tmp_path_factory.mktemp("site")
    env = {**os.environ, "SITE_URL": "http://127.0.0.1:8000/"}
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_site.py"), str(site_dir)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, f"site build failed:\n{result.stderr[-5000:]}"
    return site_dir


@pytest.fixture(scope="session")
def pages(site: Path) -> dict[str, list[Path]]:
    """The built HTML pages of each language (404 page included)."""
    return {lang: sorted((site / lang).rglob("*.html")) for lang in LANGUAGES}
