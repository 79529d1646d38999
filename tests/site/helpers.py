"""Helpers of the site tests."""

from __future__ import annotations

import importlib.util
import socket
from pathlib import Path

from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[2]

_spec = importlib.util.spec_from_file_location(
    "build_site", ROOT / "scripts" / "build_site.py"
)
build_site = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_site)

#: language folder -> MkDocs configuration, as ``make site`` builds them.
LANGUAGES: dict[str, str] = build_site.LANGUAGES


def parse(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


#: Where the tests serve the built site. The site is built for this address
#: (SITE_URL), because Material's language selector matches the sitemap's
#: URLs against the page's, port included.
SITE_PORT = _free_port()
LOCAL_HOST = f"127.0.0.1:{SITE_PORT}"
BASE_URL = f"http://{LOCAL_HOST}/"
