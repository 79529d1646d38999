"""Long chapters stay usable on a slow phone.

A long chapter holds 16 000 to 25 000 elements (KaTeX's spans, Pygments'
tokens), and Material's script restyles and lays out the whole page several
times while it starts; on a phone with a 4x slower CPU that kept the page
busy 5 to 9 s after its text had appeared. The book's stylesheet lets the
browser skip the blocks off screen (``content-visibility: auto``) until the
reader scrolls near them. This checks that the rule is there, covers the
blocks that hold most of a chapter's elements, spares what must keep its
real size (a display formula's scrolling box; the blocks of the first
screen; the blocks just before a link target), and stays off paper.
``scripts/bench.py`` measures the effect (``make bench``, "slow phone").
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CSS = ROOT / "overrides" / "assets" / "stylesheets" / "book.css"

#: The blocks most of a long chapter's elements are in: paragraphs (inline
#: maths) and code listings.
BLOCKS = ("p", ".highlight > pre")

#: The most blocks (children of the article) any page shows on its first
#: screen, at 390 x 844 up to 1920 x 1200 (measured 2026-11-27: 14).
FIRST_SCREEN = 20


def without_comments(css: str) -> str:
    return re.sub(r"/\*.*?\*/", "", css, flags=re.DOTALL)


def at_rule_body(css: str, start: int) -> str:
    """The text between the braces of the at-rule whose ``{`` is at ``start``."""
    depth = 0
    for i in range(start, len(css)):
        depth += {"{": 1, "}": -1}.get(css[i], 0)
        if depth == 0:
            return css[start + 1 : i]
    raise AssertionError("book.css: unbalanced braces")


def selector_list(selectors: str) -> list[str]:
    """The selectors of a list, split at the commas outside parentheses."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(selectors):
        depth += {"(": 1, ")": -1}.get(c, 0)
        if c == "," and depth == 0:
            parts.append(selectors[start:i].strip())
            start = i + 1
    return [*parts, selectors[start:].strip()]


def screen_rules(css: str) -> list[tuple[str, str]]:
    """(selectors, declarations) of every rule inside ``@media screen``."""
    rules = []
    for media in re.finditer(r"@media\s+screen\s*\{", css):
        body = at_rule_body(css, media.end() - 1)
        rules += re.findall(r"([^{}]+)\{([^{}]*)\}", body)
    return rules


def test_blocks_off_screen_are_skipped_until_needed() -> None:
    css = without_comments(CSS.read_text(encoding="utf-8"))
    lazy = [
        " ".join(selectors.split())
        for selectors, declarations in screen_rules(css)
        if re.search(r"content-visibility\s*:\s*auto", declarations)
    ]
    assert lazy, "book.css: no content-visibility: auto inside @media screen"
    covered = " , ".join(lazy)
    for block in BLOCKS:
        assert block in covered, f"book.css: {block} is not skipped off screen"
    # A wide formula's box is measured (scrollable.js makes it focusable):
    # skipped, it would measure as its placeholder.
    assert "arithmatex" not in covered
    for selectors in lazy:
        for selector in selector_list(selectors):
            # The blocks just before a link target (#id) keep their real
            # height, or the target slides down the screen once they get it.
            assert ":has(+ [id], + * + [id])" in selector, selector
            # So do the first screen's blocks, or its text moves once the
            # browser, which painted them at their estimated height, gives
            # them their real one (test_pages.py measures the shift).
            spared = re.search(r":nth-child\(n \+ (\d+)\)", selector)
            assert spared and int(spared[1]) > FIRST_SCREEN, selector
    # Each skipped block keeps its last rendered height (auto), so that
    # scrolling back up does not move the text.
    sizes = [
        declarations
        for _, declarations in screen_rules(css)
        if "contain-intrinsic-size" in declarations
    ]
    assert sizes and all(
        re.search(r"contain-intrinsic-size\s*:\s*auto\s", d) for d in sizes
    )


def test_print_lays_out_every_block() -> None:
    """Only the screen skips blocks: a rule outside ``@media screen`` would
    reach print (the PDFs) too."""
    css = without_comments(CSS.read_text(encoding="utf-8"))
    outside = css
    for media in reversed(list(re.finditer(r"@media\s+screen\s*\{", css))):
        body = at_rule_body(css, media.end() - 1)
        outside = outside.replace(body, "")
    assert "content-visibility" not in outside


def test_the_first_screen_is_read_before_it_is_painted() -> None:
    """stages/book.py puts a hidden marker before the article's first block
    that book.css may skip, and asks the browser (rel=expect) to read up to
    it before it paints: the first screen is never painted half read."""
    from attention_book.stages import book

    css = without_comments(CSS.read_text(encoding="utf-8"))
    spared = {int(n) - 1 for n in re.findall(r":nth-child\(n \+ (\d+)\)", css)}
    assert spared == {book.FIRST_SCREEN_BLOCKS}
    marker = f'<span id="{book.FIRST_SCREEN_ID}" hidden></span>'
    link = f'<link rel="expect" href="#{book.FIRST_SCREEN_ID}" blocking="render">'

    def page(blocks: int) -> str:
        # Blocks with void elements, nested blocks, self-closing SVG and a
        # script whose text holds tags, as the book's pages have them.
        body = "".join(
            f'<div class="b{i}"><p>{i}<br>x<img src="a.png"></p>'
            f'<svg><path d="M0 0"/></svg><script>"<p>"</script></div>\n'
            for i in range(blocks)
        )
        return (
            "<html><head><title>t</title></head><body><main>\n"
            f'<article class="md-content__inner md-typeset">\n{body}</article>\n'
            "<footer><p>after</p></footer></main></body></html>"
        )

    long = book.first_screen_marker(page(30))
    assert long.count(marker) == 1 and long.count(link) == 1
    assert f'{marker}<div class="b{book.FIRST_SCREEN_BLOCKS}">' in long
    assert long.index(link) < long.index("</head>")
    assert long.replace(marker, "").replace(link, "") == page(30)
    short = page(book.FIRST_SCREEN_BLOCKS)
    assert book.first_screen_marker(short) == short


# Material's palette stylesheet (stages/book.py, palette_css): the rule that
# turns transitions off while the scheme changes depends on an attribute
# Material's script also sets as every page starts, which restyles the whole
# page twice. The build keys it on the book's own attribute.
MATERIAL_PALETTE = (
    ".md-x{color:red}[data-md-color-switching] *,[data-md-color-switching] :after,"
    "[data-md-color-switching] :before{transition-duration:0s!important}.md-y{}"
)


def test_palette_switching_rule_is_keyed_on_the_books_attribute() -> None:
    from attention_book.stages.book import palette_css

    css = palette_css(MATERIAL_PALETTE)
    assert "data-md-color-switching" not in css
    assert (
        "[data-book-color-switching] *,[data-book-color-switching] :after,"
        "[data-book-color-switching] :before{transition-duration:0s!important}"
    ) in css
    assert css.startswith(".md-x{color:red}") and css.endswith(".md-y{}")


@pytest.mark.parametrize(
    "css",
    [
        ".md-x{color:red}",  # no such rule: a new Material
        MATERIAL_PALETTE + "[data-md-color-switching] .md-z{color:blue}",
    ],
)
def test_palette_css_refuses_a_stylesheet_it_does_not_know(css) -> None:
    from mkdocs.exceptions import PluginError

    from attention_book.stages.book import palette_css

    with pytest.raises(PluginError, match="data-md-color-switching"):
        palette_css(css)
