"""The book's glossary (``docs_src/glossary.yml``), read once for every use.

Each entry gives a term in English, in Japanese (``ja``) and in Traditional
Chinese (``zh-Hant``; the Simplified edition converts it), the section that
explains it (``page``: a page and anchor, the same in every edition) and,
optionally, ``also``: other words a reader may search the section by, per
language (``en`` words for every edition), such as a common variant
spelling (クロスエントロピー) or the name of a method the section explains.

``avoid`` (optional, per language) lists the words the book does not use for
the entry's term (詰め物 for パディング): the prose linters' term rules are
made from it (``term_rules``). An entry without ``page`` is a usage rule
only: the book's one word for something it uses but does not explain (回傳
for a function's return), in neither the glossary page nor the search.

The glossary hook builds each edition's glossary page from it and teaches
jieba its Chinese terms; the search hook makes each term lead to the section
that explains it.
"""

from __future__ import annotations

import re

from mkdocs.exceptions import PluginError

from . import ROOT, load_yaml
from .editions import DERIVED
from .zh_hans import to_simplified, to_simplified_text

GLOSSARY = ROOT / "docs_src" / "glossary.yml"
#: The languages glossary.yml is written in.
LANGUAGES = ("ja", "zh-Hant")


def load_entries() -> list[dict]:
    """Every entry of glossary.yml: the terms and the usage rules."""
    entries = load_yaml(GLOSSARY.read_text(encoding="utf-8"))
    for entry in entries:
        missing = {"en", *LANGUAGES} - set(entry)
        if "page" not in entry and not entry.get("avoid"):
            missing.add("page")
        if missing:
            raise PluginError(f"{GLOSSARY.name}: {entry} lacks {sorted(missing)}")
        unknown = set(entry.get("also", {})) - {"en", *LANGUAGES}
        if unknown:
            raise PluginError(f"{GLOSSARY.name}: {entry} has also: {sorted(unknown)}")
        avoid = entry.get("avoid", {})
        if set(avoid) - set(LANGUAGES) or not all(
            isinstance(words, list) and all(isinstance(w, str) and w for w in words)
            for words in avoid.values()
        ):
            raise PluginError(
                f"{GLOSSARY.name}: {entry}: avoid must map ja and/or zh-Hant "
                "to a list of words"
            )
    return entries


def load_glossary() -> list[dict]:
    """The glossary's terms: the entries that name the section explaining
    them (``page``); usage rules without a page are left out."""
    return [entry for entry in load_entries() if "page" in entry]


def term_rules(language: str) -> list[tuple[str, list[str]]]:
    """(the book's word, the words to avoid for it) for every entry of
    glossary.yml with an ``avoid`` list in ``language`` (ja or zh-Hant).

    The book's word is the term's first variant ('頭（注意力頭）' -> '頭').
    A word to avoid must not hold the book's word: the rule would flag every
    right use too.
    """
    rules = []
    for entry in load_entries():
        words = entry.get("avoid", {}).get(language)
        if words:
            expected = variants(entry[language])[0]
            clash = [word for word in words if expected in word]
            if clash:
                raise PluginError(
                    f"{GLOSSARY.name}: {entry['en']}: avoid {clash} holds {expected}"
                )
            rules.append((expected, list(words)))
    return rules


def prh_rules(language: str) -> dict:
    """``term_rules`` as a prh dictionary (textlint-rule-prh's YAML)."""
    return {
        "version": 1,
        "rules": [
            {"expected": expected, "patterns": words}
            for expected, words in term_rules(language)
        ],
    }


def variants(term: str) -> list[str]:
    """'頭（注意力頭）' -> ['頭', '注意力頭']; 'A / B' -> ['A', 'B']."""
    parts = re.split(r"\s*/\s*|[（）()]", term)
    return [part.strip() for part in parts if part.strip()]


def converters(language: str):
    """(text, markdown) converters from the glossary's language to ``language``."""
    if language not in DERIVED:
        return (lambda text: text), (lambda markdown: markdown)
    return to_simplified_text, to_simplified


def location(target: str) -> str:
    """'softmax.md#definition' -> 'softmax/#definition', as the search index
    names a section ('index.md' is the home page, '')."""
    page, _, anchor = target.partition("#")
    path = "" if page == "index.md" else page.removesuffix(".md") + "/"
    return f"{path}#{anchor}" if anchor else path


def glossary_words(language: str) -> dict[str, list[str]]:
    """Each explaining section (its index location) -> the words that name it
    in ``language``'s edition: the term, its English original, and ``also``."""
    source = DERIVED.get(language, language)
    convert, _ = converters(language)
    words: dict[str, list[str]] = {}
    for entry in load_glossary():
        also = entry.get("also", {})
        found = words.setdefault(location(entry["page"]), [])
        for word in [
            *variants(convert(entry[source])),
            *variants(entry["en"]),
            *(convert(word) for word in also.get(source, [])),
            *also.get("en", []),
        ]:
            if word not in found:
                found.append(word)
    return words


def search_words(language: str) -> dict[str, list[str]]:
    """Each explaining section -> the words of ``glossary_words`` that lead there.

    A word that holds a word of another page is left out: the search splits
    it into its parts (multi-query attention: multi, query, attention), and
    the part would lead to the wrong page (query, explained with the
    query-key-value page). Such a term is still found by the title and the
    text of its section.
    """
    words = glossary_words(language)

    def elsewhere(word: str, where: str) -> bool:
        page = where.partition("#")[0]
        return any(
            other.lower() in word.lower()
            for there, others in words.items()
            if there.partition("#")[0] != page
            for other in others
        )

    return {
        where: [word for word in found if not elsewhere(word, where)]
        for where, found in words.items()
    }
