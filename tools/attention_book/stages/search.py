"""Material's search, corrected where it fails the book's readers.

Material (9.8) segments a query's runs of Han characters (Chinese words, and
the kanji of a Japanese query) in the browser, greedily, along the words of
the search index (``segment`` in its search worker). Two slips there decide
most Chinese searches, and no setting reaches them:

- **A word never ends where the query ends.** Only the query's proper
  prefixes are looked up, so a query that is one word of the index is cut
  short: 多頭注意力 becomes 多頭 and 注意, 注意力權重 becomes 注意力 (權重 is
  lost), and a page titled 多頭注意力 ranks below every page whose title
  holds 注意力機制. The fix lets a word run to the end of the query, and
  keeps a last word of one character (鍵, 值), which a guard written for
  the old bound would drop.
- **A word being typed is cut up.** A run that is only the beginning of a
  word of the index (注意力權, on the way to 注意力權重) was cut along the
  words it holds (注意力, then 權, which no word is), so the word it begins
  was not found. A run that begins a word of the index is now searched as
  that word's beginning, whole.
- **A half-typed last word is dropped.** What follows the last word of the
  index is left out when no word begins there: 注意力權, typed on the way
  to 注意力權重, was searched as 注意力 alone. The fix keeps that end as a
  piece of its own, which then finds the words it begins.
- **Each piece gets two wildcards.** The pieces are joined with ``"* "`` and
  then every term gets its own trailing ``*``: ``多頭** 注意*``. lunr reads
  ``**`` as one wildcard, but Material's own reading of the query keeps a
  ``*`` in the term, so it believes the term matched nothing: the term is
  listed as missing under the result, left out of the ``?h=`` highlight and
  of the boost for results that match every term. Joined with a space, each
  piece gets the one ``*`` that makes it a prefix, as every term has.
- **A title typed whole can lose to a section.** lunr ranks by terms
  alone: a short section that repeats a title's words (訓練, 注意力) could
  come before the page that bears that title, and rewording the section was
  the only cure. The page whose title is the query now comes first
  (``TITLE_FIRST``); every other order stays lunr's.

The segmentation runs inside Material's search worker, out of reach of a
page's scripts, and Material 9 dropped custom search workers; so the worker,
Material's minified script, is edited: ``on_files`` replaces it in the build
with a copy that carries these edits. Each edit must match exactly
once, or the build fails: a new Material release that changes the code fails
loudly instead of silently losing the fix (then check whether the release
fixed it: ``src/templates/assets/javascripts/integrations/search/query/
segment/index.ts`` and ``integrations/search/_/index.ts`` upstream).
``tests/browser/test_search.py`` checks the results a reader gets.

**What the reader types** (``book_query``, run first in the worker's
``search``): a formula or symbol of ``docs_src/search_words.yml`` (``QK^T``,
``-inf``, ``√d_k``, ``d_model``) becomes the hidden keyword its section holds
in the index (lunr read ``^`` as a boost and a leading ``-`` as NOT, and
the separator cut ``d_k`` into ``d`` and ``k``, which match every page and
the references' Kitaev and Kaiser); lunr's other operators (``^ ~ : +``,
a leading ``-``) are read as the punctuation they are, not as operators (a
wildcard ``*`` stays one); and the words that only make a query a question
(なぜ, のか, 為什麼, 嗎) are left out, as is a particle between kana and a
kanji (重みは説明: 重み, 説明), where the separator splits only after kanji.

The search index (``on_post_build``): Material's plugin surrounds every
Chinese word with a zero-width space, a token boundary for the browser's
search and also a line-break opportunity in the result snippets, which show
the indexed text. Next to full-width punctuation the space is no boundary
the index needs (the separator splits there already) and lets a snippet line
start with 。 or ）, which Chinese typesetting forbids; it is removed there.
The index is written back as UTF-8 rather than ASCII escapes (a third
smaller, 7 KiB less after gzip). The sections of ``search_words.yml`` get
their symbols' keywords and the edition's variant names (セルフアテンション,
複雜度), in the glossary's hidden field.
"""

from __future__ import annotations

import html
import json
import keyword
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

from attention_book import ROOT, load_yaml
from attention_book.editions import DERIVED
from attention_book.glossary import location, search_words
from attention_book.zh_hans import to_simplified_text

#: Symbols and variant names a reader searches with (see above).
SEARCH_WORDS = ROOT / "docs_src" / "search_words.yml"
#: Words that only make a query a question, by edition (a JavaScript regular
#: expression). なぜ...のか, ...とは; 為什麼, 什麼是, ...嗎.
QUESTION_WORDS = {
    "ja": r"なぜ|どうして|とは何|って何|とは(?=\s|$)|ですか(?=\s|$)"
    r"|(?<=[\u3041-\u30ff\u4e00-\u9fff])の?か(?=\s|$)",
    "zh-Hant": r"為什麼|為何|什麼是|什麼|怎麼|如何|是什麼|嗎|呢",
}
#: A particle between kana and kanji or katakana (重みは説明), by edition.
PARTICLES = {
    "ja": r"(?<=[\u3041-\u309f])[はがをでにと](?=[\u30a0-\u30ff\u4e00-\u9fff])"
}

WORKER = re.compile(r"assets/javascripts/workers/search\.[0-9a-f]+\.min\.js")
BUNDLE = re.compile(r"assets/javascripts/bundle\.[0-9a-f]+\.min\.js")

#: The results, page by page (a Map from a page's location to its results),
#: with the page whose title the reader typed whole moved first. lunr ranks
#: by its terms alone, so a short section that repeats a title's words
#: (訓練, 注意力) could come before the page that bears that title. The
#: comparison leaves out the chapter's number (12, 付録 A), spaces, the
#: zero-width spaces between Chinese words, and case. ``search`` keeps the
#: query as the reader typed it in ``bookQuery`` (``patch_worker``).
TITLE_FIRST = (
    "((n,w)=>{"
    'const k=s=>(s||"").replace(/\\u200b/g,"")'
    ".replace(/^\\s*(?:\\d+|(?:"
    + "|".join(["付録", "附錄", to_simplified_text("附錄")])
    + ')\\s*[A-Z])\\s/,"")'
    '.replace(/\\s+/g,"").toLowerCase(),'
    "q=k(w.bookQuery),g=[...n],"
    "i=q?g.findIndex(([l])=>k((w.map.get(l)||{}).title)===q):-1;"
    "i>0&&g.unshift(...g.splice(i,1));"
    "return g.map(([,o])=>o)})"
)

#: (what the edit does, the minified code, its replacement) - see above.
WORKER_EDITS = (
    (
        "let a word of the index end where the query ends",
        # for(let o=s+1;o<t.length;o++)t.slice(s,o)in e
        re.compile(
            r"(for\(let (\w+)=(\w+)\+1;\2)<"
            r"((\w+)\.length;\2\+\+\)\5\.slice\(\3,\2\)in )"
        ),
        r"\1<=\4",
    ),
    (
        "keep a last word of one character",
        # n[a]&&a<t.length-1&&(i[s++]=a)
        re.compile(r"((\w+)\[(\w+)\]&&\3<\w+\.length)-1(&&\(\w+\[\w+\+\+\]=\3\))"),
        r"\1\4",
    ),
    (
        "search a run that begins a word of the index as that word's beginning",
        # function fe(t,e){let r=new Set,n=new Uint16Array(t.length);
        re.compile(
            r"(function \w+\((\w+),(\w+)\)\{)"
            r"(let \w+=new Set,\w+=new Uint16Array\(\2\.length\);)"
        ),
        r"\1for(let w in \3)if(w.startsWith(\2))return new Set([\2]);\4",
    ),
    (
        "keep the half-typed end of a query",
        # let a=o+n[o];n[a]&&a<t.length&&(i[s++]=a),r.add(t.slice(o,a))
        re.compile(
            r"let (\w+)=(\w+)\+(\w+)\[\2\];\3\[\1\]&&\1<(\w+)\.length&&"
            r"\((\w+)\[(\w+)\+\+\]=\1\),(\w+)\.add\(\4\.slice\(\2,\1\)\)"
        ),
        r"let \1=\2+\3[\2];\1<\4.length&&(\3[\1]?\5[\6++]=\1:\7.add(\4.slice(\1))),"
        r"\7.add(\4.slice(\2,\1))",
    ),
    (
        "put the page whose title the query is first",
        # return _({items:[...n.values()]},typeof i!="undefined"&&{suggest:i})
        re.compile(r"return (\w+)\(\{items:\[\.\.\.(\w+)\.values\(\)\]\}"),
        lambda found: f"return {found[1]}({{items:{TITLE_FIRST}({found[2]},this)}}",
    ),
    (
        "join the pieces of a query with a space, not a wildcard",
        # [...fe(s,this.index.invertedIndex)].join("* ")
        re.compile(r'(\[\.\.\.\w+\(\w+,this\.index\.invertedIndex\)\]\.join\()"\* "\)'),
        r'\1" ")',
    ),
)


def load_search_words() -> dict:
    return load_yaml(SEARCH_WORDS.read_text(encoding="utf-8"))


def edition_words(words: list[str], language: str) -> list[str]:
    """``words`` of the Traditional edition in ``language``'s (converted)."""
    if language in DERIVED:
        return [to_simplified_text(word) for word in words]
    return words


def synonyms(where: dict, language: str) -> list[str]:
    """A section's variant names in ``language``'s edition."""
    return edition_words(where.get(DERIVED.get(language, language), []), language)


def question_words(language: str) -> str:
    """The words that only make a query a question, as a JavaScript pattern."""
    source = DERIVED.get(language, language)
    if source not in QUESTION_WORDS:
        return "(?!)"
    return "|".join(edition_words(QUESTION_WORDS[source].split("|"), language))


def symbol_keyword(where: str) -> str:
    """The hidden keyword of a section's symbols: Latin letters only (the
    separator, lunr.ja's segmenter and lunr's query parser keep it whole),
    named after the section, and beginning no word the book writes."""
    letters = "".join(c if c.isalnum() else " " for c in where.lower()).split()
    return "zzsym" + "".join(word[:4] for word in letters)


def _js_pattern(spelling: str) -> str:
    """``spelling`` as a JavaScript pattern: spaces allowed between its
    characters, and a Latin edge not inside a longer name (d_k in d_kv)."""
    chars = [
        "\\" + c if c in "\\^$.*+?()[]{}|/" else c for c in spelling if not c.isspace()
    ]
    pattern = r"\s*".join(chars)
    if spelling[0].isascii() and (spelling[0].isalnum() or spelling[0] == "_"):
        pattern = r"(?<![A-Za-z0-9_])" + pattern
    if spelling[-1].isascii() and (spelling[-1].isalnum() or spelling[-1] == "_"):
        pattern += r"(?![A-Za-z0-9_])"
    return pattern


def book_query(language: str) -> str:
    """The function the worker runs on a query first (see above), as JavaScript."""
    symbols = {
        spelling: symbol_keyword(location(where))
        for where, spellings in load_search_words()["symbols"].items()
        for typed in spellings
        for spelling in dict.fromkeys([typed, *edition_words([typed], language)])
    }.items()
    symbols = sorted(symbols, key=lambda symbol: -len(symbol[0]))
    table = [[_js_pattern(spelling), keyword] for spelling, keyword in symbols]
    question = question_words(language)
    particles = PARTICLES.get(language, "(?!)")
    return (
        "(q=>{"
        f"for(const[p,k]of {json.dumps(table, ensure_ascii=False)})"
        'q=q.replace(new RegExp(p,"gi")," "+k+" ");'
        f'q=q.replace(new RegExp({json.dumps(question, ensure_ascii=False)},"g")," ");'
        f'q=q.replace(new RegExp({json.dumps(particles, ensure_ascii=False)},"g")," ");'
        'return q.replace(/[\\^~:+]+|(^|\\s)-+/g,"$1 ").replace(/\\s+/g," ").trim()'
        "})"
    )


#: Where the worker's ``search`` begins: ``search(e){if(e=e.replace(new
#: RegExp("\\p{sc=Han}+"...``; ``book_query`` goes first.
SEARCH_START = re.compile(
    r'(search\((\w+)\)\{)(if\(\2=\2\.replace\(new RegExp\("\\\\p\{sc=Han\}\+")'
)


def add_search_words(index: dict, language: str) -> None:
    """The symbols' keywords and the edition's variant names, in their sections."""
    words = load_search_words()
    found: dict[str, list[str]] = {}
    for where, _ in words["symbols"].items():
        found.setdefault(location(where), []).append(symbol_keyword(location(where)))
    for where, editions in words["synonyms"].items():
        found.setdefault(location(where), []).extend(synonyms(editions, language))
    docs = {doc["location"]: doc for doc in index["docs"]}
    for where, added in found.items():
        doc = docs.get(where)
        if doc is None:
            raise PluginError(f"stages/search.py: the index has no section {where}")
        doc["keywords"] = "\u200b".join(
            [*doc.get("keywords", "").split("\u200b"), *added]
        ).strip("\u200b")


#: Full-width punctuation that must not begin a line (closing brackets and
#: quotes, the full stop, commas, colons ...) or end one (opening brackets
#: and quotes). Every one of them is in the Chinese separator.
CLOSING = "、，。」』”’）：；？！"
OPENING = "「『“‘（"
NEEDLESS_BREAK = re.compile(f"\u200b+(?=[{CLOSING}])|(?<=[{OPENING}])\u200b+")


#: The index request in Material's bundle: ``function ks(){return <request>}``,
#: where ``<request>`` reads the index beside the site's pages.
INDEX_REQUEST = re.compile(
    r'function (?P<name>\w+)\(\)\{return (?P<request>location\.protocol==="file:"\?'
    r'[^{}]*?\$\{new URL\("search/search_index\.js",\w+\.base\)\}[^{}]*?'
    r'"search/search_index\.json",\w+\.base\)\))\}'
)
#: The bundle's Observable class (its XMLHttpRequest wrapper makes one) and
#: its shareReplay (which the index request ends with).
OBSERVABLE = re.compile(
    r"function \w+\(\w+,\w+\)\{return new (\w+)\(\w+=>\{let \w+=new XMLHttpRequest"
)
SHARE_REPLAY = re.compile(r"\.pipe\(\w+\(\(\)=>__index\),(\w+)\(1\)\)")

#: The index request, deferred: it starts when the reader turns to the search
#: (the search box gets the focus: a click, "/" or "s", the phone's search
#: button), or at once when the address asks for the index (``?q=``, a shared
#: search; ``?h=``, words to highlight). Written into the bundle as it stands.
LAZY_INDEX = """function {name}(){{return new {observable}(subscriber=>{{
let request,closed=!1;
const form=document.forms.namedItem("search"),
start=()=>{{document.removeEventListener("focusin",turned);closed||(request=({request}).subscribe(subscriber))}},
turned=event=>{{event.target.form===form&&start()}};
/[?&][qh]=/.test(location.search)||document.activeElement?.form===form?start():document.addEventListener("focusin",turned);
return()=>{{closed=!0,document.removeEventListener("focusin",turned),request?.unsubscribe()}}
}}).pipe({share}(1))}}"""


def _once(pattern: re.Pattern, source: str, purpose: str) -> re.Match:
    found = list(pattern.finditer(source))
    if len(found) != 1:
        raise PluginError(
            f"stages/search.py: Material's bundle has changed, cannot {purpose} "
            f"(the code matched {len(found)} times instead of once)"
        )
    return found[0]


def patch_bundle(source: str) -> str:
    """Material's bundle, asking for the search index only when it is needed.

    Material requests ``search/search_index.json`` as the page loads, before
    any reader has searched; the index is the heaviest file of a first visit
    (about 200 KiB gzip, more than the rest of a page). No setting defers it.
    """
    purpose = "defer the search index"
    found = _once(INDEX_REQUEST, source, purpose)
    lazy = LAZY_INDEX.replace("\n", "").format(
        name=found["name"],
        request=found["request"],
        observable=_once(OBSERVABLE, source, purpose)[1],
        share=_once(SHARE_REPLAY, source, purpose)[1],
    )
    return source[: found.start()] + lazy + source[found.end() :]


def patch_worker(source: str, language: str = "ja") -> str:
    """Material's search worker with the edits of ``WORKER_EDITS``, and
    ``book_query`` run first on every query."""
    for purpose, pattern, replacement in WORKER_EDITS:
        source, count = pattern.subn(replacement, source)
        if count != 1:
            raise PluginError(
                f"stages/search.py: Material's search worker has changed, cannot "
                f"{purpose} (the code matched {count} times instead of once)"
            )
    source, count = SEARCH_START.subn(
        lambda found: (
            f"{found[1]}this.bookQuery={found[2]};"
            f"{found[2]}={book_query(language)}({found[2]});" + found[3]
        ),
        source,
    )
    if count != 1:
        raise PluginError(
            "stages/search.py: Material's search worker has changed, cannot read "
            f"the reader's query first (the code matched {count} times instead of once)"
        )
    return source


def _replace(files: Files, config, pattern: re.Pattern, patch) -> None:
    found = [file for file in files if pattern.fullmatch(file.src_uri)]
    if len(found) != 1:
        raise PluginError(f"stages/search.py: expected one {pattern.pattern}: {found}")
    [file] = found
    patched = patch(Path(file.abs_src_path).read_text(encoding="utf-8"))
    files.remove(file)
    files.append(File.generated(config, file.src_uri, content=patched))


def on_files(files: Files, config) -> Files:
    language = config.theme["language"]
    _replace(files, config, WORKER, lambda source: patch_worker(source, language))
    _replace(files, config, BUNDLE, patch_bundle)
    return files


def tidy(text: str) -> str:
    """``text`` without the zero-width spaces next to full-width punctuation."""
    return NEEDLESS_BREAK.sub("", text)


#: A code block in the index's text, and a name in its code.
CODE_BLOCK = re.compile(r"<pre>(.*?)</pre>", re.DOTALL)
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: A line of a Python prompt's session that holds code (the rest is output).
PROMPT = re.compile(r"^(?:>>>|\.\.\.)(?: |$)")


def code_names(block: str) -> str:
    """The names in a code block, each once: what a reader may search it for.

    The index holds no code but these: a session's output and the numbers,
    strings' punctuation and comments of its code are never searched, and
    they were half of the index. ``block`` is the block as the index holds it
    (HTML, with ``&gt;`` for ``>``); of a Python session (``>>>`` lines) only
    the lines of code count.
    """
    lines = html.unescape(re.sub(r"<[^>]+>", "", block)).splitlines()
    if any(PROMPT.match(line) for line in lines):
        lines = [line[4:] for line in lines if PROMPT.match(line)]
    names = {}
    for line in lines:
        code = line.split("#", 1)[0]
        for name in NAME.findall(code):
            if len(name) > 1 and not keyword.iskeyword(name):
                names[name] = None
    return " ".join(names)


def shrink(text: str) -> str:
    """``text`` with each code block replaced by the names in its code."""

    def names(match: re.Match) -> str:
        found = code_names(match[1])
        return f"<pre><code>{found}</code></pre>" if found else ""

    return CODE_BLOCK.sub(names, text)


#: The index's field for the glossary's words, weighed a little above a
#: title (1000): a term of the glossary leads first to the section that
#: explains it, and a page's title, typed whole, still leads to the page.
KEYWORDS = {"keywords": {"boost": 1250.0}}


def add_keywords(index: dict, language: str) -> None:
    """Give each section the glossary names its words, in a field of its own.

    The field is searched but never shown. Material's worker builds its lunr
    index from the fields the index's configuration lists.
    """
    docs = {doc["location"]: doc for doc in index["docs"]}
    for where, found in search_words(language).items():
        # A page's first heading is the page itself in the index.
        doc = docs.get(where) or docs.get(where.partition("#")[0])
        if doc is None:
            raise PluginError(f"stages/search.py: the index has no section {where}")
        # Chinese words are kept whole, as the text's are (zero-width spaces).
        doc["keywords"] = "\u200b".join(
            [*doc.get("keywords", "").split("\u200b"), *found]
        ).strip("\u200b")
    index["config"]["fields"].update(KEYWORDS)


def on_post_build(config) -> None:
    # Hooks run after the plugins: the search plugin has written its index.
    path = Path(config.site_dir) / "search" / "search_index.json"
    index = json.loads(path.read_text(encoding="utf-8"))
    for doc in index["docs"]:
        doc["title"] = tidy(doc["title"])
        doc["text"] = tidy(shrink(doc["text"]))
    add_keywords(index, config.theme["language"])
    add_search_words(index, config.theme["language"])
    path.write_text(
        json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8"
    )
