"""Fixtures shared by the site and browser tests: one strict build, one server.

A run builds the site once, whatever the number of processes running its
tests: pytest-xdist's workers share the build through a file lock, and the
first process of the run (pytest itself, or xdist's controller) serves it on
the port it bound at start (``tests/site/helpers.py``) until the run ends.
Only a run that selects a site or browser test builds anything.

``BOOK_SITE=folder`` names a site already built (``make pdf``'s ``site``),
whose PDFs the PDF tests then check instead of making their own: the Pages
workflow tests the very PDFs it deploys. Such a site is built for its own
address, so only ``tests/site/test_pdf.py`` is meant to run against it.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest
from filelock import FileLock

from .site.helpers import BASE_URL, LANGUAGES, LISTENER, ROOT, SITE_DIR

TESTS = Path(__file__).resolve().parent
#: Markers given by folder: ``-m "not site and not browser"`` is the quick
#: tier (the package, the examples and the pages' sources; no site build).
FOLDER_MARKERS = {"site": "site", "browser": "browser"}


#: How long each test took in a recorded run: node id -> seconds (setup,
#: call and teardown, from the JUnit reports the runs write; the first tests
#: of the site also wait for its build), tests of half a second or more.
#: ``scripts/record_durations.py`` writes it. A unit of work (pytest-xdist's
#: scope under ``--dist loadscope``: a module, or a test class) lasts the sum
#: of its selected tests, so each tier orders its own units; the longest start
#: first, so that the end of the run is many short units spread over every
#: core, not one core finishing a sweep alone; units with no recorded test
#: follow in xdist's own order (most tests first).
DURATIONS = TESTS / "durations.json"


def recorded_durations() -> dict[str, float]:
    if not DURATIONS.exists():
        return {}
    return json.loads(DURATIONS.read_text(encoding="utf-8"))


def unit_seconds(items: list[pytest.Item]) -> Counter:
    """The recorded seconds of each unit, counting the given tests only."""
    recorded = recorded_durations()
    seconds: Counter = Counter()
    for item in items:
        seconds[xdist_scope(item)] += recorded.get(item.nodeid, 0.0)
    return seconds


def xdist_scope(item: pytest.Item) -> str:
    """The unit ``--dist loadscope`` gives one worker: the test's module or class."""
    return item.nodeid.rsplit("::", 1)[0]


def pytest_itemcollected(item: pytest.Item) -> None:
    """The markers given by folder, before ``-m`` reads them."""
    path = Path(item.path)
    if TESTS in path.parents:
        folder = path.relative_to(TESTS).parts[0]
        if folder in FOLDER_MARKERS:
            item.add_marker(FOLDER_MARKERS[folder])


@pytest.hookimpl(trylast=True)  # after -m and -k deselect: order what runs
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # The longest units first, then every other by its number of tests, most
    # first (what xdist's --loadscope-reorder does, which pytest_configure
    # turns off so that this order stands). But while the first unit that
    # needs the site waits for its build, the other processes have work
    # without it: the units that need no site come right after that one.
    sizes = Counter(xdist_scope(item) for item in items)
    seconds = unit_seconds(items)

    def longest_first(item: pytest.Item) -> tuple:
        return (
            -seconds.get(xdist_scope(item), 0.0),
            -sizes[xdist_scope(item)],
            xdist_scope(item),
        )

    items.sort(key=longest_first)
    needs_site = {
        xdist_scope(item)
        for item in items
        if item.get_closest_marker("site") or item.get_closest_marker("browser")
    }
    first = next((xdist_scope(i) for i in items if xdist_scope(i) in needs_site), None)
    items.sort(
        key=lambda item: (
            xdist_scope(item) != first,
            xdist_scope(item) in needs_site,
            *longest_first(item),
        )
    )


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


class _Server(http.server.ThreadingHTTPServer):
    #: The length of the queue of connections not yet accepted (socketserver's
    #: default is 5). Two browsers loading pages open dozens at once; when the
    #: queue is full, Linux drops the new connection's handshake and the
    #: browser tries again only a second or more later (TcpExtListenOverflows).
    request_queue_size = socket.SOMAXCONN

    def handle_error(self, request, client_address) -> None:
        """A browser that moves on cancels what it still loads: no error."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def pytest_configure(config: pytest.Config) -> None:
    """The run's first process serves the (future) site on its bound port.

    It also keeps the order of ``pytest_collection_modifyitems`` (longest
    units first) when pytest-xdist schedules by scope.
    """
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False
    if LISTENER is None or hasattr(config, "_book_server"):
        return
    handler = functools.partial(_QuietHandler, directory=str(SITE_DIR / "site"))
    server = _Server(LISTENER.getsockname(), handler, bind_and_activate=False)
    server.socket.close()
    server.socket = LISTENER
    server.server_activate()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    config._book_server = server


def pytest_unconfigure(config: pytest.Config) -> None:
    server = getattr(config, "_book_server", None)
    if server is not None:
        server.shutdown()
        server.server_close()
        shutil.rmtree(SITE_DIR, ignore_errors=True)


def build_once() -> Path:
    """The run's site, built by whichever process needs it first.

    A failed build is recorded, so that the other processes report the same
    log instead of building again.
    """
    site_dir = SITE_DIR / "site"
    done, failed = SITE_DIR / "built", SITE_DIR / "failed"
    with FileLock(SITE_DIR / "build.lock"):
        if not done.exists() and not failed.exists():
            result = subprocess.run(
                [sys.executable, str(ROOT / "scripts" / "build_site.py"), site_dir],
                cwd=ROOT,
                env={**os.environ, "SITE_URL": BASE_URL},
                capture_output=True,
                text=True,
                check=False,
            )
            if result.returncode:
                failed.write_text(result.stdout + result.stderr, encoding="utf-8")
            else:
                done.write_text(result.stdout, encoding="utf-8")
    if failed.exists():
        log = failed.read_text(encoding="utf-8")
        pytest.fail(f"site build failed:\n{log[-5000:]}", pytrace=False)
    return site_dir


@pytest.fixture(scope="session")
def site() -> Path:
    """The whole site, built once per run by ``scripts/build_site.py`` (strict)."""
    if "BOOK_SITE" in os.environ:
        return Path(os.environ["BOOK_SITE"]).resolve()
    return build_once()


@pytest.fixture(scope="session")
def pages(site: Path) -> dict[str, list[Path]]:
    """The built HTML pages of each language (404 page included)."""
    return {lang: sorted((site / lang).rglob("*.html")) for lang in LANGUAGES}


@pytest.fixture(scope="session")
def base_url(site: Path) -> str:
    """The built site, served on 127.0.0.1 at the address it was built for.

    Only the run's own build is served: a ``BOOK_SITE`` was built for another
    address, and a page loaded from here would time out, not fail.
    """
    if "BOOK_SITE" in os.environ:
        pytest.fail(
            f"the browser tests load the run's own build; BOOK_SITE="
            f"{os.environ['BOOK_SITE']} is not served (unset it to run them)",
            pytrace=False,
        )
    return BASE_URL
