"""The prose linters (attention_book.prose_lint) pass on both hand-written editions.

textlint (ja: preset-ja-technical-writing, spacing, the glossary's term rules;
zh-Hant: the term rules) and zhlint (zh-Hant) run as ``make lint`` runs them;
configuration in ``lint/``, term rules made from ``docs_src/glossary.yml``.
The Japanese preset tokenizes every sentence (kuromoji), some 30 s for the
whole edition on one core: ``make test`` lints every Traditional Chinese page,
the figures' words and the Japanese pages of ``JA_SAMPLE``, and the exhaustive
tier the other Japanese pages, so that ``.ci/run`` lints every page once.
"""

from __future__ import annotations

import pytest

from attention_book import glossary, prose_lint

#: The Japanese pages make test lints: the home page and the pages whose
#: copies make test runs (tests/site/test_copy_paste.py), which hold every
#: kind of line the lint view reads (formulas, tables, admonitions, examples,
#: exercises, figure references, English names).
JA_SAMPLE = ("index.md", "masks.md", "scaled-dot-product.md", "tokens.md")


def lint_or_fail(languages: tuple[str, ...], only: set[str] | None = None) -> None:
    if problem := prose_lint.missing_tools():
        pytest.fail(problem)
    findings = prose_lint.lint(languages, only)
    assert not findings, f"{len(findings)} prose-lint findings:\n" + "\n".join(
        map(str, findings)
    )


@pytest.mark.slow  # some 10 s: make test runs it, make quick does not
def test_the_chinese_pages_and_a_japanese_sample_pass_the_prose_linters() -> None:
    lint_or_fail(("zh-Hant",))
    lint_or_fail(("ja",), {*JA_SAMPLE, "labels.yml"})


@pytest.mark.exhaustive
def test_the_other_japanese_pages_pass_the_prose_linters() -> None:
    rest = {page.name for page in prose_lint.pages("ja")} - set(JA_SAMPLE)
    lint_or_fail(("ja",), rest)


def test_the_japanese_sample_names_pages_of_the_edition() -> None:
    assert set(JA_SAMPLE) <= {page.name for page in prose_lint.pages("ja")}


@pytest.mark.parametrize("language", glossary.LANGUAGES)
def test_term_rules_come_from_the_glossary(language: str) -> None:
    rules = dict(glossary.term_rules(language))
    assert rules, "glossary.yml has no avoid words for " + language
    expected = {"ja": ("パディング", "詰め物"), "zh-Hant": ("回傳", "傳回")}[language]
    assert expected[1] in rules[expected[0]]
    dictionary = glossary.prh_rules(language)
    assert {"expected": expected[0], "patterns": rules[expected[0]]} in dictionary[
        "rules"
    ]


def test_usage_rules_stay_out_of_the_glossary_page() -> None:
    terms = [entry["en"] for entry in glossary.load_glossary()]
    assert "softmax" in terms
    assert "overflow" not in terms
    assert any(entry["en"] == "overflow" for entry in glossary.load_entries())


def test_lint_view_keeps_lines_and_leaves_out_what_is_not_prose() -> None:
    page = "\n".join(
        [
            "# 題 { #title }",
            "",
            "\\(n\\) 個の値を足すと",
            "",
            "\\[",
            "s = \\sum_j x_j",
            "\\]",
            "",
            "```pycon",
            ">>> 1 + 1",
            "```",
            '--8<-- "docs_src/softmax/definition.pycon"',
            '??? success "答え"',
            "",
            "    本文です。",
            "",
            "[](#fig-softmax-steps) は図で、[](training.md#eq-adam) は式で、"
            "[](masks.md#causal-mask)は節です。",
            "### 2. 練習",
            "Ashish Vaswani, Noam Shazeer. *Attention Is All You Need*.",
            "| 文字 | 意味 |",
            "|---|---|",
            "形は 4,199,936 個です。",
        ]
    )
    view = prose_lint.lint_view(page, "ja").split("\n")
    assert len(view) == len(page.split("\n"))
    assert view[0] == "# 題"
    assert view[2] == "式 個の値を足すと 式。"
    assert view[4:12] == [""] * 8
    assert view[12] == "###### 答え"
    assert view[14] == "本文です。"
    assert view[16] == (
        "[図 3.1](#fig-softmax-steps) は図で、"
        "[式 (3.1)](training.md#eq-adam) は式で、"
        "[3.1 節](masks.md#causal-mask)は節です。"
    )
    assert view[17] == "### 練習"
    assert view[18] == ""  # English only: a reference
    assert view[19:21] == ["| 文字 | 意味 |", "|---|---|"]
    assert view[21] == "形は 4199936 個です。"


def test_lint_view_shows_english_phrases_in_chinese_as_code() -> None:
    line = "見 [Rabe & Staats, 2021](references.md#r) 與 Vaswani et al. (2017)。"
    assert prose_lint.lint_view(line, "zh-Hant") == (
        "見 [`Rabe & Staats, 2021`](references.md#r) 與 `Vaswani et al. (2017)`。"
    )


def test_an_avoided_word_never_holds_its_term(monkeypatch) -> None:
    entries = [
        {"en": "x", "ja": "本頁", "zh-Hant": "本頁", "avoid": {"zh-Hant": ["本頁內"]}}
    ]
    monkeypatch.setattr(glossary, "load_entries", lambda: entries)
    with pytest.raises(Exception, match="holds 本頁"):
        glossary.term_rules("zh-Hant")


def test_the_figures_words_follow_the_glossary() -> None:
    """The captions, alt texts and drawn labels of docs_src/diagrams and
    docs_src/plots (labels.yml) use the glossary's terms, as the pages do."""
    findings = prose_lint.label_findings()
    assert not findings, "\n".join(map(str, findings))


def test_the_term_rules_read_every_string_of_a_figure(tmp_path) -> None:
    labels = tmp_path / "labels.yml"
    labels.write_text(
        "\n".join(
            [
                "backward:",  # 1
                "  ja:",
                "    caption: 前向きの計算と逆伝播",  # 3
                "  zh-Hant:",
                "    alt: 上半部是正向傳播。",  # 5
                "    forward: '正向傳播'",  # 6
                "    keys: [鍵 1, 傳回值]",  # 7
                "    note: |",
                "      第一行",
                "      函式傳回 Z",  # 10
                "  other:",
                "    alt: 正向傳播",  # not a language the book writes
            ]
        ),
        "utf-8",
    )
    found = [
        (f.line, f.column, f.message) for f in prose_lint.label_findings(files=[labels])
    ]
    assert found == [
        (3, 14, "前向きの計算 => 順伝播"),
        (5, 14, "正向傳播 => 前向傳播"),
        (6, 15, "正向傳播 => 前向傳播"),
        (7, 17, "傳回 => 回傳"),
        (10, 9, "傳回 => 回傳"),
    ]
    assert {f.rule for f in prose_lint.label_findings(files=[labels])} == {
        "glossary-terms"
    }


def test_japanese_labels_keep_a_space_before_and_after_latin_text(tmp_path) -> None:
    labels = tmp_path / "labels.yml"
    labels.write_text(
        "\n".join(
            [
                "heads:",  # 1
                "  ja:",
                "    alt: 入力は位置のone-hot ベクトルです。",  # 3: の|o at column 16
                "    caption: W_Q = 2I のとき、5 トークンを見ます。",  # spaced: none
                "    axis: 位置 i",  # spaced: none
                "    note: ヘッド2は2つ",  # 6: ド|2, 2|は, は|2, 2|つ
                "  zh-Hant:",
                "    alt: 位置的one-hot 向量",  # the rule is the Japanese pages'
            ]
        ),
        "utf-8",
    )
    found = [
        (f.line, f.column, f.rule)
        for f in prose_lint.label_findings(languages=("ja", "zh-Hant"), files=[labels])
    ]
    assert found == [
        (3, 16, "ja-space"),
        (6, 14, "ja-space"),
        (6, 15, "ja-space"),
        (6, 16, "ja-space"),
        (6, 17, "ja-space"),
    ]
