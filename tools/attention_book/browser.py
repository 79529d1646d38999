"""The browsers that print the PDFs, measure the pages and run the browser tests."""

from __future__ import annotations

import os

#: Chromium: Debian's, or the one ``CHROMIUM`` names (scripts/build_pdf.py,
#: scripts/bench.py, tests/browser/conftest.py). Never a browser of its own.
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
#: The browser tests' Chromium: Debian's headless shell (package
#: ``chromium-headless-shell``), the same version and the same Blink as
#: ``chromium`` without the browser around it, which is what Playwright runs
#: when it runs headless. A test spends a fifth less processor time in it
#: (docs-dev/performance.md); the PDFs and ``make bench``'s loads keep the
#: whole browser, as a reader meets the book. ``CHROMIUM``, when set, names
#: the browser of every use.
TEST_CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium-headless-shell")
#: Its flags: headless, and no network of its own. No host but 127.0.0.1
#: (where the site and the print page are served) resolves, IP addresses
#: and ``localhost`` included: a request to any other fails in the browser
#: (``net::ERR_NAME_NOT_RESOLVED``) before it leaves the machine, without
#: Playwright intercepting every request (``route``), which costs a round
#: trip per request and turns the browser's cache off.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]
