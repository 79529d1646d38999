"""The browser reaches no host but the test server (CHROMIUM_ARGS).

The browser tests record every request to another host and fail on it
(``open_in``); the browser itself resolves no host but 127.0.0.1, so such a
request fails before it leaves the machine. ``localhost`` on the server's own
port is the case that shows it: it would be answered if the browser resolved
it.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from ..site.helpers import SITE_PORT
from .checks import take_problems

#: A reachable server under another name, an address no network routes
#: (TEST-NET-1, RFC 5737) and a name no DNS resolves (RFC 2606).
ELSEWHERE = [
    f"http://localhost:{SITE_PORT}/robots.txt",
    "http://192.0.2.1/figure.png",
    "https://example.invalid/font.woff2",
]

#: Each URL fetched from the page: "answered", or the error that ended it.
FETCH = """async urls => Promise.all(urls.map(url =>
    fetch(url, {mode: "no-cors", cache: "no-store"})
        .then(() => "answered", error => error.name)))"""


def test_requests_to_other_hosts_fail_and_are_recorded(open_page, base_url) -> None:
    page, watch = open_page("robots.txt")
    assert page.evaluate(FETCH, [base_url + "robots.txt"]) == ["answered"]
    assert not take_problems(watch), "the page itself loads cleanly"

    assert page.evaluate(FETCH, ELSEWHERE) == ["TypeError"] * len(ELSEWHERE)
    assert sorted(watch.other_hosts) == sorted(ELSEWHERE)
    failed = {url.split(" ")[0]: url for url in watch.failed_requests}
    assert set(failed) == set(ELSEWHERE), watch.failed_requests
    for url, failure in failed.items():
        assert "ERR_NAME_NOT_RESOLVED" in failure, (urlsplit(url).netloc, failure)
    assert take_problems(watch), "a page asking another host fails its checks"
