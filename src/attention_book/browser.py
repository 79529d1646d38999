"""The browser that prints the PDFs, measures the pages and runs the browser tests."""

from __future__ import annotations

import os

#: Chromium: Debian's, or the one ``CHROMIUM`` names (scripts/build_pdf.py,
#: scripts/bench.py, tests/browser/conftest.py). Never a browser of its own.
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
#: Its flags: headless, and no network of its own.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
