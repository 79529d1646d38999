"""Maths and loading beyond a fresh load of each page (test_every_page.py).

Every formula holds KaTeX's markup, with no KaTeX error and no TeX
delimiter in the text a reader sees, also after moving between pages with
Material's instant navigation, which swaps the content without reloading
the page, and with JavaScript turned off. The
heaviest page does not move once painted: its maths is there at first paint,
and KaTeX's fonts replace the fallback without a layout shift; nor does any
page loaded on a slow phone (390 px, the CPU four times slower).
"""

from __future__ import annotations

import re

import pytest

from ..site.helpers import BROWSER_EDITIONS, LANGUAGES, sample
from .checks import DELIMITERS, PHONE, SETTLED, math_problems, math_report
from .navigation import TIMEOUT, book_pages, follow, nav_link, problems_but_cancelled

PHONE_DEVICE = {"viewport": PHONE, "is_mobile": True, "has_touch": True}

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


@pytest.mark.parametrize("language", sample(list(LANGUAGES), ["ja"]))
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


@pytest.mark.parametrize("language", BROWSER_EDITIONS)
def test_math_is_there_without_javascript(open_page, language) -> None:
    page, watch = open_page(
        f"{language}/scaled-dot-product/", java_script_enabled=False
    )
    formulas = page.locator("article .arithmatex")
    assert formulas.count() > 50
    typeset = page.locator("article .arithmatex .katex > math.book-math:first-child")
    assert typeset.count() == formulas.count()
    assert page.locator(".katex-error, .katex merror").count() == 0
    text = page.locator("article").inner_text()
    assert not [d for d in DELIMITERS if d in text], text[:200]
    assert not watch.problems(), watch.problems()


#: Cumulative layout shift of everything the page has done until its fonts
#: are loaded and the frame after has been drawn (a font that arrives late
#: moves the text in the frame that uses it), with what moved. The shifts
#: from before the observer existed (``buffered``) reach its callback, not
#: ``takeRecords``, which gives only those still waiting for the callback.
LAYOUT_SHIFT = """async () => {
    const entries = [];
    const observer = new PerformanceObserver(
        list => entries.push(...list.getEntries()));
    observer.observe({ type: "layout-shift", buffered: true });
    await document.fonts.ready;
    const frame = () => new Promise(done => requestAnimationFrame(done));
    await frame();
    await frame();
    entries.push(...observer.takeRecords());
    observer.disconnect();
    const shifts = entries.filter(e => !e.hadRecentInput);
    return {
        total: shifts.reduce((sum, e) => sum + e.value, 0),
        moved: shifts.flatMap(e => e.sources.map(s => s.node?.className ?? "?")),
    };
}"""


@pytest.mark.parametrize("language", sample(list(LANGUAGES), ["ja"]))
@pytest.mark.parametrize("width", [1280, 390])
def test_the_heaviest_page_does_not_shift(open_page, language, width) -> None:
    """Layout shift below 0.01 on the page with the most maths, cold cache.

    Its first screen also holds blocks that book.css lets the browser skip
    off screen; painted at their estimated height, they had moved its text
    by up to 0.03 (book.css spares the first screen's blocks since). On a
    busy machine the browser also painted a display formula it had read
    only half of, which moved as the rest came, and the header's language
    menu, which moved when Material's script showed the search button
    (stages/book.py and book.css keep both still since).
    """
    page, watch = open_page(
        f"{language}/scaled-dot-product/",
        viewport={"width": width, "height": 900},
    )
    shift = page.evaluate(LAYOUT_SHIFT)
    assert shift["total"] < 0.01, (
        f"{language} at {width} px: layout shift {shift['total']:.4f} "
        f"of {shift['moved']}"
    )
    assert not watch.problems(), watch.problems()


#: A mid-range phone's CPU, four times slower than this machine's (Chromium's
#: own throttling), and the page where a busy machine's first load shifted
#: most (0.185; 0.097 on query-key-value): make test loads it, the exhaustive
#: tier every page of the hand-written editions.
SLOW_CPU = 4
SHIFTED_UNDER_LOAD = ["ja/backpropagation/"]


@pytest.mark.parametrize("pages", ["sample", *sample(["ja", "zh-Hant"], [])])
def test_no_page_shifts_on_a_slow_phone(open_page, site, base_url, pages) -> None:
    """Layout shift below 0.01 on each page loaded at 390 px with the CPU
    four times slower: fonts, maths and skipped blocks arrive late there."""
    paths = SHIFTED_UNDER_LOAD if pages == "sample" else book_pages(site, pages)
    page, watch = open_page(f"{paths[0].split('/')[0]}/404.html", **PHONE_DEVICE)
    page.context.new_cdp_session(page).send(
        "Emulation.setCPUThrottlingRate", {"rate": SLOW_CPU}
    )
    page.set_default_navigation_timeout(3 * TIMEOUT)
    shifted = []
    for path in paths:
        page.goto(base_url + path, wait_until="load")
        shift = page.evaluate(LAYOUT_SHIFT)
        if shift["total"] >= 0.01:
            shifted.append(f"{path}: {shift['total']:.4f} of {shift['moved']}")
    assert not shifted, "layout shift on a slow phone:\n" + "\n".join(shifted)
    assert not problems_but_cancelled(watch), watch.problems()


#: Material's script, which a page loads last.
BUNDLE = re.compile(r"/bundle\.[0-9a-f]+\.min\.js$")

#: Where each of the header's buttons and menus that the reader sees starts.
HEADER = """() => Object.fromEntries([...document.querySelectorAll(
        ".md-header__inner > *, .md-header__option > *, .md-header__button")]
    .filter(e => e.getBoundingClientRect().width > 0)
    .map(e => [
        [e.tagName, e.className, e.getAttribute("for") ?? ""].join(" "),
        Math.round(e.getBoundingClientRect().x),
    ]))"""


@pytest.mark.parametrize("width", sample([390, 1280], [390]))
def test_the_header_stays_put_when_the_script_starts(browser, base_url, width) -> None:
    """What the header shows while the page is read, before Material's script
    (which comes last) has run, stays where it is when the script starts:
    the script adds the colour scheme's button (the title gives it room) and
    moves nothing, on a slow load as on a fast one."""
    url = base_url + "ja/about/"
    found = []
    for script in (False, True):
        context = browser.new_context(viewport={"width": width, "height": 844})
        try:
            page = context.new_page()
            if not script:
                # The page as it is before the script has run.
                page.route(BUNDLE, lambda route: route.abort())
            page.goto(url, wait_until="load")
            started = "!document.documentElement.classList.contains('no-js')"
            assert page.evaluate(started) == script
            found.append(page.evaluate(HEADER))
        finally:
            context.close()
    before, after = found
    assert any("md-select" in name for name in before), before
    moved = {name: (x, after[name]) for name, x in before.items() if after[name] != x}
    assert not moved, f"moved when the script started (before, after): {moved}"


#: The maths fonts that the page preloads, and those its text is set in
#: (book.css names each font-face; stages/katex.py names the files).
MATH_FONTS = """() => {
    const files = {
        "STIX Two Math": "stix-two-math.woff2",
        "Book Calligraphic": "katex-caligraphic.woff2",
    };
    return {
        preloaded: [...document.querySelectorAll("link[rel=preload][as=font]")]
            .map(link => link.href.split("/").pop()).sort(),
        used: [...document.fonts]
            .filter(f => f.status === "loaded")
            .map(f => files[f.family.replace(/"/g, "")])
            .filter(file => file).sort(),
    };
}"""


@pytest.mark.parametrize(
    "path",
    sample(
        ["scaled-dot-product/", "linear-algebra/", "masks/"], ["scaled-dot-product/"]
    ),
)
def test_pages_preload_exactly_the_math_fonts_they_use(open_page, path) -> None:
    """A font that arrives after the first paint moves the text: preload it."""
    page, _ = open_page(f"ja/{path}")
    # Fonts the first frames' text asks for start loading as it is laid
    # out: wait for the fonts, two frames, and the fonts again.
    page.evaluate(SETTLED)
    page.evaluate("document.fonts.ready.then(() => true)")
    fonts = page.evaluate(MATH_FONTS)
    assert fonts["used"], "the page has maths"
    assert fonts["preloaded"] == fonts["used"], fonts


#: Each inline formula split where a line may break (stages/katex.py,
#: ``split_inline``): how many lines its pieces take, and its width against
#: the width of the same MathML as one <math> (the pieces' children in one
#: row, beside it), which is how the formula was drawn before it was split.
SPLIT_FORMULAS = """() => [...document.querySelectorAll(
        "article span.arithmatex > span.katex[role=math]")].map(formula => {
    const pieces = [...formula.children];
    const whole = document.createElementNS(
        "http://www.w3.org/1998/Math/MathML", "math");
    whole.setAttribute("class", "book-math");
    for (const piece of pieces) {
        const row = piece.querySelector(":scope > semantics > mrow") ?? piece;
        for (const child of row.children) whole.append(child.cloneNode(true));
    }
    const holder = document.createElement("span");
    holder.style.whiteSpace = "nowrap";
    holder.append(whole);
    formula.parentElement.after(holder);
    const width = pieces.reduce((sum, p) => sum + p.getBoundingClientRect().width, 0);
    const one = whole.getBoundingClientRect().width;
    holder.remove();
    const tops = new Set(pieces.map(p => Math.round(p.getBoundingClientRect().top)));
    return {tex: formula.getAttribute("aria-label"), width, one, lines: tops.size};
})"""


@pytest.mark.parametrize("path", ["ja/backpropagation/", "zh-Hant/kv-cache/"])
def test_inline_formulas_break_as_katex_html_does_with_the_same_spacing(
    open_page, path
) -> None:
    """At a phone's width the long inline formulas take several lines
    (Chromium breaks none inside a <math>); a split formula is exactly as
    wide as it would be in one <math>: no space is added or lost at the
    joins."""
    page, watch = open_page(path, viewport=PHONE)
    page.evaluate(SETTLED)
    formulas = page.evaluate(SPLIT_FORMULAS)
    assert len(formulas) > 20, formulas
    assert any(f["lines"] > 1 for f in formulas), "no formula broken at 390 px"
    joins = [f for f in formulas if abs(f["width"] - f["one"]) > 0.01]
    assert not joins, joins[:5]
    assert not watch.problems(), watch.problems()
