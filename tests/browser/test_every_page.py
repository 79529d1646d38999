"""Every page of every edition, loaded once in Chromium and checked in that load.

One sweep per edition goes through its pages (the 404 page included) in one
tab, as the sitemap lists them, and on each page, without loading it again:

1. **Clean load** (at a phone's width): no console error, no uncaught page error, no
   failed request (a network error or an HTTP status of 400 or more) and no
   request to another host. Leaving a page cancels what it still loads (the
   search worker's index, lunr's languages): those cancellations are no
   failure, and the last page, which nothing interrupts, has every request
   checked once the network is idle.
2. **Maths rendered**: every formula that arithmatex marked holds KaTeX's
   markup (typeset while the book is built), with no KaTeX error, and no TeX
   delimiter is left in the text a reader sees.
3. **A phone's width** (390 px, the width it loaded at): no page is wider
   than the screen; a display formula or a table wider than the column scrolls in its
   own box, which keeps the text's margins, can be reached with the keyboard,
   hides nothing above or below and shows its last symbol when scrolled to
   its end; a box that scrolls (formula, table or code) is a tab stop with a
   role and a name a screen reader says, one that fits is no tab stop;
   inline formulas stay in the column.
4. **A desktop's width** (the tab resized to 1280 px): every display
   formula fits its column (the long ones are set on several lines).
5. **Accessibility** (at 390 px when every page is swept, then at
   1280 px): axe-core finds no
   serious or critical violation (nor any ``landmark-unique``), in the light
   scheme, with the fonts loaded and the formulas rendered. Nothing is
   excluded. A formula, table or code block that scrolls sideways only on a
   phone is axe's ``scrollable-region-focusable`` there, which a run at
   1280 px cannot see.
6. **Copying** (the Japanese edition; every edition shows the same examples
   with the same highlighting): every code block's copy button, clicked as a
   reader clicks it, gives exactly what ``tests/copying.py`` works out from
   the built page, which the site tests run as a script and pasted into
   Python's prompt: a ``>>>`` example's code without prompts or output.

Each edition is a class, so that pytest-xdist (``--dist loadscope``) runs an
edition's sweep in one worker and the editions side by side.

**Two tiers.** ``make test`` sweeps a sample of the Japanese pages
(``SAMPLE``: the home page, the 404 page, the glossary, and the chapters
that hold every component: typeset maths, each kind of code block, a
traceback, figures, tables, solutions and interactive figures) and a
smaller one of the Traditional Chinese pages (``SAMPLE_ZH``), every check
above on each. The
exhaustive tier (``make test-exhaustive``, marker ``exhaustive``) sweeps every
page of every edition, the Simplified one included.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from ..site.helpers import LANGUAGES, tree
from .checks import (
    ALL_BLOCKS,
    CLIPBOARD,
    FIT_REPORT,
    PHONE,
    SETTLED,
    UNREACHABLE_BOXES,
    WIDE_FORMULAS,
    axe_violations,
    check_pycon_copy,
    copy_every_block,
    math_problems,
    math_report,
    report,
    site_path,
    start_axe,
    take_problems,
)
from .conftest import open_in
from .navigation import ABORTED, TIMEOUT, book_pages, path_of

DESKTOP = {"width": 1280, "height": 900}


#: The pages of ``make test``'s Japanese sweep: together they hold every
#: component of the book (``test_the_sample_holds_every_component``: maths,
#: every kind of code block, a traceback, figures, tables, solutions and
#: interactive figures).
SAMPLE = (
    "",  # the home page: the book's code blocks of commands (sh)
    "scaled-dot-product/",  # maths, the running example's explorable
    "object-view/",  # a plot's python code (a short page)
    "masks/",  # a traceback, the masks' explorable
    "glossary/",  # the glossary's table
    "404.html",
)
#: The Traditional Chinese sweep's sample: what its script and fonts change
#: (text that wraps and fits, the glossary's table, maths among CJK text, the
#: 404 page); the components themselves are the Japanese sample's.
SAMPLE_ZH = ("", "scaled-dot-product/", "glossary/", "404.html")
assert set(SAMPLE_ZH) <= set(SAMPLE)


def sweep(
    browser, base_url: str, site: Path, language: str, copy: bool, sample=None
) -> dict:
    """Load every page of ``language`` once (or the ``sample`` of them) and
    check it: what each check found."""
    paths = [
        site_path(site, page) for page in sorted((site / language).rglob("*.html"))
    ]
    listed = book_pages(site, language)
    assert set(listed) <= set(paths), "every page of the sitemap is swept"
    assert f"{language}/404.html" in paths
    # The sitemap's order (the 404 page last, as a reader never reaches it).
    paths = [*listed, *sorted(set(paths) - set(listed))]
    if sample is not None:
        chosen = [f"{language}/{page}" for page in sample]
        assert set(chosen) <= set(paths), sorted(set(chosen) - set(paths))
        paths = [path for path in paths if path in chosen]
    options = {"color_scheme": "light", "viewport": PHONE}
    context, page, watch = open_in(
        browser, base_url + paths[0], **options, **(CLIPBOARD if copy else {})
    )
    page.set_default_timeout(TIMEOUT)
    # A guard against a hang, not a measure of speed (make bench measures
    # loads): a chapter of typeset maths can take over 10 s to load while
    # both cores build and print beside the sweep.
    page.set_default_navigation_timeout(3 * TIMEOUT)
    found = {"load": {}, "formulas": Counter(), "axe": [], "fit": [], "boxes": 0}
    found["desktop"] = []
    found["copies"] = []
    try:
        for index, path in enumerate(paths):
            if index:
                page.set_viewport_size(PHONE)
                page.goto(base_url + path, wait_until="load")
                watch.failed_requests[:] = [
                    failure
                    for failure in watch.failed_requests
                    if not failure.endswith(ABORTED)
                ]
            if index == len(paths) - 1:
                page.wait_for_load_state("networkidle")
            assert path_of(page.url) == "/" + path, f"{path} went to {page.url}"
            # Loaded at a phone's width: what a box can show is set at load
            # (a closed solution's formulas are laid out only when opened).
            page.evaluate(SETTLED)
            fit = page.evaluate(FIT_REPORT)
            found["fit"] += [f"{path}: {problem}" for problem in fit["problems"]]
            found["boxes"] += fit["boxes"]
            found["fit"] += [
                f"{path}: {box}" for box in page.evaluate(UNREACHABLE_BOXES)
            ]
            # axe at a phone's width too, in the same load, on every page
            # (the exhaustive sweeps; make test's phone axe is
            # test_accessibility's sample): formulas, tables and code scroll
            # in their boxes there, and the header and the navigation are a
            # phone's.
            if sample is None:
                start_axe(page)
                found["axe"] += report(f"{path} (390 px)", axe_violations(page))
            page.set_viewport_size(DESKTOP)
            found["desktop"] += [
                f"{path}: {wide}" for wide in page.evaluate(WIDE_FORMULAS)
            ]
            maths = math_report(page)
            found["formulas"][path] = maths["formulas"]
            start_axe(page)
            found["axe"] += report(f"{path} (1280 px)", axe_violations(page))
            if copy and page.locator(ALL_BLOCKS).count():
                found["copies"] += copy_every_block(page, site, path)
            problems = take_problems(watch) + math_problems(maths)
            if problems:
                found["load"][path] = problems
    finally:
        context.close()
    return found


class Edition:
    """The checks of one edition's sweep (a subclass names the edition, and
    whether it sweeps ``SAMPLE`` or every page)."""

    language: str
    copy = False
    sample: tuple[str, ...] | None = None

    @pytest.fixture(scope="class")
    @classmethod
    def swept(cls, browser, base_url, site) -> dict:
        return sweep(browser, base_url, site, cls.language, cls.copy, cls.sample)

    def test_every_page_loads_cleanly_with_its_math_rendered(self, swept) -> None:
        failures = swept["load"]
        assert not failures, "\n".join(
            f"{path}: {problem}"
            for path, found in failures.items()
            for problem in found
        )
        # The check above must have had maths to check.
        for path in ("scaled-dot-product/", "positional-encoding/"):
            if self.sample is None or path in self.sample:
                assert swept["formulas"][f"{self.language}/{path}"] > 50, path

    def test_no_serious_accessibility_violation_on_any_page(self, swept) -> None:
        assert not swept["axe"], "axe-core violations:\n" + "\n".join(swept["axe"])

    def test_every_page_fits_a_phone(self, swept) -> None:
        assert swept["boxes"] > 10, "the pages hold wide formulas and tables"
        assert not swept["fit"], "\n".join(swept["fit"])

    def test_every_display_formula_fits_a_desktop_column(self, swept) -> None:
        assert not swept["desktop"], "wider than their column at 1280 px:\n" + (
            "\n".join(swept["desktop"])
        )


class Copies:
    """Copying every code block of the swept pages (one edition suffices: every
    edition shows the same examples with the same highlighting)."""

    copy = True
    least = 10  # blocks the swept pages hold at least

    def test_every_copy_is_the_code_the_site_tests_run(self, swept) -> None:
        """Every code block copies its code, and exactly what ``copied_text``
        works out, which the site tests run both ways."""
        kinds, mismatches, raising = set(), [], 0
        for item in swept["copies"]:
            kinds.add(item.kind)
            if item.kind == "pycon":
                raising += check_pycon_copy(item).raises is not None
            else:  # python and shell blocks copy as they are displayed
                assert item.copied.strip("\n") == item.displayed.strip("\n"), (
                    f"{item.where}: a {item.kind} block changed on copying\n"
                    f"{item.copied}"
                )
            if item.copied != item.worked_out:
                mismatches.append(
                    f"{item.where}\n--- clipboard\n{item.copied}\n"
                    f"--- copied_text\n{item.worked_out}"
                )
        assert len(swept["copies"]) > self.least, "the pages hold examples"
        assert kinds == {"pycon", "python", "sh"}, f"found only {kinds} blocks"
        assert raising, "no example with a traceback was copied"
        assert not mismatches, "copied_text is not the clipboard:\n" + "\n".join(
            mismatches
        )


class TestJapanese(Copies, Edition):
    language = "ja"
    sample = SAMPLE


class TestTraditionalChinese(Edition):
    language = "zh-Hant"
    sample = SAMPLE_ZH


@pytest.mark.exhaustive
class TestJapaneseEveryPage(Copies, Edition):
    language = "ja"
    least = 100


@pytest.mark.exhaustive
class TestTraditionalChineseEveryPage(Edition):
    language = "zh-Hant"


@pytest.mark.exhaustive
class TestSimplifiedChineseEveryPage(Edition):
    language = "zh-Hans"


def test_every_edition_is_swept_whole_and_two_by_a_sample() -> None:
    classes = Edition.__subclasses__()
    whole = {c.language for c in classes if c.sample is None}
    sampled = {c.language for c in classes if c.sample is not None}
    assert whole == set(LANGUAGES)
    assert sampled == {"ja", "zh-Hant"}
    assert all(
        any(m.name == "exhaustive" for m in getattr(c, "pytestmark", []))
        == (c.sample is None)
        for c in classes
    )


#: What the sample's pages must hold between them (CSS selectors in the built
#: HTML): each component of the book that the sweep's checks look at.
COMPONENTS = {
    "display maths": "article div.arithmatex",
    "pycon code": "article div.language-pycon",
    "python code": "article div.language-python",
    "shell code": "article div.language-sh",
    "a figure": "article figure img",
    "Figure 2": "article figure svg",
    "a table": "article table",
    "a solution": "article details.success",
    "an interactive figure": "article .explorable[data-explorable]",
}


def test_the_sample_holds_every_component(site) -> None:
    pages = [site / "ja" / page for page in SAMPLE]
    trees = [tree(p / "index.html" if p.suffix != ".html" else p) for p in pages]
    missing = [
        what
        for what, selector in COMPONENTS.items()
        if not any(t.cssselect(selector) for t in trees)
    ]
    assert not missing, f"no page of SAMPLE holds {missing}"
    tracebacks = [
        t for t in trees if "Traceback (most recent call last)" in t.text_content()
    ]
    assert tracebacks, "no page of SAMPLE shows a traceback"
