"""Fixtures shared by the site and browser tests: one strict build, one server."""

from __future__ import annotations

import functools
import http.server
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from .site.helpers import BASE_URL, LANGUAGES, ROOT, SITE_PORT


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build the whole site with ``scripts/build_site.py`` (``--strict``)."""
    site_dir = tmp_path_factory.mktemp("site")
    env = {**os.environ, "SITE_URL": BASE_URL}
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


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


@pytest.fixture(scope="session")
def base_url(site: Path) -> Iterator[str]:
    """The built site served on 127.0.0.1, at the address it was built for."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", SITE_PORT), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield BASE_URL
    server.shutdown()
    server.server_close()
