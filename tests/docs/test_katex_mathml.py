"""KaTeX's MathML made to draw in a MathML Core browser (stages/katex.py,
``rewrite_mathml``, the book's maths output): each rewrite on KaTeX's own
output for a formula of the kind the book writes."""

from __future__ import annotations

import re
import unicodedata

import pytest
from lxml import etree

from attention_book.stages import katex

M = "{http://www.w3.org/1998/Math/MathML}"


@pytest.fixture(scope="module")
def typeset():
    process = katex.Katex()

    def typeset(tex: str, display: bool = False):
        answer = process._ask(tex, display, "mathml")
        text = katex.rewrite_mathml(answer, display)
        return text, etree.fromstring(text)

    yield typeset
    process.close()


@pytest.mark.parametrize(
    ("char", "variant", "name"),
    [
        ("x", "bold", "MATHEMATICAL BOLD SMALL X"),
        ("W", "bold", "MATHEMATICAL BOLD CAPITAL W"),
        ("0", "bold", "MATHEMATICAL BOLD DIGIT ZERO"),
        ("\u03a3", "bold", "MATHEMATICAL BOLD CAPITAL SIGMA"),
        ("\u03c4", "bold-italic", "MATHEMATICAL BOLD ITALIC SMALL TAU"),
        ("R", "double-struck", "DOUBLE-STRUCK CAPITAL R"),
        ("E", "double-struck", "MATHEMATICAL DOUBLE-STRUCK CAPITAL E"),
        ("L", "script", "SCRIPT CAPITAL L"),
        ("V", "script", "MATHEMATICAL SCRIPT CAPITAL V"),
        ("h", "italic", "PLANCK CONSTANT"),
        ("H", "fraktur", "BLACK-LETTER CAPITAL H"),
        ("a", "sans-serif", "MATHEMATICAL SANS-SERIF SMALL A"),
        ("a", "monospace", "MATHEMATICAL MONOSPACE SMALL A"),
        ("\u2207", "bold", "MATHEMATICAL BOLD NABLA"),
    ],
)
def test_mathvariant_becomes_the_mathematical_alphanumeric(char, variant, name) -> None:
    assert unicodedata.name(katex.styled(char, variant)) == name


def test_a_character_unicode_has_no_style_of_is_left_alone() -> None:
    assert katex.styled("+", "bold") is None
    assert katex.styled("\u3042", "bold") is None


def test_bold_vectors_and_the_reals_are_styled_characters(typeset) -> None:
    text, root = typeset(
        r"\mathbf{x}_i \in \mathbb{R}^{d}, \boldsymbol{\tau}, \mathscr{V}"
    )
    assert 'mathvariant="bold' not in text and "double-struck" not in text
    letters = [mi.text for mi in root.iter(M + "mi")]
    assert "\U0001d431" in letters and "\u211d" in letters  # 𝐱 ℝ
    assert "\U0001d749" in letters and "\U0001d4b1" in letters  # 𝝉 𝒱


def test_bold_text_is_set_bold_by_css(typeset) -> None:
    _, root = typeset(r"\textbf{ab}")
    (mtext,) = root.iter(M + "mtext")
    assert mtext.get("mathvariant") is None
    assert "font-weight: bold" in mtext.get("style")


def test_aligned_aligns_at_the_ampersand(typeset) -> None:
    _, root = typeset(r"\begin{aligned} a &\gets b \\ bb &= c \end{aligned}", True)
    (table,) = root.iter(M + "mtable")
    assert table.get("columnspacing") is None  # in the cells' padding
    for row in table.iter(M + "mtr"):
        left, right = row.iter(M + "mtd")
        assert "text-align: -webkit-right" in left.get("style")
        assert "text-align: -webkit-left" in right.get("style")
        # Nothing between the columns: the relation follows the left side.
        assert left.get("style").endswith(
            "padding: 0 0 0.132em 0"
        ) or "padding: 0.132em 0 0 0" in left.get("style")


def test_cases_columns_are_spaced_as_katex_spaces_them(typeset) -> None:
    _, root = typeset(r"\begin{cases} 1 & x>0 \\ 0 & \text{else} \end{cases}", True)
    first = next(root.iter(M + "mtd"))
    assert "text-align: left" in first.get("style")
    assert "padding: 0 0.526em" in first.get("style")  # half of KaTeX's 1em


def test_array_rows_get_katex_struts(typeset) -> None:
    _, root = typeset(r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}", True)
    struts = list(root.iter(M + "mspace"))
    assert [(s.get("height"), s.get("depth")) for s in struts] == [
        ("0.884em", "0.379em")
    ] * 2


def test_a_minus_after_an_arrow_is_a_sign(typeset) -> None:
    _, root = typeset(r"S_{ij} \gets -\infty, (-1), a - b, (a) - b, x,\ -0.5")
    minus = [mo for mo in root.iter(M + "mo") if mo.text == "\u2212"]
    spaced = [mo.get("lspace") is None for mo in minus]
    assert spaced == [False, False, True, True, False]


def test_a_prime_sits_beside_its_base(typeset) -> None:
    _, root = typeset(r"X' + f''(x) + X'^\top")
    assert not [
        s
        for s in root.iter(M + "msup", M + "msubsup")
        if "\u2032" in "".join(s[-1].itertext())
    ]
    rows = [r for r in root.iter(M + "mrow") if len(r) and r[-1].text == "\u2032"]
    assert len(rows) == 3  # X′, f′′, X′ (under ⊤)


@pytest.mark.parametrize("tex", [r"m'_i", r"m_i'"])
def test_a_prime_and_a_subscript_are_stacked(typeset, tex) -> None:
    """m'_i as TeX sets it: i under the prime, both after m (not m′ then i);
    the prime at its base's size, lowered by the superscript's shift."""
    _, root = typeset(tex)
    (subsup,) = root.iter(M + "msubsup")
    base, sub, sup = subsup
    assert (base.text, sub.text) == ("m", "i")
    assert etree.QName(sup).localname == "mpadded"
    assert sup.get("voffset") == "-0.36em"
    assert sup.get("style") == "math-depth: add(0)"
    assert [mo.text for mo in sup] == ["\u2032"]
    assert not list(root.iter(M + "msub"))


def test_the_superscript_shift_is_stix_two_maths(typeset) -> None:
    from fontTools.ttLib import TTFont

    font = TTFont(katex.STIX_FONT)
    constants = font["MATH"].table.MathConstants
    shift = constants.SuperscriptShiftUp.Value / font["head"].unitsPerEm
    assert katex.SUPERSCRIPT_SHIFT == f"{shift:g}em"


def test_the_font_the_build_cuts_is_the_font_it_ships() -> None:
    """The build reads and cuts STIX Two Math's WOFF (faster to read), and the
    site serves the cut as WOFF2: both files of the npm package must be one
    font (its glyphs, their map and metrics, its MATH table)."""
    from fontTools.ttLib import TTFont

    woff, woff2 = TTFont(katex.STIX_SOURCE), TTFont(katex.STIX_FONT)
    assert (woff.flavor, woff2.flavor) == ("woff", "woff2")
    assert woff.getGlyphOrder() == woff2.getGlyphOrder()
    assert len(woff.getGlyphOrder()) > 5000
    for tag in ("cmap", "hmtx", "MATH", "GSUB", "OS/2"):
        assert woff.getTableData(tag) == woff2.getTableData(tag), tag


def test_mathcal_is_set_in_calligraphic_capitals(typeset, monkeypatch) -> None:
    monkeypatch.setenv("BOOK_MATH", "mathml")
    text, root = typeset(r"\mathcal{V}_t \cup \mathcal{L} + \mathbb{R}")
    calligraphic = [mi for mi in root.iter(M + "mi") if mi.get("class")]
    assert [(mi.text, mi.get("class")) for mi in calligraphic] == [
        ("V", "book-cal"),
        ("L", "book-cal"),
    ]
    # Upright letters of their own font, not MathML's italic V (𝑉).
    assert {mi.get("mathvariant") for mi in calligraphic} == {"normal"}
    assert "\u211d" in text  # \mathbb still the Unicode letter
    assert katex.fonts_used([text]) == [katex.MATH_FONT, katex.CALLIGRAPHIC_FONT]
    assert katex.fonts_used(["<math></math>"]) == [katex.MATH_FONT]


def test_calligraphic_letters_are_in_katex_font() -> None:
    from fontTools.ttLib import TTFont

    cmap = TTFont(katex.CALLIGRAPHIC_SOURCE).getBestCmap()
    assert {ord(letter) for letter in katex.CALLIGRAPHIC} <= set(cmap)


def test_mathscr_stays_script(typeset) -> None:
    text, _ = typeset(r"\mathscr{L}")
    assert "\u2112" in text and 'class="book-cal"' not in text


def test_mathcal_and_mathscr_in_one_formula_are_refused(typeset) -> None:
    with pytest.raises(katex.KatexError, match=r"\\mathcal and \\mathscr"):
        typeset(r"\mathcal{L} = \mathscr{L}")


def test_an_underbrace_is_an_accent_not_a_script(typeset) -> None:
    _, root = typeset(r"\underbrace{S}_{n_q \times n_k}")
    inner = [u for u in root.iter(M + "munder") if u.get("accentunder") == "true"]
    assert len(inner) == 1 and inner[0][1].text == "\u23df"


def test_a_display_formula_keeps_katex_display_box(typeset) -> None:
    text, root = typeset(r"a = b", True)
    assert root.get("class") == "katex-display"
    assert root[0].get("class") == "katex"
    (math,) = root.iter(M + "math")
    assert math.get("class") == "book-math" and math.get("display") == "block"
    (annotation,) = root.iter(M + "annotation")
    assert annotation.text == "a = b"
    assert "/>" not in text  # every element written out, as HTML needs


def test_an_operator_name_is_spaced_from_its_argument_as_tex_spaces_it(typeset) -> None:
    _, root = typeset(r"\log p_\theta + \operatorname{softmax}(S) + \log(x)")
    applications = [mo for mo in root.iter(M + "mo") if mo.text == "\u2061"]
    assert [mo.get("rspace") for mo in applications] == ["0.1667em", None, None]


def test_a_tag_sets_its_formula_in_display_style(typeset) -> None:
    _, root = typeset(r"\frac{a}{b} \tag{6.1}", True)
    cells = list(root.iter(M + "mtd"))
    assert cells and all("math-style: normal" in cell.get("style") for cell in cells)
    (table,) = root.iter(M + "mtable")
    assert "width: 100%" in table.get("style")


def test_no_space_around_operators_in_scripts(typeset) -> None:
    _, root = typeset(r"e^{m_i - c_i} + \sum_{j=1}^{n} x")
    spaced = {mo.text: mo.get("lspace") for mo in root.iter(M + "mo")}
    assert spaced == {"\u2212": "0em", "=": "0em", "+": None, "\u2211": None}


def test_hat_and_tilde_are_accents_not_stretched(typeset) -> None:
    _, root = typeset(r"\hat{x} + \tilde{\pi}_a + \bar{z}")
    accents = [mover[1] for mover in root.iter(M + "mover")]
    assert [(a.text, a.get("stretchy")) for a in accents] == [
        ("\u02c6", "false"),
        ("\u02dc", "false"),
        ("\u02c9", "false"),
    ]


def test_a_big_slash_is_not_spaced_as_a_binary_operator(typeset) -> None:
    _, root = typeset(r"\pi_a \big/ \sum_b \pi_b")
    (slash,) = [mo for mo in root.iter(M + "mo") if mo.text == "/"]
    assert (slash.get("lspace"), slash.get("rspace")) == ("0em", "0em")


def test_a_subscript_moves_in_under_a_letter_cut_away_below(typeset) -> None:
    """W_a, γ_j: STIX Two Math's bottom-right cut-ins (its MATH table), which
    Chromium does not apply, as a negative margin after the base; none for
    a letter without (n_q), nor where a superscript would move too."""
    _, root = typeset(r"W_a + \gamma_j + W_{a,q} + n_q + W_a^2")
    margins = {}
    for msub in root.iter(M + "msub"):
        style = msub[0].get("style") or ""
        found = re.fullmatch(r"margin-inline-end: (-[\d.]+)em", style)
        margins.setdefault(msub[0].text, []).append(float(found[1]) if found else 0)
    assert margins["\u03b3"][0] < 0 and margins["W"][0] < margins["\u03b3"][0]
    assert margins["W"][1] == margins["W"][0]  # W_{a,q}: by its first letter
    assert margins["n"] == [0]
    (subsup,) = root.iter(M + "msubsup")
    assert subsup[0].get("style") is None


def test_the_cut_font_keeps_the_italic_the_browser_draws_letters_in() -> None:
    """A lone letter of an <mi> is drawn as its mathematical italic (x as
    𝑥): the cut STIX Two Math must hold those, or the browser draws the
    letters in another font (DejaVu Math, in the PDF of 2026-12-03)."""
    kept = katex.math_font_characters({"x", "h", "W", "\u03b3", "2"})
    for name in ("SMALL X", "CAPITAL W", "SMALL GAMMA", "SMALL DOTLESS I"):
        assert unicodedata.lookup(f"MATHEMATICAL ITALIC {name}") in kept
    assert "\u210e" in kept  # ℎ, Unicode's italic h (PLANCK CONSTANT)
    assert {"x", "2", "\u221a"} <= kept


def test_a_brace_under_one_letter_keeps_katex_least_width(typeset) -> None:
    """KaTeX draws \\underbrace at least 1.6 of its em wide; the browser
    stretches the brace to its base only: a lone letter is padded to it."""
    _, root = typeset(r"\underbrace{S}_{n} + \underbrace{QK^\top}_{x}")
    padded = [
        mi for mi in root.iter(M + "mi") if "padding-inline" in mi.get("style", "")
    ]
    assert [mi.text for mi in padded] == ["S"]
    pad = float(re.search(r"padding-inline: ([\d.]+)em", padded[0].get("style"))[1])
    assert 0.3 < pad < 0.7  # an italic S is some 0.6 em wide


def pieces(root) -> list[str]:
    """The text of each ``<math>`` of a typeset formula, its TeX left out."""
    return [
        "".join(
            text
            for element in math.iter()
            if etree.QName(element).localname != "annotation"
            for text in [element.text or ""]
        )
        for math in root.iter(M + "math")
    ]


@pytest.mark.parametrize(
    ("tex", "expected"),
    [
        # After each relation and binary operator of the outer level.
        (r"a = b + c", ["a=", "b+", "c"]),
        (r"x \le y \times z \to w", ["𝑥≤", "𝑦×", "𝑧→", "𝑤"]),
        # A sign is no binary operator: first, or after a relation.
        (r"-x = -y", ["−x=", "−y"]),
        # Nothing inside a group, a script, a fraction or \left…\right.
        (r"e^{m - c} = {b + c}", ["em−c=", "b+c"]),
        (r"\left( a + b \right) = \frac{a + b}{2}", ["(a+b)=", "a+b2"]),
        # The spaces after an operator stay with it; := is one relation.
        (r"a := \quad b", ["a:=", "b"]),
        # \cdot is a binary operator, \cdotp punctuation; a comma is none.
        (r"a \cdot b, c", ["a⋅", "b,c"]),
        # None at all: one <math>, as before.
        (r"QK^\top / \sqrt{d_k}", ["QK⊤/dk"]),
    ],
)
def test_an_inline_formula_breaks_where_katex_html_breaks(typeset, tex, expected):
    """Chromium breaks no line inside a <math>: an inline formula is as many
    <math> as KaTeX's HTML has boxes (buildHTML: after each relation and
    binary operator of the outer level, TeX's rule)."""
    _, root = typeset(tex)
    found = [piece.translate(ITALIC_PLAIN) for piece in pieces(root)]
    assert found == [piece.translate(ITALIC_PLAIN) for piece in expected]


#: Mathematical italic letters as plain ones, to compare pieces' text.
ITALIC_PLAIN = {
    ord(unicodedata.lookup(f"MATHEMATICAL ITALIC SMALL {c.upper()}")): c
    for c in "abcdegijklmnopqrstuvwxyz"
}


def test_a_split_formula_is_one_formula_for_assistive_technology(typeset) -> None:
    text, root = typeset(r"a = b + c")
    assert root.get("class") == "katex"
    assert (root.get("role"), root.get("aria-label")) == ("math", "a = b + c")
    maths = list(root)
    assert len(maths) == 3
    assert all(etree.QName(m).localname == "math" for m in maths)
    assert all(m.get("aria-hidden") == "true" for m in maths)
    assert all(m.get("class") == "book-math" for m in maths)
    # The TeX once, in the first piece's annotation.
    annotations = list(root.iter(M + "annotation"))
    assert len(annotations) == 1 and annotations[0].getparent().getparent() is maths[0]
    assert "><math" in text and "> <math" not in text  # no space between them


def test_the_operators_at_the_joins_keep_their_spacing(typeset) -> None:
    """No form is forced on an operator that ends or starts a piece: MathML
    Core falls back to its infix entry (measured by the browser tests); a
    sign after a relation is spaced explicitly, wherever it stands."""
    _, root = typeset(r"a = -b + \sum_i x_i")
    assert not [mo for mo in root.iter(M + "mo") if mo.get("form")]
    (sign,) = [mo for mo in root.iter(M + "mo") if mo.text == "\u2212"]
    assert (sign.get("lspace"), sign.get("rspace")) == ("0em", "0em")
    assert pieces(root)[1].startswith("\u2212")


def test_an_unsplit_or_display_formula_stays_one_math(typeset) -> None:
    for tex, display in [(r"QK^\top", False), (r"a = b + c", True)]:
        _, root = typeset(tex, display)
        assert len(list(root.iter(M + "math"))) == 1
        assert root.get("role") is None
        assert not [e for e in root.iter() if e.get("aria-hidden")]


def test_katex_symbol_table_gives_the_classes() -> None:
    classes = katex.atom_classes()
    assert classes["="] == {"rel"} and classes["\u2212"] == {"bin"}
    assert classes["\u22c5"] == {"bin", "punct"}  # \cdot, \cdotp
    assert "rel" in classes["\u2192"] and "bin" in classes["\u00d7"]


def test_the_texts_mathematical_letters_are_found() -> None:
    page = "<p>重み𝐪（注意）</p><code># &#x1D4AE; = {…}</code>&#120; &amp; ℓ"
    assert katex.math_letters(page) == {"\U0001d42a", "\U0001d4ae"}
