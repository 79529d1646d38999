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
- **Each piece gets two wildcards.** The pieces are joined with ``"* "`` and
  then every term gets its own trailing ``*``: ``多頭** 注意*``. lunr reads
  ``**`` as one wildcard, but Material's own reading of the query keeps a
  ``*`` in the term, so it believes the term matched nothing: the term is
  listed as missing under the result, left out of the ``?h=`` highlight and
  of the boost for results that match every term. Joined with a space, each
  piece gets the one ``*`` that makes it a prefix, as every term has.

The segmentation runs inside Material's search worker, out of reach of a
page's scripts, and Material 9 dropped custom search workers; so the worker,
Material's minified script, is edited: ``on_files`` replaces it in the build
with a copy that carries these edits. Each edit must match exactly
once, or the build fails: a new Material release that changes the code fails
loudly instead of silently losing the fix (then check whether the release
fixed it: ``src/templates/assets/javascripts/integrations/search/query/
segment/index.ts`` and ``integrations/search/_/index.ts`` upstream).
``tests/browser/test_search.py`` checks the results a reader gets.

The search index (``on_post_build``): Material's plugin surrounds every
Chinese word with a zero-width space, a token boundary for the browser's
search and also a line-break opportunity in the result snippets, which show
the indexed text. Next to full-width punctuation the space is no boundary
the index needs (the separator splits there already) and lets a snippet line
start with 。 or ）, which Chinese typesetting forbids; it is removed there.
The index is written back as UTF-8 rather than ASCII escapes (a third
smaller, 7 KiB less after gzip).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

WORKER = re.compile(r"assets/javascripts/workers/search\.[0-9a-f]+\.min\.js")

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
        "join the pieces of a query with a space, not a wildcard",
        # [...fe(s,this.index.invertedIndex)].join("* ")
        re.compile(r'(\[\.\.\.\w+\(\w+,this\.index\.invertedIndex\)\]\.join\()"\* "\)'),
        r'\1" ")',
    ),
)

#: Full-width punctuation that must not begin a line (closing brackets and
#: quotes, the full stop, commas, colons ...) or end one (opening brackets
#: and quotes). Every one of them is in the Chinese separator.
CLOSING = "、，。」』”’）：；？！"
OPENING = "「『“‘（"
NEEDLESS_BREAK = re.compile(f"\u200b+(?=[{CLOSING}])|(?<=[{OPENING}])\u200b+")


def patch_worker(source: str) -> str:
    """Material's search worker with the edits of ``WORKER_EDITS``."""
    for purpose, pattern, replacement in WORKER_EDITS:
        source, count = pattern.subn(replacement, source)
        if count != 1:
            raise PluginError(
                f"hooks/search.py: Material's search worker has changed, cannot "
                f"{purpose} (the code matched {count} times instead of once)"
            )
    return source


def on_files(files: Files, config) -> Files:
    workers = [file for file in files if WORKER.fullmatch(file.src_uri)]
    if len(workers) != 1:
        raise PluginError(f"hooks/search.py: expected one search worker: {workers}")
    [worker] = workers
    patched = patch_worker(Path(worker.abs_src_path).read_text(encoding="utf-8"))
    files.remove(worker)
    files.append(File.generated(config, worker.src_uri, content=patched))
    return files


def tidy(text: str) -> str:
    """``text`` without the zero-width spaces next to full-width punctuation."""
    return NEEDLESS_BREAK.sub("", text)


def on_post_build(config) -> None:
    # Hooks run after the plugins: the search plugin has written its index.
    path = Path(config.site_dir) / "search" / "search_index.json"
    index = json.loads(path.read_text(encoding="utf-8"))
    for doc in index["docs"]:
        for field in ("title", "text"):
            doc[field] = tidy(doc[field])
    path.write_text(
        json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8"
    )
