"""KaTeX's MathML made to draw in a MathML Core browser (stages/katex.py,
``rewrite_mathml``, for ``BOOK_MATH=mathml``): each rewrite on KaTeX's own
output for a formula of the kind the book writes."""

from __future__ import annotations

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
        r"\mathbf{x}_i \in \mathbb{R}^{d}, \boldsymbol{\tau}, \mathcal{V}"
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
    _, root = typeset(r"X' + f''(x) + X'^\top + m'_i")
    assert not [
        s
        for s in root.iter(M + "msup", M + "msubsup")
        if "\u2032" in "".join(s[-1].itertext())
    ]
    rows = [r for r in root.iter(M + "mrow") if len(r) and r[-1].text == "\u2032"]
    assert len(rows) == 4  # X′, f′′, X′ (under ⊤), m′ (under i)


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
