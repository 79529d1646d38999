"""Pages that fit: a phone's width, other languages' words, missing pages.

- At 390 px (a phone), every page fits (test_every_page.py); here: a
  shadow on a scrolling box's edge (a formula, a table, a code block) shows
  that more lies beyond it, and only there (checked on the pixels).
- The glossary on a phone: a card per term, the term beside its
  translations, the section's link below them; nothing scrolls sideways.
- A span in another language is drawn in a font of its own language: the
  glossary's Japanese terms on the Chinese pages, the Traditional terms on
  the Japanese page (the fonts Chromium actually used, from the DevTools
  protocol; ``make test`` installs Noto Sans CJK).
- The root page redirects only a browser that prefers one of the book's
  languages; anyone else, and anyone without JavaScript, sees the chooser,
  styled and in each language's font.
- The 404 pages, served for a missing address deep in the site as a host
  does, load cleanly and lead home and to the search; the root one also
  without JavaScript.
- Code blocks add no unnamed navigation landmark, also after instant
  navigation.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image, ImageStat

from ..site.helpers import LANGUAGES, sample
from .checks import PHONE, SETTLED
from .navigation import (
    TIMEOUT,
    follow,
    nav_link,
    path_of,
    problems_but_cancelled,
)


def edge_shades(box) -> tuple[float, float]:
    """Mean grey of the 3 px at the box's left and right edges (255 white)."""
    grey = Image.open(io.BytesIO(box.screenshot(animations="disabled"))).convert("L")
    width, height = grey.size
    return tuple(
        ImageStat.Stat(grey.crop((x, 0, x + 3, height))).mean[0] for x in (0, width - 3)
    )


#: How far the strip at an edge with no shadow may fall below the page's
#: background (a table's border may cross it), and how much darker than
#: such an edge, in the same screenshots, an edge with a shadow must be:
#: grey levels, relative to what this browser draws, not absolute ones.
BORDER, SHADOW = 15, 10

#: The background behind a box, as a grey level (PIL's "L": ITU-R 601-2
#: luma): its first opaque ancestor's, or the canvas's white.
BACKGROUND = r"""box => {
    for (let e = box.parentElement; e; e = e.parentElement) {
        const [r, g, b, a = 1] = getComputedStyle(e).backgroundColor
            .match(/[\d.]+/g).map(Number);
        if (a === 1) return (r * 299 + g * 587 + b * 114) / 1000;
    }
    return 255;
}"""


#: A small phone, where the book's widest table (self-attention's, in
#: exercise 1's solution) scrolls far enough for the test below.
SMALL_PHONE = {"width": 320, "height": 640}


@pytest.mark.parametrize(
    ("path", "selector", "viewport"),
    [
        ("ja/scaled-dot-product/", "div.arithmatex", PHONE),
        ("zh-Hant/self-attention/", ".md-typeset__scrollwrap", SMALL_PHONE),
        ("zh-Hans/masks/", "pre > code", PHONE),
    ],
)
def test_a_shadow_shows_where_a_box_hides_content(
    open_page, path, selector, viewport
) -> None:
    page, watch = open_page(path, viewport=viewport, color_scheme="light")
    page.evaluate(SETTLED)
    widest = page.evaluate(
        """selector => {
            // A wide box may be in a solution, which starts closed.
            document.querySelectorAll("article details").forEach(d => d.open = true);
            const boxes = [...document.querySelectorAll(selector)];
            const hidden = b => b.scrollWidth - b.clientWidth;
            const widest = boxes.reduce((a, b) => hidden(b) > hidden(a) ? b : a);
            widest.setAttribute("data-test-widest", "");
            return hidden(widest);
        }""",
        selector,
    )
    # Wide enough that, scrolled halfway, both ends are past the bands that
    # cover the shadows (1.2rem, 24 px).
    assert widest > 2 * 24, f"{path}: nothing wide enough to scroll"
    box = page.locator("[data-test-widest]")
    box.scroll_into_view_if_needed()
    shades = {}
    for where, position in [("start", "0"), ("middle", "50"), ("end", "e.scrollWidth")]:
        box.evaluate(
            f"e => e.scrollLeft = {position}"
            if where != "middle"
            else "e => e.scrollLeft = (e.scrollWidth - e.clientWidth) / 2"
        )
        shades[where] = edge_shades(box)
    (start_left, start_right) = shades["start"]
    (middle_left, middle_right) = shades["middle"]
    (end_left, end_right) = shades["end"]
    background = box.evaluate(BACKGROUND)
    plain = [start_left, end_right]  # no more content that way
    assert min(plain) > background - BORDER, (background, shades)
    shaded = [start_right, middle_left, middle_right, end_left]
    assert max(shaded) < min(plain) - SHADOW, (background, shades)
    assert not problems_but_cancelled(watch), watch.problems()


def fonts_used(page, selector: str) -> set[str]:
    """The fonts Chromium drew the text of the first ``selector`` in."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})
    assert node["nodeId"], f"no {selector}"
    fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]})
    cdp.detach()
    return {font["familyName"] for font in fonts["fonts"]}


#: The Noto Sans CJK face of each language (Debian's fonts-noto-cjk).
NOTO = {
    "ja": "Noto Sans CJK JP",
    "zh-Hant": "Noto Sans CJK TC",
    "zh-Hans": "Noto Sans CJK SC",
}


@pytest.mark.parametrize(
    ("path", "own", "other"),
    [
        ("zh-Hant/glossary/", "zh-Hant", "zh-Hans"),
        ("zh-Hans/glossary/", "zh-Hans", "zh-Hant"),
        ("ja/glossary/", "ja", "zh-Hant"),
    ],
)
def test_words_of_another_language_use_its_font(open_page, path, own, other) -> None:
    page, watch = open_page(path)
    page.evaluate(SETTLED)
    # The glossary's first column is the page's language, unmarked; the
    # third holds another edition's term (on the Japanese page the Taiwan
    # term, on the Traditional page the mainland term, on the Simplified page
    # the Taiwan term), marked with its lang.
    assert fonts_used(page, "article tbody td:first-child") == {NOTO[own]}
    assert fonts_used(page, f'article tbody td span[lang="{other}"]') == {NOTO[other]}
    # The language menu names each edition in its own script and font.
    for language in LANGUAGES:
        link = f'a.md-select__link[lang="{language}"]'
        assert fonts_used(page, link) == {NOTO[language]}, link
    assert not problems_but_cancelled(watch), watch.problems()


#: The root pages' column: a width set by their inline style.
MAIN_WIDTH = "getComputedStyle(document.querySelector('main')).maxWidth"


@pytest.mark.parametrize("locale", sample(["de-DE", "en-US", "fr"], ["de-DE"]))
def test_root_page_lets_other_readers_choose(open_page, base_url, locale) -> None:
    page, watch = open_page("", locale=locale)
    assert page.evaluate("navigator.languages[0]") == locale
    # The page decides in a script of its <head>: a redirection would have
    # begun before "load", and its request would keep the network busy.
    page.wait_for_load_state("networkidle")
    assert page.url == base_url, f"{locale} was sent to {page.url}"
    assert page.locator("h1").is_visible()
    hrefs = page.locator("main a").evaluate_all("links => links.map(a => a.href)")
    assert hrefs == [f"{base_url}{language}/" for language in LANGUAGES]
    assert not problems_but_cancelled(watch), watch.problems()


def test_root_page_is_styled_without_javascript(open_page, base_url) -> None:
    page, watch = open_page("", java_script_enabled=False, viewport=PHONE)
    assert page.url == base_url
    assert page.evaluate(MAIN_WIDTH) != "none", "the inline style applies"
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    for language in LANGUAGES:
        for selector in (f'h1 span[lang="{language}"]', f'li[lang="{language}"] a'):
            assert fonts_used(page, selector) == {NOTO[language]}, selector
    assert not watch.problems(), watch.problems()


#: What Chromium's console says of a page that came with status 404.
MISSING = (
    "Failed to load resource: the server responded with a status of 404 (Not Found)"
)


def serve_as_missing(page, url: str, html: str) -> None:
    """Answer ``url`` with ``html`` and status 404, as a static host does."""
    page.route(
        url,
        lambda route: route.fulfill(status=404, body=html, content_type="text/html"),
    )


@pytest.mark.parametrize("language", sample(list(LANGUAGES), ["ja"]))
def test_edition_404_page_leads_home_and_to_search(
    open_page, base_url, site: Path, language
) -> None:
    page, watch = open_page(f"{language}/404.html")
    missing = f"{base_url}{language}/no/such/page/"
    html = (site / language / "404.html").read_text(encoding="utf-8")
    serve_as_missing(page, missing, html)
    page.goto(missing, wait_until="load")
    assert page.evaluate("document.documentElement.lang") == language
    links = page.locator("article a.md-button")
    assert links.count() == 2
    assert links.nth(0).evaluate("a => a.href") == f"{base_url}{language}/"
    links.nth(1).click()
    page.wait_for_url(f"{base_url}{language}/?q=", timeout=TIMEOUT)
    page.wait_for_function(
        "document.querySelector('[data-md-toggle=search]').checked", timeout=TIMEOUT
    )
    problems = [p for p in problems_but_cancelled(watch) if missing not in p]
    assert problems == [f"console error: {MISSING}"], problems


def test_root_404_page_works_at_any_depth_without_javascript(
    open_page, base_url, site: Path
) -> None:
    page, watch = open_page("404.html", java_script_enabled=False, viewport=PHONE)
    missing = f"{base_url}zh-Hant/no/such/page/"
    serve_as_missing(page, missing, (site / "404.html").read_text(encoding="utf-8"))
    page.goto(missing, wait_until="load")
    assert page.evaluate(MAIN_WIDTH) != "none", "the inline style applies"
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    hrefs = page.locator("main a").evaluate_all("links => links.map(a => a.href)")
    expected = []
    for language in LANGUAGES:
        expected += [f"{base_url}{language}/", f"{base_url}{language}/?q="]
        assert fonts_used(page, f'section[lang="{language}"] a') == {NOTO[language]}
    assert hrefs == expected
    for href in hrefs:
        assert page.request.get(href).ok, href
    icon = page.evaluate("document.querySelector('link[rel=icon]').href")
    assert page.request.get(icon).headers["content-type"].startswith("image/svg")
    # The page itself comes with status 404, as from a host (the console
    # reports it without its address); anything else is a problem. The first
    # page's favicon may still be loading when the test moves to the missing
    # address, and Chromium cancels it: that is not a failure of the site.
    problems = [p for p in problems_but_cancelled(watch) if missing not in p]
    assert problems == [f"console error: {MISSING}"], problems


#: Navigation landmarks without an accessible name, and Material's code
#: block toolbars (which must not be landmarks).
LANDMARKS = """() => ({
    unnamed: [...document.querySelectorAll("nav")].filter(nav =>
        !["none", "presentation"].includes(nav.getAttribute("role"))
        && !nav.getAttribute("aria-label") && !nav.getAttribute("aria-labelledby")
    ).map(nav => nav.className),
    toolbars: document.querySelectorAll("nav.md-code__nav").length,
})"""


def test_code_blocks_add_no_unnamed_landmark(open_page) -> None:
    page, watch = open_page("ja/masks/")
    first = page.evaluate(LANDMARKS)
    assert first["toolbars"] > 3 and not first["unnamed"], first
    follow(page, nav_link(page, "ja/multi-head/"), "/ja/multi-head/")
    assert path_of(page.url) == "/ja/multi-head/"
    after = page.evaluate(LANDMARKS)
    assert after["toolbars"] > 3 and not after["unnamed"], after
    assert not problems_but_cancelled(watch), watch.problems()


#: The glossary's rows as laid out, over its tables (one a chapter): where
#: each cell is, in CSS pixels.
GLOSSARY = """() => {
    const wraps = [...document.querySelectorAll(
        "article .book-glossary .md-typeset__scrollwrap")];
    const box = e => e.getBoundingClientRect();
    const lines = e => Math.round(
        box(e).height / parseFloat(getComputedStyle(e).lineHeight));
    const tables = wraps.map(wrap => wrap.querySelector("table"));
    return {
        tables: tables.length,
        hidden: Math.max(...wraps.map(wrap => wrap.scrollWidth - wrap.clientWidth)),
        headers: tables.map(table => box(table.tHead).height),
        rows: tables.flatMap(table => [...table.tBodies[0].rows].map(row => {
            const [term, english, other, section] = [...row.cells].map(box);
            return {
                term: row.cells[0].textContent,
                beside: [english, other].every(cell =>
                    cell.left >= term.right && cell.top < term.bottom),
                below: section.top >= Math.max(term.bottom, other.bottom) - 1,
                oneRow: english.top === term.top && section.top === term.top,
                sectionLines: lines(row.cells[3]),
            };
        })),
    };
}"""


@pytest.mark.parametrize("language", ["ja", "zh-Hant"])
def test_the_glossary_reads_on_a_phone(open_page, language) -> None:
    """On a phone, each term sits beside its English and other-language
    terms, with the section that explains it across the card below, in one
    or two lines; nothing scrolls sideways. On a desktop, the same page is a
    table of four columns with its header."""
    page, watch = open_page(f"{language}/glossary/", viewport=PHONE)
    page.evaluate(SETTLED)
    phone = page.evaluate(GLOSSARY)
    assert phone["tables"] > 10, "a table for each chapter that explains terms"
    assert len(phone["rows"]) > 40
    assert phone["hidden"] <= 0, f"{phone['hidden']} px hidden sideways"
    assert set(phone["headers"]) == {0}
    for row in phone["rows"]:
        assert row["beside"] and row["below"], row
        assert row["sectionLines"] <= 3, row
    page.set_viewport_size({"width": 1280, "height": 900})
    desktop = page.evaluate(GLOSSARY)
    assert all(height > 0 for height in desktop["headers"]), desktop["headers"]
    assert all(row["oneRow"] for row in desktop["rows"]), desktop["rows"][:2]
    assert not problems_but_cancelled(watch), watch.problems()
