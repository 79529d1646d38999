"""Moving between the languages: the selector, and the root page.

- The language selector (the header's translate icon) lands on the same page
  in another language, from the home page and two chapters of different
  parts; on a fresh load and after moving there with instant
  navigation, which replaces the content but not the header; round the
  languages (ja -> zh-Hant -> zh-Hans -> ja), so every language is left and
  reached from every page.
- The root page sends a browser to the book in its reader's language
  (``navigator.languages``, which follows Playwright's ``locale``): Japanese
  to ``ja/``, Taiwanese and Hong Kong Chinese to ``zh-Hant/``, mainland and
  Singapore Chinese to ``zh-Hans/``. Other readers stay and choose
  (tests/browser/test_fit.py). Without JavaScript it lists every book.
"""

from __future__ import annotations

import pytest

from ..site.helpers import LANGUAGES, sample
from .navigation import TIMEOUT, follow, nav_link, path_of, problems_but_cancelled

DIRECTIONS = [("ja", "zh-Hant"), ("zh-Hant", "zh-Hans"), ("zh-Hans", "ja")]
assert {a for a, _ in DIRECTIONS} == {b for _, b in DIRECTIONS} == set(LANGUAGES)

#: Pages to switch language from: home, and two chapters in different parts
#: (light ones: the selector is the same on every page, a heavy page only
#: makes each of the 27 loads slower). make test switches from one of them on
#: a fresh load and from another after instant navigation.
PAGES = ["", "notation/", "kv-cache/"]


def selector_links(page) -> dict[str, str]:
    """hreflang -> where the selector's entry leads (an absolute URL)."""
    links = page.locator(".md-header .md-select__link[hreflang]")
    pairs = links.evaluate_all("links => links.map(a => [a.hreflang, a.href])")
    return dict(pairs)


def choose_language(page, language: str) -> None:
    """Open the selector and click ``language``; wait for that book's page."""
    links = page.locator(".md-select__link[hreflang]")
    selector = page.locator(".md-header .md-select").filter(has=links)
    selector.locator("button").click()
    link = selector.locator(f".md-select__link[hreflang='{language}']")
    link.wait_for(state="visible", timeout=TIMEOUT)
    link.click()
    page.wait_for_url(
        lambda url: path_of(url).startswith(f"/{language}/"),
        wait_until="domcontentloaded",
        timeout=TIMEOUT,
    )
    lang = page.evaluate("document.documentElement.lang")
    assert lang == language, f"{page.url}: <html lang={lang}>"


def expected_links(base_url: str, path: str) -> dict[str, str]:
    return {language: f"{base_url}{language}/{path}" for language in LANGUAGES}


@pytest.mark.parametrize("path", sample(PAGES, ["notation/"]))
def test_selector_lands_on_the_same_page_on_a_fresh_load(
    open_page, base_url, path
) -> None:
    """From the page, round every language, back to the first.

    The page the selector leads to is a fresh load in the next language:
    switching on from it is the next direction, on a fresh load too.
    """
    page, watch = open_page(f"{DIRECTIONS[0][0]}/{path}")
    page.set_default_timeout(TIMEOUT)
    for source, target in DIRECTIONS:
        assert path_of(page.url) == f"/{source}/{path}"
        assert selector_links(page) == expected_links(base_url, path)
        choose_language(page, target)
        assert path_of(page.url) == f"/{target}/{path}", f"from {source}/{path}"
    assert not problems_but_cancelled(watch), watch.problems()


def test_selector_links_name_the_same_page_without_javascript(
    open_page, base_url
) -> None:
    """The selector's links are right in the HTML itself, before any script."""
    page, watch = open_page("", java_script_enabled=False)
    for source in LANGUAGES:
        for path in PAGES:
            page.goto(f"{base_url}{source}/{path}", wait_until="load")
            assert selector_links(page) == expected_links(base_url, path), (
                f"{source}/{path}"
            )
    assert not problems_but_cancelled(watch), watch.problems()


#: Instant navigation through the sidebar, then the selector: each switch
#: lands in the next language, where the next walk starts.
ROUTE = [
    (["glossary/", ""], ""),
    (["glossary/", ""], ""),
    (["glossary/", ""], ""),
    (["notation/"], "notation/"),
    (["glossary/", "notation/"], "notation/"),
    (["glossary/", "notation/"], "notation/"),
    (["glossary/", "kv-cache/"], "kv-cache/"),
    (["glossary/", "kv-cache/"], "kv-cache/"),
    (["glossary/", "kv-cache/"], "kv-cache/"),
]
assert len(ROUTE) == len(LANGUAGES) * len(PAGES)
assert {path for _, path in ROUTE} == set(PAGES)


@pytest.mark.parametrize("path", sample(PAGES, [""]))
def test_selector_lands_on_the_same_page_after_instant_navigation(
    open_page, base_url, path
) -> None:
    """The page, in every language, reached by instant navigation."""
    source = DIRECTIONS[0][0]
    page, watch = open_page(f"{source}/")
    page.set_default_timeout(TIMEOUT)
    switched = set()
    route = [(walk, to) for walk, to in ROUTE if to == path]
    assert len(route) == len(LANGUAGES)
    for walk, path in route:
        for step in walk:
            follow(page, nav_link(page, f"{source}/{step}"), f"/{source}/{step}")
        assert path_of(page.url) == f"/{source}/{path}"
        # The header stayed; its links must name the page now shown, for the
        # readers who open them in a new tab, where Material's redirection
        # does not step in, and for the current language's own entry.
        assert selector_links(page) == expected_links(base_url, path), (
            f"after moving to {source}/{path}"
        )
        target = dict(DIRECTIONS)[source]
        choose_language(page, target)
        assert path_of(page.url) == f"/{target}/{path}", f"from {source}/{path}"
        switched.add((source, path))
        source = target
    assert switched == {(source, path) for source in LANGUAGES}
    assert not problems_but_cancelled(watch), watch.problems()


@pytest.mark.parametrize(
    ("locale", "book"),
    [
        ("ja", "ja"),
        ("ja-JP", "ja"),
        ("zh-TW", "zh-Hant"),
        ("zh-HK", "zh-Hant"),
        ("zh-Hant", "zh-Hant"),
        ("zh-CN", "zh-Hans"),
        ("zh-SG", "zh-Hans"),
        ("zh-Hans", "zh-Hans"),
        ("zh", "zh-Hans"),
    ],
)
def test_root_page_sends_the_browser_to_its_language(open_page, locale, book) -> None:
    page, watch = open_page("", locale=locale)
    page.wait_for_url(lambda url: path_of(url) != "/", timeout=TIMEOUT)
    page.wait_for_load_state("load")
    assert path_of(page.url) == f"/{book}/", f"{locale} -> {page.url}"
    assert page.evaluate("document.documentElement.lang") == book
    assert page.evaluate("navigator.languages[0]") == locale
    assert not problems_but_cancelled(watch), watch.problems()


def test_root_page_lists_every_book_without_javascript(open_page, base_url) -> None:
    page, watch = open_page("", java_script_enabled=False)
    assert page.url == base_url, "no JavaScript, no redirection"
    links = page.locator("a[href]").evaluate_all(
        "links => links.map(a => [a.hreflang, a.href])"
    )
    assert sorted(links) == sorted(
        [language, f"{base_url}{language}/"] for language in LANGUAGES
    )
    for _, href in links:
        assert page.request.get(href).ok, href
    assert not problems_but_cancelled(watch), watch.problems()


def test_selector_keeps_the_section_the_reader_is_in(open_page, base_url) -> None:
    """The anchors are the same in every edition: the selector carries the
    section along, from an address with an anchor, and from the one
    navigation.tracking writes while the reader scrolls (without an event,
    so the link must take the anchor when it is used)."""
    page, watch = open_page("ja/softmax/#stability")
    page.set_default_timeout(TIMEOUT)
    choose_language(page, "zh-Hant")
    assert page.url == f"{base_url}zh-Hant/softmax/#stability"
    in_view = """id => {
        const top = document.getElementById(id).getBoundingClientRect().top;
        return top >= 0 && top < 200;
    }"""
    page.wait_for_load_state("load")
    page.wait_for_function(in_view, arg="stability", timeout=TIMEOUT)
    # The reader scrolls on to the next section, and navigation.tracking
    # writes its anchor into the address as it does: with replaceState, which
    # fires no event. (Scrolling the page in the test made the anchor depend
    # on where the page had settled: it timed out under load.) The wheel
    # event is the reader's: until the reader scrolls, the address keeps
    # the section it was opened at (landing.js).
    page.evaluate(
        """() => {
            window.dispatchEvent(new WheelEvent("wheel"));
            document.getElementById("derivative").scrollIntoView();
        }"""
    )
    # navigation.tracking answers the scroll on its own a moment later, with
    # the section it reckons from the scroll position (once #stability: the
    # run failed). The address is written after it has answered.
    page.evaluate(
        """() => new Promise(resolve => requestAnimationFrame(() =>
            setTimeout(() => {
                history.replaceState(history.state, "", "#derivative");
                resolve();
            }, 300)))"""
    )
    choose_language(page, "zh-Hans")
    assert page.url == f"{base_url}zh-Hans/softmax/#derivative"
    page.wait_for_function(in_view, arg="derivative", timeout=TIMEOUT)
    assert not problems_but_cancelled(watch), watch.problems()
