"""Playwright fixtures: Debian's Chromium against the built site on 127.0.0.1.

The tests never download a browser: they drive Chromium's headless shell,
which ``make test`` installs from Debian's packages (``TEST_CHROMIUM``;
``CHROMIUM`` names another executable, e.g. on
GitHub's runners). Every request to a host other than the test server is
recorded, so a test can fail on it, and fails: the browser resolves no
other host (``CHROMIUM_ARGS``), so nothing reaches the network.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from attention_book.browser import CHROMIUM_ARGS, TEST_CHROMIUM

from ..site.helpers import LOCAL_HOST, ROOT

#: Screenshots and other files a person may want to look at after a run.
ARTIFACTS = ROOT / "test-artifacts"


@dataclass
class Watch:
    """What a page did: console errors, failed requests, other hosts."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    other_hosts: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        return (
            [f"console error: {m}" for m in self.console_errors]
            + [f"page error: {m}" for m in self.page_errors]
            + [f"failed request: {u}" for u in self.failed_requests]
            + [f"request to another host: {u}" for u in self.other_hosts]
        )


@pytest.fixture(scope="session")
def browser() -> Iterator:
    if not Path(TEST_CHROMIUM).exists():
        pytest.fail(
            f"no Chromium at {TEST_CHROMIUM}: run `make test`, which installs it"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=TEST_CHROMIUM, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


def open_in(browser, url: str, **options):
    """``(context, page, watch)``: a new context whose page has loaded ``url``.

    The context options go to ``browser.new_context`` (``color_scheme``,
    ``locale``, ``viewport``, ``permissions`` ...); every request to another
    host is recorded (and fails), and so is every error the page reports.
    """
    options.setdefault("viewport", {"width": 1280, "height": 900})
    context = browser.new_context(**options)
    watch = Watch()

    def on_request(request):
        url = urlsplit(request.url)
        if url.scheme in ("http", "https") and url.netloc != LOCAL_HOST:
            watch.other_hosts.append(request.url)

    # Recorded, not intercepted: the browser cannot reach another host
    # (CHROMIUM_ARGS), and the request then fails too.
    context.on("request", on_request)
    page = context.new_page()

    def on_console(message):
        if message.type == "error":
            watch.console_errors.append(message.text)

    def on_response(response):
        if response.status >= 400:
            watch.failed_requests.append(f"{response.url} ({response.status})")

    page.on("console", on_console)
    page.on("response", on_response)
    page.on("pageerror", lambda error: watch.page_errors.append(str(error)))
    page.on(
        "requestfailed",
        lambda r: watch.failed_requests.append(f"{r.url} ({r.failure})"),
    )
    page.goto(url, wait_until="load")
    return context, page, watch


@pytest.fixture
def open_page(browser, base_url: str) -> Iterator[Callable]:
    """``open_page(path, **context_options) -> (page, watch)``.

    ``path`` is relative to the site root (``"ja/masks/"``); see ``open_in``.
    The page is loaded and watched.
    """
    contexts = []

    def opener(path: str, **options):
        context, page, watch = open_in(browser, base_url + path, **options)
        contexts.append(context)
        return page, watch

    yield opener
    for context in contexts:
        context.close()


def wait_for_math(page) -> None:
    """Wait until KaTeX has rendered every formula of the page."""
    page.wait_for_function(
        "[...document.querySelectorAll('.arithmatex')]"
        ".every(e => e.querySelector('.katex'))"
    )
