"""The names of the boxes that scroll sideways (stages/book.py, scroll_names).

A display formula, a code block or a table wider than a phone's column
scrolls in its own box; scrollable.js makes such a box focusable and names
it with the word the build wrote (tests/browser/checks.py,
UNREACHABLE_BOXES, checks the page).
"""

from __future__ import annotations

import pytest

from attention_book.stages.book import scroll_names

PAGE = (
    '<div class="arithmatex"><span class="katex-display">…</span></div>'
    '<div class="language-pycon highlight"><pre><span></span><code>'
    '<span class="gp">&gt;&gt;&gt; </span>1</code></pre></div>'
    "<table>\n<thead><tr><th>a</th></tr></thead></table>"
    '<span class="arithmatex">x</span><p><code>inline</code></p>'
    '<table class="explorable-matrix"><tr><td>1</td></tr></table>'
)


@pytest.mark.parametrize(
    ("language", "math", "code", "table"),
    [
        ("ja", "数式", "コード", "表"),
        ("zh-Hant", "公式", "程式碼", "表格"),
        ("zh-Hans", "公式", "代码", "表格"),
    ],
)
def test_each_box_that_can_scroll_is_named(language, math, code, table) -> None:
    named = scroll_names(PAGE, language)
    assert f'<div class="arithmatex" data-book-scroll="{math}">' in named
    assert f'<pre><span></span><code data-book-scroll="{code}">' in named
    assert f'<table data-book-scroll="{table}">' in named
    # Inline formulas and code, and a figure's own tables, never scroll so.
    assert named.count("data-book-scroll") == 3
