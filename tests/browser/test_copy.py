"""The copy button of a code block gives code that runs.

Material's ``content.code.copy`` copies a block's text while
``[data-md-copying]`` is set; ``book.css`` then hides Pygments' prompts
(``>>>``, ``...``) and every line of output (tracebacks included), as
sphinx-copybutton does. The tests click the button in Chromium, read the
clipboard, and run what it holds with the project's Python.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from ..site.helpers import ROOT, parse

COPY_BUTTON = "button.md-code__button[data-md-type='copy']"
CLIPBOARD = {"permissions": ["clipboard-read", "clipboard-write"]}
PROMPT = re.compile(r"^(>>>|\.\.\.)( |$)")
TRACEBACK = "Traceback (most recent call last):"
EXCEPTION_LINE = re.compile(r"^(?P<name>[A-Za-z_][\w.]*)(:|$)")
BLOCKS = "div.language-pycon.highlight, div.language-python.highlight"


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


def pages_with_code(site: Path, pages: list[Path]) -> list[str]:
    """Site-relative URLs of the pages that show a pycon or python block."""
    return [
        page.relative_to(site).as_posix().removesuffix("index.html")
        for page in pages
        if parse(page).select(BLOCKS)
    ]


def copy_block(page, block, number: int) -> str:
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
            button.scrollIntoView({block: "center"});
            const box = button.getBoundingClientRect();
            return [box.x + box.width / 2, box.y + box.height / 2];
        }""",
        [before, COPY_BUTTON],
    )
    page.mouse.click(x, y)
    copied = page.wait_for_function(
        """async before => {
            const text = await navigator.clipboard.readText();
            return text !== before && {text};
        }""",
        arg=before,
    )
    return copied.json_value()["text"]


@dataclass
class Copied:
    where: str  # page and block, for messages
    kind: str  # "pycon" or "python"
    displayed: str
    copied: str


def copy_every_block(page, base_url: str, paths: list[str]) -> Iterator[Copied]:
    """Copy every pycon and python block of the pages, in the open page."""
    number = 0
    for path in paths:
        if page.url != base_url + path:
            page.goto(base_url + path, wait_until="domcontentloaded")
        found = page.eval_on_selector_all(
            BLOCKS,
            """blocks => blocks.map(block => ({
                pycon: block.classList.contains("language-pycon"),
                displayed: block.querySelector("code").textContent,
            }))""",
        )
        for index, info in enumerate(found):
            block = page.locator(BLOCKS).nth(index)
            text = copy_block(page, block, number)
            number += 1
            name = f"block {index + 1}"
            kind = "pycon" if info["pycon"] else "python"
            yield Copied(f"{path} {name}", kind, info["displayed"], text)


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


def test_every_copied_block_runs(open_page, base_url, site, pages, runner):
    """Every code block of every page: the copy is the code, and it runs.

    One language: both show the same examples (docs_src/) with the same
    highlighting and style; the tests below copy in the other one too.
    """
    paths = pages_with_code(site, pages["ja"])
    page, _ = open_page(paths[0], **CLIPBOARD)
    kinds = set()
    snippets: dict[str, tuple[str, str | None]] = {}
    for item in copy_every_block(page, base_url, paths):
        kinds.add(item.kind)
        if item.kind == "pycon":
            expected = check_pycon_copy(item)
            snippets.setdefault(expected.code, (item.where, expected.raises))
            runner.submit(expected.code)  # runs while the next blocks copy
        else:  # a plain python block copies as it is displayed
            assert item.copied.strip("\n") == item.displayed.strip("\n"), (
                f"{item.where}: a python block changed on copying\n{item.copied}"
            )
            snippets.setdefault(item.copied, (item.where, None))
            runner.submit(item.copied)
    assert kinds == {"pycon", "python"}, f"found only {kinds} blocks"
    assert any(raises for _, raises in snippets.values()), (
        "no example with a traceback was copied"
    )
    runner.check(snippets)


@pytest.mark.parametrize(
    ("path", "marker", "fragment"),
    [
        (  # continuation lines keep their indentation
            "ja/scaled-dot-product/",
            "# d_v = 5",
            "with np.printoptions(precision=4, suppress=True):\n    print(",
        ),
        (  # an output hidden before a blank line leaves one blank line
            "zh-Hant/masks/",
            "# the naive computation",
            'with np.errstate(invalid="ignore"):\n'
            "    e = np.exp(s - s.max(axis=1, keepdims=True))\n"
            "    naive = e / e.sum(axis=1, keepdims=True)\n"
            "print(np.round(naive, 3))\n\n# the book's convention",
        ),
        (  # a traceback is output too, its "  ..." line included
            "zh-Hant/package/",
            "# d_k differs",
            "attention_weights(q, np.ones((3, 5)))  # d_k differs\n\n#",
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
    expected = check_pycon_copy(item)
    assert fragment in item.copied, f"{item.where}:\n{item.copied}"
    assert "\n\n\n" not in item.copied, f"{item.where}: hidden output left gaps"
    runner.check({expected.code: (item.where, expected.raises)})


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
