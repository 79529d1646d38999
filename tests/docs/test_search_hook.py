"""stages/search.py without a build: its edits of Material's search worker and
its tidying of the search index's text."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import material
import pytest
from mkdocs.exceptions import PluginError

from attention_book.glossary import location, search_words
from attention_book.stages import search as hook

SCRIPTS = Path(material.__file__).parent / "templates/assets/javascripts"
WORKERS = SCRIPTS / "workers"


@pytest.fixture(scope="module")
def worker() -> str:
    [path] = WORKERS.glob("search.*.min.js")
    return path.read_text(encoding="utf-8")


def test_each_edit_finds_its_code_once_in_materials_worker(worker) -> None:
    patched = hook.patch_worker(worker)
    assert patched != worker
    # Material's own names (n, a, i, s, r, t) in the release pinned here.
    half_typed = len("a<t.length&&(n[a]?i[s++]=a:r.add(t.slice(a)))") - len(
        "n[a]&&a<t.length&&(i[s++]=a)"
    )
    begun = len("for(let w in e)if(w.startsWith(t))return new Set([t]);")
    query_first = len(f"this.bookQuery=e;e={hook.book_query('ja')}(e);")
    title_first = len(f"{hook.TITLE_FIRST}(n,this)") - len("[...n.values()]")
    assert len(patched) == (
        len(worker)
        + len("=")
        - len("-1")
        - len("*")
        + half_typed
        + begun
        + query_first
        + title_first
    )
    assert '.join(" ")' in patched


def test_a_worker_that_has_changed_fails_the_build(worker) -> None:
    with pytest.raises(PluginError, match="has changed"):
        hook.patch_worker(hook.patch_worker(worker))


#: A query as typed -> as the worker reads it (book_query), per edition.
QUERIES = {
    "ja": {
        "なぜ√d_kで割るのか": "{scaling} で割る",
        "QK^T": "{definition}",
        "-inf": "{additive}",
        "d_model とは": "{shapes}",
        "d_kv": "d_kv",  # another name: not d_k
        "アテンション重みは説明か": "アテンション重み 説明",
        "top-p": "top-p",  # a - inside a word is the separator's
        "*積": "*積",  # the wildcard stays
        "title:x +y ~z": "title x y z",
    },
    "zh-Hant": {
        "為什麼要除以根號 d_k": "要除以 {scaling}",
        "注意力權重是解釋嗎": "注意力權重是解釋",
    },
    "zh-Hans": {"为什么要除以根号 d_k": "要除以 {scaling}", "QK^⊤": "{definition}"},
}


@pytest.mark.parametrize("language", sorted(QUERIES))
def test_the_worker_reads_symbols_operators_and_questions(language, tmp_path) -> None:
    keywords = {
        name: hook.symbol_keyword(location(where))
        for name, where in [
            ("scaling", "scaled-dot-product.md#scaling"),
            ("definition", "scaled-dot-product.md#definition"),
            ("additive", "masks.md#additive-masks"),
            ("shapes", "notation.md#shapes"),
        ]
    }
    script = tmp_path / "query.js"
    script.write_text(
        f"const read = {hook.book_query(language)};\n"
        f"const queries = {json.dumps(list(QUERIES[language]))};\n"
        "console.log(JSON.stringify(queries.map(read)));\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        ["node", str(script)], capture_output=True, text=True, check=True
    )
    read = dict(zip(QUERIES[language], json.loads(result.stdout), strict=True))
    expected = {q: r.format(**keywords) for q, r in QUERIES[language].items()}
    assert read == expected


#: (the query as typed, the pages' titles in the index -> the order after
#: TITLE_FIRST): lunr's order stands unless a title is the query.
TITLES = {"": "從\u200b矩陣\u200b學\u200b注意力", "lm/": "12 \u200b訓練\u200b注意力"}
TITLE_CASES = [
    ("訓練注意力", ["window/", "lm/"], ["lm/", "window/"]),
    ("12 訓練注意力", ["window/", "lm/"], ["lm/", "window/"]),
    ("訓練", ["window/", "lm/"], ["window/", "lm/"]),
    ("注意力", ["", "lm/"], ["", "lm/"]),
    ("訓練注意力", ["lm/", ""], ["lm/", ""]),
    ("訓練注意力", ["window/", ""], ["window/", ""]),
    ("Package", ["x/", "package/"], ["package/", "x/"]),
    ("附錄 A PACKAGE", ["x/", "package/"], ["package/", "x/"]),
]


def test_the_page_whose_title_is_the_query_comes_first(tmp_path) -> None:
    titles = {**TITLES, "package/": "附錄\u200b A \u200bpackage", "x/": "x"}
    script = tmp_path / "title.js"
    script.write_text(
        f"const first = {hook.TITLE_FIRST};\n"
        f"const titles = new Map(Object.entries({json.dumps(titles)}));\n"
        "const map = new Map([...titles].map(([l, title]) => [l, {title}]));\n"
        f"const cases = {json.dumps(TITLE_CASES, ensure_ascii=False)};\n"
        "console.log(JSON.stringify(cases.map(([query, order]) => first(\n"
        "  new Map(order.map(l => [l, [{location: l}]])), {bookQuery: query, map}\n"
        ").map(group => group[0].location))));\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        ["node", str(script)], capture_output=True, text=True, check=True
    )
    assert json.loads(result.stdout) == [after for _, _, after in TITLE_CASES]


@pytest.mark.parametrize(
    ("text", "tidied"),
    [
        ("\u200b注意力\u200b。", "\u200b注意力。"),
        ("（\u200b注意力\u200b）\u200b，\u200b權重", "（注意力），\u200b權重"),
        ("「\u200b分數\u200b」", "「分數」"),
        ("\u200b矩陣\u200b的\u200b乘積", "\u200b矩陣\u200b的\u200b乘積"),  # words stay
        ("softmax \u200b函數", "softmax \u200b函數"),
    ],
)
def test_tidy_removes_breaks_next_to_punctuation_only(text, tidied) -> None:
    assert hook.tidy(text) == tidied


@pytest.fixture(scope="module")
def bundle() -> str:
    [path] = SCRIPTS.glob("bundle.*.min.js")
    return path.read_text(encoding="utf-8")


def test_the_bundle_asks_for_the_index_when_the_reader_searches(bundle) -> None:
    patched = hook.patch_bundle(bundle)
    request = hook.INDEX_REQUEST.search(bundle)["request"]
    assert f"({request}).subscribe" in patched, "the same request, deferred"
    assert 'addEventListener("focusin"' in patched
    assert "[?&][qh]=" in patched
    with pytest.raises(PluginError, match="has changed"):
        hook.patch_bundle(patched)


PYCON = """<pre><code><span>&gt;&gt;&gt; </span>import numpy as np
&gt;&gt;&gt; weights = attention_weights(q, k, mask=causal)  # A: rows sum to 1
&gt;&gt;&gt; for row in weights:
...     print(np.round(row.sum(), 3), kv_cache_bytes)
1.0 123456
[[0.665 0.245 0.09 ]]
</code></pre>"""


def test_a_code_block_is_indexed_by_its_names_only() -> None:
    assert hook.code_names(PYCON.removeprefix("<pre>").removesuffix("</pre>")) == (
        "numpy np weights attention_weights mask causal row print round sum "
        "kv_cache_bytes"
    )
    text = f"<p>before</p> {PYCON} <p>after</p>"
    shrunk = hook.shrink(text)
    assert shrunk.startswith("<p>before</p> <pre><code>numpy np weights")
    assert shrunk.endswith("kv_cache_bytes</code></pre> <p>after</p>")
    assert "0.665" not in shrunk and "rows sum" not in shrunk
    # A block of plain Python or shell keeps every line's names.
    assert hook.code_names("<code>make test\npip install .</code>") == (
        "make test pip install"
    )
    assert hook.shrink("<pre><code>1 + 2</code></pre>") == ""


def test_glossary_words_lead_to_their_sections() -> None:
    assert location("index.md") == ""
    assert location("softmax.md") == "softmax/"
    assert location("training.md#loss") == "training/#loss"
    ja, hant, hans = (search_words(code) for code in ("ja", "zh-Hant", "zh-Hans"))
    assert ja["training/#loss"] == [
        "交差エントロピー",
        "cross-entropy",
        "クロスエントロピー",
    ]
    assert hant["training/#loss"] == ["交叉熵", "cross-entropy"]
    assert "FlashAttention" in hans["efficient-attention/#blockwise"]
    assert "注意力权重" in hans["scaled-dot-product/#weights"]
    assert set(ja) == set(hant) == set(hans)
