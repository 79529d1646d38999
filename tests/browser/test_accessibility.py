"""Accessibility: axe-core finds no serious or critical violation.

Nor any ``landmark-unique`` (moderate for axe): two landmarks of the same
role and name, such as the unnamed <nav> Material gave every code block,
make a screen reader's list of landmarks useless.

axe-core comes from the npm registry (package.json's devDependencies,
``npm ci``). Every page of every language is checked in its edition's sweep
(test_every_page.py, at 390 and 1280 px, in a desktop's browser); here, the
root pages, a sample of pages that holds every component of the book on a
phone (390 px, touch, both schemes: formulas, tables and code scroll in
their boxes there), the phone's navigation drawer (opened in one of those
loads), and the colours of the dark scheme. Nothing is excluded: what axe
found on the site was fixed in the site itself (book.css,
overrides/partials/search.html and progress.html,
overrides/assets/javascripts/scrollable.js).
"""

from __future__ import annotations

import re

import pytest

from ..site.helpers import sample
from .checks import PHONE, UNREACHABLE_BOXES, axe_violations, report, start_axe


@pytest.mark.parametrize(("name", "scripts"), [("index.html", 1), ("404.html", 0)])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_violation_on_the_root_pages(
    browser, base_url, site, name, scripts, scheme
):
    """The language chooser as readers without JavaScript see it (redirect
    removed), and the root 404 page; in both schemes (their own colours)."""
    html = (site / name).read_text(encoding="utf-8")
    html, removed = re.subn(r"<script>.*?</script>", "", html, flags=re.S)
    assert removed == scripts
    url = base_url + name
    context = browser.new_context(color_scheme=scheme)
    try:
        page = context.new_page()
        page.route(
            url, lambda route: route.fulfill(body=html, content_type="text/html")
        )
        page.goto(url)
        start_axe(page)
        problems = report(name, axe_violations(page))
    finally:
        context.close()
    assert not problems, "axe-core violations:\n" + "\n".join(problems)


#: A phone as axe meets it: 390 px, touch, no hover. Material makes a code
#: block that scrolls sideways focusable only where the device can hover,
#: so a desktop browser at 390 px hides what a phone shows.
PHONE_DEVICE = {"viewport": PHONE, "is_mobile": True, "has_touch": True}

#: Pages that hold, between them, every component of the book at a phone's
#: width: code blocks of every kind (pycon, python, sh) that scroll, wide
#: display maths, scrolling tables with code, admonitions and solutions, the
#: figures and Figure 2, the interactive figures (numbers, selects, buttons,
#: a slider, checkboxes), the notebook buttons, linked inline code (the
#: references), the glossary's cards and the home page. Not every page: the
#: sweeps check every page at 1280 px.
PHONE_PAGES = [
    "ja/",
    "ja/scaled-dot-product/",
    "ja/package/",
    "ja/masks/",
    "zh-Hant/references/",
    "zh-Hant/glossary/",
    "zh-Hans/multi-head/",
    "zh-Hans/softmax/",
]


#: The pages whose components have colours of their own in the dark scheme
#: on a phone (code, linked code, the interactive figures, the glossary's
#: cards); test_colours_in_dark_mode checks others at 1280 px.
PHONE_DARK_PAGES = [
    "ja/scaled-dot-product/",
    "ja/masks/",
    "zh-Hant/references/",
    "zh-Hant/glossary/",
]


#: What make test checks of those (the exhaustive tier checks them all):
#: between them code, display maths, Figure 2, an interactive figure, tables,
#: linked inline code (the references, whose colours were under 4.5:1 in
#: both schemes: checked in both) and the glossary's cards. The explorables
#: are checked in the dark scheme on a phone by their own axe runs
#: (test_explorables).
PHONE_SAMPLE = [
    ("ja/scaled-dot-product/", "light"),
    ("ja/package/", "light"),
    ("zh-Hant/references/", "light"),
    ("zh-Hant/glossary/", "light"),
    ("zh-Hant/references/", "dark"),
]


#: The page whose phone checks open the navigation drawer too (in both
#: schemes: ``PHONE_SAMPLE`` holds both), with its sections' titles in
#: Material's colours (4.41:1 and 4.05:1 once, now the book's).
DRAWER_PAGE = "zh-Hant/references/"
assert {(DRAWER_PAGE, "light"), (DRAWER_PAGE, "dark")} <= set(PHONE_SAMPLE)


def drawer_colours(page, name: str) -> list[str]:
    """The colour rules on the phone's navigation drawer, opened."""
    page.locator(".md-header label[for='__drawer']").click()
    assert page.locator("#__drawer").is_checked()
    # start_axe waits until the drawer's slide (a transition) is over.
    start_axe(page, {"runOnly": ["color-contrast"]})
    return report(name, axe_violations(page))


@pytest.mark.parametrize(
    ("path", "scheme"),
    [
        pytest.param(
            path,
            scheme,
            marks=() if (path, scheme) in PHONE_SAMPLE else pytest.mark.exhaustive,
        )
        for path, scheme in [(path, "light") for path in PHONE_PAGES]
        + [(path, "dark") for path in PHONE_DARK_PAGES]
    ],
)
def test_no_serious_violation_on_a_phone(open_page, path, scheme):
    """Where formulas, tables and code scroll in their boxes (390 px, touch).

    Every rule in the light scheme; in the dark one the colour rules, which
    alone depend on it. Each box that scrolls is a tab stop with a name
    (``UNREACHABLE_BOXES``; every page's sweep checks it at 390 px too).
    On ``DRAWER_PAGE``, in the same load, the colours of the phone's
    navigation drawer too, opened."""
    page, _ = open_page(path, color_scheme=scheme, **PHONE_DEVICE)
    only = {} if scheme == "light" else {"runOnly": ["color-contrast"]}
    start_axe(page, only)
    problems = report(f"{path} ({scheme})", axe_violations(page))
    if scheme == "light":
        # What axe's scrollable-region-focusable does not ask: that a screen
        # reader can name the box the keyboard reached.
        problems += [f"{path}: {box}" for box in page.evaluate(UNREACHABLE_BOXES)]
    if path == DRAWER_PAGE:
        problems += drawer_colours(page, f"{path} drawer ({scheme})")
    assert not problems, "axe-core violations (phone):\n" + "\n".join(problems)


@pytest.mark.parametrize(
    "path",
    sample(
        [
            "ja/scaled-dot-product/",
            "zh-Hant/object-view/",
            "zh-Hant/training/",
            "zh-Hans/404.html",
        ],
        ["zh-Hans/404.html"],  # the phone's checks have ja/scaled-dot-product/
    ),
)
def test_colours_in_dark_mode(open_page, path):
    """The colour rules in the dark scheme too: code, links, buttons (the 404
    page's filled one), a chapter's notebook links."""
    page, _ = open_page(path, color_scheme="dark")
    assert page.evaluate("document.body.dataset.mdColorScheme") == "slate"
    only = {"runOnly": ["color-contrast", "link-in-text-block"]}
    start_axe(page, only)
    problems = report(path, axe_violations(page))
    assert not problems, "axe-core violations (dark):\n" + "\n".join(problems)


@pytest.mark.parametrize("scheme", sample(["light", "dark"], ["dark"]))
def test_colours_of_the_search_results(open_page, scheme):
    """With results shown: their count, and the words they matched (Material
    writes them in its accent colour), in both schemes."""
    page, _ = open_page("ja/", color_scheme=scheme)
    page.keyboard.press("/")
    box = page.locator("input.md-search__input")
    box.fill("マスク")
    box.press("End")  # Material searches on keyup; fill() sends no key
    page.wait_for_function(
        "document.querySelectorAll('.md-search-result__list mark').length > 3"
    )
    assert page.locator(".md-search-result__meta").is_visible()
    start_axe(page, {"runOnly": ["color-contrast"]})
    problems = report(f"ja/ search ({scheme})", axe_violations(page))
    assert not problems, "axe-core violations:\n" + "\n".join(problems)


def test_contrast_is_measured_after_the_fade_a_resize_starts(open_page):
    """Widening the tab fades the sidebar's sections in (Material, 250 ms):
    axe measures the links' colours once the fade is over, as a reader sees
    them, not at a fraction of their opacity."""
    path = "ja/self-attention/"
    page, _ = open_page(path, viewport={"width": 390, "height": 844})
    # Slowed down, so that a check that did not wait would surely see it.
    page.add_style_tag(content=".md-nav { transition-duration: 2s !important; }")
    page.set_viewport_size({"width": 1280, "height": 900})
    fading = page.evaluate(
        "document.getAnimations().filter(a => a.transitionProperty === 'opacity')"
        ".map(a => a.effect.target.className)"
    )
    assert "md-nav" in fading, "the resize starts the sidebar's fade"
    # The sidebars only: the fade is theirs (the chapter's own text is
    # measured by the other tests, and would take axe most of the run).
    start_axe(page, {"runOnly": ["color-contrast"]}, context=".md-sidebar")
    problems = report(f"{path} (resized)", axe_violations(page))
    assert not problems, "axe-core violations:\n" + "\n".join(problems)
