"""The book's numbers (attention_book.numbering, stages/numbering.py), on
small pages: chapters from the navigation, sections, equations and links.
The built book is checked in tests/site/test_numbering.py."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError
from mkdocs.utils.yaml import yaml_load

from attention_book import numbering
from attention_book.editions import LANGUAGES
from attention_book.stages import numbering as stage

from .test_plots import PAIR, ROOT


def test_chapters_follow_the_navigation_front_and_back_matter_unnumbered() -> None:
    nav = [
        "index.md",
        {"Part": ["a.md", {"Title": "b.md"}]},
        {"End": ["summary.md", "package.md", "glossary.md", "about.md"]},
    ]
    assert numbering.chapter_numbers(numbering.nav_pages(nav)) == {
        "index.md": None,
        "a.md": "1",
        "b.md": "2",
        "summary.md": "3",
        "package.md": "A",
        "glossary.md": None,
        "about.md": None,
    }


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_edition_numbers_the_same_pages(language) -> None:
    with (ROOT / LANGUAGES[language]).open("rb") as source:
        pages = numbering.nav_pages(yaml_load(source)["nav"])
    numbers = numbering.chapter_numbers(pages)
    assert numbers["scaled-dot-product.md"] == "6"
    assert numbers["package.md"] == "A"
    assert numbers["object-view.md"] == "B"
    assert numbers["loss-differences.md"] == "C"
    assert [p for p, n in numbers.items() if n is None] == sorted(
        numbering.UNNUMBERED, key=pages.index
    )


def test_headings_are_numbered_outside_code_and_keep_their_anchors() -> None:
    page = "\n".join(
        [
            "# 題 { #title }",
            "## 定義 { #definition }",
            "```python",
            "# a comment",
            "## not a heading",
            "```",
            "### 1. 練習 { #exercise }",
            "## 練習問題 { #exercises }",
        ]
    )
    assert numbering.number_headings(page, "6", "ja").split("\n") == [
        "# 6 題 { #title }",
        "## 6.1 定義 { #definition }",
        "```python",
        "# a comment",
        "## not a heading",
        "```",
        "### 1. 練習 { #exercise }",
        "## 6.2 練習問題 { #exercises }",
    ]
    assert numbering.number_headings("# 题", "A", "zh-Hans") == "# 附录 A 题"


def build(pages: dict[str, str], language: str = "ja", appendices=()):
    """Runs the stage's steps on ``pages`` (name -> Markdown), as the plugin
    does: the catalogue of every page first, then each page. ``appendices``:
    pages numbered as appendices, as package.md is in the book."""
    numbering.CATALOGUE[language] = {}
    chapters = numbering.chapter_numbers(
        [numbering.APPENDICES[0] if p in appendices else p for p in pages]
    )
    chapters = {
        page: chapters[numbering.APPENDICES[0] if page in appendices else page]
        for page in pages
    }
    for name, markdown in pages.items():
        numbers, tags = numbering.page_numbers(markdown, chapters[name], language, name)
        numbering.CATALOGUE[language][name] = {
            "chapter": chapters[name],
            "numbers": numbers,
            "tags": tags,
            "titles": numbering.section_titles(markdown),
            "sections": numbering.section_numbers(markdown, chapters[name]),
            "title": numbering.page_title(markdown),
        }
    config = SimpleNamespace(theme={"language": language})
    out = {}
    for name, markdown in pages.items():
        page = SimpleNamespace(file=SimpleNamespace(src_uri=name))
        markdown = stage.on_page_markdown(markdown, page, config, None)
        out[name] = stage.anchor_equations(markdown, page, config, None)
    del numbering.CATALOGUE[language]
    return out


EQUATION = "\\[\nQ K^\\top\n\\label{eq-scores}\n\\]"


@pytest.mark.parametrize(
    ("language", "cited"), [("ja", "式 (2.1)"), ("zh-Hant", "式（2.1）")]
)
def test_equations_are_tagged_and_cited_across_pages(language, cited) -> None:
    pages = {
        "index.md": "# Home\n\nSee [](b.md#eq-scores) and [](b.md#fig-weights-bar).",
        "a.md": "# A",
        "b.md": f"# B\n\n{EQUATION}\n\n{PAIR}\n\nAs [](#eq-scores) says.",
    }
    built = build(pages, language)
    figure = {"ja": "図", "zh-Hant": "圖"}[language]
    assert (
        f"See [{cited}](b.md#eq-scores) and [{figure} 2.1](b.md#fig-weights-bar)."
        in built["index.md"]
    )
    assert f"As [{cited}](#eq-scores) says." in built["b.md"]
    assert (
        '<div class="book-equation" id="eq-scores" markdown="block">\n'
        "\\[\nQ K^\\top\n\\tag{2.1}\n\\]\n</div>"
    ) in built["b.md"]


@pytest.mark.parametrize(
    ("language", "cited"),
    [("ja", "2.2 節"), ("zh-Hant", "2.2 節"), ("zh-Hans", "2.2 节")],
)
def test_a_section_is_cited_by_its_number_alone(language, cited) -> None:
    """A link with no text to a numbered section reads "2.2 節", on its own
    page and from another one; code keeps the link as it is."""
    pages = {
        "index.md": "# Home",
        "a.md": "# A\n\nSee ([](b.md#second)); `[](b.md#second)`.",
        "b.md": "# B\n\n## One { #first }\n\n## Two { #second }\n\n([](#first))",
    }
    built = build(pages, language)
    assert f"See ([{cited}](b.md#second)); `[](b.md#second)`." in built["a.md"]
    first = cited.replace("2.2", "2.1")
    assert f"([{first}](#first))" in built["b.md"]


def test_a_section_number_after_a_word_is_set_apart_by_a_space() -> None:
    """A link "は[](#id)" reads "は 1.1 節", as the text sets 第 12 章; after a
    bracket or punctuation ("（1.1 節）", "、1.1 節") no space is added."""
    pages = {
        "index.md": "# Home",
        "b.md": "# B\n\n## One { #first }\n\n"
        "論文と[](#first)に、（[](#first)）、[](#first)も。\n\n見 [](#first)。",
    }
    built = build(pages)
    assert (
        "論文と [1.1 節](#first)に、（[1.1 節](#first)）、[1.1 節](#first)も。"
        "\n\n見 [1.1 節](#first)。"
    ) in built["b.md"]


def test_a_citation_is_not_quoted_as_a_section_title() -> None:
    """A link to a work on the references page names the work (Kudo, 2018),
    not a section: textbooks do not quote it. A section of another page,
    linked the same way, is quoted."""
    pages = {
        "a.md": "# A\n\n## 部分 { #part }",
        "b.md": "# B\n\nBPE（[Kudo, 2018](references.md#kudo-2018)）"
        "と[部分](a.md#part)の話。",
        "references.md": "# 文献\n\n### Kudo, 2018 { #kudo-2018 }\n\n"
        "[Kudo, 2018](#kudo-2018)も。",
    }
    built = build(pages)
    assert (
        "BPE（[Kudo, 2018](references.md#kudo-2018)）と「[1.1 部分](a.md#part)」の話。"
        in built["b.md"]
    )
    assert "[Kudo, 2018](#kudo-2018)も。" in built["references.md"]
    assert "「" not in built["references.md"]


@pytest.mark.parametrize(
    ("pages", "message"),
    [
        ({"a.md": "See [](b.md#eq-nothing).", "b.md": EQUATION}, "links to nothing"),
        ({"a.md": "See [](#eq-scores)."}, "links to nothing"),
        ({"a.md": f"{EQUATION}\n\n{EQUATION}"}, "two equations"),
        ({"a.md": "Text \\label{eq-x}."}, "inside"),
        ({"a.md": "# A\n\n### Ex { #ex }\n\n[](#ex)"}, "no numbered section"),
        ({"a.md": "See [](b.md#gone).", "b.md": "# B"}, "no numbered section"),
    ],
)
def test_a_wrong_label_or_citation_fails_the_build(pages, message) -> None:
    with pytest.raises(PluginError, match=message):
        build(pages)


def test_a_section_title_in_a_sentence_is_cited_with_its_number() -> None:
    """A link whose text is its heading's title reads as the heading does,
    with the section's number, between the edition's quotation marks where a
    sentence runs on around it; a list item alone and a table cell are
    numbered, not quoted. A title that is a glossary term is a citation only
    alone in parentheses or before の節/一節; used as a word in a sentence, it
    stays a word. Other links and code stay as they are."""
    page = (
        "## ヘッドを消す { #ablation }\n\n"
        "[ヘッドを消す](#ablation)の表と[直前トークン](tokens.md#prev)を見ます。\n"
        "「[ヘッドを消す](#ablation)」の節はすでに括弧の中です。\n"
        "この[表](#ablation)は別の言葉です。\n"
        "[練習](#ex)の答え。\n"
        "[因果マスク](masks.md#causal)を使うと、（[因果マスク](masks.md#causal)）"
        "と[因果マスク](masks.md#causal)の節。\n"
        "- [ヘッドを消す](#ablation)\n"
        "| [ヘッドを消す](#ablation) | [練習](#ex)、[表](#ablation)、[章](maps.md) |\n"
        "```\n[ヘッドを消す](#ablation)の表\n```"
    )
    sections = {
        (None, "ablation"): ("ヘッドを消す", "18.3", False),
        ("tokens.md", "prev"): ("直前トークン", "1.2", False),
        (None, "ex"): ("練習", None, False),
        ("masks.md", "causal"): ("因果マスク", "7.3", True),
        ("maps.md", None): ("章", "18", False),
    }
    quoted = numbering.quote_section_titles(
        page, lambda target, name: sections.get((target, name)), "ja"
    )
    assert quoted.split("\n")[2:] == [
        "「[18.3 ヘッドを消す](#ablation)」の表と「[1.2 直前トークン](tokens.md#prev)」"
        "を見ます。",
        "「[ヘッドを消す](#ablation)」の節はすでに括弧の中です。",
        "この[表](#ablation)は別の言葉です。",
        "「[練習](#ex)」の答え。",
        "[因果マスク](masks.md#causal)を使うと、"
        "（「[7.3 因果マスク](masks.md#causal)」）"
        "と「[7.3 因果マスク](masks.md#causal)」の節。",
        "- [18.3 ヘッドを消す](#ablation)",
        "| [18.3 ヘッドを消す](#ablation) | [練習](#ex)、[表](#ablation)、"
        "[18 章](maps.md) |",
        "```",
        "[ヘッドを消す](#ablation)の表",
        "```",
    ]
    simplified = numbering.quote_section_titles(
        "见[定义](#d)一节。", lambda target, name: ("定义", "6.1", True), "zh-Hans"
    )
    assert simplified == "见“[6.1 定义](#d)”一节。"
    nested = numbering.quote_section_titles(
        "見 [權重是「解釋」嗎](#e) 一節，[權重是「解釋」嗎](#e)。",
        lambda target, name: ("權重是「解釋」嗎", "20.3", False),
        "zh-Hant",
    )
    assert (
        nested
        == "見「[20.3 權重是『解釋』嗎](#e)」一節，「[20.3 權重是『解釋』嗎](#e)」。"
    )
    assert numbering.section_numbers(page, "18") == {"ablation": "18.1"}
    assert numbering.section_numbers(page, None) == {}
    assert numbering.section_titles(page) == {"ablation": "ヘッドを消す"}
    assert numbering.page_title("# 6 題 { #title }\n## 節") == "6 題"


@pytest.mark.parametrize(
    ("language", "text", "cited"),
    [
        (
            "ja",
            "[B 章](b.md)のページで見た[B 章](b.md)は[B 章](b.md)と同じ。",
            "[第 2 章「B 章」](b.md)で見た[B 章](b.md)は[B 章](b.md)と同じ。",
        ),
        ("zh-Hant", "見 [B 章](b.md)一章的例子。", "見[第 2 章「B 章」](b.md)的例子。"),
        ("zh-Hans", "见[B 章](b.md)一页的例子。", "见[第 2 章“B 章”](b.md)的例子。"),
        ("ja", "- **[B 章](b.md)**：説明。", "- **[2 B 章](b.md)**：説明。"),
        ("ja", "- [B 章](b.md)：説明。", "- [2 B 章](b.md)：説明。"),
        ("zh-Hant", "> - [B 章](b.md)：說明。", "> - [2 B 章](b.md)：說明。"),
        ("ja", "2. **[B 章](b.md)**：説明。", "2. **[B 章](b.md)**：説明。"),
        (
            "ja",
            "[付録](c.md)のページと[前書き](index.md)のページ。",
            "[付録 A「付録」](c.md)と[前書き](index.md)のページ。",
        ),
    ],
)
def test_a_chapter_is_cited_by_its_number(language, text, cited) -> None:
    """A link to a whole page whose text is the page's title cites the
    chapter by number where the sentence says it is a chapter or a page (and
    that word goes), and a list of chapters numbers each as the contents do;
    an unnumbered page, and a title used as a word, stay as they are."""
    pages = {
        "index.md": "# 前書き",
        "a.md": f"# A\n\n{text}",
        "b.md": "# B 章",
        "c.md": "# 付録",
    }
    built = build(pages, language, appendices=("c.md",))
    assert built["a.md"].split("\n")[-1] == cited


@pytest.mark.parametrize("language", ["ja", "zh-Hant"])
def test_the_package_page_labels_each_section_with_its_heading(language) -> None:
    """The package page's "explained in" column links to sections by their
    headings' titles, which the build then numbers (1.1 文字をトークンにする):
    a label that no longer reads as its heading would be left unnumbered."""
    docs = ROOT / "docs" / language
    link = re.compile(
        r"\[(?P<text>[^\[\]]+)\]\((?P<page>[\w-]+\.md)(?:#(?P<id>[\w-]+))?\)"
    )
    stale = []
    for line in (docs / "package.md").read_text(encoding="utf-8").split("\n"):
        if not line.startswith("|"):
            continue
        for match in link.finditer(line):
            markdown = (docs / match["page"]).read_text(encoding="utf-8")
            if match["id"] is None:
                title = numbering.page_title(markdown)
            else:
                title = numbering.section_titles(markdown).get(match["id"])
            if title != match["text"]:
                stale.append(f"{match[0]} (heading: {title})")
    assert not stale, "\n".join(stale)
