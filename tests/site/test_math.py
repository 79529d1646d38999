"""Maths typeset while the book is built (stages/katex.py).

Every formula reaches the reader as MathML (KaTeX's, rewritten for MathML
Core), in the page itself, drawn by the browser in STIX Two Math: no page
loads KaTeX's script or stylesheet, no TeX delimiter is left in the text,
the search index holds formulas as readable text, and a formula KaTeX cannot
parse stops the build with the page and the formula named.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from bs4 import BeautifulSoup
from mkdocs.exceptions import PluginError
from mkdocs.structure.toc import AnchorLink, TableOfContents

from attention_book.stages import katex

from .helpers import LANGUAGES, ROOT, classes, text_of, tree

#: TeX that a reader must never see outside code.
DELIMITERS = ("\\(", "\\)", "\\[", "\\]", "$$", "\\begin{")
#: TeX commands the book uses; none may reach the search index as markup.
TEX_COMMANDS = re.compile(
    r"\\(?:frac|sqrt|mathbf|mathrm|mathcal|top|operatorname|text|begin)\b"
)


def visible_text(article) -> str:
    """The text of ``article`` as a reader sees it: no code, no formula's TeX
    (its MathML annotation, which the browser does not draw)."""
    return text_of(article, "pre, code, annotation, script, style")


def children(element, name: str) -> list:
    """The children of ``element`` of class ``name``."""
    return [child for child in element if name in classes(child)]


@pytest.mark.parametrize("language", LANGUAGES)
def test_pages_carry_no_katex_stylesheet_or_script(pages, language) -> None:
    """The browser draws the MathML: KaTeX's stylesheet and fonts are neither
    linked nor shipped, and no page runs a maths script."""
    for path in pages[language]:
        page = tree(path)
        styles = [link.get("href") for link in page.cssselect("link[rel~=stylesheet]")]
        assert not [s for s in styles if "katex" in s], path
        scripts = [s.get("src", "") + (s.text or "") for s in page.iter("script")]
        offenders = [s[:80] for s in scripts if re.search(r"katex|MathJax", s, re.I)]
        assert not offenders, f"{path}: {offenders}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_formula_is_typeset_in_the_page(pages, language) -> None:
    problems, formulas, split = [], 0, 0
    for path in pages[language]:
        page = tree(path)
        article = page.find(".//article")
        if article is None:
            continue
        for element in page.find_class("arithmatex"):
            formulas += 1
            katex = children(element, "katex") + [
                inner
                for display in children(element, "katex-display")
                for inner in children(display, "katex")
            ]
            text = " ".join(element.text_content().split())[:60]
            if len(katex) != 1:
                problems.append(f"{path}: not typeset: {text!r}")
                continue
            mathml = [
                child
                for child in katex[0]
                if child.tag == "math" and "book-math" in classes(child)
            ]
            tex = katex[0].cssselect(
                'math > semantics > annotation[encoding="application/x-tex"]'
            )
            if not mathml or len(tex) != 1 or len(mathml[0]) != 1:
                problems.append(f"{path}: not one MathML with its TeX: {text!r}")
            elif len(mathml[0][0]) < 2:  # semantics: the maths, then the TeX
                problems.append(f"{path}: MathML without maths: {text!r}")
            elif len(mathml) > 1 and (
                element.tag != "span"
                or katex[0].get("role") != "math"
                or katex[0].get("aria-label") != tex[0].text
                or any(m.get("aria-hidden") != "true" for m in mathml)
                or len(katex[0]) != len(mathml)
            ):
                # An inline formula split where a line may break: one
                # formula for assistive technology, labelled with its TeX.
                problems.append(f"{path}: pieces not one formula: {text!r}")
            if katex[0].find_class("katex-html"):
                problems.append(f"{path}: KaTeX's HTML, not MathML only: {text!r}")
            displayed = {
                element.tag == "div",
                bool(mathml) and mathml[0].get("display") == "block",
                bool(element.find_class("katex-display")),
            }
            if len(displayed) != 1:
                problems.append(f"{path}: display and inline mixed up: {element.tag}")
            split += len(mathml) > 1
        errors = page.cssselect(".katex-error, merror, [mathcolor='#cc0000']")
        if errors or page.find(".//formula-text") is not None:
            problems.append(f"{path}: a KaTeX error or a placeholder is left")
        text = visible_text(article)
        for delimiter in DELIMITERS:
            if delimiter in text:
                at = text.index(delimiter)
                problems.append(f"{path}: raw {delimiter}: …{text[at - 30 : at + 30]}…")
        # A formula that Markdown split before KaTeX saw it (a | in a table
        # cell ends the cell, and \( loses its backslash) leaves a command.
        for command in TEX_COMMANDS.finditer(text):
            at = command.start()
            problems.append(f"{path}: raw {command[0]}: …{text[at - 30 : at + 30]}…")
    assert not problems, "\n".join(problems)
    assert formulas > 250, f"{language}: only {formulas} formulas"
    assert split > 100, f"{language}: only {split} inline formulas split"


def test_formulas_are_the_pages_own(site: Path) -> None:
    """Each typeset formula's TeX (its MathML annotation) is on its page (or,
    in a figure's caption, in labels.yml), the number of a cited equation
    aside (the page labels it, the build tags it: attention_book.numbering)."""
    for page in ("softmax", "scaled-dot-product", "multi-head"):
        source = " ".join((ROOT / "docs" / "ja" / f"{page}.md").read_text().split())
        source = re.sub(r" \\label\{eq-[\w-]+\}", "", source)
        annotations = tree(site / "ja" / page / "index.html").cssselect(
            '.arithmatex annotation[encoding="application/x-tex"]'
        )
        assert len(annotations) > 10, page
        for annotation in annotations:
            if any(a.tag == "figcaption" for a in annotation.iterancestors()):
                continue  # a figure's caption: labels.yml's (tests/site/test_plots.py)
            tex = " ".join("".join(annotation.itertext()).split())
            tex = re.sub(r" \\tag\{[\d.A-Z]+\}", "", tex)
            assert tex in source, tex


@pytest.mark.parametrize("language", LANGUAGES)
def test_search_index_holds_formulas_as_text(site: Path, language) -> None:
    index = json.loads((site / language / "search" / "search_index.json").read_text())
    problems, texts = [], []
    for doc in index["docs"]:
        prose = re.sub(r"<(pre|code)>.*?</\1>", "", doc["text"], flags=re.DOTALL)
        texts.append(prose)
        found = TEX_COMMANDS.search(prose) or re.search(r"\\[(\[]|\$\$", prose)
        if found:
            problems.append(f"{doc['location']}: {found[0]!r}")
    assert not problems, "\n".join(problems)
    # Readable text, once: "√(d_k)", not KaTeX's "dk​d_k" (HTML then MathML).
    everything = " ".join(texts)
    assert "√(d_k)" in everything
    assert not re.search(r"dk\u200b|d_kd_k", everything)


def fake_page(src_uri: str = "softmax.md", toc=()) -> SimpleNamespace:
    return SimpleNamespace(
        file=SimpleNamespace(src_uri=src_uri),
        content=None,
        toc=TableOfContents(list(toc)),
    )


@pytest.fixture
def hook():
    """stages/katex.py, left as a new build finds it (KaTeX's process stopped)."""
    yield katex
    katex.reset()


def test_a_formula_katex_cannot_parse_fails_the_build_naming_it(hook) -> None:
    html = (
        '<p><span class="arithmatex">\\(\\frac{a}{b}\\)</span> and '
        '<span class="arithmatex">\\(\\frac{a}{\\)</span></p>'
    )
    with pytest.raises(PluginError) as caught:
        hook.on_page_content(html, page=fake_page(), config=None, files=None)
    message = str(caught.value)
    assert "softmax.md" in message and "\\\\frac{a}{" in message, message
    assert "\\\\frac{a}{b}" not in message, "only the failing formula is named"


def test_katex_strict_mode_refuses_what_it_would_only_warn_about(hook) -> None:
    html = '<span class="arithmatex">\\(x = 日本\\)</span>'
    with pytest.raises(PluginError, match="unicodeTextInMathMode"):
        hook.on_page_content(html, page=fake_page(), config=None, files=None)


def test_the_page_is_indexed_with_text_then_shows_the_typeset_formula(hook) -> None:
    page = fake_page()
    indexed = hook.on_page_content(
        '<p><span class="arithmatex">\\(\\sqrt{d_k}\\)</span></p>'
        '<div class="arithmatex">\\[QK^\\top\\]</div>',
        page=page,
        config=None,
        files=None,
    )
    # What the search plugin reads: readable text, no KaTeX markup.
    assert "katex" not in indexed
    assert ">√(d_k)<" in indexed and ">QK^⊤<" in indexed, indexed
    page.content = indexed
    hook.on_page_context({}, page=page, config=None, nav=None)
    soup = BeautifulSoup(page.content, "html.parser")
    assert soup.select_one("span.arithmatex > .katex > math.book-math annotation")
    display = soup.select_one("div.arithmatex > .katex-display > .katex")
    assert display.select_one('math.book-math[display="block"]')
    assert display.select_one("annotation").get_text() == "QK^\\top"
    assert "formula-text" not in page.content


def test_a_headings_formula_is_typeset_in_its_table_of_contents_entry(hook) -> None:
    """The toc extension's title holds the heading's TeX (escaped): its
    entry shows the formula typeset, its plain title readable text."""
    entry = AnchorLink("4. 改成除以 \\(\\sqrt{d_{\\text{model}}}\\)", "ex", 3)
    plain = AnchorLink("練習題 &amp; 解答", "exercises", 2)
    plain.children.append(entry)
    page = fake_page(toc=[plain])
    page.content = ""
    hook.on_page_context({}, page=page, config=None, nav=None)
    assert entry.title == "4. 改成除以 √(d_model)"
    typeset = BeautifulSoup(entry.typeset["title"], "html.parser")
    assert typeset.get_text().startswith("4. 改成除以 ")
    assert typeset.select_one(".katex annotation").get_text() == (
        "\\sqrt{d_{\\text{model}}}"
    )
    assert plain.title == "練習題 &amp; 解答" and not hasattr(plain, "typeset")


@pytest.mark.parametrize("language", LANGUAGES)
def test_cut_fonts_keep_every_glyph_the_formulas_use(pages, site: Path, language):
    """The maths fonts, cut to the book's characters, still have all they had
    for them: STIX Two Math for the formulas (with its MATH table, which lays
    out fractions, scripts and stretchy delimiters), KaTeX's calligraphic
    capitals for ``\\mathcal``. Each page preloads the fonts it uses."""
    from fontTools.ttLib import TTFont

    characters, calligraphic, text_letters = set(), set(), set()
    preloaded = set()
    for path in pages[language]:
        page = tree(path)
        for link in page.cssselect("link[rel=preload][as=font]"):
            preloaded.add(link.attrib["href"].rsplit("/math/", 1)[-1])
        for formula in page.cssselect("math.book-math"):
            characters.update(text_of(formula, "annotation", sep=""))
        for letter in page.cssselect("math.book-math mi.book-cal"):
            calligraphic.update(letter.text)
        # The text's mathematical letters (𝐪 in a sentence, 𝒮 in a code
        # comment) are drawn in it too (book.css, "Book Math Letters").
        text_letters.update(re.findall("[\U0001d400-\U0001d7ff]", path.read_text()))
    assert "\U0001d4ae" in text_letters, "𝒮 in the generation page's code"
    characters |= text_letters
    # The browser draws a lone letter of an <mi> in its mathematical italic.
    characters |= {katex.styled(char, "italic") for char in characters} - {None}
    assert preloaded == {"stix-two-math.woff2", "katex-caligraphic.woff2"}
    assert calligraphic >= set("VL"), "\\mathcal{V}, \\mathcal{L}"
    built = site / language / "assets" / "math"
    for name, original, used in [
        ("stix-two-math.woff2", katex.STIX_FONT, characters),
        ("katex-caligraphic.woff2", katex.CALLIGRAPHIC_SOURCE, calligraphic),
    ]:
        full = set(TTFont(original).getBestCmap())
        cut_font = TTFont(built / name)
        cut = set(cut_font.getBestCmap())
        missing = {chr(c) for c in full - cut if chr(c) in used}
        assert not missing, f"{language}: {name} lost {sorted(missing)}"
        assert len(cut) < len(full) / 2, f"{name}: not cut"
    stix = TTFont(built / "stix-two-math.woff2")
    assert "MATH" in stix, "the cut STIX Two Math keeps its MATH table"
    variants = stix["MATH"].table.MathVariants
    assert variants.VertGlyphCount and variants.HorizGlyphCount
    # Licences beside the fonts.
    assert "SIL Open Font License" in (built / "OFL.txt").read_text()
    assert "MIT License" in (built / "KaTeX-LICENSE.txt").read_text()


#: Where a heading's words are reused: the tables of contents (the sidebar's,
#: and the drawer's on a phone), the navigation, the page's title and the
#: labels Material derives from an entry's title.
NAVIGATION = "title, nav.md-nav"


@pytest.mark.parametrize("language", LANGUAGES)
def test_headings_reach_the_navigation_typeset_or_as_text(pages, language) -> None:
    """No TeX in the navigation: a heading's formula is typeset in its table
    of contents entry (stages/katex.py), and labels hold readable text."""
    problems, typeset = [], 0
    for path in pages[language]:
        page = tree(path)
        for element in page.cssselect(NAVIGATION):
            text = text_of(element, "annotation")
            labels = " ".join(element.get(name, "") for name in ("aria-label", "title"))
            problems += [
                f"{path.parent.name}: {delimiter} in {element.tag}: "
                f"{text[:60] if delimiter in text else labels}"
                for delimiter in DELIMITERS
                if delimiter in text or delimiter in labels
            ]
        typeset += len(page.cssselect("nav.md-nav--secondary a.md-nav__link .katex"))
    assert not problems, "\n".join(problems)
    # The multi-head page's exercise "divide by √d_model" has its formula
    # typeset in its entry.
    multi_head = tree(next(p for p in pages[language] if p.parent.name == "multi-head"))
    entries = multi_head.cssselect(
        'nav.md-nav--secondary a[href="#exercise-scale-by-d-model"]'
    )
    assert entries, "the exercise is in the table of contents"
    for entry in entries:  # the sidebar's, and the drawer's on a phone
        assert entry.cssselect(".katex > math.book-math"), "its formula is typeset"
    assert typeset >= len(entries)
