"""The interactive figures, driven as a reader drives them, checked against the package.

One page load per explorable page (Japanese edition): the test sets the
figure's inputs with the keyboard or the mouse, reads every number the page
shows, and compares it with what ``attention_docs`` computes for the same
inputs (``tests/explorables_oracle.py``); the figure computes its numbers in
JavaScript, with the module that also drew its default state at build time.
Each number is compared twice: its full value (``data-value``) to float64
rounding, and its shown text to the precision it is shown at. The load itself
must shift no layout (the figure is drawn at build time and the script only
fills it in) and leave no console error.
"""

from __future__ import annotations

import colorsys
import itertools
import math
import re
import time

import numpy as np
import pytest
from playwright.sync_api import expect

from attention_book.stages import explorables
from attention_docs import causal_mask, load_pretrained, padding_mask, running_example
from tests import explorables_oracle as oracle
from tests.explorables_charts import Chart

from .checks import axe_violations, report, start_axe
from .navigation import TIMEOUT
from .test_dark_mode import GRAPHICS_CONTRAST, TEXT_CONTRAST
from .test_dark_mode import contrast as over_contrast

#: The cells of one table of the figure: (i, j) -> (text, data-value, hidden).
READ_TABLE = """([name, key]) => {
    const root = document.querySelector(`.explorable[data-explorable="${name}"]`);
    const table = root.querySelector(`[data-matrix="${key}"]`);
    return [...table.querySelectorAll("td[data-i]")].map(td => {
        const el = td.querySelector("[data-value]") || td;
        // as shown: a number in the form m × 10ⁿ is also in words (speak())
        const shown = el.querySelector(':scope > [aria-hidden="true"]') || el;
        return [Number(td.dataset.i), Number(td.dataset.j), shown.textContent.trim(),
                el.dataset.value, td.hidden || td.parentElement.hidden];
    });
}"""

#: Layout shifts of the load that no input caused (CLS's sources) that the
#: figure could have caused: of the figure itself or of what follows it. (A
#: late image above it moves what is below, the figure included; a shift of
#: nodes above the figure is never the figure's.) Every shift is listed, and
#: the first number of each counts.
LAYOUT_SHIFT = """figure => new Promise(resolve => {
    const shifts = [];
    const mine = n => n === figure || figure.contains(n)
        || (figure.compareDocumentPosition(n) & Node.DOCUMENT_POSITION_FOLLOWING);
    new PerformanceObserver(list => {
        for (const entry of list.getEntries()) {
            const nodes = entry.sources.map(s => s.node).filter(Boolean);
            const names = nodes.map(n => n.nodeName + "." + n.className);
            if (!entry.hadRecentInput)
                shifts.push([nodes.some(mine) ? entry.value : 0, entry.value, names]);
        }
    }).observe({type: "layout-shift", buffered: true});
    requestAnimationFrame(() => requestAnimationFrame(() => resolve(shifts)));
})"""


SCIENTIFIC = re.compile(r"(\S+) × 10(\S+)")
#: "> 0.999", "< 1.001": a value that is not ±1 but would round to it, as
#: fmt() writes it (the bound one last decimal beyond it, away from 1,
#: after a no-break space).
BOUND = re.compile(r"([<>])\u00a0([\u2212-]?\d\.\d+)")
#: "10⁻⁹" as fmt() writes a value below the shown decimals: read as 10-9.
SUPERSCRIPT_DIGITS = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


#: The figure's height as the script left it, and as the page was built (the
#: page's own HTML fetched again, its figure laid out at the same width off
#: screen): equal, so starting the script moved nothing, wherever the figure
#: was on the screen.
HEIGHTS = """async figure => {
    const html = await (await fetch(location.href)).text();
    const built = new DOMParser().parseFromString(html, "text/html")
        .querySelector(`.explorable[data-explorable="${figure.dataset.explorable}"]`);
    const clone = document.importNode(built, true);
    for (const e of [clone, ...clone.querySelectorAll("[id]")]) e.removeAttribute("id");
    Object.assign(clone.style, {position: "absolute", left: "-10000px", top: "0",
        boxSizing: "border-box", width: figure.offsetWidth + "px"});
    clone.removeAttribute("data-explorable");
    figure.parentElement.append(clone);
    const heights = [figure.getBoundingClientRect().height,
                     clone.getBoundingClientRect().height];
    clone.remove();
    return heights;
}"""


def number(text: str) -> float:
    """A number as the figure shows it: a true minus, ``m × 10^e``, ``∞``."""
    text = text.replace("\u2212", "-").replace(",", "").strip()
    if text in ("-∞", "∞"):
        return -math.inf if text.startswith("-") else math.inf
    match = SCIENTIFIC.fullmatch(text.translate(SUPERSCRIPT_DIGITS))
    if match:
        return float(match[1]) * 10.0 ** int(match[2])
    return float(text.split()[0])


def digits_of(text: str) -> int:
    mantissa = text.replace("\u2212", "-").split(" ×")[0]
    return len(mantissa.partition(".")[2])


def check(text: str, full: str, expected: float, where: str) -> None:
    """``full`` equals ``expected`` to float64 rounding; ``text`` at its precision."""
    if math.isinf(expected):
        assert full == "-Infinity" and number(text) == expected, where
        return
    assert abs(float(full) - expected) <= 1e-12 * max(1.0, abs(expected)), (
        f"{where}: {full} != {expected!r}"
    )
    bounded = BOUND.fullmatch(text.strip())
    if bounded:  # "> 0.999": not ±1, though it would round to it
        bound, unit = number(bounded[2]), 10.0 ** -digits_of(bounded[2])
        beyond = expected > bound if bounded[1] == ">" else expected < bound
        assert beyond and abs(expected - bound) <= unit * (1 + 1e-9), (
            f"{where}: shows {text}, expected {expected!r}"
        )
        assert abs(abs(bound) - 1) == pytest.approx(unit), f"{where}: {text}"
        return
    shown = number(text)
    scientific = SCIENTIFIC.fullmatch(
        text.replace("\u2212", "-").translate(SUPERSCRIPT_DIGITS).strip()
    )
    if scientific:  # m × 10^e: the unit of m's last decimal, times 10^e
        # A number shown as m × 10^e claims its digits however small it is.
        assert abs(float(full) - expected) <= 1e-12 * abs(expected), (
            f"{where}: {full} != {expected!r} (relative)"
        )
        unit = 10.0 ** (int(scientific[2]) - digits_of(scientific[1]))
    else:
        unit = 10.0 ** -digits_of(text)
    assert abs(shown - expected) <= unit / 2 + 1e-12 * max(1.0, abs(expected)), (
        f"{where}: shows {text}, expected {expected!r}"
    )


def compare(page, name: str, key: str, expected, shape=None) -> None:
    """Every shown cell of a table equals ``expected`` (hidden cells are not shown)."""
    expected = np.asarray(expected, dtype=np.float64)
    seen = set()
    for i, j, text, full, hidden in page.evaluate(READ_TABLE, [name, key]):
        inside = i < expected.shape[0] and j < expected.shape[1]
        assert hidden == (not inside), f"{name}/{key}[{i},{j}] hidden={hidden}"
        if inside:
            check(text, full, float(expected[i, j]), f"{name}/{key}[{i},{j}]")
            seen.add((i, j))
    assert len(seen) == expected.size, f"{name}/{key}: {len(seen)} of {expected.size}"


def result(page, name: str, key: str) -> tuple[str, str]:
    element = page.locator(
        f'.explorable[data-explorable="{name}"] [data-result="{key}"]'
    )
    shown = element.locator(':scope > [aria-hidden="true"]')  # speak()'s shown half
    text = (shown if shown.count() else element).inner_text().strip()
    return text, element.get_attribute("data-value")


#: An element's text as the reader sees it: without the words speak() adds
#: for a listener (visually hidden, but in textContent and innerText).
SHOWN_TEXT = """e => {
    const copy = e.cloneNode(true);
    for (const said of copy.querySelectorAll(".explorable-said")) said.remove();
    return copy.textContent;
}"""


def pointer_on_the_header(page) -> None:
    """Rest the pointer on the page's fixed header before a keyboard test.

    Left over a figure, the pointer points at whatever cell the focus's
    scroll brings under it, and the browser's mouseover (sent a moment after
    the scroll) then links that cell instead of the focused one: a failure
    that depends on the machine's speed (ci, window_sinks).
    """
    page.mouse.move(0, 0)


def status(page, name: str) -> str:
    return page.locator(
        f'.explorable[data-explorable="{name}"] .explorable-status'
    ).inner_text()


def chart_x(box: dict, plot: Chart, v: float) -> float:
    """The page's x of the value ``v`` on ``plot``'s x axis (linear or log, as
    the chart was read), its SVG 360 units to the box's width."""
    (a, pa), (b, pb) = plot.ticks["x"][0], plot.ticks["x"][-1]
    if plot.log["x"]:
        a, b, v = math.log10(a), math.log10(b), math.log10(v)
    return box["x"] + box["width"] / 360 * (pa + (v - a) * (pb - pa) / (b - a))


#: The explorables whose load this worker has checked (shift, heights): the
#: checks are of the load, which is the same in every test that loads the
#: figure, so the first load of each figure makes them and the others reuse
#: them (each test still loads its own page, to start from the default state).
LOADS_CHECKED: set[str] = set()


@pytest.fixture
def load(open_page):
    """Load the Japanese page of an explorable; check the load's shift and errors.

    The first load of each figure in a worker also checks that starting the
    script shifted nothing and left the figure as tall as it was built, at
    1280 and at 390 px; every load ends at 390 px wide, a phone.
    """

    def loader(path: str, name: str):
        page, watch = open_page(f"ja/{path}/")
        page.set_default_timeout(TIMEOUT)
        root = page.locator(f'.explorable[data-explorable="{name}"]')
        page.locator(f'.explorable[data-explorable="{name}"][data-ready]').wait_for()
        first = name not in LOADS_CHECKED
        if first:
            shifts = root.evaluate(LAYOUT_SHIFT)
            assert sum(shift[0] for shift in shifts) < 0.01, shifts
        for width in (1280, 390):  # a desktop, then a phone
            page.set_viewport_size({"width": width, "height": 900})
            if first:
                mounted, built = root.evaluate(HEIGHTS)
                assert abs(mounted - built) < 1, (width, mounted, built)
        LOADS_CHECKED.add(name)
        # no sideways scroll of the page on a phone (r47: a visually hidden
        # number outside its scroll box made the page 594 px wide)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert root.get_attribute("aria-labelledby")
        assert root.locator('[aria-live="polite"]').count() == 1
        return page, watch, root

    yield loader


#: announceSettled's delay (core.js, 300 ms), less a margin for the trip of
#: the pointer's event from the test to the page.
SETTLE = 0.25


class TimedDrag:
    """The mouse pressed, moved and released as a reader drags, with the
    moves timed. The live region speaks once the reader stops moving for
    300 ms. On a quiet machine the test's moves come faster than that and
    a drag is said exactly once. On a busy one a move can come after such a
    pause, and the page then rightly speaks at the pause too. So a drag is
    said once, plus at most once for each pause the drag made; never once a
    move (``said_once``)."""

    def __init__(self, page) -> None:
        self.page, self.pauses, self.last = page, 0, None

    def _tick(self) -> None:
        now = time.monotonic()
        if self.last is not None and now - self.last >= SETTLE:
            self.pauses += 1
        self.last = now

    def down(self) -> None:
        self.last = time.monotonic()
        self.page.mouse.down()

    def move(self, *point, **options) -> None:
        if self.last is not None:  # pressed: a move of the drag
            self._tick()
        self.page.mouse.move(*point, **options)

    def up(self) -> None:
        self._tick()
        self.page.mouse.up()
        self.last = None

    def said_once(self) -> None:
        """The live region spoke once for the drags so far (the counter
        ``window.__said`` of COUNT_SAID), allowing for their pauses."""
        said = self.page.evaluate("window.__said")
        assert 1 <= said <= 1 + self.pauses, (said, self.pauses)
        self.pauses = 0


#: Counts the live region's changes from now on (window.__said).
COUNT_SAID = """root => {
    window.__said = 0;
    new MutationObserver(() => { window.__said += 1; }).observe(
        root.querySelector(".explorable-status"),
        {childList: true, characterData: true, subtree: true});
}"""


def svg(page, name: str, key: str) -> str:
    return page.locator(
        f'.explorable[data-explorable="{name}"] svg[data-chart="{key}"]'
    ).evaluate("e => e.outerHTML")


#: Where the softmax figure's log axis stops (review F23).
SOFTMAX_FLOOR = 1e-16


def softmax_charts_agree(page, x, t: float) -> None:
    """The curves w_j(t) and max|J|(t) as drawn, and the cursors at t; on the
    log axis, clamped at 10^-16, a value below it is not drawn."""
    weights = Chart(svg(page, "softmax", "weights"))
    jmax = Chart(svg(page, "softmax", "jmax"), log_y=True)
    for chart in (weights, jmax):
        assert abs(chart.cursor() - t) < 1e-3, (chart.cursor(), t)
    for j, (points,) in weights.lines().items():
        for k in (0, 10, 37, 100):
            tk, wk = points[k]
            assert abs(tk - k / 10) < 1e-3
            expected = oracle.softmax_state(x, k / 10)["s"][j]
            assert abs(wk - expected) < 1e-4, (j, k, wk, expected)
    # max|J| (line 0) and, over it, ε (line 1): the page's bound (r45)
    for line, key in ((0, "jmax"), (1, "rest")):
        drawn = {round(tk * 10): v for piece in jmax.lines()[line] for tk, v in piece}
        for k in (0, 10, 37, 100):
            expected = oracle.softmax_state(x, k / 10)[key]
            if expected < SOFTMAX_FLOOR:
                assert k not in drawn, (key, k, drawn.get(k))
            else:
                assert abs(drawn[k] - math.log10(expected)) < 1e-3, (key, k, drawn[k])
    assert min(at for at, _ in jmax.ticks["y"]) >= SOFTMAX_FLOOR
    # the scores x_j drawn as bars at j = 1, 2, 3
    dots = Chart(svg(page, "softmax", "scores")).dots()  # a series a score (r47)
    bars = [p for k in sorted(dots) for p in dots[k]]
    assert [round(at) for at, _ in bars] == [1, 2, 3]
    assert all(abs(v - xj) < 1e-2 for (_, v), xj in zip(bars, x, strict=True)), bars


#: Each Jacobian cell's indices and its colours' parts (--p, --n).
JACOBIAN_COLOURS = """tds => tds.map(td => [Number(td.dataset.i), Number(td.dataset.j),
    td.style.getPropertyValue("--p"), td.style.getPropertyValue("--n")])"""


def test_softmax(load) -> None:
    page, watch, root = load("softmax", "softmax")
    said = root.locator(".explorable-status")
    # each input is named by its label in words: "x 下付き 1", not "x1"
    for j in (1, 2, 3):
        field = root.get_by_role("spinbutton", name=f"x 下付き {j}", exact=True)
        assert field.get_attribute("data-x") == str(j - 1)

    def agrees(x, t) -> None:
        state = oracle.softmax_state(x, t)
        compare(
            page, "softmax", "weights", np.column_stack([x, state["tx"], state["s"]])
        )
        compare(page, "softmax", "jacobian", state["jacobian"])
        # the Jacobian's colours: its entry's positive and negative parts
        # over 1/4, the largest an entry can be (r44: a wall of numbers)
        for i, j, p, n in root.locator(
            '[data-matrix="jacobian"] td[data-i]'
        ).evaluate_all(JACOBIAN_COLOURS):
            v = state["jacobian"][i][j]
            assert abs(float(p) - 4 * max(0.0, v)) < 1e-12, (i, j, p, v)
            assert abs(float(n) - 4 * max(0.0, -v)) < 1e-12, (i, j, n, v)
        for key in ("largest", "rest", "jmax"):
            check(*result(page, "softmax", key), state[key], f"softmax/{key}")
        softmax_charts_agree(page, x, t)
        # said once the control settles (300 ms after the last input)
        expect(said).to_contain_text(f"t = {oracle.fmt(t, 1)}")
        expect(said).to_contain_text(oracle.fmt(state["largest"], 4, -state["rest"]))

    agrees([1.0, 2.0, 3.0], 1.0)  # the default state, as the script computes it
    scale = root.locator("input[data-t]")
    for control in (scale, *(root.locator(f'input[data-x="{j}"]') for j in range(3))):
        box = control.bounding_box()
        assert box["height"] >= 24, box  # a target of at least 24 px
    scale.focus()
    for _ in range(40):  # 1.0 -> 5.0 with the arrow key, as a keyboard reader does
        page.keyboard.press("ArrowRight")
    assert scale.input_value() == "5"
    agrees([1.0, 2.0, 3.0], 5.0)  # the page's prediction: 0.9933 and 0.0067
    assert result(page, "softmax", "largest")[0] == "0.9933"
    # fixed decimals down to 10^-3 (r45: not 6.7 × 10^-3 beside 0.9933)
    assert result(page, "softmax", "rest")[0] == "0.0067"
    # a score's bar dragged up sets it: x_1 from 1 to 4, to the field's step
    bars = root.locator('svg[data-chart="scores"]')
    bars.scroll_into_view_if_needed()
    box = bars.bounding_box()
    plot = Chart(svg(page, "softmax", "scores"))

    def place(axis: str, v: float) -> float:
        (a, pa), (b, pb) = plot.ticks[axis][0], plot.ticks[axis][-1]
        return pa + (v - a) * (pb - pa) / (b - a)

    def at(j: float, v: float) -> tuple[float, float]:
        unit = box["width"] / 360  # the viewBox's 360 units to the width
        return box["x"] + unit * place("x", j), box["y"] + unit * place("y", v)

    page.mouse.move(*at(1, 1.0))
    page.mouse.down()
    for v in (2.0, 3.0, 4.0):
        page.mouse.move(*at(1.2, v))  # the bar pressed stays the one dragged
    page.mouse.up()
    assert root.locator('input[data-x="0"]').input_value() == "4"
    agrees([4.0, 2.0, 3.0], 5.0)
    root.locator('input[data-x="0"]').fill("-1.5")
    root.locator('input[data-x="2"]').fill("2.5")
    agrees([-1.5, 2.0, 2.5], 5.0)
    scale.focus()
    page.keyboard.press("Home")  # t = 0: every weight 1/3, the Jacobian's largest 2/9
    agrees([-1.5, 2.0, 2.5], 0.0)
    page.keyboard.press("End")
    agrees([-1.5, 2.0, 2.5], 10.0)
    # Saturated: the largest weight rounds to 1, yet ε = 2e^-50 / (1 + 2e^-50)
    # and the Jacobian's largest entry, its diagonal s_3 ε, are not 0.
    for j, value in enumerate(["0", "0", "5"]):
        root.locator(f'input[data-x="{j}"]').fill(value)
    agrees([0.0, 0.0, 5.0], 10.0)
    epsilon = 2 * math.exp(-50) / (1 + 2 * math.exp(-50))
    for key in ("rest", "jmax"):
        _, full = result(page, "softmax", key)
        assert abs(float(full) - epsilon) <= 1e-12 * epsilon, (key, full, epsilon)
    assert result(page, "softmax", "rest")[0] == "3.9 × 10\u221222"
    # the largest weight is the float 1, yet 1 − ε: never "1.0000" beside ε
    assert result(page, "softmax", "largest") == (">\u00a00.9999", "1")
    assert root.locator('[data-s="2"]').inner_text() == ">\u00a00.9999"
    # the live region says the power in words, not flattened to "10−22"
    expect(said).to_contain_text("3.9 × 10 の −22 乗")
    heard = said.aria_snapshot()
    assert "ε = 3.9 × 10 の −22 乗" in heard and "10\u221222" not in heard, heard
    # The presets (issue 40: nothing invited the tie, the figure's most
    # telling state): two largest inputs tied split the weight and keep
    # the Jacobian's 1/4 at a t where one largest input saturates it.
    presets = explorables.SOFTMAX_PRESETS
    for name in ("tie", "apart"):
        root.locator(f'button[data-preset="{name}"]').click()
        x, t = presets[name]["x"], presets[name]["t"]
        assert [
            root.locator(f'input[data-x="{j}"]').input_value() for j in range(3)
        ] == [oracle.fmt(xj, 0) for xj in x]
        assert float(scale.input_value()) == t
        agrees(x, t)
        state = oracle.softmax_state(x, t)
        if name == "tie":
            assert state["jmax"] > 0.249 and abs(state["s"][0] - state["s"][2]) < 1e-15
        else:
            assert state["jmax"] < 0.01
    assert not watch.problems(), watch.problems()


def test_softmax_says_underflow_and_its_charts_move_t(load) -> None:
    """x_3 = 800, t = 5: ε and the Jacobian's largest entry are 0 in float64,
    said as "< 10^-308 (underflow)", not "0.0 × 10^0"; the log axis stops at
    10^-16 and marks where max|J| leaves it. Pressing and dragging on either
    chart moves t (and hands the keyboard the slider); the end labels of
    the weights stay apart (review F23)."""
    page, watch, root = load("softmax", "softmax")
    words = explorables.words_for("softmax", "ja")
    underflow = re.sub(r"</?sup>", "", words["underflow"])
    scale = root.locator("input[data-t]")
    # the end labels at t = 10 (w_1 and w_2 both near 0) a line of text apart
    labels = re.findall(
        r'data-label="\d+" x="[\d.]+" y="([\d.]+)"', svg(page, "softmax", "weights")
    )
    heights = sorted(float(y) for y in labels)
    assert len(heights) == 3 and all(
        b - a >= 14 for a, b in itertools.pairwise(heights)
    )
    root.locator('input[data-x="2"]').fill("800")
    scale.focus()
    for _ in range(40):
        page.keyboard.press("ArrowRight")
    x = [1.0, 2.0, 800.0]
    state = oracle.softmax_state(x, 5.0)
    assert state["rest"] == 0.0 and state["jmax"] == 0.0  # float64 underflows
    for key in ("rest", "jmax"):
        text, full = result(page, "softmax", key)
        assert float(full) == 0.0 and text == underflow, (key, text)
    expect(root.locator(".explorable-status")).to_contain_text(underflow)
    # the weights that float64 rounds to 0 say so too, not "0.0000" (r44)
    assert state["s"][:2] == [0.0, 0.0]
    cells = page.evaluate(READ_TABLE, ["softmax", "weights"])
    shown = {i: (text, full) for i, j, text, full, _ in cells if j == 2}
    assert shown[0] == shown[1] == (underflow, "0"), shown
    assert shown[2][0] == oracle.fmt(state["s"][2], 4)
    softmax_charts_agree(page, x, 5.0)
    chart = svg(page, "softmax", "jmax")
    assert "10\u207b\u00b3" not in chart  # no 10^-63 ... 10^-315 ticks
    # max|J| is 2/9 at t = 0 and below 10^-16 from t = 0.1: marked there,
    # and so is ε (2/3 at t = 0)
    leaves = re.findall(
        r'data-leaves="([\d.]+)"><path [^>]*explorable-line-(\d)', chart
    )
    assert sorted((float(v), k) for v, k in leaves) == [(0.1, "0"), (0.1, "1")], leaves
    # the pointer on the chart: press at t = 2, drag to t = 7
    for key in ("weights", "jmax"):
        chart = root.locator(f'svg[data-chart="{key}"]')
        chart.scroll_into_view_if_needed()
        box = chart.bounding_box()
        plot = Chart(svg(page, "softmax", key), log_y=key == "jmax")

        def at(v: float, box=box, plot=plot) -> float:
            """The page's x of t = v: through the ticks, 360 units to the width."""
            (t0, p0), (t1, p1) = plot.ticks["x"][0], plot.ticks["x"][-1]
            return box["x"] + box["width"] / 360 * (
                p0 + (v - t0) * (p1 - p0) / (t1 - t0)
            )

        y = box["y"] + box["height"] / 2
        page.mouse.move(at(2.0), y)
        page.mouse.down()
        assert scale.input_value() == "2"
        for v in (3.0, 5.0, 7.0):
            page.mouse.move(at(v), y)
        page.mouse.up()
        assert scale.input_value() == "7", key
        softmax_charts_agree(page, x, 7.0)
        check(
            *result(page, "softmax", "largest"),
            oracle.softmax_state(x, 7.0)["largest"],
            "w",
        )
        # the keyboard goes on from there: the slider has the focus
        assert page.evaluate("document.activeElement.hasAttribute('data-t')")
        page.keyboard.press("ArrowLeft")
        assert scale.input_value() == "6.9"
        softmax_charts_agree(page, x, 6.9)
    assert not watch.problems(), watch.problems()


def hue(colour: str) -> float:
    """The hue of a CSS rgb() colour, in degrees."""
    r, g, b = (c / 255 for c in rgb_of(colour))
    return 360 * colorsys.rgb_to_hls(r, g, b)[0]


def hue_apart(a: float, b: float) -> float:
    return min(abs(a - b), 360 - abs(a - b))


#: The series' colours (w_j's curve, x_j's bar), the Jacobian's two ends,
#: and the background of w_j's bar in the weights table, as computed.
SOFTMAX_COLOURS = """root => {
    const chart = getComputedStyle(root.querySelector(".explorable-chart"));
    const jacobian = getComputedStyle(root.querySelector('[data-matrix="jacobian"]'));
    const probe = c => {
        const span = document.createElement("span");
        span.style.color = c;
        root.append(span);
        const out = getComputedStyle(span).color;
        span.remove();
        return out;
    };
    return {
        lines: [0, 1, 2].map(
            j => probe(chart.getPropertyValue(`--explorable-line-${j}`))),
        ends: ["--explorable-jpos", "--explorable-jneg"].map(
            k => probe(jacobian.getPropertyValue(k))),
        bars: [...root.querySelectorAll('[data-matrix="weights"] .explorable-bar')]
            .map(b => getComputedStyle(b).backgroundColor),
    };
}"""


def test_softmax_colours_and_underflowed_entries(load) -> None:
    """One colour, one meaning: the Jacobian's ramp lies apart from the
    series' hues, and w_j's bar takes its curve's colour (review F3). An
    entry that float64 underflows is said to be tiny, with its sign, as
    the results are, never 0.0000 beside 7.1 × 10^-218 (review F4)."""
    page, watch, root = load("softmax", "softmax")
    for scheme in ("default", "slate"):
        page.evaluate(
            "s => document.body.setAttribute('data-md-color-scheme', s)", scheme
        )
        colours = root.evaluate(SOFTMAX_COLOURS)
        series = [hue(c) for c in colours["lines"]]
        for end in colours["ends"]:
            assert all(hue_apart(hue(end), h) >= 30 for h in series), (scheme, colours)
        for j, bar in enumerate(colours["bars"]):
            nearest = min(range(3), key=lambda k: hue_apart(hue(bar), series[k]))
            assert nearest == j, (scheme, j, colours)
    page.evaluate("() => document.body.setAttribute('data-md-color-scheme', 'default')")
    words = explorables.words_for("softmax", "ja")
    tiny = {
        key: re.sub(r"</?sup>", "", words[key])
        for key in ("underflow", "underflow_negative")
    }
    x, t = [50.0, 0.0, 0.0], 10.0
    for j, value in enumerate(x):
        root.locator(f'input[data-x="{j}"]').fill(oracle.fmt(value, 0))
    scale = root.locator("input[data-t]")
    scale.focus()
    page.keyboard.press("End")
    state = oracle.softmax_state(x, t)
    underflowed = 0
    cells = page.evaluate(READ_TABLE, ["softmax", "jacobian"])
    for i, j, text, full, _ in cells:
        expected = state["jacobian"][i][j]
        if expected == 0.0:  # -w_2 w_3 = -e^-1000 / ...: below float64's least
            underflowed += 1
            sign = "underflow" if i == j else "underflow_negative"
            assert float(full) == 0.0 and text == tiny[sign], (i, j, full, text)
        else:
            check(text, full, expected, f"softmax/jacobian[{i},{j}]")
    assert underflowed == 2, state["jacobian"]
    # w_2 w_1 = 7.1 × 10^-218 is shown as such, beside the two tiny ones
    cell = root.locator('[data-matrix="jacobian"] td[data-i="1"][data-j="2"] button')
    assert "10 の −308 乗" in cell.get_attribute("aria-label")
    assert not watch.problems(), watch.problems()


def test_softmax_views_are_linked(load) -> None:
    """Pointing at w_j's row marks its line and the Jacobian's row and column
    j; pointing at an entry of the Jacobian marks w_j's and w_l's rows (r44)."""
    page, watch, root = load("softmax", "softmax")
    root.locator('[data-matrix="weights"] tr[data-i="2"] td').first.hover()
    jacobian = root.locator('[data-matrix="jacobian"] td.explorable-linked')
    assert jacobian.count() == 5  # row 3 and column 3
    assert root.locator('[data-matrix="weights"] td.explorable-linked').count() == 3
    line = root.locator('[data-chart="weights"] .explorable-linked')
    assert line.count() == 1 and line.get_attribute("data-line") == "2"
    root.locator('[data-matrix="jacobian"] td[data-i="0"][data-j="1"]').hover()
    assert jacobian.count() == 1
    rows = root.locator('[data-matrix="weights"] td.explorable-linked')
    assert rows.count() == 6
    assert root.locator('[data-chart="weights"] .explorable-linked').count() == 2
    pointer_on_the_header(page)
    assert root.locator(".explorable-linked").count() == 0
    softmax_links_by_focus_bars_and_curves(page, root)
    assert not watch.problems(), watch.problems()


#: A point of the softmax chart `key` in its viewBox, in the viewport's pixels.
VIEWBOX_POINT = """([key, x, y]) => {
    const svg = document.querySelector(
        `.explorable[data-explorable="softmax"] svg[data-chart="${key}"]`);
    const point = svg.createSVGPoint();
    [point.x, point.y] = [x, y];
    const screen = point.matrixTransform(svg.getScreenCTM());
    return [screen.x, screen.y];
}"""


def softmax_links_by_focus_bars_and_curves(page, root) -> None:
    """The links also by keyboard focus (w_j's buttons, one Tab stop, the
    arrows move; the Jacobian's entries), and both ways with the bars and
    the curves: the bar pointed at or dragged, and the curve nearest the
    pointer, mark w_j's row, curve, bar and Jacobian row and column (r47)."""
    jacobian = root.locator('[data-matrix="jacobian"] td.explorable-linked')
    row = '[data-matrix="weights"] td[data-i="{}"].explorable-linked'
    line = root.locator('[data-chart="weights"] .explorable-linked')

    def ringed() -> list[float]:
        marks = re.findall(r'data-mark="([\d.]+)"', svg(page, "softmax", "scores"))
        return sorted(float(x) for x in marks)

    button = root.locator('button[data-w="0"]')
    assert button.get_attribute("tabindex") == "0"
    button.focus()
    assert jacobian.count() == 5 and root.locator(row.format(0)).count() == 3
    assert line.get_attribute("data-line") == "0" and ringed() == [1.0]
    second = root.locator('button[data-w="1"]')
    page.keyboard.press("ArrowDown")
    assert second.evaluate("b => b === document.activeElement")
    assert root.locator(row.format(1)).count() == 3 and ringed() == [2.0]
    page.keyboard.press("ArrowLeft")  # x_j's cell is no button: the focus stays
    assert second.evaluate("b => b === document.activeElement")
    assert (second.get_attribute("aria-label") or "").startswith("w₂ = ")
    entry = root.locator('[data-matrix="jacobian"] td[data-i="0"][data-j="2"] button')
    entry.focus()
    assert jacobian.count() == 1 and ringed() == [1.0, 3.0]
    assert root.locator(row.format(0)).count() == 3 and line.count() == 2
    page.keyboard.press("ArrowDown")
    assert jacobian.count() == 1 and ringed() == [2.0, 3.0]
    page.evaluate("document.activeElement.blur()")
    assert root.locator(".explorable-linked").count() == 0 and ringed() == []
    # the pointer on bar 3 (x = 3, in the drawing's units 50 + 2.5/3 · 276)
    root.locator('svg[data-chart="scores"]').scroll_into_view_if_needed()
    page.mouse.move(*page.evaluate(VIEWBOX_POINT, ["scores", 280, 100]))
    assert root.locator(row.format(2)).count() == 3 and jacobian.count() == 5
    assert line.get_attribute("data-line") == "2" and ringed() == [3.0]
    # bar 1 dragged down to 0: it stays linked while the pointer passes bar 2
    page.mouse.move(*page.evaluate(VIEWBOX_POINT, ["scores", 96, 100]))
    page.mouse.down()
    page.mouse.move(*page.evaluate(VIEWBOX_POINT, ["scores", 190, 130]), steps=4)
    assert root.locator(row.format(0)).count() == 3 and ringed() == [1.0]
    page.mouse.up()
    # the pointer near the top of the weights chart at t ≈ 9.8: curve w_3
    root.locator('svg[data-chart="weights"]').scroll_into_view_if_needed()
    page.mouse.move(*page.evaluate(VIEWBOX_POINT, ["weights", 320, 15]))
    assert line.get_attribute("data-line") == "2" and ringed() == [3.0]
    assert root.locator(row.format(2)).count() == 3
    pointer_on_the_header(page)
    assert root.locator(".explorable-linked").count() == 0 and ringed() == []


def test_softmax_drag_is_announced_once(load) -> None:
    """Dragging t across the slider moves the cursor with it and updates the
    numbers at once, but the live region speaks once, after the drag."""
    page, watch, root = load("softmax", "softmax")
    scale = root.locator("input[data-t]")
    scale.scroll_into_view_if_needed()
    box = scale.bounding_box()
    root.evaluate(COUNT_SAID)
    drag = TimedDrag(page)
    y = box["y"] + box["height"] / 2
    drag.move(box["x"] + 0.2 * box["width"], y)
    drag.down()
    seen = set()
    for step in range(1, 21):  # a drag to the right, 20 moves
        drag.move(box["x"] + (0.2 + 0.03 * step) * box["width"], y)
        seen.add(scale.input_value())
    drag.up()
    assert len(seen) >= 10, seen  # the slider did move, through many values
    t = float(scale.input_value())
    x = [1.0, 2.0, 3.0]
    softmax_charts_agree(page, x, t)  # the cursor followed the slider
    check(
        *result(page, "softmax", "largest"),
        oracle.softmax_state(x, t)["largest"],
        "largest",
    )
    page.wait_for_timeout(700)
    drag.said_once()
    assert f"t = {oracle.fmt(t, 1)}" in status(page, "softmax")
    assert not watch.problems(), watch.problems()


def test_softmax_refuses_what_it_cannot_compute(load) -> None:
    """x_3 = 1e308 at t = 10 overflows (the package raises): the figure says so
    at x_3 instead of showing NaN; an empty x_1 is refused too."""
    page, watch, root = load("softmax", "softmax")
    error = root.locator("[data-error]")
    x3 = root.locator('input[data-x="2"]')
    assert error.is_hidden()
    root.locator("input[data-t]").focus()
    page.keyboard.press("End")  # t = 10
    x3.fill("1e308")
    expect(error).to_be_visible()
    expect(error).to_contain_text("x3")
    expect(error).to_contain_text("10.0")
    assert x3.get_attribute("aria-invalid") == "true"
    assert x3.get_attribute("aria-describedby") == error.get_attribute("id")
    # The refusal reads where it was typed: its words and the field's border
    # stand out from the page (a 15 % tint made both all but invisible).
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    said = error.evaluate("e => getComputedStyle(e).color")
    border = x3.evaluate("e => getComputedStyle(e).borderTopColor")
    # (over_contrast lays a translucent colour over the page, as it is seen)
    assert over_contrast(said, background) >= TEXT_CONTRAST, (said, background)
    assert over_contrast(border, background) >= GRAPHICS_CONTRAST, border
    text = root.inner_text()
    assert "NaN" not in text and "Infinity" not in text
    assert result(page, "softmax", "rest")[0] == "\u2014"
    expect(root.locator(".explorable-status")).to_contain_text("1.8")
    x3.fill("3")  # a number again: the message goes, the numbers come back
    expect(error).to_be_hidden()
    assert x3.get_attribute("aria-invalid") == "false"
    check(
        *result(page, "softmax", "rest"),
        oracle.softmax_state([1.0, 2.0, 3.0], 10.0)["rest"],
        "rest",
    )
    x1 = root.locator('input[data-x="0"]')
    x1.fill("")
    expect(error).to_be_visible()
    expect(error).to_contain_text("x1")
    assert x1.get_attribute("aria-invalid") == "true"
    assert "NaN" not in root.inner_text()
    assert not watch.problems(), watch.problems()


def test_masks(load) -> None:
    page, watch, root = load("masks", "masks")

    def mask_shown(n_q: int, n_k: int) -> np.ndarray:
        boxes = root.locator("input[data-cell]")
        grid = np.zeros((n_q, n_k), dtype=bool)
        for index in range(boxes.count()):
            box = boxes.nth(index)
            i, j = int(box.get_attribute("data-i")), int(box.get_attribute("data-j"))
            if i < n_q and j < n_k:
                assert box.is_visible()
                grid[i, j] = box.is_checked()
            else:
                assert not box.is_visible()
        return grid

    def agrees(n_q: int, n_k: int) -> np.ndarray:
        mask = mask_shown(n_q, n_k)
        state = oracle.masks_state(n_q, n_k, mask)
        compare(page, "masks", "scores", state["scores"])
        compare(page, "masks", "weights", state["weights"])
        compare(page, "masks", "output", state["output"])
        # each shown row's sum at its end: 1 once normalised, 0 with no key
        for i in range(n_q):
            total = root.locator(f'td[data-sum="{i}"]')
            expected = float(np.sum(state["weights"][i]))
            shown, full = total.inner_text(), total.get_attribute("data-value")
            check(shown, full, expected, f"sum {i}")
            assert abs(expected - mask[i].any()) < 1e-12
        return mask

    def renorm_agrees(i: int, n_q: int, n_k: int, mask) -> None:
        """Row i's weights with every key kept (hollow) and under M (filled,
        kept keys only), and the factor 1/share between them."""
        assert int(result(page, "masks", "renorm_row")[1]) == i + 1
        free = oracle.masks_state(n_q, n_k, np.ones((n_q, n_k), bool))["weights"][i]
        kept = oracle.masks_state(n_q, n_k, mask)["weights"][i]
        share = sum(a for a, m in zip(free, mask[i], strict=True) if m)
        check(*result(page, "masks", "renorm_factor"), 1 / share, "renorm_factor")
        for a, b, m in zip(free, kept, mask[i], strict=True):  # a / share = b
            assert abs((a / share if m else 0) - b) < 1e-12
        dots = Chart(svg(page, "masks", "renorm")).dots()
        assert [round(x + 0.15, 3) for x, _ in dots[0]] == list(range(1, n_k + 1))
        assert all(abs(y - a) < 2e-3 for (_, y), a in zip(dots[0], free, strict=True))
        shown = [(j + 1, b) for j, b in enumerate(kept) if mask[i][j]]
        assert len(dots[1]) == len(shown)
        for (x, y), (j, b) in zip(dots[1], shown, strict=True):
            assert abs(x - (j + 0.15)) < 5e-3 and abs(y - b) < 2e-3

    mask = agrees(3, 3)
    assert (mask == causal_mask(3, 3)).all()  # the default state
    # the length one short of n_k: the padding preset masks a key at once
    # (at 3 it gave "all True", r-s21 designer)
    assert root.locator("select[data-length]").input_value() == "2"
    renorm_agrees(1, 3, 3, mask)  # the last row a mask changes: query 2
    # Z in the figures' teal; pointing at z_3 marks row 3 of A and its sum
    # (and draws its weights before and after the mask)
    teal = root.locator('[data-matrix="output"] td[data-i="0"][data-j="0"]')
    assert teal.evaluate("e => getComputedStyle(e).backgroundColor") == (
        "rgb(217, 240, 238)"
    )
    root.locator('[data-matrix="output"] tr[data-i="2"] td').first.hover()
    marked = root.evaluate(
        """root => [...root.querySelectorAll(
            '[data-matrix="weights"] .explorable-linked')].map(e =>
            e.dataset.sum ?? e.dataset.j ?? 'th' + e.parentElement.dataset.i)"""
    )
    assert marked == ["th2", "0", "1", "2", "2"], marked  # the row, its sum
    renorm_agrees(2, 3, 3, mask)
    root.locator("select[data-nk]").select_option("2")  # the page's prediction
    mask = agrees(3, 2)
    assert (mask == causal_mask(3, 2)).all()
    assert not mask[0].any()  # bottom right: query 1 sees no key
    assert "1" in status(page, "masks")
    assert page.evaluate(READ_TABLE, ["masks", "weights"])[0][2] == "0.000"
    root.locator("select[data-nq]").select_option("2")
    root.locator("select[data-nk]").select_option("3")
    assert (agrees(2, 3) == causal_mask(2, 3)).all()
    box = root.locator('input[data-cell][data-i="1"][data-j="0"]')
    box.focus()
    page.keyboard.press("Space")  # toggled with the keyboard
    assert not box.is_checked()
    mask = agrees(2, 3)
    renorm_agrees(1, 2, 3, mask)  # the row toggled
    # the toggled row said, normalised again; M no longer the causal mask
    # but inside it (it forbids a cell more)
    weights = oracle.masks_state(2, 3, mask)["weights"][1]
    said = status(page, "masks")
    assert "クエリ 2" in said and ", ".join(oracle.fmt(a, 3) for a in weights) in said
    words = explorables.words_for("masks", "ja")
    assert said.endswith(words["causal_inside"]), said
    root.locator("select[data-length]").select_option("1")
    root.locator('button[data-preset="padding"]').click()
    mask = agrees(2, 3)
    assert (mask == padding_mask([1], 3)[0]).all()
    root.locator("select[data-length]").select_option("0")
    root.locator('button[data-preset="padding"]').click()
    assert not agrees(2, 3).any()  # every row fully masked: zeros, no NaN
    root.locator('button[data-preset="all"]').click()
    assert agrees(2, 3).all()
    root.locator("select[data-length]").select_option("2")
    root.locator('button[data-preset="padding"]').click()
    assert (agrees(2, 3) == padding_mask([2], 3)[0]).all()
    root.locator('button[data-preset="all"]').click()
    assert agrees(2, 3).all()
    # every key for both queries: one cell the causal mask forbids is allowed
    no = words["causal_no"].format(count=1)
    assert status(page, "masks").endswith(no), status(page, "masks")
    # The grid itself is the control: a click anywhere on a cell toggles it.
    root.locator('[data-matrix="weights"] td[data-i="1"][data-j="2"]').click()
    mask = agrees(2, 3)
    assert not mask[1, 2] and mask.sum() == 5
    root.locator('[data-matrix="weights"] td[data-i="1"][data-j="2"]').click()
    assert agrees(2, 3).all()
    assert not watch.problems(), watch.problems()


#: Each shown cell of the masks' grid: its indices, its weight, its
#: background (colour and image) as the browser computes it, and its
#: checkbox's size on the screen.
GRID = """root => [...root.querySelectorAll('[data-matrix="weights"] td[data-i]')]
    .filter(td => !td.hidden && !td.parentElement.hidden)
    .map(td => {
        const style = getComputedStyle(td);
        const box = td.querySelector("input").getBoundingClientRect();
        return {i: Number(td.dataset.i), j: Number(td.dataset.j),
                weight: Number(td.querySelector("[data-value]").dataset.value),
                colour: style.backgroundColor, image: style.backgroundImage,
                width: box.width, height: box.height};
    })"""


def luminance(colour: str) -> float:
    """WCAG's relative luminance of a computed colour, rgb() or color(srgb)."""
    if colour.startswith("color(srgb"):
        channels = [float(x) for x in colour[11:].split(")")[0].split()[:3]]
    else:
        channels = [float(x) / 255 for x in re.findall(r"[\d.]+", colour)[:3]]
    linear = [
        c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels
    ]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


#: Each result of a figure: the height of its value's text, and of a line.
RESULT_LINES = """root => [...root.querySelectorAll(".explorable-results dd")]
  .map(dd => {
    const style = getComputedStyle(dd);
    const range = document.createRange();
    range.selectNodeContents(dd);  // the text's own lines, not the grid row's
    const rects = [...range.getClientRects()].filter(r => r.width > 1);
    const top = Math.min(...rects.map(r => r.top));
    const bottom = Math.max(...rects.map(r => r.bottom));
    return [dd.textContent, bottom - top,
            parseFloat(style.lineHeight) || 1.2 * parseFloat(style.fontSize)];
})"""


def test_masks_results_keep_a_number_on_one_line(load) -> None:
    """On a phone the results' values keep their width (review F1: beside a
    long label, 1.824 was printed one character a line)."""
    page, watch, root = load("masks", "masks")
    for width in (390, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        results = root.evaluate(RESULT_LINES)
        assert results
        for text, height, line in results:
            assert height < 1.9 * line, (width, text, height, line)
    assert not watch.problems(), watch.problems()


def test_masks_grid_is_drawn_and_named(load) -> None:
    """One grid: A as a heat map whose colour deepens with the weight (in
    either scheme), masked cells hatched, each cell a named checkbox as
    large as the cell, rows and columns named in words, and the cell under
    the pointer marking its score and its output row."""
    page, watch, root = load("masks", "masks")
    for index in range(3):
        i, j = index + 1, 3 - index
        box = root.get_by_role("checkbox", name=f"クエリ {i} がキー {j} を参照してよい")
        assert box.get_attribute("data-i") == str(i - 1)
        assert box.get_attribute("data-j") == str(j - 1)
    rows = root.locator('[data-matrix="weights"] tbody th').all_inner_texts()
    columns = root.locator('[data-matrix="weights"] thead th[data-j]').all_inner_texts()
    assert rows == ["クエリ 1", "クエリ 2", "クエリ 3"]
    assert columns == ["キー 1", "キー 2", "キー 3"]
    assert "後ろ" in root.locator(".explorable-grid .explorable-axis").inner_text()

    cells = root.evaluate(GRID)
    masked = {
        (c["i"], c["j"]) for c in cells if "repeating-linear-gradient" in c["image"]
    }
    assert masked == {(0, 1), (0, 2), (1, 2)}  # the causal mask, hatched
    for c in cells:
        assert c["width"] >= 24 and c["height"] >= 24, c  # a target of >= 24 px

    for scheme, darker in (("default", True), ("slate", False)):
        page.evaluate(
            "s => document.body.setAttribute('data-md-color-scheme', s)", scheme
        )
        # The causal mask's weights: 1, 0.5, 0.5, 0.452, 0.274, 0.274, both
        # halves of the colour scale (it turns at 0.5).
        cells = [c for c in root.evaluate(GRID) if "gradient" not in c["image"]]
        cells.sort(key=lambda c: c["weight"])
        assert len(cells) == 6 and cells[0]["weight"] < 0.3 < 0.9 < cells[-1]["weight"]
        # A larger weight, a deeper colour: darker on the light page,
        # lighter on the dark one.
        for low, high in itertools.pairwise(cells):
            if high["weight"] - low["weight"] > 1e-3:
                step = luminance(high["colour"]) - luminance(low["colour"])
                assert (step < 0) if darker else (step > 0), (scheme, low, high)
    page.evaluate("() => document.body.setAttribute('data-md-color-scheme', 'default')")
    root.locator('button[data-preset="all"]').click()
    assert not any("gradient" in c["image"] for c in root.evaluate(GRID))

    cell = root.locator('[data-matrix="weights"] td[data-i="1"][data-j="2"]')
    cell.hover()
    linked = root.locator(".explorable-linked")
    # the query's whole row of scores (its softmax), s_ij in bold
    scores = '[data-matrix="scores"] td[data-i="1"].explorable-linked'
    assert root.locator(scores).count() == 3
    score = '[data-matrix="scores"] td[data-i="1"][data-j="2"].explorable-pointed'
    assert root.locator(score).count() == 1
    assert root.locator(".explorable-pointed").count() == 1
    output = '[data-matrix="output"] td[data-i="1"].explorable-linked'
    d_v = running_example()[3].shape[1]
    assert root.locator(output).count() == d_v
    # and A's row: its label, its three cells and its sum
    grid_row = '[data-matrix="weights"] tr[data-i="1"] > .explorable-linked'
    assert root.locator(grid_row).count() == 1 + 3 + 1
    assert root.locator('[data-sum="1"].explorable-linked').count() == 1
    assert linked.count() == 3 + d_v + 5
    root.locator("select[data-nq]").hover()
    assert linked.count() == 0
    pointer_on_the_header(page)
    root.get_by_role("checkbox", name="クエリ 3 がキー 1 を参照してよい").focus()
    score = '[data-matrix="scores"] td[data-i="2"][data-j="0"].explorable-pointed'
    assert root.locator(score).count() == 1
    # One Tab stop for the grid (r44: nine), moved through with the arrow
    # keys, Home and End; Space toggles the focused cell.
    assert root.locator('input[data-cell][tabindex="0"]').count() == 1
    focused = "() => ['i', 'j'].map(k => document.activeElement.dataset[k])"
    moves = (
        ("ArrowRight", ["2", "1"]),
        ("ArrowUp", ["1", "1"]),
        ("End", ["1", "2"]),
        ("Home", ["1", "0"]),
        ("ArrowDown", ["2", "0"]),
    )
    for key, where in moves:
        page.keyboard.press(key)
        assert page.evaluate(focused) == where, key
        assert root.locator('input[data-cell][tabindex="0"]').count() == 1
    page.keyboard.press("ArrowDown")  # the last row: the focus stays
    assert page.evaluate(focused) == ["2", "0"]
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Space")
    assert not root.locator('input[data-cell][data-i="2"][data-j="1"]').is_checked()
    # the grid shrinks under the Tab stop: the stop goes back to the first cell
    root.locator("select[data-nq]").select_option("2")
    stop = root.locator('input[data-cell][tabindex="0"]')
    assert stop.count() == 1 and stop.get_attribute("data-i") == "0"
    assert stop.get_attribute("data-j") == "0"
    assert not watch.problems(), watch.problems()


#: The cells of the running example's table `k` marked as what a pointed
#: entry of Q, K or V is made of: (i, j).
SOURCE = """k => [...document.querySelectorAll(
    `[data-matrix='${k}'] td.explorable-source`)]
    .map(td => [Number(td.dataset.i), Number(td.dataset.j)])"""


def test_running_example(load) -> None:
    page, watch, root = load("scaled-dot-product", "example")
    x = running_example()[0].copy()

    def agrees() -> dict:
        state = oracle.example_state(x)
        for key in ("q", "k", "v", "scores", "weights", "output"):
            compare(page, "example", key, state[key])
        return state

    agrees()  # the default state
    # W_Q, W_K, W_V shown (r45: Q = XW_Q was a black box); an entry of Q
    # pointed at marks row i of X and column j of W_Q
    _, w_q, w_k, w_v = running_example()
    for key, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v)):
        compare(page, "example", key, w)
    root.locator('[data-matrix="q"] td[data-i="1"][data-j="2"]').hover()
    assert page.evaluate(SOURCE, "x") == [[1, p] for p in range(4)]
    assert page.evaluate(SOURCE, "w_q") == [[p, 2] for p in range(4)]
    assert page.evaluate(SOURCE, "q") == [[1, 2]]
    pointer_on_the_header(page)
    assert root.locator(".explorable-source").count() == 0
    # A's colours are the weights themselves: a fixed 0-1 legend
    legend = root.locator("[data-a-range]")
    assert legend.locator(".explorable-ramp").count() == 1
    assert legend.inner_text().startswith("色は重み：0")
    for j, entry in enumerate([2, 0, 2, 0]):  # the page's prediction
        x[0, j] = entry
        root.locator(f'[data-matrix="x"] td[data-i="0"][data-j="{j}"] input').fill(
            str(entry)
        )
    state = agrees()
    assert page.evaluate(READ_TABLE, ["example", "weights"])[6][2] == "0.691"
    root.locator('[data-matrix="x"] td[data-i="2"][data-j="3"] input').fill("-0.5")
    x[2, 3] = -0.5
    state = agrees()
    button = root.locator('[data-matrix="output"] td[data-i="2"][data-j="1"] button')
    button.focus()
    page.keyboard.press("Enter")
    assert button.get_attribute("aria-pressed") == "true"
    marked = root.locator(".explorable-on")
    assert marked.count() == 9  # the scores and weights of row 3, V's column 2
    scores = root.locator('[data-matrix="scores"] td[data-i="2"].explorable-on')
    assert scores.count() == 3
    weights = root.locator('[data-matrix="weights"] td[data-i="2"].explorable-on')
    values = root.locator('[data-matrix="v"] td[data-j="1"].explorable-on')
    assert weights.count() == 3 and values.count() == 3
    said = status(page, "example")
    assert oracle.fmt(state["output"][2][1], 3) in said
    for p in range(3):
        assert oracle.fmt(state["weights"][2][p], 3) in said
    assert not watch.problems(), watch.problems()


#: Whether an input's value fits inside it: its text's width (in its own
#: font) against the box inside its padding.
FITS = """input => {
    const style = getComputedStyle(input);
    const context = document.createElement("canvas").getContext("2d");
    context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const inside = input.clientWidth - parseFloat(style.paddingLeft)
        - parseFloat(style.paddingRight);
    return [context.measureText(input.value).width, inside];
}"""


def test_running_example_inputs_fit_their_values(load) -> None:
    """X's entries show -1e308 whole, at a desktop's width and a phone's
    (review F6: 45 px wide, -1e308 showed as -1e), and the page does not
    scroll sideways on the phone."""
    page, watch, root = load("scaled-dot-product", "example")
    entry = root.locator('[data-matrix="x"] td[data-i="0"][data-j="0"] input')
    entry.fill("-1e308")
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        text, inside = entry.evaluate(FITS)
        assert text <= inside, (width, text, inside)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert not watch.problems(), watch.problems()


def test_running_example_refuses_what_it_cannot_compute(load) -> None:
    """A blank entry of X, or one past float64 ("1e309"), is refused at that
    entry (named, marked invalid, every matrix computed from X blank, W_Q,
    W_K and W_V kept: they do not depend on X), and so
    are entries so large that a score passes float64's largest number
    (x_11 = 1e200 and x_12 = 2e200 make q_1 . k_1 about 1e400: the larger is
    named); a number again brings the numbers back."""
    page, watch, root = load("scaled-dot-product", "example")
    error = root.locator("[data-error]")
    entry = root.locator('[data-matrix="x"] td[data-i="0"][data-j="1"] input')
    first = root.locator('[data-matrix="x"] td[data-i="0"][data-j="0"] input')
    name = entry.get_attribute("aria-label")
    assert error.is_hidden() and name
    for bad, says in (("", name), ("1e309", name), ("2e200", "1.8")):
        if bad == "2e200":
            first.fill("1e200")
        entry.fill(bad)
        expect(error).to_be_visible()
        expect(error).to_contain_text(name)
        expect(error).to_contain_text(says)
        assert entry.get_attribute("aria-invalid") == "true"
        assert entry.get_attribute("aria-describedby") == error.get_attribute("id")
        for key in ("q", "scores", "weights", "output"):
            cells = page.evaluate(READ_TABLE, ["example", key])
            assert {text for *_, text, _, _ in cells} == {"\u2014"}, (key, cells)
        for key, w in zip(("w_q", "w_k", "w_v"), running_example()[1:], strict=True):
            compare(page, "example", key, w)  # r-s21 designer: they blanked
        text = root.inner_text()
        assert "NaN" not in text and "Infinity" not in text
    x = running_example()[0]
    first.fill(str(x[0, 0]))
    entry.fill(str(x[0, 1]))
    expect(error).to_be_hidden()
    assert entry.get_attribute("aria-invalid") == "false"
    state = oracle.example_state(x)
    for key in ("q", "scores", "weights", "output"):
        compare(page, "example", key, state[key])
    for key, w in zip(("w_q", "w_k", "w_v"), running_example()[1:], strict=True):
        compare(page, "example", key, w)
    # x_11 = 10^4: s_21 = 5000 and s_31 = 5000 lie thousands above their
    # rows' other scores, whose weights are 0 in float64, said as the
    # softmax figure says it (r45)
    words = explorables.words_for("example", "ja")
    underflow = re.sub(r"</?sup>", "", words["underflow"])
    x = x.copy()
    x[0, 0] = 1e4
    first.fill("10000")
    state = oracle.example_state(x)
    zeros = 0
    for i, j, text, full, _ in page.evaluate(READ_TABLE, ["example", "weights"]):
        if state["weights"][i][j] == 0.0:
            zeros += 1
            assert (text, full) == (underflow, "0"), (i, j, text)
        else:
            check(text, full, state["weights"][i][j], f"weights[{i},{j}]")
    assert zeros > 0
    # x_11 = 10^100: the strip's value labels, "1.00 × 10²⁰⁰" wide, stay
    # whole inside it (r47)
    first.fill("1e100")
    strip = root.locator("[data-strip]")
    strip.scroll_into_view_if_needed()
    assert "× 10" in strip.inner_html()
    clipped = strip.evaluate(
        """svg => { const box = svg.getBoundingClientRect();
            return [...svg.querySelectorAll("text")]
                .map(t => t.getBoundingClientRect())
                .filter(r => r.left < box.left - 0.5 || r.right > box.right + 0.5)
                .length; }"""
    )
    assert clipped == 0
    assert not watch.problems(), watch.problems()


#: The marked cells of the running example: (outline colour, background).
MARKED = """root => [...root.querySelectorAll("td.explorable-on, td.explorable-linked")]
    .map(td => getComputedStyle(td))
    .map(style => [style.outlineColor, style.backgroundColor])"""

#: Count the rewrites of the figure's live region from now on.
COUNT_STATUS = """root => {
    window.statusWrites = 0;
    new MutationObserver(() => window.statusWrites += 1).observe(
        root.querySelector(".explorable-status"), {childList: true, subtree: true,
                                                   characterData: true});
}"""


def contrast(a: str, b: str) -> float:
    light, dark = sorted([luminance(a), luminance(b)], reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_running_example_is_named_and_linked(load) -> None:
    """The outputs named in words, a score's q row and k row lit with the
    products that make it, marks at >= 3:1 in either scheme, and one
    announcement, not one a keystroke, while the reader types."""
    page, watch, root = load("scaled-dot-product", "example")
    state = oracle.example_state(running_example()[0])
    z = np.asarray(state["output"])
    for i, j in np.ndindex(z.shape):
        value = oracle.fmt(z[i, j], 3)
        name = (
            f"z({i + 1}, {j + 1}) = {value}：トークン {i + 1} の出力の第 {j + 1} 成分"
        )
        assert root.get_by_role("button", name=name, exact=True).count() == 1, name

    def lit(i: int, j: int) -> None:
        for key, row in (("q", i), ("k", j)):
            cells = root.locator(f'[data-matrix="{key}"] td.explorable-linked')
            assert cells.count() == len(state[key][row]), key
            assert root.locator(
                f'[data-matrix="{key}"] td[data-i="{row}"].explorable-linked'
            ).count() == len(state[key][row]), key
        # s_ij and a_ij marked, the rest of their query's rows of S and A framed
        n = len(state["k"])
        for key in ("scores", "weights"):
            one = f'[data-matrix="{key}"] td[data-i="{i}"][data-j="{j}"]'
            assert root.locator(f"{one}.explorable-linked").count() == 1, key
            row = f'[data-matrix="{key}"] td[data-i="{i}"].explorable-row'
            assert root.locator(row).count() == n - 1, key
        assert root.locator(".explorable-row").count() == 2 * (n - 1)
        assert root.locator(".explorable-linked").count() == 2 + 2 * len(state["q"][i])
        strip_agrees(i, j)

    def strip_agrees(i: int, j: int) -> None:
        """The strip's bars and the terms: q_ip k_jp, s_ij, and a_ij."""
        terms = root.locator(".explorable-terms").inner_text()
        for p, q in enumerate(state["q"][i]):
            assert f"{oracle.fmt(q, 2)} × {oracle.fmt(state['k'][j][p], 2)}" in terms
            bar = root.locator(f'[data-strip] [data-product="{p}"]')
            check(
                bar.locator("text").first.text_content(),
                bar.get_attribute("data-value"),
                q * state["k"][j][p],
                f"q{i}{p} k{j}{p}",
            )
        bar = root.locator("[data-strip] [data-score-bar]")
        check(
            bar.locator("text").first.text_content(),
            bar.get_attribute("data-value"),
            state["scores"][i][j],
            "s",
        )
        shown = root.locator(".explorable-terms").evaluate(SHOWN_TEXT)
        first, second = shown.split(f"a{i + 1}{j + 1} =")
        assert first.strip().endswith(oracle.fmt(state["scores"][i][j], 3)), terms
        assert f"= {oracle.fmt(state['weights'][i][j], 3)}" in second, terms
        for s in state["scores"][i]:
            assert oracle.fmt(s, 3) in second, terms

    strip_agrees(0, 0)  # at first the strip shows s_11, and nothing is lit
    assert root.locator(".explorable-linked, .explorable-row").count() == 0
    root.locator('[data-matrix="scores"] td[data-i="0"][data-j="1"] button').hover()
    lit(0, 1)
    # A's entries are pointable too (r44): the same score, its weight marked
    root.locator('[data-matrix="weights"] td[data-i="2"][data-j="2"] button').hover()
    lit(2, 2)
    pointer_on_the_header(page)  # the strip keeps the last one pointed at
    assert root.locator(".explorable-linked, .explorable-row").count() == 0
    strip_agrees(2, 2)
    for i, j in np.ndindex(z.shape[0], z.shape[0]):  # A's entries named in words
        value = oracle.fmt(state["weights"][i][j], 3)
        name = f"a({i + 1}, {j + 1}) = {value}："
        name += f"クエリ {i + 1} がキー {j + 1} に置く重み"
        assert root.get_by_role("button", name=name, exact=True).count() == 1, name
    low, high = np.min(state["scores"]), np.max(state["scores"])
    low, high = oracle.fmt(low, 3), oracle.fmt(high, 3)
    assert root.locator("[data-s-range]").inner_text() == (
        f"色は最小 {low}（淡い）から最大 {high}（濃い。ダークモードでは明るい）まで"
    )
    root.locator('[data-matrix="scores"] td[data-i="0"][data-j="1"] button').hover()
    # Maths set as the text sets it (review F39): the pages' MathML, in the
    # book's maths font, √d_k one radical whose bar the browser draws with it.
    for where in ('[data-matrix="scores"] caption', ".explorable-terms"):
        maths = root.locator(f"{where} math.book-math msqrt")
        assert maths.count() == 1, where
        assert "STIX Two Math" in maths.evaluate("e => getComputedStyle(e).fontFamily")
        radical = maths.bounding_box()
        assert radical["width"] > 0 and radical["height"] > 0
    assert "undefined" not in root.locator(".explorable-terms").inner_text()
    assert root.locator('[data-matrix="q"] caption math.book-math msub').count() == 1
    pointer_on_the_header(page)
    root.locator('[data-matrix="scores"] td[data-i="2"][data-j="0"] button').focus()
    lit(2, 0)
    # Each grid is one Tab stop, moved through with the arrow keys, Home and
    # End (r37: twelve tab stops and no arrow keys); the focus lights up.
    page.keyboard.press("ArrowRight")
    lit(2, 1)
    page.keyboard.press("ArrowUp")
    lit(1, 1)
    page.keyboard.press("End")
    lit(1, len(state["k"]) - 1)
    page.keyboard.press("Home")
    lit(1, 0)
    # a phone: while a score is focused, the strip and the terms stay in view
    # at the screen's foot, however far below S they are (r47)
    detail = root.locator(".explorable-detail")
    page.set_viewport_size({"width": 390, "height": 844})
    root.locator('[data-matrix="scores"] td[data-i="0"][data-j="0"] button').focus()
    lit(0, 0)
    assert detail.evaluate("e => getComputedStyle(e).position") == "sticky"
    root.locator('[data-matrix="scores"]').scroll_into_view_if_needed()
    box = detail.bounding_box()
    assert box["y"] + box["height"] <= 844 + 1 and box["y"] < 844, box
    page.set_viewport_size({"width": 1280, "height": 900})
    for key in ("scores", "weights", "output"):
        stops = root.locator(f'[data-matrix="{key}"] button[tabindex="0"]')
        assert stops.count() == 1, key
    focused = (
        "() => Object.values(document.activeElement.closest('td').dataset).join('')"
    )
    root.locator('[data-matrix="output"] td[data-i="0"][data-j="0"] button').focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    assert page.evaluate(focused) == "11"
    page.keyboard.press("Enter")  # chooses z_22: its row of A and column of V
    pressed = root.locator('[data-matrix="output"] button[aria-pressed="true"]')
    assert pressed.count() == 1
    pressed.click()  # and chosen no more
    root.locator('[data-matrix="output"] td[data-i="2"][data-j="1"] button').click()
    for scheme in ("default", "slate"):
        page.evaluate(
            "s => document.body.setAttribute('data-md-color-scheme', s)", scheme
        )
        marked = root.evaluate(MARKED)
        assert len(marked) >= 6
        for outline, background in marked:
            assert contrast(outline, background) >= 3, (scheme, outline, background)
    page.evaluate("() => document.body.setAttribute('data-md-color-scheme', 'default')")

    entry = root.locator('[data-matrix="x"] td[data-i="0"][data-j="0"] input')
    entry.click()
    root.evaluate(COUNT_STATUS)
    entry.press("End")
    page.keyboard.type("234", delay=60)  # 1 -> 1234, three keystrokes
    page.wait_for_function("window.statusWrites > 0")
    page.wait_for_timeout(800)
    assert page.evaluate("window.statusWrites") <= 2  # not one a keystroke
    x = running_example()[0].copy()
    x[0, 0] = 1234
    compare(page, "example", "output", oracle.example_state(x)["output"])
    assert not watch.problems(), watch.problems()


def test_kv_cache(load) -> None:
    page, watch, root = load("kv-cache", "kv_cache")
    sizes = dict(explorables.KV_DEFAULT)

    def agrees(kind: str, b: int) -> int:
        state = oracle.kv_state(kind, sizes, b)
        for key, n in (("h_kv", "h_kv"), ("per_token", "per_token")):
            text, full = result(page, "kv_cache", key)
            assert int(full) == state[n], key
        text, full = result(page, "kv_cache", "total")
        assert int(full) == state["total"]
        assert text == oracle.grouped(state["total"])
        text, full = result(page, "kv_cache", "total_units")
        assert text == oracle.in_units(state["total"])
        return state["total"]

    assert agrees("mha", 2) == 9 * 2**30  # GPT-3 175B: 9 GiB
    root.locator("select[data-kind]").select_option("gqa")
    assert agrees("gqa", 2) == 768 * 2**20  # the page's prediction
    root.locator("select[data-kind]").select_option("mqa")
    assert agrees("mqa", 2) == 96 * 2**20
    # MQA uses neither g (hidden) nor h (one key and value head): disabled,
    # h saying why
    for key in ("groups", "heads"):
        assert root.locator(f'input[data-size="{key}"]').is_disabled()
    assert root.locator('input[data-size="groups"]').is_hidden()
    expect(root.locator('[data-why="heads"]')).to_contain_text("マルチクエリ")
    root.locator("select[data-kind]").select_option("gqa")
    for key, n in (("layers", 80), ("heads", 64), ("d_k", 128), ("tokens", 10**6)):
        root.locator(f'input[data-size="{key}"]').fill(str(n))
        sizes[key] = n
    root.locator('input[data-size="batch"]').fill("65536")
    sizes["batch"] = 65536
    root.locator("select[data-bytes]").select_option("4")
    assert agrees("gqa", 4) > 2**53  # exact beyond a double's integers
    root.locator('input[data-size="groups"]').fill("7")  # 7 does not divide 64
    assert result(page, "kv_cache", "total")[0] == "—"
    # g is the field the message asks to change (h = 64, g = 7): marked so
    assert (
        root.locator('input[data-size="groups"]').get_attribute("aria-invalid")
        == "true"
    )
    expect(root.locator("[data-error]")).to_contain_text("h = 64、g = 7")
    root.locator('input[data-size="groups"]').fill("16")
    sizes["groups"] = 16
    agrees("gqa", 4)
    before = agrees("gqa", 4)
    root.locator("button[data-step]").click()  # one more token: the cache grows
    sizes["tokens"] += 1
    after = agrees("gqa", 4)
    effect = root.locator("[data-step-effect]")
    assert int(effect.get_attribute("data-value")) == after - before
    assert oracle.grouped(after - before) in effect.inner_text()
    assert oracle.in_units(after - before) in effect.inner_text()
    assert oracle.grouped(after - before) in status(page, "kv_cache")
    assert root.locator('input[data-size="tokens"]').input_value() == str(10**6 + 1)
    # Mistral 7B: 32 layers, 8 KV heads of 128, window 4096, n = 32768: 0.5 GiB
    for key, n in (("layers", 32), ("groups", 8), ("d_k", 128), ("tokens", 32768)):
        root.locator(f'input[data-size="{key}"]').fill(str(n))
        sizes[key] = n
    root.locator('input[data-size="batch"]').fill("1")
    sizes["batch"] = 1
    root.locator("select[data-bytes]").select_option("2")
    root.locator("input[data-window]").fill("4096")
    state = oracle.kv_state("gqa", sizes, 2, window=4096)
    assert state["total"] == 2**29
    text, full = result(page, "kv_cache", "total")
    assert int(full) == state["total"] and text == oracle.grouped(state["total"])
    root.locator("button[data-step]").click()  # n > W: the oldest token goes
    sizes["tokens"] += 1
    assert oracle.kv_state("gqa", sizes, 2, window=4096)["total"] == 2**29
    assert int(result(page, "kv_cache", "total")[1]) == 2**29
    assert root.locator("[data-step-effect]").get_attribute("data-value") == "0"
    assert "32,769" in root.locator("[data-step-effect]").inner_text()
    assert not watch.problems(), watch.problems()


#: The kinds' comparison as drawn: each row's kind, bar width over its
#: cell's, size, ratio (value, text as shown) and whether it is current.
KV_COMPARE = """root => [...root.querySelectorAll("[data-compare] tr[data-kind]")]
  .map(tr => {
    const bar = tr.querySelector(".explorable-kv-bar").getBoundingClientRect();
    const cell = {width: 1};
    const ratio = tr.querySelector("[data-ratio]");
    const shown = ratio.querySelector(':scope > [aria-hidden="true"]') || ratio;
    return {kind: tr.dataset.kind, share: bar.width / cell.width,
            total: tr.querySelector("[data-size-of]").dataset.value,
            ratio: ratio.dataset.value, shown: shown.textContent,
            current: tr.getAttribute("aria-current") === "true"};
})"""


def test_kv_cache_compares_the_kinds_on_one_linear_scale(load) -> None:
    """Every kind's cache at n as a bar on one linear scale with its ratio to
    MHA's (issue 40: on the log chart GQA's 12 times less was a small
    offset between parallel lines); it follows the sizes and the kind."""
    _, watch, root = load("kv-cache", "kv_cache")
    sizes = dict(explorables.KV_DEFAULT)

    def agrees(current: str) -> list:
        rows = root.evaluate(KV_COMPARE)
        totals = {
            k: oracle.kv_state(k, sizes, 2)["total"] for k in explorables.KV_KINDS
        }
        largest = max(totals.values())
        assert [r["kind"] for r in rows] == list(explorables.KV_KINDS)
        longest = max(r["share"] for r in rows)  # the largest cache's bar, in px
        for r in rows:
            k = r["kind"]
            assert int(r["total"]) == totals[k], k
            assert float(r["ratio"]) == pytest.approx(
                totals["mha"] / totals[k], rel=1e-12
            )
            # the bar's length: its share of the largest, to a pixel or so
            assert r["share"] / longest == pytest.approx(
                totals[k] / largest, abs=0.01
            ), r
            assert r["current"] == (k == current), r
        return rows

    rows = agrees("mha")
    assert [r["shown"] for r in rows[1:3]] == ["1/12（h/g = 96/8）", "1/96（h = 96）"]
    root.locator("select[data-kind]").select_option("gqa")
    root.locator('input[data-size="groups"]').fill("4")
    sizes["groups"] = 4
    rows = agrees("gqa")
    assert rows[1]["shown"] == "1/24（h/g = 96/4）"
    root.locator('input[data-size="tokens"]').fill("100000")
    sizes["tokens"] = 100000
    agrees("gqa")  # n scales every kind alike: the ratios stay
    root.locator('input[data-size="groups"]').fill("7")  # 7 does not divide 96
    rows = root.evaluate(KV_COMPARE)
    assert all(r["total"] == "" and r["shown"] == "\u2014" for r in rows), rows
    assert not watch.problems(), watch.problems()


def kv_chart(page) -> Chart:
    return Chart(svg(page, "kv_cache", "size"), log_x=True, log_y=True)


def test_kv_cache_chart_refusals_and_units(load) -> None:
    """The chart follows n; TiB and m × 10^e TiB; an n beyond 2^53 − 1 is refused."""
    page, watch, root = load("kv-cache", "kv_cache")
    sizes = dict(explorables.KV_DEFAULT)
    tokens = root.locator('input[data-size="tokens"]')
    for n in (2048, 131072, 10**6, 3 * 10**7):
        tokens.fill(str(n))
        sizes["tokens"] = n
        chart = kv_chart(page)
        assert abs(chart.cursor() - math.log10(n)) < 1e-3, (n, chart.cursor())
        (points,) = chart.lines()[0]  # MHA's, the current kind
        assert points[-1][0] >= math.log10(n) - 1e-3
        for m in (1, 1000, n):  # drawn at n = m (to the drawing's 0.01 of a unit)
            log_n, log_b = min(points, key=lambda p: abs(p[0] - math.log10(m)))
            assert abs(log_n - math.log10(m)) < 1e-3, (m, log_n)
            expected = oracle.kv_state("mha", sizes | {"tokens": m}, 2)["total"]
            assert abs(log_b - math.log10(expected)) < 1e-3, m
        rules = chart.rules()  # the devices' memory, GB = 10^9 bytes as labelled
        assert sorted(at for at, _ in rules) == [
            oracle.device_bytes(gb) for _, gb in explorables.KV_DEVICES
        ]
        for at, drawn_at in rules:
            assert abs(drawn_at - math.log10(at)) < 1e-3
        total = oracle.kv_state("mha", sizes, 2)["total"]
        assert result(page, "kv_cache", "total_units")[0] == oracle.in_units(total)
    assert result(page, "kv_cache", "total_units")[0] == "128.75 TiB"
    # The unit by magnitude, as the chart's axis (review F28): n = 10^11 is
    # 419.10 PiB, not 429153.63 TiB.
    tokens.fill(str(10**11))
    total = oracle.kv_state("mha", sizes | {"tokens": 10**11}, 2)["total"]
    assert result(page, "kv_cache", "total_units")[0] == oracle.in_units(total)
    assert oracle.in_units(total) == "419.10 PiB"
    tokens.fill(str(3 * 10**7))
    root.locator('input[data-size="layers"]').fill(str(10**15))  # 10^15 layers
    sizes["layers"] = 10**15
    total = oracle.kv_state("mha", sizes, 2)["total"]
    text, full = result(page, "kv_cache", "total_units")
    assert int(full) == total and text == oracle.in_units(total)
    assert " × 10" in text and text.endswith(" EiB")
    error = root.locator("[data-error]")
    assert error.is_hidden()
    stale_chart = root.locator('svg[data-chart="size"]')
    assert stale_chart.get_attribute("data-stale") is None
    stale_lines = kv_chart(page).lines()
    assert stale_lines[0]
    tokens.fill("12345678901234567890")  # read as ...567168 by a double: refused
    expect(error).to_be_visible()
    expect(error).to_contain_text("9,007,199,254,740,991")
    assert tokens.get_attribute("aria-invalid") == "true"
    assert tokens.get_attribute("aria-describedby") == error.get_attribute("id")
    assert result(page, "kv_cache", "total")[0] == "\u2014"
    # The chart keeps its last valid state, dimmed (review F7: it was redrawn
    # with no lines on an axis of 1 GiB to 1 TiB and a stray line at n = 1).
    assert kv_chart(page).lines() == stale_lines
    assert stale_chart.get_attribute("data-stale") == ""
    assert float(stale_chart.evaluate("e => getComputedStyle(e).opacity")) < 0.5
    tokens.fill("0")  # n = 0, named where it was typed
    expect(error).to_contain_text("1")
    assert tokens.get_attribute("aria-describedby") == error.get_attribute("id")
    assert kv_chart(page).lines() == stale_lines
    tokens.fill(str(2**53 - 1))  # the largest accepted
    expect(error).to_be_hidden()
    assert stale_chart.get_attribute("data-stale") is None
    sizes["tokens"] = 2**53 - 1
    assert (
        int(result(page, "kv_cache", "total")[1])
        == oracle.kv_state("mha", sizes, 2)["total"]
    )
    root.locator("button[data-step]").click()  # 2^53 would be read rounded: refused
    assert tokens.input_value() == str(2**53 - 1)
    assert not watch.problems(), watch.problems()


def test_kv_cache_names_the_wrong_field_and_disables_the_unused(load) -> None:
    """The chart comes before the model's sizes; the sizes the chosen kind
    does not use are disabled, each saying so (r45), and a wrong one only
    keeps its kind's line undrawn; a refused value is named in the message
    (r37: "どの値も…" named none), marked invalid and described by it."""
    page, watch, root = load("kv-cache", "kv_cache")
    chart = root.locator('svg[data-chart="size"]').bounding_box()
    assert chart["y"] < root.locator('input[data-size="layers"]').bounding_box()["y"]
    kind = root.locator("select[data-kind]")
    assert kind.bounding_box()["y"] < chart["y"]  # the kind, then the chart
    unused = {
        "mha": {"groups", "latent", "rope"},
        "gqa": {"latent", "rope"},
        "mqa": {"heads", "groups", "latent", "rope"},
        "mla": {"heads", "groups", "d_k"},
    }
    for name, off in unused.items():
        kind.select_option(name)
        for key in ("layers", "heads", "groups", "d_k", "latent", "rope", "tokens"):
            field = root.locator(f'input[data-size="{key}"]')
            assert field.is_enabled() == (key not in off), (name, key)
            why = root.locator(f'[data-why="{key}"]')
            if why.count():  # a model's size: shown, and why it is not used
                assert field.is_visible() and why.is_visible() == (key in off)
            else:  # a kind's own size: shown only for its kind
                assert field.is_visible() == (key not in off), (name, key)
    kind.select_option("mha")
    groups = root.locator('input[data-size="groups"]')
    kind.select_option("gqa")
    error = root.locator("[data-error]")
    groups.fill("7")  # 96 heads in 7 groups
    expect(error).to_contain_text("h = 96、g = 7")
    assert groups.get_attribute("aria-invalid") == "true"
    assert groups.get_attribute("aria-describedby") == error.get_attribute("id")
    # under MHA, g = 7 is not used: nothing refused, GQA's line not drawn
    kind.select_option("mha")
    expect(error).to_be_hidden()
    lines = Chart(svg(page, "kv_cache", "size"), log_x=True, log_y=True).lines()
    assert [bool(lines[k][0]) if lines[k] else False for k in range(4)] == [
        True,
        False,
        True,
        True,
    ], lines
    kind.select_option("gqa")
    groups.fill("8")
    expect(error).to_be_hidden()
    d_k = root.locator('input[data-size="d_k"]')
    d_k.fill("0")
    expect(error).to_contain_text("は 1 以上の整数")
    # as shown: the label's own HTML, its words for a listener left out
    assert "ヘッドの幅 dk は 1 以上の整数" in error.evaluate(SHOWN_TEXT)
    assert d_k.get_attribute("aria-invalid") == "true"
    assert d_k.get_attribute("aria-describedby") == error.get_attribute("id")
    assert "ヘッドの幅 d 下付き k は 1 以上" in error.aria_snapshot()
    assert not watch.problems(), watch.problems()


def test_kv_cache_mla(load) -> None:
    """The DeepSeek-V3 preset: L (d_c + d_h^R) n s bytes, no key or value heads."""
    page, watch, root = load("kv-cache", "kv_cache")
    sizes = dict(explorables.KV_DEFAULT)
    preset = dict(explorables.KV_PRESETS["deepseek_v3"])
    root.locator('button[data-preset="deepseek_v3"]').click()
    assert root.locator("select[data-kind]").input_value() == preset.pop("kind")
    sizes.update(preset)

    no_heads = explorables.words_for("kv_cache", "ja")["h_kv_mla"]

    def agrees(b: int) -> int:
        state = oracle.kv_state("mla", sizes, b)
        assert result(page, "kv_cache", "h_kv")[0] == no_heads  # not the error's —
        text, full = result(page, "kv_cache", "per_token")
        assert int(full) == state["per_token"]
        text, full = result(page, "kv_cache", "total")
        assert int(full) == state["total"]
        assert text == oracle.grouped(state["total"])
        text, full = result(page, "kv_cache", "total_units")
        assert text == oracle.in_units(state["total"])
        return state["per_token"]

    assert agrees(2) == 61 * (512 + 64) * 2  # the page's 70,272 bytes a token
    # MLA's own sizes live; h, g and d_k, which it does not use, disabled
    for key in ("latent", "rope", "layers", "tokens"):
        assert root.locator(f'input[data-size="{key}"]').is_enabled(), key
    for key in ("heads", "groups", "d_k"):
        assert root.locator(f'input[data-size="{key}"]').is_disabled(), key
    root.locator('input[data-size="rope"]').fill("0")  # no RoPE key: allowed
    sizes["rope"] = 0
    agrees(2)
    root.locator('input[data-size="latent"]').fill("0")
    assert result(page, "kv_cache", "total")[0] == "\u2014"
    root.locator('input[data-size="latent"]').fill("1024")
    sizes["latent"] = 1024
    root.locator("select[data-bytes]").select_option("4")
    agrees(4)
    root.locator("select[data-kind]").select_option("mha")  # back to MHA
    state = oracle.kv_state("mha", sizes, 4)
    assert int(result(page, "kv_cache", "total")[1]) == state["total"]
    assert not watch.problems(), watch.problems()


def kv_lines_agree(page, sizes: dict, kind: str, b: int = 2) -> None:
    """Each kind's line at the current sizes (the current one drawn stronger),
    and each device's least n and its ring, as the package computes them."""
    chart = kv_chart(page)
    lines = chart.lines()
    for k, each in enumerate(explorables.KV_KINDS):
        (points,) = lines[k]
        for log_n, log_b in points[:: max(1, len(points) // 6)]:
            n = round(10**log_n)
            if abs(math.log10(n) - log_n) > 1e-3:
                continue  # only the whole n the chart samples
            expected = oracle.kv_state(each, sizes | {"tokens": n}, b)["total"]
            assert abs(log_b - math.log10(expected)) < 1e-3, (each, n)
    current = re.findall(r'data-line="(\d)"[^>]*?data-key="(\w+)"', chart.svg)
    strong = re.findall(r'explorable-line-current" data-line="(\d)"', chart.svg)
    assert strong == [str(explorables.KV_KINDS.index(kind))], (strong, current)
    for key, gb in explorables.KV_DEVICES:
        memory = oracle.device_bytes(gb)
        first = oracle.kv_fills(sizes, memory, kind, b)
        at = oracle.kv_state(kind, sizes | {"tokens": first}, b)["total"]
        before = oracle.kv_state(kind, sizes | {"tokens": first - 1}, b)["total"]
        assert at > memory >= before or first == 1
        fill = page.locator(
            f'.explorable[data-explorable="kv_cache"] [data-fill="{key}"]'
        )
        assert fill.get_attribute("data-value") == str(first)
        assert oracle.grouped(first) in fill.inner_text()
        if first <= chart.ticks["x"][-1][0]:  # ringed where the axis reaches
            assert f'data-mark="{first}"' in chart.svg
        else:
            assert f'data-mark="{first}"' not in chart.svg


def test_kv_cache_chart_is_dragged_and_picked(load) -> None:
    """The four kinds are drawn as lines at the current sizes; clicking a
    line's name picks its kind; pressing and dragging on the chart sets n
    (said once, after the drag); the least n that outgrows each device is
    written and ringed."""
    page, watch, root = load("kv-cache", "kv_cache")
    sizes = dict(explorables.KV_DEFAULT)
    kv_lines_agree(page, sizes, "mha")
    chart = root.locator('svg[data-chart="size"]')
    chart.scroll_into_view_if_needed()
    root.locator('svg[data-chart="size"] text[data-key="mqa"]').click()
    assert root.locator("select[data-kind]").input_value() == "mqa"
    assert int(result(page, "kv_cache", "total")[1]) == 96 * 2**20
    assert (
        root.locator('input[data-size="tokens"]').input_value() == "2048"
    )  # not a drag
    kv_lines_agree(page, sizes, "mqa")
    root.locator("select[data-kind]").select_option("gqa")  # the keyboard's way
    kv_lines_agree(page, sizes, "gqa")
    # the pointer: press at n = 10, drag to n = 100 000. The chart is
    # centred first: the picks above may have moved the page, and a point
    # outside the viewport hits nothing.
    chart.evaluate("el => el.scrollIntoView({block: 'center'})")
    box = chart.bounding_box()
    plot = kv_chart(page)

    def at(n: float) -> float:
        return chart_x(box, plot, n)

    tokens = root.locator('input[data-size="tokens"]')
    root.evaluate(COUNT_SAID)
    drag = TimedDrag(page)
    # A height where the press at n = 10 lands on the chart itself, not on
    # a name or a circle the reader picks (labels move as the fonts load).
    heights = [
        box["y"] + box["height"] * share
        for share in (0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5, 0.45, 0.4)
        if page.evaluate(
            """([x, y]) => {
                const hit = document.elementFromPoint(x, y);
                return !!hit && !!hit.closest('svg[data-chart="size"]')
                    && !hit.closest("[data-pick]");
            }""",
            [at(10), box["y"] + box["height"] * share],
        )
    ]
    assert heights, f"no free point of the chart at n = 10 (x = {at(10)}, box {box})"
    y = heights[0]
    drag.move(at(10), y)
    drag.down()
    assert abs(int(tokens.input_value()) - 10) <= 1
    for n in (100, 1000, 10**4, 10**5):
        drag.move(at(n), y)
    drag.up()
    n = int(tokens.input_value())
    assert abs(math.log10(n) - 5) < 0.01, n
    sizes["tokens"] = n
    assert (
        int(result(page, "kv_cache", "total")[1])
        == oracle.kv_state("gqa", sizes, 2)["total"]
    )
    assert abs(kv_chart(page).cursor() - math.log10(n)) < 1e-3
    page.wait_for_timeout(700)
    drag.said_once()
    assert f"n = {oracle.grouped(n)}" in status(page, "kv_cache")
    # a device's row, rule and ring are one: pointing at the row marks the
    # rule and ring, with a drop line to its n; pointing at the ring frames
    # the row; pressing the ring, or the row's n (the keyboard's way),
    # moves n there
    firsts = {
        key: oracle.kv_fills(sizes, oracle.device_bytes(gb), "gqa", 2)
        for key, gb in explorables.KV_DEVICES
    }
    rows = root.locator("[data-fills]")
    for key, first in firsts.items():
        rows.locator(f'dt[data-device="{key}"]').hover()
        drawn = kv_chart(page).svg
        assert re.search(rf'data-key="{key}" class="explorable-rule-current"', drawn)
        assert f'data-drop-label="{first}"' in drawn
        assert f">{oracle.grouped(first)}</text>" in drawn
        assert drawn.count("explorable-mark-current") == 1
    rtx, _ = explorables.KV_DEVICES[0]
    ring = root.locator(f'svg[data-chart="size"] [data-hit][data-key="{rtx}"]')
    ring.hover()
    linked = rows.locator(".explorable-linked")
    assert linked.count() == 2 and linked.first.get_attribute("data-device") == rtx
    ring.click()
    assert tokens.input_value() == str(firsts[rtx])
    sizes["tokens"] = firsts[rtx]
    assert (
        int(result(page, "kv_cache", "total")[1])
        == oracle.kv_state("gqa", sizes, 2)["total"]
    )
    last, _ = explorables.KV_DEVICES[-1]
    page.mouse.move(0, 0)
    rows.locator(f'[data-fill="{last}"] button').focus()
    assert f'data-drop-label="{firsts[last]}"' in kv_chart(page).svg
    page.keyboard.press("Enter")
    assert tokens.input_value() == str(firsts[last])
    assert abs(kv_chart(page).cursor() - math.log10(firsts[last])) < 1e-3
    sizes["tokens"] = firsts[last]
    # a window of 4096 keeps GQA's cache under every device: said, no ring
    root.locator("input[data-window]").fill("4096")
    for key, _ in explorables.KV_DEVICES:
        fill = root.locator(f'[data-fill="{key}"]')
        assert fill.get_attribute("data-value") == ""
        total = oracle.kv_state("gqa", sizes, 2, window=4096)["total"]
        assert oracle.in_units(total) in fill.inner_text()
    assert "data-mark" not in kv_chart(page).svg
    assert not watch.problems(), watch.problems()


def rope_agrees(page, root, m: int, n: int, d: int) -> float:
    """Every number, arrow and the chart of the RoPE figure at (m, n, d)."""
    state = oracle.rope_state(m, n, d)
    # one row a component j: (qR_m)_j, (kR_r)_j
    compare(page, "rope", "rotated", np.column_stack([state["q"], state["k"]]))
    compare(page, "rope", "pairs", state["pairs"])
    check(*result(page, "rope", "score"), state["score"], "rope/score")
    check(*result(page, "rope", "shift"), m - n, "rope/shift")
    most = max(explorables.ROPE_DIMS) // 2
    for i in range(most):  # one plane a pair, its arrows the rotated pair
        assert root.locator(f'[data-pair="{i}"]').is_visible() == (i < d // 2), (d, i)
        if i >= d // 2:
            continue
        for name in ("q", "k"):
            line = root.locator(f'[data-arrow="{name}{i}"]')
            x2 = float(line.get_attribute("x2"))
            y2 = float(line.get_attribute("y2"))
            assert abs(x2 - state[name][2 * i]) < 1e-4
            assert abs(y2 + state[name][2 * i + 1]) < 1e-4
    # Each shown plane at least 160 px, its two arrows named at their tips.
    for i in range(d // 2):
        box = root.locator(f'[data-pair="{i}"] svg').bounding_box()
        assert box["width"] >= 160 and box["height"] >= 160, (i, box)
        for name, letter in (("q", "\U0001d42a"), ("k", "\U0001d424")):
            label = root.locator(f'[data-name="{name}{i}"]')
            assert label.text_content() == letter
            tip = np.array([state[name][2 * i], -state[name][2 * i + 1]])
            at = np.array([float(label.get_attribute(a)) for a in ("x", "y")])
            assert np.allclose(
                at / np.linalg.norm(at), tip / np.linalg.norm(tip), atol=1e-3
            )
        turn = root.locator(f'[data-turn="{i}"]')
        assert turn.get_attribute("aria-valuenow") == str(m)
    # The chart: the package's score at every offset the sliders reach, on
    # stems from 0, the same at real offsets behind, the cursor at m - r;
    # the cursor's height on the curve is the score shown.
    oracle.rope_chart_agrees(Chart(svg(page, "rope", "score")), d, m - n)
    assert abs(oracle.rope_curve(d, [m - n])[0] - state["score"]) < 1e-9
    said = root.locator(".explorable-status")
    expect(said).to_contain_text(f"m − r = {oracle.fmt(m - n, 0)}")
    expect(said).to_contain_text(oracle.fmt(state["score"], 4))
    return state["score"]


def test_rope(load) -> None:
    page, watch, root = load("positional-encoding", "rope")
    m, n = root.locator("input[data-m]"), root.locator("input[data-n]")
    for control in (
        m,
        n,
        root.locator("select[data-d]"),
        root.locator("button[data-shift]"),
    ):
        box = control.bounding_box()
        assert box["height"] >= 24, box  # a target of at least 24 px
    # the figure opens at d = 16 (issue 40: d = 4 looked like noise), the
    # page's pair (3, 0), whose score the page says
    rope_agrees(page, root, 3, 0, 16)
    assert root.locator("select[data-d]").input_value() == "16"
    assert result(page, "rope", "score")[0] == "48.4938"
    root.locator("select[data-d]").select_option("4")
    first = rope_agrees(page, root, 3, 0, 4)  # the page's example's −0.76
    assert result(page, "rope", "score")[0] == "\u22120.7600"
    shift = root.locator("button[data-shift]")
    shift.focus()
    for _ in range(5):
        page.keyboard.press("Enter")
    # The same m − r, the same score, the cursor where it was.
    assert abs(rope_agrees(page, root, 8, 5, 4) - first) < 1e-12
    m.focus()
    page.keyboard.press("Home")  # m = 0
    n.focus()
    for _ in range(2):
        page.keyboard.press("ArrowLeft")  # r = 3
    assert result(page, "rope", "score")[0] == "0.9512"  # m − r = −3
    rope_agrees(page, root, 0, 3, 4)
    root.locator("select[data-d]").select_option("16")  # eight pairs
    rope_agrees(page, root, 0, 3, 16)
    root.locator("select[data-d]").select_option("8")
    at_three = rope_agrees(page, root, 0, 3, 8)
    for slider in (m, n):
        slider.focus()
        page.keyboard.press("End")  # both at the last position
    top = explorables.ROPE_MAX
    rope_agrees(page, root, top, top, 8)
    assert shift.is_disabled()  # no position beyond the sliders'
    # ... and says why beside it (review F8: disabled silently)
    why = root.locator("[data-shift-why]")
    expect(why).to_be_visible()
    expect(why).to_contain_text(str(top))
    assert shift.get_attribute("aria-describedby") == why.get_attribute("id")
    # the rotated vectors at d = 16 fit a phone: nothing cut at the edge
    root.locator("select[data-d]").select_option("16")
    for width in (390, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        box = root.locator('[data-matrix="rotated"]').evaluate(
            "t => [t.getBoundingClientRect().right, "
            "t.closest('.explorable').getBoundingClientRect().right]"
        )
        assert box[0] <= box[1] + 0.5, (width, box)
    root.locator("select[data-d]").select_option("8")
    n.focus()
    for _ in range(3):
        page.keyboard.press("ArrowLeft")
    shifted = rope_agrees(page, root, top, top - 3, 8)
    assert abs(shifted - oracle.rope_state(3, 0, 8)["score"]) < 1e-9
    assert abs(at_three - oracle.rope_state(3, 6, 8)["score"]) < 1e-9
    assert not watch.problems(), watch.problems()


def test_rope_query_arrow_turns_m(load) -> None:
    """Dragging pair 0's query arrow around its plane (θ_0 = 1 rad) moves m
    by the turn over θ_0, said once after the drag; the arrow keys on the
    plane step m, each said at once (review F24)."""
    page, watch, root = load("positional-encoding", "rope")
    slider = root.locator("input[data-m]")
    plane = root.locator('[data-turn="0"]')
    plane.scroll_into_view_if_needed()
    box = root.locator('[data-pair="0"] svg').bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    radius = 0.35 * box["width"]
    state = oracle.rope_state(3, 0, 16)
    start = math.atan2(state["q"][1], state["q"][0])  # the query's direction at m = 3
    root.evaluate(COUNT_SAID)
    drag = TimedDrag(page)

    def at(a: float) -> tuple[float, float]:
        return cx + radius * math.cos(a), cy - radius * math.sin(a)

    drag.move(*at(start))
    drag.down()
    for k in range(1, 9):  # a quarter turn at a time: +2 rad in all
        drag.move(*at(start + 0.25 * k))
    drag.up()
    assert slider.input_value() == "5"
    rope_agrees(page, root, 5, 0, 16)
    page.wait_for_timeout(700)
    drag.said_once()
    for i in range(2):
        assert root.locator(f'[data-turn="{i}"]').get_attribute("aria-valuenow") == "5"
    assert page.evaluate("document.activeElement.dataset.turn") == "0"
    page.evaluate("window.__said = 0")  # the same observer counts on
    page.keyboard.press("ArrowLeft")
    assert slider.input_value() == "4"
    assert page.evaluate("window.__said") == 1  # at once
    assert "m = 4" in status(page, "rope")
    page.keyboard.press("End")
    rope_agrees(page, root, explorables.ROPE_MAX, 0, 16)
    # the arrow keys turn the plane and never scroll the page; a touch on
    # the plane turns it too (no page scroll takes it over)
    top = page.evaluate("window.scrollY")
    for key in ("ArrowDown", "ArrowDown", "ArrowUp", "PageDown"):
        page.keyboard.press(key)
    assert page.evaluate("window.scrollY") == top
    assert plane.evaluate("e => getComputedStyle(e).touchAction") == "none"
    # the focused plane, its row of the pairs' table and its components
    # 0 and 1 of qR_m and kR_r are framed together; pointing at a row
    # frames its plane
    linked = """root => [
        [...root.querySelectorAll('.explorable-plane.explorable-linked')]
            .map(e => e.dataset.pair),
        [...root.querySelectorAll('[data-matrix="pairs"] tr.explorable-linked')]
            .map(e => e.dataset.i),
        [...root.querySelectorAll('[data-matrix="rotated"] td.explorable-linked')]
            .map(e => e.dataset.i + ',' + e.dataset.j)]"""
    assert root.evaluate(linked) == [["0"], ["0"], ["0,0", "0,1", "1,0", "1,1"]]
    root.locator('[data-matrix="pairs"] tr[data-i="1"] td').first.hover()
    assert root.evaluate(linked) == [["1"], ["1"], ["2,0", "2,1", "3,0", "3,1"]]
    root.locator('[data-pair="1"] svg').hover()
    assert root.evaluate(linked)[1] == ["1"]
    assert not watch.problems(), watch.problems()


def test_rope_key_arrow_turns_r(load) -> None:
    """Dragging pair 0's key arrow (θ_0 = 1 rad) moves r by the turn over
    θ_0 and leaves m; said once after the drag."""
    page, watch, root = load("positional-encoding", "rope")
    m, r = root.locator("input[data-m]"), root.locator("input[data-n]")
    root.locator('[data-turn="0"]').scroll_into_view_if_needed()
    box = root.locator('[data-pair="0"] svg').bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    radius = 0.35 * box["width"]
    m0, r0 = int(m.input_value()), int(r.input_value())
    state = oracle.rope_state(m0, r0, 16)
    start = math.atan2(state["k"][1], state["k"][0])  # the key's direction
    root.evaluate(COUNT_SAID)
    drag = TimedDrag(page)

    def at(a: float) -> tuple[float, float]:
        return cx + radius * math.cos(a), cy - radius * math.sin(a)

    drag.move(*at(start))
    drag.down()
    for k in range(1, 9):  # +2 rad in all
        drag.move(*at(start + 0.25 * k))
    drag.up()
    assert r.input_value() == str(r0 + 2) and m.input_value() == str(m0)
    rope_agrees(page, root, m0, r0 + 2, 16)
    page.wait_for_timeout(700)
    drag.said_once()
    assert not watch.problems(), watch.problems()


def test_rope_drag_is_announced_once(load) -> None:
    """Dragging m moves the cursor and the numbers at once; the live region
    speaks once, after the drag."""
    page, watch, root = load("positional-encoding", "rope")
    slider = root.locator("input[data-m]")
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    root.evaluate(COUNT_SAID)
    drag = TimedDrag(page)
    y = box["y"] + box["height"] / 2
    drag.move(box["x"] + 0.1 * box["width"], y)
    drag.down()
    seen = set()
    for step in range(1, 21):
        drag.move(box["x"] + (0.1 + 0.04 * step) * box["width"], y)
        seen.add(slider.input_value())
    drag.up()
    assert len(seen) >= 10, seen
    chosen = int(slider.input_value())
    state = oracle.rope_state(chosen, 0, explorables.ROPE_D)
    check(*result(page, "rope", "score"), state["score"], "rope/score")
    chart = Chart(svg(page, "rope", "score"))
    assert abs(chart.cursor() - chosen) < 5e-3
    page.wait_for_timeout(700)
    drag.said_once()
    assert oracle.fmt(state["score"], 4) in status(page, "rope")
    assert not watch.problems(), watch.problems()


def test_rope_chart_dragged_sets_m_minus_r(load) -> None:
    """Pressing and dragging on the score chart sets m - r there: m moves and
    r stays, unless m alone cannot reach the offset; said once."""
    page, watch, root = load("positional-encoding", "rope")
    m, r = root.locator("input[data-m]"), root.locator("input[data-n]")
    chart = root.locator('svg[data-chart="score"]')
    chart.scroll_into_view_if_needed()
    box = chart.bounding_box()
    plot = Chart(svg(page, "rope", "score"))

    def at(v: float) -> float:
        return chart_x(box, plot, v)

    root.evaluate(COUNT_SAID)
    drag = TimedDrag(page)
    y = box["y"] + box["height"] / 2
    r0 = int(r.input_value())
    drag.move(at(2), y)
    drag.down()
    for v in (4, 7, 9):
        drag.move(at(v), y)
    drag.up()
    assert int(m.input_value()) - int(r.input_value()) == 9
    assert int(r.input_value()) == r0  # r stays
    rope_agrees(page, root, int(m.input_value()), r0, 16)
    page.wait_for_timeout(700)
    drag.said_once()
    # a negative offset m alone cannot reach from r = 0: r moves too
    drag.move(at(-5), y)
    drag.down()
    drag.up()
    pm, pr = int(m.input_value()), int(r.input_value())
    assert pm - pr == -5, (pm, pr)
    rope_agrees(page, root, pm, pr, 16)
    assert not watch.problems(), watch.problems()


def online_chart_agrees(page, s: list[float], block: int, keys: int | None) -> None:
    """The three panels as the package computes them (the scores and m, l
    with its drops by e^(m - m') and their factors, o / l against
    softmax(s) V; review F25, issue 40), each with its cursor at ``keys``."""
    svgs = {key: svg(page, "online", key) for key in ("scores", "sum", "output")}
    oracle.online_panels_agree(svgs, s, block, keys)


#: The page's point of the online panel `key` at (t, value) in its viewBox
#: coordinates from the chart's ticks: [x, y] in CSS pixels of the viewport.
PANEL_POINT = """([key, t, v]) => {
    const svg = document.querySelector(
        `.explorable[data-explorable="online"] svg[data-chart="${key}"]`);
    const at = (axis, value) => {
        const ticks = [...svg.querySelectorAll(`g[data-tick="${axis}"]`)];
        const [a, b] = [ticks[0], ticks[ticks.length - 1]];
        const place = (g) => Number(
            g.querySelector("line").getAttribute(axis === "x" ? "x1" : "y1"));
        const [va, vb] = [Number(a.dataset.at), Number(b.dataset.at)];
        return place(a) + (value - va) * (place(b) - place(a)) / (vb - va);
    };
    const point = svg.createSVGPoint();
    [point.x, point.y] = [at("x", t), at("y", v)];
    const screen = point.matrixTransform(svg.getScreenCTM());
    return [screen.x, screen.y];
}"""


#: The online figure's layout: where its tables start against the panels'
#: foot, the values' caption's height, every number cell's height, and a line.
ONLINE_LAYOUT = """root => {
    const box = e => e.getBoundingClientRect();
    const caption = root.querySelector('[data-matrix="values"] caption');
    return {
        panels_bottom: box(root.querySelector(".explorable-panels")).bottom,
        tables_top: box(root.querySelector(".explorable-online-tables")).top,
        caption: box(caption).height,
        line: parseFloat(getComputedStyle(caption).lineHeight)
            || 1.2 * parseFloat(getComputedStyle(caption).fontSize),
        cells: [...root.querySelectorAll('.explorable-online-tables td[data-i]')]
            .filter(td => !td.hidden).map(td => box(td).height),
    };
}"""

#: The dash of each line and each rule of the o/l panel, as computed.
ONLINE_DASHES = """root => {
    const svg = root.querySelector('svg[data-chart="output"]');
    const dash = e => getComputedStyle(e).strokeDasharray;
    return {
        lines: [...svg.querySelectorAll("path.explorable-line")].map(dash),
        rules: [...svg.querySelectorAll(".explorable-rule")].map(dash),
    };
}"""


def test_online_softmax(load) -> None:
    page, watch, root = load("efficient-attention", "online")
    s = list(explorables.ONLINE_S)

    def agrees(block: int) -> dict:
        state = oracle.online_state(s, block)
        compare(page, "online", "steps", state["steps"])
        compare(page, "online", "plain", [state["plain"]])
        # The last step's o / l is the package's blockwise result and the plain one.
        last = np.asarray(state["steps"][-1][4:])
        assert np.allclose(last, state["blockwise"], rtol=1e-12, atol=1e-15)
        assert np.allclose(last, state["plain"], rtol=1e-12, atol=1e-15)
        return state

    state = agrees(1)  # the default state: one key at a time
    compare(page, "online", "values", explorables.ONLINE_V)  # V is shown (F18)
    # Review F10: the tables under the panels at 1280 px, the values'
    # caption on at most two lines, no number wrapped in its cell; one kind
    # of dashed line in the o/l panel (softmax(s)V's rules), as its title
    # says; the l panel's title a name and a parenthesis, as the others.
    page.set_viewport_size({"width": 1280, "height": 900})
    for j, value in ((0, "-100"), (3, "100")):  # o_1 = e^-103 = 1.9 × 10^-45
        root.locator(f'input[data-s="{j}"]').fill(value)
    layout = root.evaluate(ONLINE_LAYOUT)
    assert layout["tables_top"] >= layout["panels_bottom"] - 1, layout
    assert layout["caption"] <= 2.2 * layout["line"], layout
    assert all(h < 1.9 * layout["line"] for h in layout["cells"]), layout
    for j, value in enumerate(s):
        root.locator(f'input[data-s="{j}"]').fill(str(value))
    dashes = root.evaluate(ONLINE_DASHES)
    assert dashes["rules"] and all(d != "none" for d in dashes["rules"]), dashes
    assert dashes["lines"] and all(d == "none" for d in dashes["lines"]), dashes
    words = explorables.words_for("online", "ja")
    assert words["chart_sum"].startswith("ℓ（") and words["chart_sum"].endswith("）")
    assert "（実線）" in words["chart_output"] and "（破線）" in words["chart_output"]
    page.set_viewport_size({"width": 390, "height": 900})
    online_chart_agrees(page, s, 1, None)
    # s = (1, 3, 0.5, 4): m rises at keys 2 and 4, and l drops there first
    (ls,) = Chart(svg(page, "online", "sum")).lines()[0]
    drops = [(a, b) for a, b in itertools.pairwise(ls) if b[1] < a[1] - 1e-9]
    assert [round(a[0] + oracle.ONLINE_DROP) for a, _ in drops] == [2, 4], drops
    # at the t of the block, a whole number of keys (issue 40: at 1.75 and
    # 3.75), the turn marked by a triangle drawn in the reader's browser
    assert all(a[0] == b[0] == round(a[0]) for a, b in drops), drops
    dips = root.locator('svg[data-chart="sum"] path[data-dip]')
    assert dips.count() == 2
    assert [d.bounding_box()["height"] > 4 for d in dips.all()] == [True, True]
    button = root.locator("button[data-next]")
    button.focus()
    for step in range(1, 4):
        page.keyboard.press("Enter")
        assert oracle.fmt(state["steps"][step - 1][1], 4) in status(page, "online")
        online_chart_agrees(page, s, 1, step)  # the cursor at key `step`
        assert button.is_enabled()
    # a step's row of the table pointed at rings its l and o / l (r45)
    root.locator('[data-matrix="steps"] tbody tr[data-i="1"] td').first.hover()
    mark = r'data-mark="([\d.]+)" cx="[-\d.]+" cy="([-\d.]+)"'
    for key, values in (("sum", [1]), ("output", [4, 5])):
        drawn = Chart(svg(page, "online", key))
        rings = re.findall(mark, drawn.svg)
        assert [float(x) for x, _ in rings] == [2.0] * len(values), rings
        for (_, y), c in zip(rings, values, strict=True):
            expected = state["steps"][1][c]
            assert abs(drawn.value("y", float(y)) - expected) < 1e-2, (key, y, c)
    pointer_on_the_header(page)
    assert "data-mark" not in svg(page, "online", "sum")
    # the same by keyboard (a step's t is a button, one Tab stop, the arrows
    # move), and back from the panels: key t pointed at marks its row (r47)
    linked = root.locator('[data-matrix="steps"] tr.explorable-linked')

    def ringed() -> list[float]:
        return [float(x) for x, _ in re.findall(mark, svg(page, "online", "sum"))]

    steps_button = root.locator('[data-matrix="steps"] button[data-step="0"]')
    assert steps_button.get_attribute("tabindex") == "0"
    steps_button.focus()
    assert linked.get_attribute("data-i") == "0" and ringed() == [1.0]
    page.keyboard.press("ArrowDown")
    assert linked.get_attribute("data-i") == "1" and ringed() == [2.0]
    page.evaluate("document.activeElement.blur()")
    assert linked.count() == 0 and ringed() == []
    root.locator('svg[data-chart="scores"]').scroll_into_view_if_needed()
    page.mouse.move(*page.evaluate(PANEL_POINT, ["scores", 3, 0]))
    assert linked.get_attribute("data-i") == "2" and ringed() == [3.0]
    pointer_on_the_header(page)
    assert linked.count() == 0 and ringed() == []
    button.focus()
    page.keyboard.press("Enter")  # the last key
    said = status(page, "online")  # the page's prediction: (1.4366, 0.2749)
    assert "(1.4366, 0.2749)" in said and "softmax(s)V" in said
    # no block is left: "next" is disabled, its focus on "start again"
    assert button.is_disabled()
    assert page.evaluate("document.activeElement.hasAttribute('data-restart')")
    page.keyboard.press("Enter")
    assert button.is_enabled()
    root.locator("select[data-block]").select_option("2")
    agrees(2)  # two blocks: the last two rows hidden
    online_chart_agrees(page, s, 2, None)
    root.locator('input[data-s="3"]').fill("0")
    s[3] = 0.0
    agrees(2)
    online_chart_agrees(page, s, 2, None)
    root.locator("select[data-block]").select_option("4")
    state = agrees(4)
    online_chart_agrees(page, s, 4, None)
    root.locator("button[data-next]").click()
    online_chart_agrees(page, s, 4, 4)
    assert button.is_disabled()
    # a new score keeps the blocks processed, with the new numbers
    root.locator('input[data-s="0"]').fill("-2.5")
    s[0] = -2.5
    agrees(4)
    online_chart_agrees(page, s, 4, 4)
    assert button.is_disabled()
    assert not watch.problems(), watch.problems()


def test_online_softmax_is_acted_on_in_its_panels(load) -> None:
    """Dragging a score's bar sets that score (its field too, to the fields'
    step), the panels and tables follow, and the result is said once when
    the drag ends; pressing the l or o/l panel at t processes the keys up to
    t, as "next block" would."""
    page, watch, root = load("efficient-attention", "online")
    s = list(explorables.ONLINE_S)
    root.scroll_into_view_if_needed()
    panels = root.locator('svg[data-chart="scores"]')
    panels.scroll_into_view_if_needed()
    page.evaluate(COUNT_SAID, root.element_handle())
    drag = TimedDrag(page)
    # key 2's bar (s_2 = 3) dragged down to 0.5, then up past key 4's 4 to 4.5
    drag.move(*page.evaluate(PANEL_POINT, ["scores", 2, 3]))
    drag.down()
    for v in (2.0, 1.0, 0.5):
        drag.move(*page.evaluate(PANEL_POINT, ["scores", 2, v]), steps=3)
    s[1] = 0.5
    assert root.locator('input[data-s="1"]').input_value() == "0.5"
    online_chart_agrees(page, s, 1, None)
    state = oracle.online_state(s, 1)
    compare(page, "online", "steps", state["steps"])
    compare(page, "online", "plain", [state["plain"]])
    # m no longer rises at key 2: l drops only at key 4
    assert [x for x, _ in Chart(svg(page, "online", "sum")).notes()] == [
        4 - oracle.ONLINE_DROP
    ]
    drag.move(*page.evaluate(PANEL_POINT, ["scores", 2.4, 4.5]), steps=3)
    drag.up()
    s[1] = 4.5
    online_chart_agrees(page, s, 1, None)
    page.wait_for_timeout(700)
    drag.said_once()  # once, when the drag ends
    said = status(page, "online")
    plain = oracle.online_state(s, 1)["plain"]
    assert "4.5" in said and oracle.fmt(plain[0], 4) in said, said
    # pressing the l panel at t = 3 processes keys 1 to 3
    page.mouse.click(*page.evaluate(PANEL_POINT, ["sum", 3, 0.5]))
    online_chart_agrees(page, s, 1, 3)
    rows = root.locator('[data-matrix="steps"] tbody tr')
    assert "explorable-on" in (rows.nth(2).get_attribute("class") or "")
    assert "explorable-later" in (rows.nth(3).get_attribute("class") or "")
    # the steps not reached yet are blank in the browser
    assert (
        rows.nth(3)
        .locator("td")
        .first.evaluate("td => getComputedStyle(td).visibility")
        == "hidden"
    )
    # ... each of their cells a muted "—", not an empty grid (r47)
    dash = (
        rows.nth(3)
        .locator("td")
        .first.evaluate(
            """td => { const after = getComputedStyle(td, "::after");
            return [after.content, after.visibility]; }"""
        )
    )
    assert dash == ['"—"', "visible"], dash
    assert rows.nth(2).locator("td").first.is_visible()
    # the o/l panel at t = 4 (blocks of 2: the second block)
    root.locator("select[data-block]").select_option("2")
    page.mouse.click(*page.evaluate(PANEL_POINT, ["output", 3.8, 1]))
    online_chart_agrees(page, s, 2, 4)
    assert root.locator("button[data-next]").is_disabled()
    # and at t = 0: nothing processed
    page.mouse.click(*page.evaluate(PANEL_POINT, ["output", 0, 1]))
    online_chart_agrees(page, s, 2, None)
    assert root.locator("button[data-next]").is_enabled()
    assert not watch.problems(), watch.problems()


def test_online_softmax_refuses_what_it_cannot_compute(load) -> None:
    """A blank score, or one past float64 ("1e309"), is refused at that
    input: named, marked invalid, the tables blank, "next" disabled; a number
    again brings the numbers back."""
    page, watch, root = load("efficient-attention", "online")
    error = root.locator("[data-error]")
    s2 = root.locator('input[data-s="1"]')
    assert error.is_hidden()
    for bad in ("", "1e309"):
        s2.fill(bad)
        expect(error).to_be_visible()
        expect(error).to_contain_text("s2")
        assert s2.get_attribute("aria-invalid") == "true"
        assert s2.get_attribute("aria-describedby") == error.get_attribute("id")
        cells = page.evaluate(READ_TABLE, ["online", "plain"])
        assert {text for *_, text, _, _ in cells} == {"\u2014"}, cells
        assert "NaN" not in root.inner_text() and "Infinity" not in root.inner_text()
        assert root.locator("button[data-next]").is_disabled()
        expect(root.locator(".explorable-status")).to_contain_text("s2")
    s2.fill(str(explorables.ONLINE_S[1]))
    expect(error).to_be_hidden()
    assert s2.get_attribute("aria-invalid") == "false"
    state = oracle.online_state(list(explorables.ONLINE_S), 1)
    compare(page, "online", "plain", [state["plain"]])
    assert root.locator("button[data-next]").is_enabled()
    # s_2 = 1000: the rescale factor e^(1 - 1000) underflows; its note says
    # so as the softmax figure does, never "×0.000" (r47), and stays inside
    s2.fill("1000")
    s = list(explorables.ONLINE_S)
    s[1] = 1000.0
    compare(page, "online", "plain", [oracle.online_state(s, 1)["plain"]])
    words = explorables.words_for("online", "ja")
    assert Chart(svg(page, "online", "sum")).notes() == [
        (2 - oracle.ONLINE_DROP, f"{words['rescale']} ×{words['underflow']}")
    ]
    assert "×0.000" not in svg(page, "online", "sum")
    inside = root.locator('svg[data-chart="sum"]').evaluate(
        """svg => [...svg.querySelectorAll("[data-note]")].every(t => {
            const [a, b] = [t.getBoundingClientRect(), svg.getBoundingClientRect()];
            return a.left >= b.left - 1 && a.right <= b.right + 1; })"""
    )
    assert inside
    assert not watch.problems(), watch.problems()


def test_heads(load) -> None:
    page, watch, root = load("multi-head", "heads")
    inputs = "preset"

    def agrees(h: int, w_o: str, off: tuple[int, ...] = ()) -> dict:
        state = oracle.heads_state(h, w_o, off, inputs=inputs)
        compare(page, "heads", "w_o", state["w_o"])
        compare(page, "heads", "single", state["single"])
        compare(page, "heads", "q", state["q"])
        compare(page, "heads", "k", state["k"])
        compare(page, "heads", "v", state["v"])
        for i in range(max(explorables.HEAD_COUNTS)):
            tables = root.locator(
                f'[data-matrix="weights{i}"], [data-matrix="term{i}"]'
            )
            assert tables.nth(0).is_visible() == (i < h)
            assert tables.nth(1).is_visible() == (i < h)
            if i < h:
                compare(page, "heads", f"weights{i}", state["weights"][i])
                compare(page, "heads", f"term{i}", state["terms"][i])
        compare(page, "heads", "concat", state["concat"])
        compare(page, "heads", "output", state["output"])
        # Concat(head_1, ..., head_h) W^O = sum_i head_i W^O_i
        assert np.allclose(np.sum(state["terms"], axis=0), state["output"], atol=1e-12)
        heads_of = page.evaluate(
            """() => [...document.querySelectorAll(
                '[data-matrix="q"] tr[data-i="0"] td')].map(td => td.dataset.head)"""
        )
        assert heads_of == [str(j // (4 // h)) for j in range(4)]
        return state

    agrees(2, "mixing")  # the default state: two heads that look apart
    for h in ("4", "1", "2"):
        root.locator("select[data-h]").select_option(h)
        agrees(int(h), "mixing")
    inputs = "example"  # the running example, the page's two heads
    root.locator("select[data-input]").select_option(inputs)
    agrees(2, "mixing")
    # Rows named by what they are (review F26): Q's rows the queries q_i, the
    # output's rows z_i, Concat's and each term's rows their query in words.
    words = explorables.words_for("heads", "ja")
    queries = [words["query"].format(i=i) for i in (1, 2, 3)]
    for key, names in (
        ("q", ["q1", "q2", "q3"]),
        ("concat", queries),
        ("term0", queries),
        ("output", ["z1", "z2", "z3"]),
    ):
        shown = root.locator(f'[data-matrix="{key}"] tbody th').all_inner_texts()
        assert [t.strip() for t in shown] == names, (key, shown)
    root.locator("select[data-h]").select_option("1")  # the page's prediction
    state = agrees(1, "mixing")
    assert [oracle.fmt(a, 3) for a in state["weights"][0][0]] == [
        "0.274",
        "0.452",
        "0.274",
    ]
    root.locator("select[data-h]").select_option("4")
    agrees(4, "mixing")
    root.locator("select[data-w-o]").select_option("identity")
    agrees(4, "identity")
    assert "d" in status(page, "heads") and "1" in status(page, "heads")
    # A head's block of W^O zeroed (ablated) and kept again, by the mouse and
    # by the keyboard: its term is 0, the output the sum of the others.
    uses = root.locator("button[data-use]")
    assert [uses.nth(g).is_visible() for g in range(4)] == [True] * 4
    uses.nth(1).click()
    assert uses.nth(1).get_attribute("aria-pressed") == "false"
    state = agrees(4, "identity", (1,))
    assert not np.any(state["terms"][1])
    assert "2" in status(page, "heads")
    uses.nth(3).focus()
    page.keyboard.press("Space")
    agrees(4, "identity", (1, 3))
    offs = root.locator('[data-matrix="w_o"] td.explorable-off')
    assert offs.count() == 8  # rows 2 and 4
    uses.nth(1).click()
    agrees(4, "identity", (3,))
    # the block itself pressed (r45): W^O's row 3 is head 3's block at h = 4
    root.locator('[data-matrix="w_o"] td[data-i="2"][data-j="1"]').click()
    assert uses.nth(2).get_attribute("aria-pressed") == "false"
    agrees(4, "identity", (2, 3))
    root.locator('[data-matrix="w_o"] td[data-i="2"][data-j="0"]').click()
    agrees(4, "identity", (3,))
    root.locator("select[data-h]").select_option("2")  # another h: every head kept
    agrees(2, "identity")
    assert [uses.nth(g).is_visible() for g in range(4)] == [True, True, False, False]
    assert offs.count() == 0
    assert not watch.problems(), watch.problems()


#: Each shown cell of the heads' maps: head, indices, weight, background,
#: its button's size, and whether it is marked (the single head's map,
#: h = 1, is SINGLE_MAP).
HEAD_MAP_CELLS = """root => [...root.querySelectorAll(
        "table.explorable-head-map:not([hidden]){} td[data-i]")]
    .map(td => {
        const button = td.querySelector("button");
        const box = button.getBoundingClientRect();
        const g = button.dataset.head;
        return {g: g === "a" ? g : Number(g), i: Number(td.dataset.i),
                j: Number(td.dataset.j), weight: Number(button.dataset.value),
                colour: getComputedStyle(td).backgroundColor,
                width: box.width, height: box.height,
                name: button.getAttribute("aria-label"),
                linked: td.classList.contains("explorable-linked")};
    })"""
HEAD_MAPS = HEAD_MAP_CELLS.replace("{}", ":not(.explorable-single-map)")
SINGLE_MAP = HEAD_MAP_CELLS.replace("{}", ".explorable-single-map")
EVERY_MAP = HEAD_MAP_CELLS.replace("{}", "")  # the single head's ("a") first

#: The cells of Q or K lit (i, j), in the order of the table.
LIT = """(root, key) => [
    ...root.querySelectorAll(`[data-matrix="${key}"] td.explorable-linked`)]
    .map(td => [Number(td.dataset.i), Number(td.dataset.j)])"""

#: The background of Q's first row, one cell a column, as the browser computes it.
Q_COLOURS = """root => [...root.querySelectorAll('[data-matrix="q"] tr[data-i="0"] td')]
    .map(td => getComputedStyle(td).backgroundColor)"""


def rgb_of(colour: str) -> tuple[int, int, int]:
    if colour.startswith("color(srgb"):
        channels = [float(x) for x in colour[11:].split(")")[0].split()[:3]]
        return tuple(round(255 * c) for c in channels)
    return tuple(int(float(x)) for x in re.findall(r"[\d.]+", colour)[:3])


def most_said(text: str, weights: list) -> int:
    """Check the heads' idle line under the maps: the cell (i, j) whose
    weight differs most between the heads and that spread, or how many cells
    tie and the first of them (by query, then key), and its weights in every
    head; return how many tie."""
    words = explorables.words_for("heads", "ja")
    spreads = {
        (i, j): max(a[i][j] for a in weights) - min(a[i][j] for a in weights)
        for i in range(3)
        for j in range(3)
    }
    top = max(spreads.values())
    best = sorted(c for c, s in spreads.items() if top - s < 1e-9)
    i, j = best[0]
    key = "most_tie" if len(best) > 1 else "most"
    said = words[key].format(n=len(best), i=i + 1, j=j + 1, spread=oracle.fmt(top, 3))
    assert said in text, text
    for g in range(len(weights)):
        assert f"ヘッド {g + 1} で {oracle.fmt(weights[g][i][j], 3)}" in text, text
    return len(best)


def test_heads_are_heat_maps_in_the_heads_colours_and_linked(load) -> None:
    """Each head's weights a heat map in that head's colour in the figures
    (diagrams.FILLS), deeper with the weight in either scheme; rows and
    columns in words; pointing at one head's cell marks the same query and
    key in every other head and says their weights; one Tab stop a map."""
    from attention_book.diagrams import FILLS

    page, watch, root = load("multi-head", "heads")
    # the running example at h = 2, where four cells tie for the largest
    # spread between the heads (q1 k1, q1 k3, q2 k1, q2 k2, by symmetry)
    root.locator("select[data-input]").select_option("example")
    weights2 = oracle.heads_state(2, "mixing", inputs="example")["weights"]
    assert most_said(root.locator("[data-linked-said]").inner_text(), weights2) == 4
    root.locator("select[data-h]").select_option("4")
    state = oracle.heads_state(4, "mixing", inputs="example")
    rows = root.locator('[data-matrix="weights0"] tbody th').all_inner_texts()
    columns = root.locator('[data-matrix="weights0"] thead th').all_inner_texts()
    assert rows == ["クエリ 1", "クエリ 2", "クエリ 3"]
    assert columns == ["キー 1", "キー 2", "キー 3"]
    cells = root.evaluate(HEAD_MAPS)
    assert len(cells) == 4 * 9
    for c in cells:
        assert c["width"] >= 24 and c["height"] >= 24, c  # a target of >= 24 px
        weight = state["weights"][c["g"]][c["i"]][c["j"]]
        assert abs(c["weight"] - weight) < 1e-12
        assert c["name"] == (
            f"ヘッド {c['g'] + 1}：クエリ {c['i'] + 1} がキー {c['j'] + 1} に置く重み "
            f"{oracle.fmt(weight, 3)}"
        )
    for scheme, theme, darker in (
        ("default", "light", True),
        ("slate", "dark", False),
    ):
        page.evaluate(
            "s => document.body.setAttribute('data-md-color-scheme', s)", scheme
        )
        # Q's columns in their heads' colours (h = 4: one column a head).
        shown = [rgb_of(c) for c in root.evaluate(Q_COLOURS)]
        fills = [FILLS[theme][f"head{g + 1}"] for g in range(4)]
        assert shown == [
            tuple(int(f[k : k + 2], 16) for k in (1, 3, 5)) for f in fills
        ], (scheme, shown)
        for g in range(4):
            mine = sorted(
                (c for c in root.evaluate(HEAD_MAPS) if c["g"] == g),
                key=lambda c: c["weight"],
            )
            for low, high in itertools.pairwise(mine):
                if high["weight"] - low["weight"] > 1e-3:
                    step = luminance(high["colour"]) - luminance(low["colour"])
                    assert (step < 0) if darker else (step > 0), (scheme, g, low, high)

            # the map's strongest cell has its own head's hue (of the four,
            # the nearest; the dark ramp runs past the fills, r45)
            def hue(rgb) -> float:
                return colorsys.rgb_to_hls(*(c / 255 for c in rgb))[0]

            def apart(a: float, b: float) -> float:
                return min(abs(a - b), 1 - abs(a - b))

            deepest = hue(rgb_of(mine[-1]["colour"]))
            hues = [hue(int(f[k : k + 2], 16) for k in (1, 3, 5)) for f in fills]
            assert min(range(4), key=lambda o: apart(deepest, hues[o])) == g, (
                scheme,
                g,
                mine[-1],
            )
    page.evaluate("() => document.body.setAttribute('data-md-color-scheme', 'default')")

    said = root.locator("[data-linked-said]")
    # nothing pointed at: the line reads out the cell whose weight differs
    # most between the heads (r45: no empty band under the maps), h = 4: six tie
    assert most_said(said.inner_text(), state["weights"]) == 6
    # a rule before each head's block (h = 4: columns 2 to 4 of Q, rows 2
    # to 4 of W^O), a cue beyond colour
    starts = root.locator('[data-matrix="q"] td.explorable-head-start')
    assert sorted(set(starts.evaluate_all("t => t.map(e => e.dataset.j)"))) == [
        "1",
        "2",
        "3",
    ]
    blocks = root.locator('[data-matrix="w_o"] td.explorable-block-start')
    assert sorted(set(blocks.evaluate_all("t => t.map(e => e.dataset.i)"))) == [
        "1",
        "2",
        "3",
    ]
    root.locator('[data-matrix="weights1"] td[data-i="0"][data-j="2"]').hover()
    linked = [(c["g"], c["i"], c["j"]) for c in root.evaluate(HEAD_MAPS) if c["linked"]]
    assert linked == [(g, 0, 2) for g in range(4)]
    for g in range(4):
        assert oracle.fmt(state["weights"][g][0][2], 3) in said.inner_text()
    # head 2 (d_k = 1, column 2): q_1's and k_3's entries lit, and the score
    # they make, s = q_12 k_32 / sqrt(1), written term by term
    assert root.evaluate(LIT, "q") == [[0, 1]]
    assert root.evaluate(LIT, "k") == [[2, 1]]
    # the value v_3 it weighs, and query 1's row of Concat and head_2 W^O_2
    assert root.evaluate(LIT, "v") == [[2, 1]]
    assert root.evaluate(LIT, "concat") == [[0, 1]]
    assert root.evaluate(LIT, "term1") == [[0, c] for c in range(4)]
    assert root.evaluate(LIT, "term0") == []
    # and the output's row z_1, where the head's contribution lands (r47)
    assert root.evaluate(LIT, "output") == [[0, c] for c in range(4)]
    q, k = state["q"][0][1], state["k"][2][1]
    text = said.inner_text()
    assert f"{oracle.fmt(q, 2)} × {oracle.fmt(k, 2)}" in text, text
    assert oracle.fmt(state["scores"][1][0][2], 3) in text, text
    assert abs(state["scores"][1][0][2] - q * k) < 1e-12
    root.locator("select[data-h]").hover()
    assert not any(c["linked"] for c in root.evaluate(HEAD_MAPS))
    for key in ("q", "k", "v", "concat", "term1", "output"):
        assert root.evaluate(LIT, key) == [], key
    # The keyboard: one Tab stop a map (four heads and h = 1), the arrows
    # move inside it.
    pointer_on_the_header(page)
    stops = root.locator('button[data-weight][tabindex="0"]:visible')
    assert stops.count() == 5
    first = root.locator('[data-matrix="weights2"] td[data-i="0"][data-j="0"] button')
    first.focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    focused = root.locator('[data-matrix="weights2"] td[data-i="1"][data-j="1"] button')
    expect(focused).to_be_focused()
    linked = [(c["g"], c["i"], c["j"]) for c in root.evaluate(HEAD_MAPS) if c["linked"]]
    assert linked == [(g, 1, 1) for g in range(4)]
    assert root.evaluate(LIT, "q") == [[1, 2]] and root.evaluate(LIT, "k") == [[1, 2]]
    assert stops.count() == 5
    root.locator("select[data-h]").select_option("2")  # two heads: two marked cells
    linked = [(c["g"], c["i"], c["j"]) for c in root.evaluate(HEAD_MAPS) if c["linked"]]
    assert all(g < 2 for g, _, _ in linked)
    # h = 2 (d_k = 2): head 1's cell (query 2, key 1) lights columns 1 and 2
    # of q_2 and k_1, and the score is their two products over sqrt(2)
    state = oracle.heads_state(2, "mixing", inputs="example")
    root.locator('[data-matrix="weights0"] td[data-i="1"][data-j="0"] button').focus()
    assert root.evaluate(LIT, "q") == [[1, 0], [1, 1]]
    assert root.evaluate(LIT, "k") == [[0, 0], [0, 1]]
    text = said.inner_text()
    terms = " + ".join(
        f"{oracle.fmt(state['q'][1][c], 2)} × {oracle.fmt(state['k'][0][c], 2)}"
        for c in (0, 1)
    ).replace("-", "\u2212")
    assert terms in text and "√2" in text, text
    assert oracle.fmt(state["scores"][0][1][0], 3) in text, text
    assert oracle.fmt(state["weights"][0][1][0], 3) in text, text
    assert not watch.problems(), watch.problems()


#: The heads' colour scale: each row's head, whether it is shown, and its
#: tones (weight, background, text colour).
HEAD_SCALE = """root => [...root.querySelectorAll(".explorable-head-scale-row")]
    .map(row => ({g: row.dataset.head === "a" ? "a" : Number(row.dataset.head),
                  shown: !row.hidden,
                  tones: [...row.querySelectorAll("span[data-w]")].map(s => ({
                      weight: Number(s.textContent),
                      colour: getComputedStyle(s).backgroundColor,
                      text: getComputedStyle(s).color}))}))"""

#: Each head's tint, swatch and button colour, and its ramp's two tones;
#: last, the single head's (h = 1, A's colour), from its map.
HEAD_HUES = """root => [0, 1, 2, 3, "a"].map(g => {
    const style = getComputedStyle(root.querySelector(
        g === "a" ? '[data-matrix="single"]' : `button[data-use="${g}"]`));
    return ["--explorable-head", "--explorable-head-deep", "--explorable-head-mid",
            "--explorable-head-top"].map(k => style.getPropertyValue(k).trim());
})"""

#: The top and bottom of each shown scale row's name and tones, in page pixels.
HEAD_SCALE_TOPS = """root => [
    ...root.querySelectorAll(".explorable-head-scale-row:not([hidden])")]
    .map(row => [...row.children].map(e => e.getBoundingClientRect())
        .map(r => [r.top, r.bottom]))"""


def test_heads_beside_one_head_and_linked(load) -> None:
    """The figure opens on heads that look at different tokens (head 1 each
    token itself, head 2 the previous one), beside the weights of one head
    over all four columns (h = 1) in A's colour, which splits tokens 2 and 3
    between those keys; pointing at a head's cell marks the same cell in the
    single head's map and says its weight, and pointing at the single head's
    cell lights q_i's and k_j's every entry and writes its score as the
    heads' scores summed over sqrt(h)."""
    from attention_book.diagrams import FILLS

    page, watch, root = load("multi-head", "heads")
    words = explorables.words_for("heads", "ja")
    state = oracle.heads_state(2, "mixing")
    said = root.locator("[data-linked-said]")
    # the idle line: the four cells where the heads differ most (by 0.841),
    # the first (query 2, key 1) with its weight in each head and at h = 1
    assert most_said(said.inner_text(), state["weights"]) == 4
    assert words["linked_single"].format(weight="0.468") in said.inner_text()
    cells = root.evaluate(SINGLE_MAP)
    assert len(cells) == 9
    for c in cells:
        assert c["width"] >= 24 and c["height"] >= 24, c
        weight = state["single"][c["i"]][c["j"]]
        assert abs(c["weight"] - weight) < 1e-12
        assert c["name"] == words["single_cell"].format(
            i=c["i"] + 1, j=c["j"] + 1, weight=oracle.fmt(weight, 3)
        )

    # A's hue: the strongest cell nearer A's than any head's
    def hue(rgb) -> float:
        return colorsys.rgb_to_hls(*(c / 255 for c in rgb))[0]

    def apart(a: float, b: float) -> float:
        return min(abs(a - b), 1 - abs(a - b))

    deepest = max(cells, key=lambda c: c["weight"])
    names = ("a", "head1", "head2", "head3", "head4")
    fills = {name: FILLS["light"][name] for name in names}
    hues = {n: hue(int(f[k : k + 2], 16) for k in (1, 3, 5)) for n, f in fills.items()}
    shown = hue(rgb_of(deepest["colour"]))
    assert min(hues, key=lambda n: apart(shown, hues[n])) == "a", deepest
    # the single head's map sits beside the heads' maps (a desktop's column)
    page.set_viewport_size({"width": 1280, "height": 900})
    tops = root.evaluate(
        """root => [...root.querySelectorAll(
                ".explorable-head-maps table:not([hidden]) tbody")]
            .map(t => Math.round(t.getBoundingClientRect().top))"""
    )
    assert len(tops) == 3 and len(set(tops)) == 1, tops
    # a head's cell: the same cell marked at h = 1, its weight said
    root.locator('[data-matrix="weights1"] td[data-i="2"][data-j="1"] button').hover()
    marked = [(c["i"], c["j"]) for c in root.evaluate(SINGLE_MAP) if c["linked"]]
    assert marked == [(2, 1)]
    assert (
        words["linked_single"].format(weight=oracle.fmt(state["single"][2][1], 3))
        in said.inner_text()
    )
    # the single head's cell (query 2, key 1): every head's cell marked, q_2
    # and k_1 lit in every column, the score and the heads' scores summed
    root.locator('[data-matrix="single"] td[data-i="1"][data-j="0"] button').hover()
    linked = [(c["g"], c["i"], c["j"]) for c in root.evaluate(HEAD_MAPS) if c["linked"]]
    assert linked == [(0, 1, 0), (1, 1, 0)]
    assert root.evaluate(LIT, "q") == [[1, c] for c in range(4)]
    assert root.evaluate(LIT, "k") == [[0, c] for c in range(4)]
    assert root.evaluate(LIT, "output") == []
    text = said.evaluate(SHOWN_TEXT)
    score = state["single_scores"][1][0]
    heads = [state["scores"][g][1][0] for g in range(2)]
    assert abs(score - sum(heads) / math.sqrt(2)) < 1e-12
    assert f"= {oracle.fmt(score, 3)}" in text, text
    assert f"({oracle.fmt(heads[0], 3)} + {oracle.fmt(heads[1], 3)}) / √2" in text, text
    for g in range(2):
        assert f"ヘッド {g + 1} で {oracle.fmt(state['weights'][g][1][0], 3)}" in text
    # the running example: the single head's weights are chapter 3's
    root.locator("select[data-input]").select_option("example")
    example = oracle.heads_state(2, "mixing", inputs="example")
    compare(page, "heads", "single", example["single"])
    shown = [oracle.fmt(a, 3) for a in example["single"][0]]
    assert shown == ["0.274", "0.452", "0.274"]
    assert not watch.problems(), watch.problems()


def rgb_of_hex(colour: str) -> tuple[float, float, float]:
    return tuple(int(colour[k : k + 2], 16) / 255 for k in (1, 3, 5))


#: A map's cell's text colour (its button's), in the order of HEAD_MAPS.
HEAD_TEXT = """root => [...root.querySelectorAll(
        "table.explorable-head-map:not([hidden]) td[data-i] button")]
    .map(b => getComputedStyle(b).color)"""


def test_heads_weights_read_apart_against_a_scale(load) -> None:
    """The weights are read by lightness (issue 40: in the light scheme the
    page's weights 0.198 and 0.503 stood 1.31:1 apart, 0.198 and 0.401
    1.21:1, and no scale said what a tone meant): in either scheme each
    head's weakest and strongest cells stand >= 2:1 apart, every cell's
    number >= 4.5:1 on its tone, the same weight has the same lightness in
    every head, and a scale of tones from 0 to 1, one row a shown head,
    drawn as the cells are, brackets each cell's tone. The same holds for
    the single head's map (h = 1, "a") beside the heads."""
    page, watch, root = load("multi-head", "heads")
    for h, scheme in itertools.product((2, 4), ("default", "slate")):
        root.locator("select[data-h]").select_option(str(h))
        page.evaluate(
            "s => document.body.setAttribute('data-md-color-scheme', s)", scheme
        )
        cells = root.evaluate(EVERY_MAP)
        for c, text in zip(cells, root.evaluate(HEAD_TEXT), strict=True):
            assert contrast(c["colour"], text) >= TEXT_CONTRAST, (scheme, c, text)
        rows = root.evaluate(HEAD_SCALE)
        assert [(r["g"], r["shown"]) for r in rows] == [("a", True)] + [
            (g, g < h) for g in range(4)
        ], rows
        page_colour = page.evaluate(
            "() => getComputedStyle(document.body).backgroundColor"
        )
        for row in (r for r in rows if r["shown"]):
            tones = row["tones"]
            # even steps (review F2: 0, 0.1, ..., 0.6, 1 jumped from 0.6 to 1)
            assert [t["weight"] for t in tones] == [0, 0.2, 0.4, 0.6, 0.8, 1]
            assert contrast(tones[0]["colour"], page_colour) < 1.01, (scheme, row)
            for t in tones:
                assert contrast(t["colour"], t["text"]) >= TEXT_CONTRAST, (scheme, t)
            lights = [luminance(t["colour"]) for t in tones]
            assert all(
                (b < a) if scheme == "default" else (b > a)
                for a, b in itertools.pairwise(lights)
            ), (scheme, lights)
            mine = [c for c in cells if c["g"] == row["g"]]
            for c in mine:
                # the scale's tones on either side of the cell's weight
                k = max(n for n, t in enumerate(tones) if t["weight"] <= c["weight"])
                low, high = sorted((lights[k], lights[min(k + 1, len(lights) - 1)]))
                assert low - 1e-3 <= luminance(c["colour"]) <= high + 1e-3, (c, tones)
            weakest = min(mine, key=lambda c: c["weight"])
            strongest = max(mine, key=lambda c: c["weight"])
            if strongest["weight"] - weakest["weight"] > 0.1:
                apart = contrast(weakest["colour"], strongest["colour"])
                assert apart >= 2, (scheme, h, row["g"], weakest, strongest, apart)
        # one hue a head everywhere (review F2: head 2 was a yellow tint, a
        # brown ramp and an orange swatch and button): tint, ramp, swatch
        for g, tones in zip([0, 1, 2, 3, "a"], root.evaluate(HEAD_HUES), strict=True):
            hues = [360 * colorsys.rgb_to_hls(*rgb_of_hex(c))[0] for c in tones]
            spread = max(hue_apart(a, b) for a, b in itertools.combinations(hues, 2))
            assert spread <= 12, (scheme, g, tones, hues)
        # the same weight, the same lightness, whatever the head's hue
        for a, b in itertools.combinations((r for r in rows if r["shown"]), 2):
            for x, y in zip(a["tones"], b["tones"], strict=True):
                assert contrast(x["colour"], y["colour"]) < 1.1, (scheme, x, y)
        if h == 4:  # the heads' weights of 1/3: one lightness in four hues
            thirds = [c["colour"] for c in cells if abs(c["weight"] - 1 / 3) < 1e-9]
            assert len({c for c in thirds}) >= 2, thirds
            for x, y in itertools.combinations(thirds, 2):
                assert contrast(x, y) < 1.1, (scheme, x, y)
    page.evaluate("() => document.body.setAttribute('data-md-color-scheme', 'default')")
    # on a phone each head's key stays one line: no tone wraps away from
    # its name (review F2: the "1" swatch fell onto a line of its own)
    page.set_viewport_size({"width": 390, "height": 900})
    for row in root.evaluate(HEAD_SCALE_TOPS):  # every box crosses every other's line
        assert max(top for top, _ in row) < min(bottom for _, bottom in row), row
    assert not watch.problems(), watch.problems()


def test_heads_pointing_at_a_cell_moves_nothing(load) -> None:
    """The line under the maps keeps its height whatever cell is pointed at
    (h = 1: the longest sums, four products; h = 4 with the single head's
    cell: five weights and four scores), on a desktop and a phone."""
    page, watch, root = load("multi-head", "heads")
    said = root.locator("[data-linked-said]")
    for h, key, sign in (("1", "weights0", "√4"), ("4", "single", "√4")):
        root.locator("select[data-h]").select_option(h)
        for width in (1280, 360):
            page.set_viewport_size({"width": width, "height": 900})
            pointer_on_the_header(page)
            rest = said.bounding_box()["height"]
            for i, j in itertools.product(range(3), range(3)):
                cell = f'[data-matrix="{key}"] td[data-i="{i}"][data-j="{j}"] button'
                root.locator(cell).focus()
                assert sign in said.inner_text()
                height = said.bounding_box()["height"]
                assert abs(height - rest) < 0.5, (h, width, i, j)
    assert not watch.problems(), watch.problems()


def maps_agree(page, sentences, model, k: int, layer: int, head: int) -> None:
    """The heat map, the previous character's cells, the bars of every head
    and the results, as ``LanguageModel.attention`` gives the weights."""
    text = sentences[k]
    weights = model.attention(text)
    a = weights[layer - 1][head - 1].astype(np.float64)  # (n, n)
    n = len(text)
    cells = page.evaluate(READ_TABLE, ["attention_maps", "weights"])
    seen = 0
    for i, j, shown, full, hidden in cells:
        assert hidden == (i >= n or j >= n), (k, i, j)
        if hidden:
            continue
        # The page carries the weights to 4 decimals, shows 2, and leaves
        # the masked ones (j > i, weight 0) blank.
        assert abs(float(full) - a[i, j]) <= 0.5e-4 + 1e-7, (k, layer, head, i, j)
        assert shown == ("" if j > i else oracle.weight(float(full), sole=i == 0))
        seen += 1
    assert seen == n * n
    heads = page.evaluate(
        """() => [...document.querySelectorAll(
            '[data-matrix="weights"] thead th')].filter(th => !th.hidden)
            .map(th => th.textContent)"""
    )
    assert heads == list(text)
    framed = page.evaluate(
        """() => [...document.querySelectorAll(
            '[data-matrix="weights"] td.explorable-previous')]
            .filter(td => !td.hidden && !td.parentElement.hidden)
            .map(td => [Number(td.dataset.i), Number(td.dataset.j)])"""
    )
    assert framed == [[i, i - 1] for i in range(1, n)]  # the previous character
    rounded = np.round(a, explorables.MAP_DECIMALS)
    below = np.array([rounded[i, i - 1] for i in range(1, n)])
    previous = result(page, "attention_maps", "previous")
    assert abs(float(previous[1]) - below.mean()) <= 1e-12
    assert previous[0] == oracle.weight(below.mean())
    rows = sum(rounded[i, i - 1] == rounded[i].max() for i in range(1, n))
    assert result(page, "attention_maps", "rows") == (f"{rows} / {n - 1}", str(rows))
    said = status(page, "attention_maps")
    assert oracle.weight(below.mean()) in said and str(layer) in said
    # Every head's thumbnail (its weights) and its mean weight on the
    # previous character.
    bars = page.evaluate(BARS)
    assert len(bars) == len(weights) * weights[0].shape[0]
    for bar in bars:
        w = np.round(weights[bar["l"] - 1][bar["h"] - 1], explorables.MAP_DECIMALS)
        prev = np.mean([w[i, i - 1] for i in range(1, n)])
        assert abs(float(bar["value"]) - prev) <= 1e-12, bar
        assert bar["text"] == oracle.weight(prev)
        assert bar["viewBox"] == f"0 0 {n} {n}"  # the sentence's n × n
        shown = [(i, j, v) for i, j, v in bar["squares"] if i < n]
        assert len(shown) == n * (n + 1) // 2  # at and below the diagonal
        for i, j, v in shown:
            assert abs(float(v) - w[i, j]) <= 1e-12, (bar["l"], bar["h"], i, j)
        assert bar["side"] >= 40, bar  # a thumbnail, not a sliver
        assert bar["pressed"] == ((bar["l"], bar["h"]) == (layer, head)), bar
        assert bar["height"] >= 24, bar


#: Every head's thumbnail: layer, head, the shown mean and its full value,
#: the thumbnail's viewBox, its squares (row, column, --w) and its drawn
#: width, whether its button is pressed, its height.
BARS = """() => [...document.querySelectorAll('[data-summary] td[data-l]')].map(td => {
    const b = td.querySelector("button");
    const svg = b.querySelector("svg");
    return {l: Number(td.dataset.l), h: Number(td.dataset.h),
            text: b.textContent.trim(),
            value: b.querySelector("[data-value]").dataset.value,
            viewBox: svg.getAttribute("viewBox"),
            squares: [...svg.querySelectorAll("rect")].map(r => [
                Number(r.getAttribute("y")), Number(r.getAttribute("x")),
                r.style.getPropertyValue("--w")]),
            side: svg.getBoundingClientRect().width,
            pressed: b.getAttribute("aria-pressed") === "true",
            height: b.getBoundingClientRect().height};
})"""


def test_attention_maps(load) -> None:
    """The trained model's weights, as ``LanguageModel.attention`` gives them."""
    page, watch, root = load("attention-maps", "attention_maps")
    words = explorables.words_for("attention_maps", "ja")
    sentences = [words[f"sentence_{k}"] for k in (1, 2, 3)]
    model = load_pretrained("ja")

    def agrees(k: int, layer: int, head: int) -> None:
        maps_agree(page, sentences, model, k, layer, head)

    agrees(0, 1, 1)  # the default state: the page's sentence
    root.locator("select[data-layer]").select_option("2")
    agrees(0, 2, 1)
    root.locator("select[data-head]").select_option("4")
    agrees(0, 2, 4)
    root.locator("select[data-sentence]").select_option("2")  # a shorter sentence
    agrees(2, 2, 4)
    root.locator("select[data-layer]").select_option("3")
    agrees(2, 3, 4)
    assert not watch.problems(), watch.problems()


def test_attention_maps_bars_choose_the_head_and_cells_are_linked(load) -> None:
    """A head's thumbnail is a button that shows that head (the menus
    follow), and shows it while the pointer rests on it;
    pointing at a weight, or reaching it with the arrow keys, frames its
    query's and key's characters in the labels and says them."""
    page, watch, root = load("attention-maps", "attention_maps")
    words = explorables.words_for("attention_maps", "ja")
    sentences = [words[f"sentence_{k}"] for k in (1, 2, 3)]
    model = load_pretrained("ja")
    a = np.round(model.attention(sentences[0])[1][1], 4)  # layer 2, head 2
    prev = oracle.weight(float(np.mean(np.diagonal(a, offset=-1))))
    root.get_by_role("button", name=words["pick"].format(l=2, h=2, prev=prev)).click()
    assert root.locator("select[data-layer]").input_value() == "2"
    assert root.locator("select[data-head]").input_value() == "2"
    maps_agree(page, sentences, model, 0, 2, 2)
    root.locator("select[data-sentence]").select_option("1")
    root.locator('[data-summary] td[data-l="3"][data-h="4"] button').click()
    maps_agree(page, sentences, model, 1, 3, 4)
    # The pointer resting on a thumbnail shows its head below (not chosen,
    # not said); leaving it, the chosen head comes back.
    said_before = status(page, "attention_maps")
    root.locator('[data-summary] td[data-l="1"][data-h="3"] button').hover()
    preview = np.round(model.attention(sentences[1])[0][2], 4)
    n1 = len(sentences[1])
    for i, j, _, full, hidden in page.evaluate(
        READ_TABLE, ["attention_maps", "weights"]
    ):
        if not hidden and j <= i:
            assert abs(float(full) - preview[i, j]) <= 1e-12, (i, j)
    assert root.locator("select[data-layer]").input_value() == "3"
    assert root.locator("select[data-head]").input_value() == "4"
    assert status(page, "attention_maps") == said_before
    assert root.locator('[data-summary] [aria-pressed="true"]').count() == 1
    root.locator("select[data-layer]").hover()
    maps_agree(page, sentences, model, 1, 3, 4)
    assert n1 == len(sentences[1])

    text = sentences[1]
    a = np.round(model.attention(text)[2][3], 4)
    linked = """root => [...root.querySelectorAll(
        '[data-matrix="weights"] th.explorable-linked')].map(th => th.textContent)"""
    said = root.locator("[data-linked-said]")
    # with no weight pointed at: the last query's largest weight, the hint
    last = len(text) - 1
    top = int(np.argmax(a[last, : last + 1]))
    default = words["largest_self" if top == last else "largest"].format(
        i=last + 1,
        query=text[last],
        j=top + 1,
        key=text[top],
        weight=oracle.weight(float(a[last, top])),
    )
    default += words["linked_hint"]
    assert said.inner_text() == default
    root.locator('[data-matrix="weights"] td[data-i="4"][data-j="2"] button').hover()
    assert root.evaluate(linked) == [text[2], f"5 {text[4]}"]  # the key's, the query's
    expected = words["linked"].format(
        i=5, query=text[4], j=3, key=text[2], weight=oracle.weight(float(a[4, 2]))
    )
    assert said.inner_text() == expected
    # the same cell (query 5, key 3) framed in all twelve thumbnails, each of
    # which outlines the previous character's cells (r47)
    marks = """root => [...root.querySelectorAll('[data-summary] svg')].map(svg => [
        svg.querySelector(".explorable-thumb-mark").getAttribute("d"),
        svg.querySelector(".explorable-thumb-previous").getAttribute("d").split("z").length])"""
    longest = max(len(s) for s in sentences)
    assert root.evaluate(marks) == [["M2 4h1v1h-1z", longest]] * 12
    root.locator("select[data-layer]").hover()
    assert root.evaluate(linked) == [] and said.inner_text() == default
    assert {d for d, _ in root.evaluate(marks)} == {""}
    # One Tab stop among the weights; the arrow keys move at or below the diagonal.
    pointer_on_the_header(page)
    stop = root.locator('[data-matrix="weights"] button[tabindex="0"]')
    assert stop.count() == 1
    stop.focus()
    for key in ("ArrowDown", "ArrowDown", "ArrowRight", "ArrowRight", "ArrowRight"):
        page.keyboard.press(key)  # the third ArrowRight would cross the diagonal
    assert root.evaluate(linked) == [text[2], f"3 {text[2]}"]
    assert {d for d, _ in root.evaluate(marks)} == {"M2 2h1v1h-1z"}  # by focus too
    sizes = root.evaluate(
        """root => [...root.querySelectorAll('[data-matrix="weights"] button')]
            .filter(b => b.getClientRects().length)
            .map(b => b.getBoundingClientRect()).map(r => [r.width, r.height])"""
    )
    n = len(text)
    assert len(sizes) == n * (n + 1) // 2
    assert all(w >= 24 and h >= 24 for w, h in sizes), sizes  # targets of >= 24 px
    # A 390 px phone: the cells show no numbers; a tap on one says its weight
    # in the line under the map, which then holds no empty band below it.
    page.set_viewport_size({"width": 390, "height": 844})
    cell = root.locator('[data-matrix="weights"] td[data-i="6"][data-j="5"] button')
    assert cell.locator("[data-value]").bounding_box()["width"] <= 1  # no number
    cell.click()
    assert said.inner_text() == words["linked"].format(
        i=7, query=text[6], j=6, key=text[5], weight=oracle.weight(float(a[6, 5]))
    )
    # the weight's tint: a step above the page's colour even near 0
    low = root.evaluate(
        """root => {
            const cells = [...root.querySelectorAll(
                '[data-matrix="weights"] td[data-i]:not([data-masked])')]
                .filter(td => !td.hidden);
            const least = cells.reduce((a, b) =>
                Number(a.querySelector("[data-value]").dataset.value)
                <= Number(b.querySelector("[data-value]").dataset.value) ? a : b);
            return [getComputedStyle(least).backgroundColor,
                    getComputedStyle(document.body).backgroundColor];
        }"""
    )
    assert contrast(*low) >= 1.1, low
    assert not watch.problems(), watch.problems()


#: The window's grid as the browser draws it: each shown cell's indices,
#: kind, value, computed background image, whether its row is framed, its
#: button's name and size.
BAND = """root => [...root.querySelectorAll('[data-matrix="mask"] td[data-i]')]
    .filter(td => !td.hidden && !td.parentElement.hidden)
    .map(td => {
        const b = td.querySelector("button");
        const box = b.getBoundingClientRect();
        return {i: Number(td.dataset.i), j: Number(td.dataset.j), kind: td.dataset.kind,
                value: b.querySelector("[data-value]").dataset.value,
                text: b.textContent.trim(), name: b.getAttribute("aria-label"),
                image: getComputedStyle(td).backgroundImage,
                framed: td.parentElement.classList.contains("explorable-linked"),
                width: box.width, height: box.height};
    })"""

#: The cache's rows as shown: [row, position held (-1: none), text, framed].
SLOTS = """root => [...root.querySelectorAll('[data-matrix="cache"] td[data-j]')]
    .filter(td => !td.hidden)
    .map(td => [Number(td.dataset.j), Number(td.dataset.value), td.textContent.trim(),
                td.classList.contains("explorable-linked")])"""


def window_agrees(page, root, n: int, window: int, n_sink: int, query=None) -> None:
    """The grid, the cache as query ``query`` meets it (the newest, n - 1, by
    default), the sizes, the chart and the status, against the package."""
    state = oracle.window_state(n, window, n_sink)
    words = explorables.words_for("window_sinks", "ja")
    cells = root.evaluate(BAND)
    assert {(c["i"], c["j"]) for c in cells} == {
        (i, j) for i in range(n) for j in range(n)
    }
    for c in cells:
        i, j = c["i"], c["j"]
        m = int(state["mask"][i, j])
        kind = str(state["kinds"][i, j])
        assert c["kind"] == kind and c["value"] == c["text"] == str(m), c
        assert c["name"] == words["cell"].format(
            i=i, j=j, m=m, kind=words[f"kind_{kind}"]
        )
        # a cue beyond colour: hatched where False, a corner on a sink
        assert ("repeating-linear-gradient" in c["image"]) == (m == 0), c
        assert ("linear-gradient" in c["image"]) == (kind != "window"), c
        assert c["framed"] == (i == (n - 1 if query is None else query)), c
        assert c["width"] >= 24 and c["height"] >= 24, c  # a target of >= 24 px
    # one Tab stop in the grid, on a shown cell
    stops = root.evaluate(
        """root => [...root.querySelectorAll('[data-matrix="mask"] button[data-cell]')]
            .filter(b => b.tabIndex === 0).map(b => [Number(b.parentElement.dataset.i),
                                                     Number(b.parentElement.dataset.j)])"""
    )
    assert len(stops) == 1 and max(stops[0]) < n, stops
    step = oracle.window_state((n - 1 if query is None else query) + 1, window, n_sink)
    slots = root.evaluate(SLOTS)
    assert [r for r, *_ in slots] == list(range(state["capacity"]))
    # rows not written yet (a short sequence) hold -1 and show a dash
    held = list(step["slots"][0]) + [-1] * (state["capacity"] - step["capacity"])
    assert [p for _, p, _, _ in slots] == held
    assert [t for _, _, t, _ in slots] == [str(p) if p >= 0 else "—" for p in held]
    for key in ("rows", "capacity", "full"):
        text, full = result(page, "window_sinks", key)
        assert int(full) == int(text) == state[key], key
    chart = Chart(svg(page, "window_sinks", "rows"))
    assert abs(chart.cursor() - n) < 1e-3
    assert chart.notes() == [(n, str(state["rows"]))]  # the rows, at the cursor
    most = explorables.WINDOW_DEFAULT["max"]
    lengths = oracle.window_state(most, window, n_sink)["lengths"]
    points = chart.lines()[0][0]
    assert len(points) == most + 1
    for t, (x, y) in enumerate(points):
        assert abs(x - t) < 1e-3 and abs(y - lengths[t]) < 1e-3, (t, x, y)
    sinks_agree(page, n, window, n_sink, query)


def sinks_agree(page, n: int, window: int, n_sink: int, query=None) -> None:
    """Query ``query``'s weights (the newest's, n - 1, by default) without a
    window, with the window and the sinks, and with the window alone (table;
    the chart the last two; 0 at the later keys), and for each mask the full
    attention's weight a_drop on the keys it drops and 1 / (1 - a_drop)."""
    i = n - 1 if query is None else query
    state = oracle.window_weights(i + 1, window, n_sink)
    later = ((0, 0), (0, n - 1 - i))
    # one row a key j, one column a mask
    compare(page, "window_sinks", "weights", np.pad(state["weights"], later).T)
    assert int(result(page, "window_sinks", "query")[1]) == i
    for key in ("drop_window", "ratio_window", "drop_sinks", "ratio_sinks"):
        check(*result(page, "window_sinks", key), state[key], key)
    # the chart: a dot on a stem from 0 at each key the mask keeps, the
    # weights with the sinks left of j, those without them right of it
    dots = Chart(svg(page, "window_sinks", "sinks")).dots()
    for k, dx in ((0, -0.18), (1, 0.18)):
        kept = np.flatnonzero(state["kept"][k])
        assert len(dots[k]) == len(kept), (k, dots[k], kept)
        for (x, y), j in zip(dots[k], kept, strict=True):
            assert abs(x - (j + dx)) < 5e-3, (k, x, j)
            assert abs(y - state["weights"][k + 1][j]) < 2e-3, (k, j, y)


def test_window_sinks(load) -> None:
    """The grid, the cache's rows and the chart against sliding_window_mask
    and RollingKVCache, for sizes the reader sets; the status once the
    slider settles."""
    page, watch, root = load("sliding-window", "window_sinks")
    window_agrees(page, root, 10, 4, 2)  # the page's figure
    assert "0, 1, 6, 7, 8, 9" in status(page, "window_sinks")
    for n, window, n_sink in ((16, 3, 0), (5, 8, 1), (12, 1, 4)):
        root.locator('select[data-size="window"]').select_option(str(window))
        root.locator('select[data-size="n_sink"]').select_option(str(n_sink))
        root.locator('input[data-size="n"]').fill(str(n))
        window_agrees(page, root, n, window, n_sink)
        state = oracle.window_state(n, window, n_sink)
        page.wait_for_function(
            "([root, text]) => root.querySelector('.explorable-status')"
            ".textContent.includes(text)",
            arg=[root.element_handle(), ", ".join(map(str, state["kept"]))],
        )
    # A step of the slider from the keyboard, or a new W or n_sink, is said at
    # once: the live region never lags behind the figure (review F27).
    slider = root.locator('input[data-size="n"]')
    for key, window, n_sink in (("End", 5, 1), ("ArrowLeft", 5, 1), ("Home", 2, 3)):
        root.locator('select[data-size="window"]').select_option(str(window))
        root.locator('select[data-size="n_sink"]').select_option(str(n_sink))
        slider.focus()
        page.keyboard.press(key)
        n = int(slider.input_value())
        kept = oracle.window_state(n, window, n_sink)["kept"]
        said = status(page, "window_sinks")  # at once, no settling wait
        assert f"n = {n} " in said and ", ".join(map(str, kept)) in said, (key, said)
    assert not watch.problems(), watch.problems()


#: The grid's key headings that toggle a sink, and W's steps on the cache.
SINK_KEYS = """root => ({
    keys: [...root.querySelectorAll('[data-matrix="mask"] button[data-sink-key]')]
        .filter(b => !b.closest("th").hidden).map(b => {
            const box = b.getBoundingClientRect();
            return {j: Number(b.dataset.sinkKey),
                    pressed: b.getAttribute("aria-pressed"),
                    name: b.getAttribute("aria-label"),
                    corner: b.closest("th").hasAttribute("data-sink"),
                    width: box.width, height: box.height};
        }),
    steps: [...root.querySelectorAll("button[data-window-step]")].map(b => {
        const box = b.getBoundingClientRect();
        return {step: Number(b.dataset.windowStep), disabled: b.disabled,
                width: box.width, height: box.height};
    }),
})"""


def test_window_sinks_set_on_the_picture(load) -> None:
    """The reader sets the sinks and W on the picture itself (issue 40):
    pressing key j's heading makes keys 0 to j the sinks (pressing the last
    sink's heading drops it), and a step on the cache removes or adds one of
    its rows (W - 1, W + 1); the selects follow, and the grid, cache, charts,
    weights and status agree with the package. By mouse and keyboard; each
    control named and at least 24 px."""
    page, watch, root = load("sliding-window", "window_sinks")
    words = explorables.words_for("window_sinks", "ja")
    sinks = root.locator('select[data-size="n_sink"]')
    window = root.locator('select[data-size="window"]')

    def keys_agree(n_sink: int, window_size: int) -> None:
        shown = root.evaluate(SINK_KEYS)
        assert [k["j"] for k in shown["keys"]] == [0, 1, 2, 3], shown
        for k in shown["keys"]:
            assert k["pressed"] == ("true" if k["j"] < n_sink else "false"), k
            assert k["corner"] == (k["j"] < n_sink), k
            assert k["name"] == words["sink_key"].format(j=k["j"]), k
            assert k["width"] >= 24 and k["height"] >= 24, k
        most = explorables.WINDOW_DEFAULT["max"]
        for s in shown["steps"]:
            assert s["width"] >= 24 and s["height"] >= 24, s
            assert s["disabled"] == (not 1 <= window_size + s["step"] <= most), s

    keys_agree(2, 4)  # the page's figure: n = 10, W = 4, two sinks
    key = root.locator('button[data-sink-key="3"]')
    key.click()  # keys 0 to 3 the sinks
    assert sinks.input_value() == "4"
    window_agrees(page, root, 10, 4, 4)
    keys_agree(4, 4)
    key.click()  # the last sink's heading again: it is dropped
    assert sinks.input_value() == "3"
    window_agrees(page, root, 10, 4, 3)
    root.locator('button[data-sink-key="0"]').focus()
    page.keyboard.press("Enter")  # from the keyboard: one sink
    assert sinks.input_value() == "1"
    window_agrees(page, root, 10, 4, 1)
    state = oracle.window_state(10, 4, 1)
    assert ", ".join(map(str, state["kept"])) in status(page, "window_sinks")
    wider = root.locator('button[data-window-step="1"]')
    narrower = root.locator('button[data-window-step="-1"]')
    wider.click()
    assert window.input_value() == "5"
    window_agrees(page, root, 10, 5, 1)
    keys_agree(1, 5)
    for _ in range(4):
        narrower.click()
    assert window.input_value() == "1"
    window_agrees(page, root, 10, 1, 1)
    keys_agree(1, 1)  # W = 1: no row fewer
    assert page.evaluate("() => document.activeElement.dataset.windowStep") == "1"
    page.keyboard.press("Enter")
    assert window.input_value() == "2"
    window_agrees(page, root, 10, 2, 1)
    state = oracle.window_state(10, 2, 1)
    assert ", ".join(map(str, state["kept"])) in status(page, "window_sinks")
    assert not watch.problems(), watch.problems()


#: The colour of each series of the window figure's two charts, as drawn.
SINK_COLOURS = """root => {
    const stroke = e => getComputedStyle(e).stroke;
    const rows = root.querySelector('svg[data-chart="rows"]');
    const sinks = root.querySelector('svg[data-chart="sinks"]');
    return {
        rows: [0, 1].map(k => stroke(rows.querySelector(`path.explorable-line-${k}`))),
        sinks: [0, 1].map(k => stroke(sinks.querySelector(`[data-stems="${k}"]`))),
    };
}"""


def test_window_sinks_one_colour_one_meaning(load) -> None:
    """Review F5: orange was "no window" in the cache chart and "the window
    alone" in the weights chart; now each colour of the figure means one
    thing (the window with the sinks shares the cache chart's "with a
    window"), and the two lines' end labels stay a line apart where the
    lines coincide (W = 16, n_sink = 4: the cache never fills at n <= 16)."""
    page, watch, root = load("sliding-window", "window_sinks")
    colours = root.evaluate(SINK_COLOURS)
    assert colours["sinks"][1] not in colours["rows"], colours
    assert colours["sinks"][0] == colours["rows"][0], colours
    root.locator('select[data-size="window"]').select_option("16")
    root.locator('select[data-size="n_sink"]').select_option("4")
    root.locator('input[data-size="n"]').fill("1")
    labels = re.findall(
        r'data-label="\d+" x="[\d.]+" y="([\d.]+)"',
        svg(page, "window_sinks", "rows"),
    )
    assert len(labels) == 2
    a, b = sorted(float(y) for y in labels)
    assert b - a >= 16, labels
    assert not watch.problems(), watch.problems()


#: The weights' scroll box at a phone's width: its size and names, and
#: where its caption and its rows' names lie against it.
SINK_WEIGHTS_BOX = """root => {
    const box = root.querySelector(".explorable-sink-weights");
    const edge = box.getBoundingClientRect();
    const names = [...box.querySelectorAll("tbody th")]
        .map(th => th.getBoundingClientRect());
    const cell = box.querySelector("tbody td").getBoundingClientRect();
    const caption = box.querySelector("caption span").getBoundingClientRect();
    return {scroll: box.scrollWidth, width: box.clientWidth, tabindex: box.tabIndex,
            role: box.getAttribute("role"), label: box.getAttribute("aria-label"),
            left: edge.left, right: edge.right, captionRight: caption.right,
            namesLeft: names.map(r => r.left), namesHeight: names.map(r => r.height),
            cellHeight: cell.height};
}"""


def test_window_sinks_weights_fit_without_scrolling(load) -> None:
    """At n = 16 the weights' table, one row a key, fits its named region at
    1280 px and at 390 px (review F5: sixteen keys across scrolled at 1280
    px already); its caption wraps within the region, and its rows' names
    stay on one line at the region's start (issue 40: the names were
    squeezed to a letter a line, the caption cut off)."""
    page, watch, root = load("sliding-window", "window_sinks")
    root.locator('input[data-size="n"]').fill("16")
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        seen = root.evaluate(SINK_WEIGHTS_BOX)
        assert seen["scroll"] <= seen["width"], (width, seen)
        assert seen["tabindex"] == 0 and seen["role"] == "region", seen
        assert (
            seen["label"]
            == explorables.words_for("window_sinks", "ja")["weights_region"]
        )
        assert seen["captionRight"] <= seen["right"] + 0.5, seen
        assert len(seen["namesLeft"]) == 16
        for left, height in zip(seen["namesLeft"], seen["namesHeight"], strict=True):
            assert abs(left - seen["left"]) < 1, (width, seen)
            assert height <= seen["cellHeight"] + 0.5, (width, seen)
    assert not watch.problems(), watch.problems()


def test_window_sinks_linked_and_announced_once(load) -> None:
    """Pointing at a cell (or reaching it with the arrow keys) frames its
    query's row and shows the cache as that query meets it, the key's row
    framed, in words; a drag of the slider is said once."""
    page, watch, root = load("sliding-window", "window_sinks")
    words = explorables.words_for("window_sinks", "ja")
    said = root.locator("[data-linked-said]")
    assert said.inner_text().startswith(words["newest"])
    root.locator('[data-matrix="mask"] td[data-i="7"][data-j="1"] button').hover()
    window_agrees(page, root, 10, 4, 2, query=7)  # query 7's weights
    assert 'data-band="0.5 1.5"' in svg(page, "window_sinks", "sinks")  # key 1's
    slots = root.evaluate(SLOTS)
    assert [r for r, p, _, framed in slots if framed] == [1]  # key 1, a sink, in row 1
    text = said.inner_text()
    assert "位置 7 のクエリ" in text and "0, 1, 4, 5, 6, 7" in text
    assert words["key_in"].format(j=1, r=1, kind=words["kind_sink"]) in text
    root.locator('[data-matrix="mask"] td[data-i="7"][data-j="2"] button').hover()
    assert not any(framed for *_, framed in root.evaluate(SLOTS))
    assert words["key_out"].format(j=2, kind=words["kind_outside"]) in said.inner_text()
    root.locator("select[data-size]").first.hover()  # away: the newest query again
    window_agrees(page, root, 10, 4, 2)
    # The keyboard: one Tab stop in the grid, the arrow keys move in it.
    pointer_on_the_header(page)
    stop = root.locator('[data-matrix="mask"] button[tabindex="0"]')
    assert stop.count() == 1
    stop.focus()
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    focused = page.evaluate("document.activeElement.closest('td').dataset.i")
    assert focused == "7"
    window_agrees(page, root, 10, 4, 2, query=7)
    page.keyboard.press("Tab")  # out of the grid
    window_agrees(page, root, 10, 4, 2)

    slider = root.locator('input[data-size="n"]')
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    root.evaluate(COUNT_SAID)
    drag = TimedDrag(page)
    y = box["y"] + box["height"] / 2
    drag.move(box["x"] + 0.05 * box["width"], y)
    drag.down()
    seen = set()
    for step in range(1, 19):
        drag.move(box["x"] + (0.05 + 0.05 * step) * box["width"], y)
        seen.add(slider.input_value())
    drag.up()
    assert len(seen) >= 8, seen
    n = int(slider.input_value())
    window_agrees(page, root, n, 4, 2)  # the numbers at once
    page.wait_for_timeout(900)
    drag.said_once()
    kept = oracle.window_state(n, 4, 2)["kept"]
    assert ", ".join(map(str, kept)) in status(page, "window_sinks")
    assert not watch.problems(), watch.problems()


def test_window_sinks_chart_dragged_and_cache_linked(load) -> None:
    """Pressing and dragging on the chart sets n (said once, after the drag);
    pointing at a cache row frames the grid's column of the key it holds."""
    page, watch, root = load("sliding-window", "window_sinks")
    slider = root.locator('input[data-size="n"]')
    chart = root.locator('svg[data-chart="rows"]')
    chart.scroll_into_view_if_needed()
    box = chart.bounding_box()
    plot = Chart(svg(page, "window_sinks", "rows"))

    def at(v: float) -> float:
        return chart_x(box, plot, v)

    root.evaluate(COUNT_SAID)
    drag = TimedDrag(page)
    y = box["y"] + box["height"] / 2
    drag.move(at(3), y)
    drag.down()
    assert slider.input_value() == "3"
    for v in (6, 9, 12, 14):
        drag.move(at(v), y)
    drag.up()
    assert slider.input_value() == "14"
    window_agrees(page, root, 14, 4, 2)  # grid, cache, chart at once
    page.wait_for_timeout(900)
    drag.said_once()
    kept = oracle.window_state(14, 4, 2)["kept"]
    assert ", ".join(map(str, kept)) in status(page, "window_sinks")
    drag.move(at(18.5), y)  # past the largest n (16, room for labels): 16
    drag.down()
    drag.up()
    assert slider.input_value() == str(explorables.WINDOW_DEFAULT["max"])
    # a cache row pointed at: its key's column framed in the grid
    slider.fill("10")
    held = oracle.window_state(10, 4, 2)["slots"][0]
    for r, p in enumerate(held):
        root.locator(f'[data-matrix="cache"] td[data-j="{r}"]').hover()
        framed = root.evaluate(
            """root => [...root.querySelectorAll(
                '[data-matrix="mask"] .explorable-column')]
                .filter(c => !c.hidden && !c.parentElement.hidden)
                .map(c => Number(c.dataset.j))"""
        )
        assert set(framed) == {int(p)}, (r, p, framed)
        assert len(framed) == 10 + 1  # its 10 cells and its header
    root.locator("select[data-size]").first.hover()
    assert root.locator('[data-matrix="mask"] .explorable-column').count() == 0
    # a stem pointed at (the newest query's, 9): its key's column framed in
    # the grid and in the weights, its cache row framed, its stems shaded
    sinks = root.locator('svg[data-chart="sinks"]')
    sinks.scroll_into_view_if_needed()
    box = sinks.bounding_box()
    stems = Chart(svg(page, "window_sinks", "sinks"))
    for j in (0, 8):
        page.mouse.move(chart_x(box, stems, j), box["y"] + box["height"] / 2)
        framed = root.evaluate(
            """root => [...root.querySelectorAll(
                '[data-matrix="mask"] .explorable-column')]
                .filter(c => !c.hidden && !c.parentElement.hidden)
                .map(c => Number(c.dataset.j))"""
        )
        assert set(framed) == {j} and len(framed) == 10 + 1, (j, framed)
        weights = root.locator('[data-matrix="weights"] td.explorable-column')
        assert weights.count() == 3 and weights.first.get_attribute("data-i") == str(j)
        slots = [r for r, p, _, framed in root.evaluate(SLOTS) if framed]
        assert slots == [list(held).index(j)], (j, slots)
        assert f'data-band="{j - 0.5} {j + 0.5}"' in svg(page, "window_sinks", "sinks")
    root.locator("select[data-size]").first.hover()
    assert root.locator('[data-matrix="mask"] .explorable-column').count() == 0
    assert "data-band" not in svg(page, "window_sinks", "sinks")
    assert not watch.problems(), watch.problems()


#: The figures redrawn for issue 40 whose pages no sample's axe run loads.
AXE_FIGURES = [
    ("sliding-window", "window_sinks"),
    ("attention-maps", "attention_maps"),
    ("efficient-attention", "online"),
    ("multi-head", "heads"),
    ("kv-cache", "kv_cache"),
    ("positional-encoding", "rope"),
]


#: Each figure at both widths in both schemes. make test checks one of the
#: four per figure, a different width and scheme for each (some 3 s an axe
#: run); the exhaustive tier checks the other three.
AXE_VIEWS = [(1280, "default"), (390, "slate"), (390, "default"), (1280, "slate")]


def _axe_cases() -> list:
    return [
        pytest.param(
            path,
            name,
            width,
            scheme,
            marks=() if view == index % len(AXE_VIEWS) else pytest.mark.exhaustive,
            id=f"{name}-{width}-{scheme}",
        )
        for index, (path, name) in enumerate(AXE_FIGURES)
        for view, (width, scheme) in enumerate(AXE_VIEWS)
    ]


@pytest.mark.parametrize(("path", "name", "width", "scheme"), _axe_cases())
def test_the_figure_passes_axe_in_both_schemes_and_widths(
    load, path, name, width, scheme
) -> None:
    """axe-core on the figure alone: 1280 and 390 px, light and slate."""
    page, watch, _ = load(path, name)
    page.set_viewport_size({"width": width, "height": 900})
    page.evaluate("s => document.body.setAttribute('data-md-color-scheme', s)", scheme)
    start_axe(page, context=f'.explorable[data-explorable="{name}"]')
    problems = report(f"{path} {width} px {scheme}", axe_violations(page))
    assert not problems, "axe-core violations:\n" + "\n".join(problems)
    assert not watch.problems(), watch.problems()
