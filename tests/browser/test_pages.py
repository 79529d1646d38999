"""Every page in a real browser: it loads cleanly and its maths is rendered.

"Cleanly": no console error, no uncaught page error, no failed request (a
network error or an HTTP status of 400 or more) and no request to another
host. "Rendered": every formula that arithmatex marked holds KaTeX's markup
(typeset while the book is built, hooks/katex.py), with no KaTeX error, and
no TeX delimiter is left in the text a reader sees. The same holds after
moving between pages with Material's instant navigation, which swaps the
content without reloading the page, and with JavaScript turned off. The
heaviest page does not move once painted: its maths is there at first paint,
and KaTeX's fonts replace the fallback without a layout shift.
"""

from __future__ import annotations

from collections import Counter

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from ..site.helpers import LANGUAGES
from .navigation import ABORTED, TIMEOUT, book_pages, follow, nav_link, path_of

#: TeX's delimiters, which must not be left in the text a reader sees.
DELIMITERS = ["\\(", "\\)", "\\[", "\\]", "$$"]

#: What KaTeX left undone on the page. Code (pre, code) may show TeX on
#: purpose; KaTeX's own MathML copy of each formula holds its TeX source for
#: screen readers and is not text on the page.
MATH_REPORT = """delimiters => {
    const article = document.querySelector("article.md-content__inner");
    const formulas = [...document.querySelectorAll(".arithmatex")];
    const text = node => node.textContent.replace(/\\s+/g, " ").trim().slice(0, 80);
    const report = {
        article: article !== null,
        formulas: formulas.length,
        // A formula that KaTeX cannot parse becomes a .katex-error; an
        // unknown command is drawn in KaTeX's error colour inside .katex.
        errors: [...document.querySelectorAll(
            ".katex-error, .katex-mathml mstyle[mathcolor='#cc0000'] > mtext"
        )].map(text),
        unrendered: formulas.filter(e => !e.querySelector(".katex")).map(text),
        raw: [],
    };
    if (article) {
        const visible = article.cloneNode(true);
        visible.querySelectorAll("pre, code, .katex-mathml, script, style")
            .forEach(e => e.remove());
        const words = visible.textContent.replace(/\\s+/g, " ");
        for (const delimiter of delimiters) {
            const at = words.indexOf(delimiter);
            if (at >= 0)
                report.raw.push(delimiter + " in ..." + words.slice(
                    Math.max(0, at - 40), at + 40) + "...");
        }
    }
    return report;
}"""


def math_report(page) -> dict:
    """KaTeX's work on the page, once it has finished or given up."""
    try:
        page.wait_for_function(
            """() => [...document.querySelectorAll(".arithmatex")].every(
                e => e.querySelector(".katex, .katex-error"))""",
            timeout=TIMEOUT,
        )
    except PlaywrightTimeoutError:
        pass  # the report names the formulas left unrendered
    return page.evaluate(MATH_REPORT, DELIMITERS)


def math_problems(report: dict) -> list[str]:
    return (
        ([] if report["article"] else ["no article element"])
        + [f"KaTeX error: {e}" for e in report["errors"]]
        + [f"not rendered: {e}" for e in report["unrendered"]]
        + [f"raw delimiter: {e}" for e in report["raw"]]
    )


def take_problems(watch) -> list[str]:
    """What went wrong since the last call, and forget it."""
    problems = watch.problems()
    for seen in (
        watch.console_errors,
        watch.page_errors,
        watch.failed_requests,
        watch.other_hosts,
    ):
        seen.clear()
    return problems


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_page_loads_cleanly_with_its_math_rendered(
    open_page, site, base_url, language
) -> None:
    paths = book_pages(site, language)
    assert f"{language}/training/" in paths
    paths.append(f"{language}/404.html")
    page, watch = open_page(paths[0])
    page.set_default_timeout(TIMEOUT)
    failures: dict[str, list[str]] = {}
    formulas = Counter()
    for index, path in enumerate(paths):
        if index:
            page.goto(base_url + path, wait_until="load")
            # A page goes on loading after "load" (the search worker fetches
            # its index, then lunr's languages), and leaving it cancels those
            # requests: no failure of that page. Requests that fail for a
            # reason are still counted, and the last page, which nothing
            # interrupts, has every request checked.
            watch.failed_requests[:] = [
                failure
                for failure in watch.failed_requests
                if not failure.endswith(ABORTED)
            ]
        if index == len(paths) - 1:
            page.wait_for_load_state("networkidle")
        assert path_of(page.url) == "/" + path, f"{path} went to {page.url}"
        report = math_report(page)
        formulas[path] = report["formulas"]
        problems = take_problems(watch) + math_problems(report)
        if problems:
            failures[path] = problems
    assert not failures, "\n".join(
        f"{path}: {problem}" for path, found in failures.items() for problem in found
    )
    # The check above must have had maths to check.
    assert formulas[f"{language}/scaled-dot-product/"] > 50, formulas


#: Where a reader goes, one click after the other, from the home page:
#: through the sidebar and through the footer's "next" link.
WALK = [
    ("sidebar", "scaled-dot-product/"),
    ("next", "masks/"),
    ("next", "self-attention/"),
    ("sidebar", "training/"),
    ("sidebar", "notation/"),
    ("next", "linear-algebra/"),
    ("next", "softmax/"),
    ("sidebar", ""),
]


@pytest.mark.parametrize("language", LANGUAGES)
def test_math_is_rendered_after_instant_navigation(open_page, language) -> None:
    page, watch = open_page(f"{language}/")
    page.set_default_timeout(TIMEOUT)
    assert not math_problems(math_report(page))
    titles = [page.locator("article h1").first.inner_text()]
    formulas = 0
    for how, target in WALK:
        path = f"{language}/{target}"
        link = (
            page.locator(".md-footer__link--next")
            if how == "next"
            else nav_link(page, path)
        )
        follow(page, link, "/" + path)
        report = math_report(page)
        formulas += report["formulas"]
        assert not math_problems(report), (path, math_problems(report))
        title = page.locator("article h1").first.inner_text()
        assert title not in titles[-1:], f"{path}: still shows {title}"
        titles.append(title)
    assert formulas > 100, "the walk went through pages with maths"
    assert not watch.problems(), watch.problems()


@pytest.mark.parametrize("language", LANGUAGES)
def test_math_is_there_without_javascript(open_page, language) -> None:
    page, watch = open_page(
        f"{language}/scaled-dot-product/", java_script_enabled=False
    )
    formulas = page.locator("article .arithmatex")
    assert formulas.count() > 50
    assert page.locator("article .arithmatex .katex").count() == formulas.count()
    assert page.locator(".katex-error").count() == 0
    text = page.locator("article").inner_text()
    assert not [d for d in DELIMITERS if d in text], text[:200]
    assert not watch.problems(), watch.problems()


#: Cumulative layout shift of everything the page has done so far.
LAYOUT_SHIFT = """() => new Promise(resolve => {
    let total = 0;
    new PerformanceObserver(list => {
        for (const entry of list.getEntries())
            if (!entry.hadRecentInput) total += entry.value;
    }).observe({ type: "layout-shift", buffered: true });
    document.fonts.ready.then(() => setTimeout(() => resolve(total), 500));
})"""


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("width", [1280, 390])
def test_the_heaviest_page_does_not_shift(open_page, language, width) -> None:
    """Layout shift below 0.01 on the page with the most maths, cold cache."""
    page, watch = open_page(
        f"{language}/scaled-dot-product/",
        viewport={"width": width, "height": 900},
    )
    shift = page.evaluate(LAYOUT_SHIFT)
    assert shift < 0.01, f"{language} at {width} px: layout shift {shift:.3f}"
    assert not watch.problems(), watch.problems()


#: KaTeX's fonts that the page preloads, and those its text is set in.
KATEX_FONTS = """() => {
    const variant = f => (
        (/^(700|bold)$/.test(f.weight) ? "Bold" : "")
        + (f.style === "italic" ? "Italic" : "")
    ) || "Regular";
    return {
        preloaded: [...document.querySelectorAll("link[rel=preload][as=font]")]
            .map(link => link.href.split("/").pop()).sort(),
        used: [...document.fonts]
            .filter(f => f.status === "loaded" && f.family.includes("KaTeX_"))
            .map(f => `${f.family.replace(/"/g, "")}-${variant(f)}.woff2`).sort(),
    };
}"""


@pytest.mark.parametrize("path", ["scaled-dot-product/", "linear-algebra/", "masks/"])
def test_pages_preload_exactly_the_katex_fonts_they_use(open_page, path) -> None:
    """A font that arrives after the first paint moves the text: preload it."""
    page, _ = open_page(f"ja/{path}")
    page.evaluate("document.fonts.ready")
    page.wait_for_timeout(300)
    fonts = page.evaluate(KATEX_FONTS)
    assert fonts["used"], "the page has maths"
    assert fonts["preloaded"] == fonts["used"], fonts
