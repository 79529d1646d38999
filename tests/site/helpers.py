"""Helpers of the site tests."""

from __future__ import annotations

import importlib.util
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
