"""What the browser tests check on a page, and how: shared by the sweep of
every page (test_every_page.py) and the tests of single pages.

- ``math_report``: KaTeX's markup in every formula, no error, no delimiter
  left in the text a reader sees;
- ``FIT_REPORT``: what does not fit the column at a phone's width;
- ``WIDE_FORMULAS``: the display formulas wider than their column;
- ``start_axe`` / ``axe_violations``: axe-core's serious and critical
  violations (and every ``landmark-unique``);
- ``copy_every_block``: what the copy button of each code block puts on the
  clipboard, clicked as a reader clicks it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from ..copying import EXCEPTION_LINE, PROMPT, TRACEBACK, copied_text
from ..site.helpers import ROOT, soups
from .conftest import wait_for_math
from .navigation import TIMEOUT

#: TeX's delimiters, which must not be left in the text a reader sees.
DELIMITERS = ["\\(", "\\)", "\\[", "\\]", "$$"]

#: What KaTeX left undone on the page. Code (pre, code) may show TeX on
#: purpose; each formula's MathML holds its TeX source as an annotation,
#: which the browser does not draw.
MATH_REPORT = """delimiters => {
    const article = document.querySelector("article.md-content__inner");
    const formulas = [...document.querySelectorAll(".arithmatex")];
    const text = node => node.textContent.replace(/\\s+/g, " ").trim().slice(0, 80);
    const report = {
        article: article !== null,
        formulas: formulas.length,
        // A formula that KaTeX cannot parse becomes a .katex-error; an
        // unknown command is drawn in KaTeX's error colour (or an merror).
        errors: [...document.querySelectorAll(
            ".katex-error, .katex merror, .katex mstyle[mathcolor='#cc0000'] > mtext"
        )].map(text),
        unrendered: formulas.filter(
            e => !e.querySelector(".katex > math > semantics > annotation")
        ).map(text),
        raw: [],
    };
    if (article) {
        const visible = article.cloneNode(true);
        visible.querySelectorAll("pre, code, annotation, script, style")
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


PHONE = {"width": 390, "height": 844}

#: Wait until fonts are loaded and two frames are drawn, so that the
#: ResizeObserver of scrollable.js has set the tabindex of wide boxes.
SETTLED = """async () => {
    await document.fonts.ready;
    const frame = () => new Promise(done => requestAnimationFrame(done));
    await frame();
    await frame();
}"""

#: What does not fit the column on this page, as sentences.
FIT_REPORT = """() => {
    const problems = [];
    const html = document.documentElement;
    if (html.scrollWidth > html.clientWidth)
        problems.push(`the page is ${html.scrollWidth} px wide`);
    // The column: the article's box, less its padding.
    const article = document.querySelector("article.md-content__inner");
    const style = getComputedStyle(article);
    const outer = article.getBoundingClientRect();
    const column = {
        left: outer.left + parseFloat(style.paddingLeft),
        right: outer.right - parseFloat(style.paddingRight),
    };
    const name = e => e.textContent.replace(/\\s+/g, " ").trim().slice(0, 40);
    // The ink of a box's content: text, and SVG (roots, big delimiters) as
    // far as the element clipping it lets it show.
    const ink = box => {
        const rects = [];
        const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            if (!n.textContent.trim() || n.parentElement.closest("annotation"))
                continue;
            const range = document.createRange();
            range.selectNodeContents(n);
            rects.push(...range.getClientRects());
        }
        for (const svg of box.querySelectorAll("svg")) {
            let {left, right} = svg.getBoundingClientRect();
            for (let a = svg.parentElement; a !== box; a = a.parentElement) {
                if (getComputedStyle(a).overflowX === "visible") continue;
                const clip = a.getBoundingClientRect();
                left = Math.max(left, clip.left);
                right = Math.min(right, clip.right);
            }
            if (right > left) rects.push({left, right});
        }
        return {
            left: Math.min(...rects.map(r => r.left)),
            right: Math.max(...rects.map(r => r.right)),
        };
    };
    const boxes = article.querySelectorAll("div.arithmatex, .md-typeset__scrollwrap");
    for (const box of boxes) {
        const where = `${box.className} "${name(box)}"`;
        const r = box.getBoundingClientRect();
        // Boxes in the running text keep its margins (nested ones are narrower).
        if (box.parentElement === article
                && (Math.abs(r.left - column.left) > 1
                    || Math.abs(r.right - column.right) > 1))
            problems.push(`${where}: ${r.left}..${r.right}, text `
                + `${column.left}..${column.right}`);
        if (r.left < column.left - 1 || r.right > column.right + 1)
            problems.push(`${where}: outside the column`);
        const wide = box.scrollWidth > box.clientWidth;
        if (wide !== (box.getAttribute("tabindex") === "0"))
            problems.push(`${where}: wide=${wide}, `
                + `tabindex=${box.getAttribute("tabindex")}`);
        if (box.scrollHeight > box.clientHeight)
            problems.push(`${where}: `
                + `${box.scrollHeight - box.clientHeight} px hidden vertically`);
        box.scrollLeft = 0;
        const start = ink(box).left;
        box.scrollLeft = box.scrollWidth;
        const end = ink(box).right;
        box.scrollLeft = 0;
        if (start < r.left - 0.5 || end > r.right + 0.5)
            problems.push(`${where}: ink ${start}..${end} `
                + `out of reach of ${r.left}..${r.right}`);
    }
    for (const formula of article.querySelectorAll("span.arithmatex")) {
        if (formula.closest(".md-typeset__scrollwrap")) continue;
        const r = formula.getBoundingClientRect();
        if (r.left < column.left - 1 || r.right > column.right + 1)
            problems.push(`inline "${name(formula)}": ${r.left}..${r.right}`);
    }
    return {problems, boxes: boxes.length};
}"""

#: The boxes that scroll sideways (display formulas, tables, code blocks)
#: that a keyboard cannot reach or a screen reader cannot name: each one
#: wider than its box must be focusable (tabindex 0) and named (a role and
#: an aria-label), each one that fits must not be a tab stop. As sentences.
UNREACHABLE_BOXES = """() => [...document.querySelectorAll(
        "article div.arithmatex, article .md-typeset__scrollwrap,"
        + " article pre > code")]
    .filter(box => box.getClientRects().length > 0)
    .flatMap(box => {
        const wide = box.scrollWidth > box.clientWidth;
        const tabindex = box.getAttribute("tabindex");
        const role = box.getAttribute("role");
        const name = (box.getAttribute("aria-label") ?? "").trim();
        const where = `${box.tagName.toLowerCase()}.${box.className} "`
            + box.textContent.replace(/\\s+/g, " ").trim().slice(0, 30) + '"';
        if (!wide)
            return tabindex === "0" ? [`${where}: fits, yet a tab stop`] : [];
        const found = [];
        if (tabindex !== "0") found.push(`tabindex=${tabindex}`);
        if (!["group", "region"].includes(role)) found.push(`role=${role}`);
        if (!name) found.push("no name");
        return found.length
            ? [`${where}: scrolls (${box.scrollWidth} px in ${box.clientWidth}), `
                + found.join(", ")]
            : [];
    })"""

#: The display formulas wider than their box (the column, or an
#: admonition's): each as its width, its box's and the start of its TeX.
WIDE_FORMULAS = """() => [...document.querySelectorAll("article div.arithmatex")]
    .filter(box => box.scrollWidth > box.clientWidth + 1)
    .map(box => `${box.scrollWidth} px in ${box.clientWidth} px: `
        + (box.querySelector("annotation")?.textContent ?? "")
            .replace(/\\s+/g, " ").trim().slice(0, 60))"""

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"

BLOCKING = ("serious", "critical")

#: Rules whose every violation counts, whatever axe's impact.
ALWAYS = ("landmark-unique",)

# Start axe once the page has settled: fonts loaded (KaTeX's included) and
# two frames drawn, so that ResizeObserver callbacks (scrollable.js) ran.
# The promise is kept in the page, to be awaited by AXE_RESULTS.
START_AXE = """
({ context, options }) => {
  window.__axeViolations = (async () => {
    await document.fonts.ready;
    const frame = () => new Promise((done) => requestAnimationFrame(done));
    await frame();
    await frame();
    const results = await axe.run(context ?? document, options);
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

#: The book's content-visibility turned off, for checks that need every
#: block of the page laid out.
LAID_OUT = "* { content-visibility: visible !important; }"

#: Wait until every running transition and animation that ends has ended.
#: Resizing the tab from a phone's width to a desktop's starts Material's (the
#: sidebar's sections fade in over 250 ms, the search bar's colours change):
#: axe, run during the fade, measures a link's text at a fraction of its
#: opacity (#ddd on white, 1.35:1), which no reader sees once it is over.
#: ``getAnimations`` flushes the pending style first, so a transition that
#: a change just started is in the list.
AT_REST = """async () => {
    const ending = document.getAnimations().filter(a => a.playState === "running"
        && Number.isFinite(a.effect?.getComputedTiming().endTime));
    await Promise.all(ending.map(a => a.finished.catch(() => null)));
}"""


def start_axe(page, options: dict | None = None, context: str | None = None) -> None:
    """Start axe-core on the page, its math rendered and its transitions over:
    on the whole page, or on the elements that the CSS selector ``context``
    matches."""
    if not AXE.exists():
        raise AssertionError(
            f"no {AXE.relative_to(ROOT)}: run `npm ci` (make test does)"
        )
    wait_for_math(page)
    # Every block laid out, as a reader who scrolled has it: book.css lets
    # the browser skip the blocks off screen (content-visibility: auto), and
    # axe, which finds what lies behind a text by the point where it is,
    # then finds the footer behind a link whose block has its estimated
    # height still (a contrast failure no reader sees).
    page.add_style_tag(content=LAID_OUT)
    page.evaluate(AT_REST)
    page.add_script_tag(path=str(AXE))
    options = {"resultTypes": ["violations"], **(options or {})}
    page.evaluate(START_AXE, {"context": context, "options": options})


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


COPY_BUTTON = "button.md-code__button[data-md-type='copy']"

CLIPBOARD = {"permissions": ["clipboard-read", "clipboard-write"]}

#: Every block with a copy button (shell commands included).
ALL_BLOCKS = "article div.highlight"


@dataclass(frozen=True)
class Expected:
    """What copying a code block should give, read from its displayed text."""

    code: str
    output: tuple[str, ...] = ()
    raises: str | None = None  # the first exception its output shows


def pycon_expectation(displayed: str) -> Expected:
    """The code of a ``>>>`` example: prompts removed, output lines dropped.

    Blank lines stay. The first exception of a doctest traceback, if any, is
    what running the code should raise.
    """
    code, output = [], []
    for line in displayed.splitlines():
        if PROMPT.match(line):
            code.append(line[4:])
        elif not line.strip():
            code.append("")
        else:
            output.append(line)
    raises = None
    if TRACEBACK in output:
        after = output[output.index(TRACEBACK) + 1 :]
        raises = next(m["name"] for line in after if (m := EXCEPTION_LINE.match(line)))
    return Expected("\n".join(code).strip("\n"), tuple(output), raises)


def copy_block(page, block, number: int | str) -> str:
    """Click ``block``'s copy button and return what the clipboard holds.

    The click is a real one (the mouse at the button's centre, as the copy
    needs a user's gesture); one call before it prepares the clipboard and
    brings the button into view, to keep round trips to the browser few.
    """
    before = f"<clipboard before copy {number}>"
    x, y = block.evaluate(
        """async (block, [before, selector]) => {
            await navigator.clipboard.writeText(before);
            const details = block.closest("details");  // a `??? example`
            if (details) details.open = true;
            const button = block.querySelector(selector);
            // Blocks the browser skipped (content-visibility: auto) get their
            // real height as they come into view and move what lies below:
            // scroll until the button stays where it is for two frames.
            const frame = () => new Promise((done) => requestAnimationFrame(done));
            let box = null;
            for (let tries = 0; tries < 50; tries++) {
                button.scrollIntoView({block: "center"});
                await frame();
                await frame();
                const now = button.getBoundingClientRect();
                if (box && now.x === box.x && now.y === box.y) break;
                box = now;
            }
            const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
            const hit = document.elementFromPoint(x, y);
            if (!hit || !(hit === button || button.contains(hit)))
                throw new Error(`the copy button is not at (${x}, ${y})`);
            return [x, y];
        }""",
        [before, COPY_BUTTON],
    )
    page.mouse.click(x, y)
    # Read the clipboard until the copy has replaced what it held (a loop
    # in the page: wait_for_function does not wait for an async predicate's
    # promise, and took its pending answer for a truthy one).
    return page.evaluate(
        """async ([before, timeout]) => {
            const end = performance.now() + timeout;
            for (;;) {
                const text = await navigator.clipboard.readText();
                if (text !== before) return text;
                if (performance.now() > end)
                    throw new Error(`the clipboard still holds ${before}`);
                await new Promise((done) => setTimeout(done, 20));
            }
        }""",
        [before, TIMEOUT],
    )


@dataclass
class Copied:
    where: str  # page and block, for messages
    kind: str  # "pycon", "python" or "sh"
    displayed: str
    copied: str
    worked_out: str = ""  # what test_copy_paste.copied_text gives


def copy_every_block(page, site: Path, path: str) -> list[Copied]:
    """Copy every block of the open page, the built ``site``'s ``path``.

    Each copy comes with what ``copied_text`` works out for the same block
    of the built page (the HTML as served, before any script ran).
    """
    built_page = site / path if path.endswith(".html") else site / path / "index.html"
    built = soups(built_page, ALL_BLOCKS)
    found = page.eval_on_selector_all(
        ALL_BLOCKS,
        """blocks => blocks.map(block => ({
            kind: [...block.classList]
                .find(name => name.startsWith("language-"))
                .slice("language-".length),
            displayed: block.querySelector("code").textContent,
        }))""",
    )
    assert len(found) == len(built), f"{path}: blocks differ from the built page"
    copies = []
    for index, info in enumerate(found):
        block = page.locator(ALL_BLOCKS).nth(index)
        text = copy_block(page, block, f"{path} {index}")
        worked_out = copied_text(built[index].select_one("pre > code"))
        copies.append(
            Copied(
                f"{path} block {index + 1}",
                info["kind"],
                info["displayed"],
                text,
                worked_out,
            )
        )
    return copies


def check_pycon_copy(item: Copied) -> Expected:
    """Assert the copy of a ``>>>`` example is its code, and only its code."""
    expected = pycon_expectation(item.displayed)
    lines = item.copied.splitlines()
    prompts = [line for line in lines if PROMPT.match(line)]
    assert not prompts, f"{item.where}: prompts copied: {prompts}\n{item.copied}"
    outputs = [line for line in expected.output if line in lines]
    assert not outputs, f"{item.where}: output copied: {outputs}\n{item.copied}"
    assert item.copied.strip("\n") == expected.code, (
        f"{item.where}: the copy is not the example's code\n"
        f"--- copied\n{item.copied}\n--- expected\n{expected.code}"
    )
    return expected
