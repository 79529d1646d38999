"""Accessibility: axe-core finds no serious or critical violation on any page.

Nor any ``landmark-unique`` (moderate for axe): two landmarks of the same
role and name, such as the unnamed <nav> Material gave every code block,
make a screen reader's list of landmarks useless.

axe-core comes from the npm registry (package.json's devDependencies,
``npm ci``) and is injected into every page of every language, after KaTeX
has rendered the math; also into the root pages, and at a phone's width into
pages whose formulas and tables scroll there. Nothing is excluded: what axe
found on the site was fixed in the site itself (book.css,
overrides/partials/search.html and progress.html,
overrides/assets/javascripts/scrollable.js).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ..site.helpers import LANGUAGES, ROOT
from .conftest import wait_for_math

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")
#: Rules whose every violation counts, whatever axe's impact.
ALWAYS = ("landmark-unique",)

#: Pages checked at once, each in its own tab (and renderer process): axe is
#: CPU-bound and single-threaded, and the runners have two cores.
TABS = 2

# Start axe once the page has settled: fonts loaded (KaTeX's included) and
# two frames drawn, so that ResizeObserver callbacks (scrollable.js) ran.
# The promise is kept in the page, to be awaited by AXE_RESULTS.
START_AXE = """
(options) => {
  window.__axeViolations = (async () => {
    await document.fonts.ready;
    const frame = () => new Promise((done) => requestAnimationFrame(done));
    await frame();
    await frame();
    const results = await axe.run(document, options);
    return results.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      count: v.nodes.length,
      targets: v.nodes.slice(0, 4).map((node) => node.target.join(" ")),
      summary: v.nodes[0]?.failureSummary ?? "",
    }));
  })();
}
"""
AXE_RESULTS = "() => window.__axeViolations"


@pytest.fixture(scope="module")
def axe_script() -> Path:
    if not AXE.exists():
        pytest.fail(f"no {AXE.relative_to(ROOT)}: run `npm ci` (make test does)")
    return AXE


def start_axe(page, axe_script: Path, options: dict | None = None) -> None:
    """Start axe-core on the page as it is, once its math is rendered."""
    wait_for_math(page)
    page.add_script_tag(path=str(axe_script))
    page.evaluate(START_AXE, {"resultTypes": ["violations"], **(options or {})})


def axe_violations(page) -> list[dict]:
    """The violations that count, found by the run started last."""
    return [
        v
        for v in page.evaluate(AXE_RESULTS)
        if v["impact"] in BLOCKING or v["id"] in ALWAYS
    ]


def report(path: str, violations: list[dict]) -> list[str]:
    return [
        f"{path}: {v['id']} ({v['impact']}, {v['count']} nodes) {v['help']}\n"
        f"    {', '.join(v['targets'])}\n"
        f"    {' / '.join(line.strip() for line in v['summary'].splitlines()[1:3])}"
        for v in violations
    ]


def site_path(site: Path, page: Path) -> str:
    return page.relative_to(site).as_posix().removesuffix("index.html")


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_no_serious_violation_on_any_page(
    open_page, base_url, site, pages, axe_script, language
):
    """Every page of the language (404 page too), light scheme."""
    paths = [site_path(site, page) for page in pages[language]]
    assert f"{language}/training/" in paths
    page, _ = open_page(paths[0], color_scheme="light")
    tabs = [page] + [page.context.new_page() for _ in range(TABS - 1)]
    problems = []
    for start in range(0, len(paths), TABS):
        batch = list(zip(tabs, paths[start : start + TABS], strict=False))
        for tab, path in batch:
            if tab.url != base_url + path:
                tab.goto(base_url + path, wait_until="load")
            start_axe(tab, axe_script)
        for tab, path in batch:
            problems += report(path, axe_violations(tab))
    assert not problems, "axe-core violations:\n" + "\n".join(problems)


@pytest.mark.parametrize(("name", "scripts"), [("index.html", 1), ("404.html", 0)])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_violation_on_the_root_pages(
    browser, base_url, site, axe_script, name, scripts, scheme
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
        start_axe(page, axe_script)
        problems = report(name, axe_violations(page))
    finally:
        context.close()
    assert not problems, "axe-core violations:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    "path", ["ja/scaled-dot-product/", "zh-Hant/glossary/", "zh-Hans/multi-head/"]
)
def test_no_serious_violation_at_a_phones_width(open_page, axe_script, path):
    """Where formulas and tables scroll in their boxes (390 px)."""
    page, _ = open_page(path, viewport={"width": 390, "height": 844})
    start_axe(page, axe_script)
    problems = report(path, axe_violations(page))
    assert not problems, "axe-core violations (390 px):\n" + "\n".join(problems)


@pytest.mark.parametrize(
    "path",
    [
        "ja/scaled-dot-product/",
        "zh-Hant/object-view/",
        "zh-Hant/training/",
        "zh-Hans/404.html",
    ],
)
def test_colours_in_dark_mode(open_page, axe_script, path):
    """The colour rules in the dark scheme too: code, links, buttons (the 404
    page's filled one), a chapter's notebook links."""
    page, _ = open_page(path, color_scheme="dark")
    assert page.evaluate("document.body.dataset.mdColorScheme") == "slate"
    only = {"runOnly": ["color-contrast", "link-in-text-block"]}
    start_axe(page, axe_script, only)
    problems = report(path, axe_violations(page))
    assert not problems, "axe-core violations (dark):\n" + "\n".join(problems)
