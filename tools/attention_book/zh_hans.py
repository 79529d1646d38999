"""The Simplified Chinese book, converted from the Traditional (Taiwan) one.

``to_simplified(markdown)`` turns a page of ``docs/zh-Hant/`` into mainland
Simplified Chinese; ``to_simplified_text(text)`` does the same for a plain
string (a glossary term, a plot label, a page title).

- **OpenCC, Taiwan to mainland with phrases** (config ``tw2sp``): characters
  and the usual vocabulary (程式碼 → 代码, 資料 → 数据, 物件 → 对象).
- **The book's own table first**, ``docs_src/zh_hans_overrides.yml``, for the
  words that OpenCC gets wrong in linear algebra and machine learning: 向量
  stays 向量 (OpenCC: 矢量), 序列 stays 序列 (OpenCC: 串行), and rows and
  columns swap their names: Taiwan says 列 for a row and 行 for a column, the
  mainland the opposite, so 列向量 (row vector) becomes 行向量 and 行向量
  (column vector) becomes 列向量. Every phrase of the table is replaced,
  longest first, before OpenCC runs, and hidden from OpenCC behind a
  placeholder, so OpenCC cannot touch the result. In a phrase, ``{x}`` stands
  for one inline formula, one code span or one ASCII word (with the spaces
  around it): ``第{x}列`` matches ``第 \\(i\\) 列`` and ``第 2 列``.
- **Mainland quotation marks.** Taiwan quotes with corner brackets 「」 and
  『』, the mainland with “” and ‘’: the prose's corner brackets become curly
  quotes, in the table's results too. Taiwan sets an article's title in 〈〉,
  the mainland in 《》 like a book's.
- **Prose only.** Code, maths and outputs pass through byte for byte:
  fenced code blocks (``` and ~~~, at any indentation, so also inside
  admonitions, details and tabs), inline code, maths ``\\( … \\)``,
  ``\\[ … \\]`` and ``\\begin{…} … \\end{…}``, ``--8<--`` snippet lines
  (an example of the edition's own, ``docs_src/<page>/zh-Hant/``, becomes
  the Simplified one beside it, ``zh-Hans/``),
  HTML tags with their attributes, HTML comments, elements marked as another
  language (``<span lang="ja">``) and raw elements (``<pre>``, ``<code>``,
  ``<script>`` …), link URLs and reference labels, attribute lists and
  heading anchors ``{ #id }``, and front matter. Text between HTML tags and
  the titles of admonitions and tabs are prose.

Only ``docs/zh-Hant/`` is written by hand; the zh-Hans book is this
conversion, done again on every build by ``stages/zh_hans.py``. The glossary
and plot hooks convert their own words with ``to_simplified_text``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from pathlib import Path

import opencc
import yaml

from attention_book import ROOT, snippets
from attention_book.editions import DERIVED

OVERRIDES = ROOT / "docs_src" / "zh_hans_overrides.yml"
OPENCC_CONFIG = "tw2sp"  # Taiwan standard -> mainland, with Taiwan phrases
WILDCARD = "{x}"
#: A phrase that maps to "" is a sentence that only a Taiwanese reader needs
#: (how Taiwan names rows and columns): the Simplified book drops it whole.
SENTENCE_END = "。"
QUOTES = str.maketrans(
    {"「": "“", "」": "”", "『": "‘", "』": "’", "〈": "《", "〉": "》"}
)

# Placeholders: characters of the Private Use Area, which OpenCC leaves alone
# and the book never uses. A protected piece of the page becomes
# MARK + index + END; SPAN marks the pieces a {x} may stand for.
SPAN, KEEP, DONE, END = "\ue000", "\ue001", "\ue002", "\ue003"
PLACEHOLDER = re.compile(f"([{SPAN}{KEEP}{DONE}])(\\d+){END}")

FRONT_MATTER = re.compile(r"\A-{3}[ \t]*\n.*?\n(?:-{3}|\.{3})[ \t]*(?:\n|\Z)", re.S)
FENCE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})(?P<info>.*)$")

_NO_BLANK_LINE = r"(?:(?!\n[ \t]*\n).)"
INLINE = re.compile(
    rf"""
      (?P<comment><!--.*?-->)
    | (?P<raw><(?P<rawtag>pre|code|kbd|samp|script|style|svg|math|textarea)\b
          [^>]*>.*?</(?P=rawtag)\s*>)
    | (?P<foreign><(?P<ftag>[A-Za-z][\w-]*)\b[^>]*?\blang\s*=\s*["']?(?!zh)
          [^>]*>.*?</(?P=ftag)\s*>)
    | (?P<code>(?<!`)(?P<ticks>`+)(?!`){_NO_BLANK_LINE}+?(?<!`)(?P=ticks)(?!`))
    | (?P<math>(?<!\\)\\\({_NO_BLANK_LINE}*?\\\)
          | (?<!\\)\\\[{_NO_BLANK_LINE}*?\\\]
          | \\begin\{{(?P<env>[A-Za-z]+\*?)\}}.*?\\end\{{(?P=env)\}})
    | (?P<tag></?[A-Za-z][\w:-]*
          (?:\s+[^\s"'<>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*
          \s*/?>)
    | (?P<autolink><[A-Za-z][A-Za-z0-9+.-]{{1,31}}:[^<>\s]*>)
    | (?P<url>\]\(\s*(?:<[^>\n]*>|[^)\s]*))
    | (?P<label>\]\[[^\]\n]*\])
    | (?P<definition>^[ \t]{{0,3}}\[[^\]\n]+\]:[ \t]*\S+)
    | (?P<attrs>\{{:?[ \t]*
          (?:(?:[#.][\w:-]+|[\w-]+=(?:"[^"\n]*"|'[^'\n]*'|[^\s}}]+))[ \t]*)+\}})
    """,
    re.S | re.M | re.X,
)


class _Protected:
    """The protected pieces of one text, and their placeholders."""

    def __init__(self) -> None:
        self.pieces: list[str] = []

    def hide(self, piece: str, mark: str = KEEP) -> str:
        self.pieces.append(piece)
        return f"{mark}{len(self.pieces) - 1}{END}"

    def restore(self, text: str) -> str:
        while PLACEHOLDER.search(text):  # a result of the table may hold a {x}
            text = PLACEHOLDER.sub(lambda m: self.pieces[int(m[2])], text)
        return text


# --- the override table -------------------------------------------------------


class _UniqueKeyLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """A YAML loader that refuses a phrase listed twice (PyYAML keeps the last);
    libyaml's C parser where PyYAML has it, as ``attention_book.load_yaml``."""


def _unique_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode) -> dict:
    mapping: dict = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node)
        if key in mapping:
            raise ValueError(f"{OVERRIDES.name}: {key!r} is listed twice")
        mapping[key] = loader.construct_object(value_node)
    return mapping


_UniqueKeyLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _unique_mapping
)


def load_overrides(path: Path = OVERRIDES) -> dict[str, str]:
    """The table ``Traditional phrase -> Simplified phrase``, checked."""
    table = yaml.load(path.read_text(encoding="utf-8"), Loader=_UniqueKeyLoader)
    if not isinstance(table, dict) or not table:
        raise ValueError(f"{path.name} must map Traditional to Simplified phrases")
    for key, value in table.items():
        if not (isinstance(key, str) and isinstance(value, str) and key):
            raise ValueError(f"{path.name}: {key!r}: {value!r} must be two strings")
        if not value and not key.endswith(SENTENCE_END):
            raise ValueError(
                f"{path.name}: {key!r}: only a whole sentence (ending in "
                f"{SENTENCE_END}) may be dropped"
            )
        if key.count(WILDCARD) != value.count(WILDCARD):
            raise ValueError(f"{path.name}: {key!r} and {value!r} need the same {{x}}")
        if key.replace(WILDCARD, "").strip() != key.replace(WILDCARD, ""):
            raise ValueError(f"{path.name}: {key!r} must not start or end with a space")
        if re.search(f"[{SPAN}-{END}]", key + value):
            raise ValueError(f"{path.name}: {key!r} holds a reserved character")
    return table


def _phrase_pattern(phrase: str) -> str:
    """'第{x}列' -> a pattern whose groups capture what {x} stands for."""
    wildcard = rf"([ \t]*(?:{SPAN}\d+{END}|[0-9A-Za-z_]+)[ \t]*)"
    return wildcard.join(re.escape(part) for part in phrase.split(WILDCARD))


@functools.cache
def _compiled(path: Path, mtime_ns: int) -> tuple[dict[str, str], re.Pattern, list]:
    table = load_overrides(path)
    # Longest phrase first: at one position, the first alternative that matches
    # wins, so 列向量 is tried before 列 and 每一列 before 一列.
    phrases = sorted(table, key=lambda p: (-len(p.replace(WILDCARD, "")), p))
    pattern = re.compile("|".join(_alternative(i, p) for i, p in enumerate(phrases)))
    return table, pattern, phrases


def _alternative(i: int, phrase: str) -> str:
    """Phrase ``i`` as one alternative of the table's pattern, its first
    character outside the group: an alternative that begins with a literal
    character is skipped at once where that character is not (re's engine
    checks it before anything else), which makes the pattern some forty
    times faster on a page. The match as a whole (``match[0]``) is the
    phrase; group ``p<i>`` only names it."""
    if phrase.startswith(WILDCARD):
        return f"(?P<p{i}>{_phrase_pattern(phrase)})"
    return f"{re.escape(phrase[0])}(?P<p{i}>{_phrase_pattern(phrase[1:])})"


def overrides(path: Path = OVERRIDES) -> tuple[dict[str, str], re.Pattern, list]:
    """The table, one pattern matching any of its phrases, and its phrases.

    A match's ``lastgroup`` is ``p<i>``, naming ``phrases[i]``. The table is
    read again when the file changes (``mkdocs serve``).
    """
    return _compiled(path, path.stat().st_mtime_ns)


@functools.cache
def _opencc(config: str = OPENCC_CONFIG) -> opencc.OpenCC:
    return opencc.OpenCC(config)


# --- conversion ---------------------------------------------------------------


def _convert(text: str, protected: _Protected) -> str:
    """Apply the table (hidden from OpenCC), then OpenCC, then restore."""
    table, pattern, phrases = overrides()

    def replace(match: re.Match) -> str:
        phrase = phrases[int(match.lastgroup[1:])]
        start = match.re.groupindex[match.lastgroup]
        captured = iter(match.groups()[start : start + phrase.count(WILDCARD)])
        parts = table[phrase].split(WILDCARD)
        result = parts[0] + "".join(next(captured) + part for part in parts[1:])
        return protected.hide(result.translate(QUOTES), DONE)

    text = pattern.sub(replace, text)
    return protected.restore(_opencc().convert(text).translate(QUOTES))


def _check(text: str) -> None:
    if re.search(f"[{SPAN}-{END}]", text):
        raise ValueError("the text holds a character that zh_hans reserves (U+E000-3)")


#: An inline formula of a plain string (a figure's caption): ``\\( … \\)``.
TEXT_MATH = re.compile(r"(?<!\\)\\\(.*?\\\)")


def _hide_text_maths(text: str, protected: _Protected) -> str:
    """``text`` with its inline formulas hidden, as a page's are: a ``{x}``
    of the table stands for one (``第 \\(i\\) 列``)."""
    return TEXT_MATH.sub(lambda match: protected.hide(match[0], SPAN), text)


def to_simplified_text(text: str) -> str:
    """A plain string (no Markdown) in mainland Simplified Chinese.

    For glossary terms, plot labels and page titles: the override table, then
    OpenCC; only inline formulas ``\\( … \\)`` (a caption's) are protected.
    """
    _check(text)
    protected = _Protected()
    return _convert(_hide_text_maths(text, protected), protected)


def text_prose(text: str, *, hide_table: bool = False) -> str:
    """``prose`` of a plain string (``to_simplified_text``'s input)."""
    _check(text)
    text = _hide_text_maths(text, _Protected())
    if hide_table:
        text = overrides()[1].sub(" ", text)
    return PLACEHOLDER.sub(" ", text)


def _hide_inline(text: str, protected: _Protected) -> str:
    def hide(match: re.Match) -> str:
        mark = SPAN if match.lastgroup in ("code", "math") else KEEP
        return protected.hide(match[0], mark)

    return INLINE.sub(hide, text)


def _hide_blocks(markdown: str, protected: _Protected) -> str:
    """The page with code, maths, markup and URLs replaced by placeholders."""
    out: list[str] = []
    front = FRONT_MATTER.match(markdown)
    if front:
        out.append(protected.hide(front[0]))
        markdown = markdown[front.end() :]
    lines = markdown.splitlines(keepends=True)
    prose: list[str] = []

    def flush() -> None:
        if prose:
            out.append(_hide_inline("".join(prose), protected))
            prose.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        fence = FENCE.match(line.rstrip("\r\n"))
        if fence and not (fence["fence"][0] == "`" and "`" in fence["info"]):
            char, length = fence["fence"][0], len(fence["fence"])
            closing = re.compile(rf"^[ \t]*{re.escape(char)}{{{length},}}[ \t]*$")
            end = i + 1
            while end < len(lines) and not closing.match(lines[end].rstrip("\r\n")):
                end += 1
            block = lines[i : end + 1]  # an unclosed fence runs to the end
        elif snippets.BLOCK_MARKER.match(line):  # a block of file names
            end = i + 1
            while end < len(lines) and not snippets.BLOCK_MARKER.match(lines[end]):
                end += 1
            block = lines[i : end + 1] if end < len(lines) else [line]
        elif snippets.INCLUDE.match(line):  # --8<-- "file", escaped or not
            block = [line]
        else:
            prose.append(line)
            i += 1
            continue
        flush()
        text = "".join(block)
        newline = text[len(text.rstrip("\r\n")) :]
        out.append(protected.hide(text[: len(text) - len(newline)]) + newline)
        i += len(block)
    flush()
    return "".join(out)


def edition_includes(markdown: str) -> str:
    """Every ``--8<--`` line, in a fenced block or not, with ``zh-Hant/`` as
    ``zh-Hans/``: the Simplified page shows the Simplified edition's examples."""
    lines = markdown.splitlines(keepends=True)
    return "".join(
        snippets.for_edition(line, "zh-Hans")
        if snippets.INCLUDE.match(line.rstrip("\r\n"))
        else line
        for line in lines
    )


def to_simplified(markdown: str) -> str:
    """A zh-Hant Markdown page of the book in mainland Simplified Chinese.

    A page is converted once a build: the numbering stage reads the titles
    of every converted page before the page itself is rendered, and gets the
    same conversion (kept until the override table changes).
    """
    return _to_simplified(markdown, OVERRIDES.stat().st_mtime_ns)


@functools.lru_cache(maxsize=256)
def _to_simplified(markdown: str, overrides_mtime_ns: int) -> str:
    _check(markdown)
    protected = _Protected()
    markdown = edition_includes(markdown)
    return _convert(_hide_blocks(markdown, protected), protected)


def prose(markdown: str, *, hide_table: bool = False) -> str:
    """The page's prose, what ``to_simplified`` converts: every protected piece
    (and, with ``hide_table``, every phrase of the table) becomes a space."""
    _check(markdown)
    text = _hide_blocks(markdown, _Protected())
    if hide_table:
        text = overrides()[1].sub(" ", text)
    return PLACEHOLDER.sub(" ", text)


def edition_words(words: Mapping, language: str):
    """The words of the edition ``language`` from a table ``language -> words``.

    The table holds the hand-written editions' words only (``ja``,
    ``zh-Hant``): a converted edition (``zh-Hans``) gets those of the edition
    it is converted from, converted here as its pages are (``to_simplified``:
    code spans, URLs and HTML tags pass unchanged). ``words`` maps to a
    string, or to a mapping, tuple or list of strings.

    >>> edition_words({"ja": "図", "zh-Hant": "圖"}, "zh-Hans")
    '图'
    >>> edition_words({"ja": {"title": "目次"}, "zh-Hant": {"title": "目錄"}}, "ja")
    {'title': '目次'}
    """
    source = DERIVED.get(language, language)
    chosen = words[source]
    return chosen if source == language else _converted(chosen)


def _converted(value):
    if isinstance(value, str):
        return to_simplified(value)
    if isinstance(value, Mapping):
        return {key: _converted(item) for key, item in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value)(_converted(item) for item in value)
    raise TypeError(f"no words to convert in {value!r}")
