"""Material's search, as a reader uses it, in Japanese and in both Chinese books.

The reader opens the search with "/", types a word and reads the results.
Each language has its own index (its own build): words are found in the
page's language and results never lead into the other book.

How each language is searched (see mkdocs.yml, mkdocs.zh-Hant.yml and
mkdocs.zh-Hans.yml):

- Japanese text is segmented in the browser by lunr.ja's TinySegmenter, but
  the query is not: Material only splits it with the configured separator
  and cuts runs of kanji along the words of the index. The separator
  therefore also splits where kana or kanji meet another script, or a query
  that mixes them (アテンション重み, スケール化内積アテンション) would stay
  one term that matches nothing.
- Chinese text is segmented at build time by jieba, with a Traditional
  dictionary (zh-Hant) or jieba's own Simplified one (zh-Hans), and the
  glossary's terms as words (hooks/book.py, hooks/glossary.py). A query
  matches words that begin with it: a single character finds the words it
  begins (權 finds 權重) but not those it ends (積 in 內積, 乘積); "*積"
  finds those.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from ..site.helpers import LANGUAGES, load_hook
from .navigation import TIMEOUT

#: Words a reader types, single and multi-character, kana and kanji.
WORDS = {
    "ja": [
        "ソフトマックス",  # katakana
        "行列",  # two kanji
        "アテンション重み",  # katakana, kanji and hiragana
        "線形変換",  # four kanji
        "積",  # one kanji
        "重み",  # kanji and okurigana
        "スケール化内積アテンション",
        "因果マスク",
        "行ベクトル",
        "softmax関数",  # Latin letters and kanji
    ],
    "zh-Hant": [
        "矩陣",
        "線性變換",
        "注意力權重",
        "遮罩",
        "權",  # one character, which begins 權重
        "*積",  # one character inside words: 內積, 乘積, 點積
        "softmax函數",
        "縮放點積注意力",
    ],
    "zh-Hans": [
        "矩阵",
        "线性变换",
        "注意力权重",
        "掩码",
        "权",  # one character, which begins 权重
        "*积",  # one character inside words: 内积, 乘积, 点积
        "softmax函数",
        "缩放点积注意力",
        "行向量",
    ],
}

#: Words of the other language, which the book does not use: not found.
ABSENT = {
    "ja": ["程式碼", "範例"],  # Traditional Chinese
    "zh-Hant": ["コード", "です"],  # kana
    # kana, and Taiwanese words that the conversion replaced
    "zh-Hans": ["コード", "です", "程式碼", "遮罩"],
}
#: Terms of the other language that only the glossary page names: the
#: glossary gives each term in both languages, on purpose.
GLOSSARY_ONLY = {
    "ja": ["權重", "權重矩陣"],
    "zh-Hant": ["ソフトマックス", "アテンション"],
    "zh-Hans": ["ソフトマックス", "アテンション"],
}


def glossary_terms(language: str) -> list[str]:
    """Every term of the glossary in ``language``, as the glossary hook reads it."""
    hook = load_hook("glossary")
    convert, _ = hook.converters(language)
    source = hook.DERIVED.get(language, language)
    return [
        word
        for entry in hook.load_glossary()
        for word in hook.variants(convert(entry[source]))
    ]


class Search:
    """Material's search box on one page: type, wait, read the results."""

    def __init__(self, page) -> None:
        self.page = page
        config = json.loads(page.locator("#__config").text_content())
        self.placeholder = config["translations"]["search.result.placeholder"]
        self.none = config["translations"]["search.result.none"]
        page.keyboard.press("/")
        self.input = page.locator("input.md-search__input")
        assert self.input.evaluate("e => e === document.activeElement"), (
            "'/' opens the search"
        )
        self.errors: list[str] = []
        page.on(
            "console",
            lambda m: self.errors.append(m.text) if m.type == "error" else None,
        )
        page.on("pageerror", lambda error: self.errors.append(str(error)))

    def _cleared(self) -> None:
        self.page.wait_for_function(
            """placeholder => document.querySelector(".md-search-result__meta")
                .textContent.trim() === placeholder""",
            arg=self.placeholder,
            timeout=TIMEOUT,
        )

    def _answered(self) -> None:
        """The results (or "none") are shown, not the placeholder."""
        self.page.wait_for_function(
            """([placeholder, none]) => {
                const meta = document.querySelector(".md-search-result__meta")
                    .textContent.trim();
                const links = document.querySelectorAll(
                    ".md-search-result a.md-search-result__link");
                return meta !== placeholder && (meta === none || links.length > 0);
            }""",
            arg=[self.placeholder, self.none],
            timeout=TIMEOUT,
        )

    def __call__(self, word: str) -> list[str]:
        """The links of the results for ``word`` (its pages and sections)."""
        # Material searches on keyup and fill() sends no key: press one.
        # Empty the box first and wait for the placeholder, so that the
        # results read below are the word's and not the last word's.
        self.input.fill("")
        self.input.press("Backspace")
        self._cleared()
        self.input.fill(word)
        self.input.press("End")
        self._answered()
        links = self.page.locator(".md-search-result a.md-search-result__link")
        return links.evaluate_all("links => links.map(a => a.href)")


@pytest.fixture(scope="module")
def searches(browser, base_url) -> Iterator[dict]:
    """Each language's home page with its search open, one context each.

    (Not tabs of one context: a tab in the background has its timers
    throttled, and its search answers slowly.)
    """
    contexts, result = [], {}
    for language in LANGUAGES:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        contexts.append(context)
        context.route(
            "**/*",
            lambda route: (
                route.continue_()
                if route.request.url.startswith(base_url)
                else route.abort()
            ),
        )
        page = context.new_page()
        page.goto(f"{base_url}{language}/", wait_until="load")
        result[language] = Search(page)
    yield result
    for context in contexts:
        context.close()


def misses(search, base_url: str, language: str, words) -> list[str]:
    found_nothing, elsewhere = [], []
    for word in words:
        hrefs = search(word)
        if not hrefs:
            found_nothing.append(word)
        elsewhere += [
            f"{word} -> {href}"
            for href in hrefs
            if not href.startswith(f"{base_url}{language}/")
        ]
    return [f"not found: {w}" for w in found_nothing] + [
        f"result in another book: {e}" for e in elsewhere
    ]


@pytest.mark.parametrize("language", LANGUAGES)
def test_words_are_found_in_the_page_language(searches, base_url, language) -> None:
    problems = misses(searches[language], base_url, language, WORDS[language])
    assert not problems, "\n".join(problems)
    assert not searches[language].errors


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_glossary_term_is_found(searches, base_url, language) -> None:
    terms = glossary_terms(language)
    assert len(terms) > 20
    problems = misses(searches[language], base_url, language, terms)
    assert not problems, "\n".join(problems)
    assert not searches[language].errors


@pytest.mark.parametrize("language", LANGUAGES)
def test_words_of_the_other_language_are_not_found(
    searches, base_url, language
) -> None:
    search = searches[language]
    found = {word: search(word) for word in ABSENT[language]}
    assert not any(found.values()), found
    glossary = f"{base_url}{language}/glossary/"
    for word in GLOSSARY_ONLY[language]:
        hrefs = search(word)
        assert hrefs, f"{word}: the glossary names it"
        assert all(href.startswith(glossary) for href in hrefs), (word, hrefs)
