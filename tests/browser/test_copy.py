"""The copy button of a code block gives code that runs.

Material's ``content.code.copy`` copies a block's text while
``[data-md-copying]`` is set; ``book.css`` then hides Pygments' prompts
(``>>>``, ``...``) and every line of output (tracebacks included), as
sphinx-copybutton does. The tests click the button in Chromium and read the
clipboard: every block of one edition copies exactly what
``tests/site/test_copy_paste.py`` works out from the built HTML (which runs
every copy of every edition as a script and pasted into Python's prompt),
and a few named examples run from the clipboard itself. The button sits
above the code and covers none of it.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor

import pytest

from ..copying import EXCEPTION_LINE, paste_into_prompt, shown_exceptions
from ..site.helpers import ROOT
from .checks import (
    ALL_BLOCKS,
    CLIPBOARD,
    COPY_BUTTON,
    Copied,
    check_pycon_copy,
    copy_block,
)


def run(code: str) -> subprocess.CompletedProcess:
    """Run ``code`` with the project's Python from the repository root."""
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


class Runner:
    """Runs copied code, two snippets at a time and each distinct one once."""

    def __init__(self, pool: ThreadPoolExecutor) -> None:
        self.pool = pool
        self.runs: dict[str, Future] = {}

    def submit(self, code: str) -> None:
        if code not in self.runs:
            self.runs[code] = self.pool.submit(run, code)

    def check(self, snippets: dict[str, tuple[str, str | None]]) -> None:
        """Assert each snippet (code -> where, expected exception) runs."""
        for code in snippets:
            self.submit(code)
        check_results({code: self.runs[code].result() for code in snippets}, snippets)


@pytest.fixture(scope="module")
def runner() -> Iterator[Runner]:
    with ThreadPoolExecutor(max_workers=2) as pool:
        yield Runner(pool)


def check_results(
    results: dict[str, subprocess.CompletedProcess],
    snippets: dict[str, tuple[str, str | None]],
) -> None:
    failures = []
    for code, result in results.items():
        where, raises = snippets[code]
        if raises is None:
            if result.returncode != 0:
                failures.append(
                    f"{where}: exit {result.returncode}\n{result.stderr[-2000:]}"
                )
            continue
        last = (result.stderr.strip().splitlines() or [""])[-1]
        match = EXCEPTION_LINE.match(last)
        if result.returncode == 0 or not match or match["name"] != raises:
            failures.append(
                f"{where}: should raise {raises}, as its traceback shows; got "
                f"exit {result.returncode}: {last}"
            )
    assert not failures, "copied code does not run:\n\n" + "\n\n".join(failures)


@pytest.mark.parametrize(
    ("path", "marker", "fragment"),
    [
        (  # continuation lines keep their indentation
            "ja/scaled-dot-product/",
            "# V u = 0",
            "with np.printoptions(precision=3, suppress=True):\n    print(",
        ),
        (  # a blank line ends the block; hidden output leaves no line
            "zh-Hant/masks/",
            "# exp(-inf) / sum exp(-inf) = 0 / 0",
            'with np.errstate(invalid="ignore"):\n'
            "    e = np.exp(s - s.max(axis=1, keepdims=True))\n"
            "    naive = e / e.sum(axis=1, keepdims=True)\n\n"
            "print(np.round(naive, 3))\n\n# A_2j = 0, z_2 = 0",
        ),
        (  # a traceback is output too, its "  ..." line included
            "zh-Hant/package/",
            "# d_k: 4 != 5",
            "attention_weights(q, np.ones((3, 5)))  # d_k: 4 != 5\n\n#",
        ),
    ],
    ids=["continuation", "blank-line", "traceback"],
)
def test_copied_example(open_page, runner, path, marker, fragment):
    """Named examples copy as their code, with the lines that matter, and run."""
    page, _ = open_page(path, **CLIPBOARD)
    block = page.locator("div.language-pycon.highlight").filter(has_text=marker)
    assert block.count() == 1, f"{path}: not one block with {marker!r}"
    item = Copied(
        f"{path} {marker}",
        "pycon",
        block.locator("code").text_content(),
        copy_block(page, block, 0),
    )
    assert "\n... " in item.displayed or "Traceback" in item.displayed
    expected = check_pycon_copy(item)  # hidden output leaves no line behind
    assert fragment in item.copied, f"{item.where}:\n{item.copied}"
    runner.check({expected.code: (item.where, expected.raises)})
    pasted = paste_into_prompt(item.copied)
    assert [type(error).__name__ for error in pasted.errors] == shown_exceptions(
        item.displayed
    ), f"{item.where}: pasted into the prompt: {pasted.errors}"


def test_copy_of_plot_script(open_page):
    """The plot script in a closed ``??? example`` copies unchanged and runs."""
    page, _ = open_page("zh-Hant/self-attention/", **CLIPBOARD)
    block = page.locator("details div.language-python.highlight")
    assert block.count() == 1
    assert not block.is_visible(), "the example should start closed"
    page.locator("details:has(div.language-python) > summary").click()
    assert block.is_visible()
    copied = copy_block(page, block, 0)
    script = ROOT / "docs_src" / "plots" / "self_attention_heatmap.py"
    assert copied.strip("\n") == script.read_text(encoding="utf-8").strip("\n")
    result = run(copied)
    assert result.returncode == 0, result.stderr
    assert "<svg" in result.stdout
    pasted = paste_into_prompt(copied)  # __name__ is "__main__" there too
    assert pasted.errors == [], pasted.errors
    assert "<svg" in pasted.stdout


#: For each code block: the copy button's rectangle, every rectangle of text
#: that can be seen in the block (inside its scrolling box), and whether the
#: first line runs on past the button's left edge, as long lines do.
COVERED_TEXT = """(blocks) => blocks.map(block => {
    const code = block.querySelector("pre > code");
    const button = block.querySelector("button.md-code__button[data-md-type=copy]");
    if (!button || !code.getClientRects().length) return null;  // closed <details>
    const b = button.getBoundingClientRect();
    const box = code.getBoundingClientRect();
    const overlaps = (r, s) =>
        r.right > s.left && r.left < s.right && r.bottom > s.top && r.top < s.bottom;
    const covered = [];
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    for (let node; (node = walker.nextNode()); ) {
        if (!node.textContent.trim()) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        for (const r of range.getClientRects())
            if (overlaps(r, box) && overlaps(r, b)) covered.push(node.textContent);
    }
    const first = code.querySelector(":scope > span").getBoundingClientRect();
    return {covered, long: code.scrollWidth > code.clientWidth && first.right > b.left};
})"""


@pytest.mark.parametrize(
    ("path", "width"),
    [
        ("ja/masks/", 390),
        pytest.param("zh-Hant/multi-head/", 390, marks=pytest.mark.exhaustive),
        pytest.param("zh-Hans/masks/", 1280, marks=pytest.mark.exhaustive),
    ],
)
def test_copy_button_covers_no_code(open_page, path, width):
    """The copy button sits above the code: no text of any line runs under
    it, with the code scrolled to either end. First lines long enough to be
    covered are there (an example's imports), most of all at 390 px."""
    page, _ = open_page(path, viewport={"width": width, "height": 800})
    page.locator(COPY_BUTTON).first.wait_for(state="attached")  # added by Material
    blocks = page.locator(ALL_BLOCKS)
    for scroll in ("0", "code.scrollWidth"):
        page.eval_on_selector_all(
            f"{ALL_BLOCKS} pre > code",
            f"codes => codes.forEach(code => {{ code.scrollLeft = {scroll}; }})",
        )
        found = [info for info in blocks.evaluate_all(COVERED_TEXT) if info]
        assert len(found) >= 5, f"{path}: only {len(found)} blocks with a button"
        if scroll == "0":
            assert any(info["long"] for info in found), (
                f"{path}: no first line reaches the button, nothing is tested"
            )
        covered = [info["covered"] for info in found if info["covered"]]
        assert not covered, f"{path} at {width} px, scrollLeft={scroll}: {covered}"
