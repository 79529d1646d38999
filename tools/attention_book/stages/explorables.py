"""Interactive figures ("explorables"): numbers the reader moves on the page.

Each explorable is written once, as one JavaScript module,
``docs_src/explorables/<name>.js``: its ``render(words, data)`` writes the
figure's HTML and its ``mount(root)`` computes the numbers, fills them in and
listens to the reader. This hook only gives it its words and its data.

- **A placeholder** in a page, a line of its own in both hand-written
  editions at the same place, names the explorable:
  ``<div class="explorable" data-explorable="softmax"></div>``.
- **Drawn at build time by the same module.** ``stages/explorables_render.mjs``
  runs under Node (a build dependency already, for KaTeX): it calls the
  module's ``render``, then its ``mount`` in happy-dom (a DOM without a
  screen), and the figure's HTML after that replaces the placeholder. So the
  reader without JavaScript, the PDF (printed with JavaScript off) and the
  search see exactly the state the script starts in, with a sentence (in
  ``<noscript>``) saying that the web page lets the reader move it; in the
  browser the script computes the same state again, so nothing moves when it
  starts (no layout shift). One Node run draws every explorable of an
  edition, the first time a page of that build needs one.
- **Data from the package.** The numbers a figure starts from (the running
  example's X and weights, the page's own examples, the trained language
  model's attention weights) are computed here by ``attention_docs`` and
  handed to ``render`` as JSON (``DATA``); the figure computes the rest.
  The browser tests compare every number it shows with the package.
- **Loaded only where used.** A page with an explorable gets the figures'
  stylesheet (``docs_src/explorables/explorables.css``, inline) and one
  ``<script type="module">`` per explorable, ``assets/explorables/<name>.js``,
  which imports the shared ``core.js`` (and ``chart.js``, the line
  charts). Pages without one load nothing new.
  Material's instant navigation runs a page's scripts again; a module runs
  once and mounts every page's figures through ``document$`` (core.js).
- **Words** live in one file per explorable, ``docs_src/explorables/<name>.yml``,
  with ``ja`` and ``zh-Hant`` holding the same keys; the Simplified edition
  converts the Traditional words, as the plots' labels are converted.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.utils import get_relative_url

from attention_book import ROOT, load_yaml
from attention_book.editions import DERIVED
from attention_book.zh_hans import to_simplified_text

FOLDER = ROOT / "docs_src" / "explorables"
RENDER = Path(__file__).resolve().with_name("explorables_render.mjs")
PLACEHOLDER = re.compile(
    r'<div class="explorable" data-explorable="(?P<name>[a-z_]+)"></div>'
)


# --- words -----------------------------------------------------------------


def load_words(name: str) -> dict:
    path = FOLDER / f"{name}.yml"
    if not path.is_file():
        raise PluginError(f"explorable {name!r} has no words: {path.relative_to(ROOT)}")
    return load_yaml(path.read_text(encoding="utf-8"))


#: Maths in the words, ``$...$``: typeset as the pages' inline maths are.
MATH = re.compile(r"\$([^$]+)\$")


def typeset(text: str) -> str:
    """``text`` with each ``$tex$`` typeset by the book's KaTeX (the pages'
    MathML, drawn in STIX Two Math), so that a figure's labels set their
    maths as the text does: italic letters, a radical whose bar is drawn
    with it."""
    if "$" not in text:
        return text
    from attention_book.stages.katex import KATEX

    return MATH.sub(lambda m: KATEX.render(m[1], False), text)


def _words(name: str, language: str) -> dict[str, str]:
    if language in DERIVED:
        words = _words(name, DERIVED[language])
        return {key: to_simplified_text(value) for key, value in words.items()}
    words = load_words(name).get(language)
    if not isinstance(words, dict):
        raise PluginError(f"docs_src/explorables/{name}.yml has no `{language}` words")
    return words


#: The words every explorable shares (``core.yml``): how a screen reader is
#: told a power, a superscript, a subscript and a square root (core.js, said()).
SHARED_WORDS = "core"


def words_for(name: str, language: str) -> dict[str, str]:
    """The explorable's words in ``language`` (zh-Hans: converted from
    zh-Hant), their ``$maths$`` typeset, and the shared words of ``core.yml``."""
    shared = _words(SHARED_WORDS, language)
    own = _words(name, language)
    return {key: typeset(value) for key, value in (shared | own).items()}


#: The folder's shared modules, imported by the explorables: no figure of their own.
SHARED = ("core", "chart")


def names() -> list[str]:
    """Every explorable: the scripts of the folder but the shared modules."""
    return sorted(p.stem for p in FOLDER.glob("*.js") if p.stem not in SHARED)


# --- data: what each figure starts from, computed by the package -------------

#: The page's example of the softmax explorable: scores x and the factor t.
SOFTMAX_X = [1.0, 2.0, 3.0]
SOFTMAX_T = 1.0
#: The softmax explorable's presets: the page's scores at a large t (one
#: largest input: saturated, the Jacobian fades), and two largest inputs
#: tied at the same t (the weights split between them, the Jacobian keeps
#: 1/4: the state its caption describes and readers did not find, issue 40).
SOFTMAX_PRESETS = {
    "apart": {"x": [1.0, 2.0, 3.0], "t": 5.0},
    "tie": {"x": [3.0, 2.0, 3.0], "t": 5.0},
}

#: GPT-3 175B (Brown et al., 2020, Table 2.1), the KV-cache page's example.
KV_DEFAULT = {
    "layers": 96,
    "heads": 96,
    "groups": 8,
    "d_k": 128,
    "tokens": 2048,
    "batch": 1,
    "latent": 512,
    "rope": 64,
}
KV_BYTES = (2, 4, 8)
KV_KINDS = ("mha", "gqa", "mqa", "mla")
#: DeepSeek-V3 (DeepSeek-AI, 2024, arXiv:2412.19437, Section 4.2): multi-head
#: latent attention with d_c = 512 and d_h^R = 64 (latent-attention.md).
KV_PRESETS = {
    "deepseek_v3": {
        "kind": "mla",
        "layers": 61,
        "heads": 128,
        "d_k": 128,
        "latent": 512,
        "rope": 64,
    },
}

#: The RoPE page's query and key, and the positions of its first pair (m - r = 3).
ROPE_Q, ROPE_K = [1.0, 2.0, 3.0, 4.0], [4.0, 3.0, 2.0, 1.0]
ROPE_M, ROPE_N = 3, 0
#: Half the side of each pair's drawing, in the units of the vectors.
ROPE_R = 6
#: The widths the reader chooses from (above 4, the page's q and k repeated),
#: and the sliders' largest position: the chart spans m - r = -32 ... 32.
ROPE_DIMS = (4, 8, 16)
ROPE_MAX = 32
#: The width the figure opens at: d = 16, eight pairs from fast to slow, whose
#: score against m - r shows the decay (at d = 4, theta_0 = 1 rad a step
#: aliases and the score looked like noise: issue 40). The page prints its
#: score at m - r = 3 (rope_relative.pycon).
ROPE_D = 16

#: The online-softmax page's scores of one query and its values (one row per key).
ONLINE_S = [1.0, 3.0, 0.5, 4.0]
ONLINE_V = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.0]]
ONLINE_BLOCKS = (1, 2, 4)

HEAD_COUNTS = (1, 2, 4)  # the divisors of d_model = 4
#: W^O: the identity (the output is the concatenation itself), or the page's
#: W^O_1 = [I | 0], W^O_2 = [I | I] (sum-of-heads), rows in blocks of d_v.
W_O = {
    "identity": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
    "mixing": [[1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1]],
}


def running_example() -> dict:
    """The running example's X, W_Q, W_K, W_V (``attention_docs``), as lists."""
    from attention_docs import running_example as example

    x, w_q, w_k, w_v = example()
    return {
        "x": x.tolist(),
        "w_q": w_q.tolist(),
        "w_k": w_k.tolist(),
        "w_v": w_v.tolist(),
    }


def data_softmax(language: str) -> dict:
    return {"x": SOFTMAX_X, "t": SOFTMAX_T, "presets": SOFTMAX_PRESETS}


def data_masks(language: str) -> dict:
    import numpy as np

    e = {k: np.asarray(v) for k, v in running_example().items()}
    return {
        "q": (e["x"] @ e["w_q"]).tolist(),
        "k": (e["x"] @ e["w_k"]).tolist(),
        "v": (e["x"] @ e["w_v"]).tolist(),
    }


def data_example(language: str) -> dict:
    return running_example()


#: The heads figure's second input, the one it opens with: the running
#: example's X with projections chosen so that, at h = 2, the heads look at
#: different tokens. X W_Q = 4 [[1, 0, 1, 0], [0, 1, 1, 0], [-1, -1, 0, 1]] and
#: X W_K = [[1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 0, 0]]: in head 1 (columns 1-2)
#: query i's largest score is with key i (by 4 over the others), in head 2
#: (columns 3-4) with the previous key (query 1 with itself); one head over
#: all four columns scores keys 1 and 2 (query 2), 2 and 3 (query 3) alike.
#: X W_V = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 1, 1]]: each token's value is
#: one code c_j twice, c = (1, 0), (0, 1), (1, 1), one copy a head, so that a
#: head's output says which token it took. X's three rows fix three of each
#: W's four rows' sums; the rows left free are 0.
HEADS_PRESET = {
    "w_q": [[-4, -4, 0, 4], [0, 0, 0, 0], [8, 4, 4, -4], [0, 4, 4, 0]],
    "w_k": [[0, 0, 0, 0], [0, 0, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1]],
    "w_v": [[1, 1, 1, 1], [0, 0, 0, 0], [0, -1, 0, -1], [0, 1, 0, 1]],
}
#: The inputs the reader chooses from, the first one shown first.
HEADS_INPUTS = ("preset", "example")


def heads_input(name: str) -> dict:
    """The heads figure's input ``name``: X, W_Q, W_K, W_V as lists."""
    example = running_example()
    return example | HEADS_PRESET if name == "preset" else example


def data_heads(language: str) -> dict:
    return {
        "inputs": {name: heads_input(name) for name in HEADS_INPUTS},
        "input": HEADS_INPUTS[0],
        "w_o": W_O,
        "w_o_name": "mixing",
        "counts": list(HEAD_COUNTS),
        "h": 2,
    }


#: The memory of one GPU as its vendor publishes it, in GB (10^9 bytes, as the
#: book's GB; drawn at that many bytes): NVIDIA GeForce RTX 4090 24 GB; A100
#: and H100, 80 GB versions; H200 141 GB. The KV-cache chart draws a line at each.
KV_DEVICES = (("rtx_4090", 24), ("a100_h100", 80), ("h200", 141))


def data_kv_cache(language: str) -> dict:
    return {
        "devices": [list(device) for device in KV_DEVICES],
        "sizes": KV_DEFAULT,
        "bytes": list(KV_BYTES),
        "kinds": list(KV_KINDS),
        "presets": KV_PRESETS,
        "window": 0,  # no window: every token cached
    }


#: The window-and-sinks figure's first state (the page's figure) and its largest n.
WINDOW_DEFAULT = {"n": 10, "window": 4, "n_sink": 2, "max": 16}


def window_sink_qk():
    """The queries and keys of the sliding-window page's artificial attention
    (docs_src/sliding_window/sinks.pycon), its first ``WINDOW_DEFAULT["max"]``
    positions: key 0 the sink, scoring high with every query."""
    import numpy as np

    rng = np.random.default_rng(0)
    n, d = 64, 8
    u = np.eye(d)[0]
    q = u + 0.3 * rng.standard_normal((n, d))
    k = rng.standard_normal((n, d))
    k[0] = 7 * np.sqrt(d) * u
    most = WINDOW_DEFAULT["max"]
    return q[:most], k[:most]


def data_window_sinks(language: str) -> dict:
    """The sizes, and the scaled scores S of those queries and keys, from
    which the figure computes the newest query's weights with and without
    the sinks."""
    from attention_docs import attention_scores

    q, k = window_sink_qk()
    return dict(WINDOW_DEFAULT) | {"scores": attention_scores(q, k).tolist()}


def data_rope(language: str) -> dict:
    return {
        "q": ROPE_Q,
        "k": ROPE_K,
        "dims": list(ROPE_DIMS),
        "d": ROPE_D,
        "m": ROPE_M,
        "r": ROPE_N,
        "max": ROPE_MAX,
        "radius": ROPE_R,
    }


def data_online(language: str) -> dict:
    return {"s": ONLINE_S, "v": ONLINE_V, "blocks": list(ONLINE_BLOCKS)}


#: The attention-map explorable's sentences: the words ``sentence_1``,
#: ``sentence_2``, … of its words file, in order.
SENTENCE = re.compile(r"sentence_(\d+)")
#: Decimals of the weights handed to the page (the figure shows 2).
MAP_DECIMALS = 4


def data_attention_maps(language: str) -> dict:
    """The edition's trained model's weights on the explorable's sentences.

    ``weights[l][g][i][j]`` is A of layer ``l + 1``, head ``g + 1`` (query
    ``i``, key ``j``), from ``LanguageModel.attention``, rounded to
    ``MAP_DECIMALS`` decimals (about 2 KB of JSON a sentence of ten characters).
    """
    from attention_docs import load_pretrained

    words = words_for("attention_maps", language)
    found = sorted(
        (int(m[1]), text)
        for key, text in words.items()
        if (m := SENTENCE.fullmatch(key))
    )
    model = load_pretrained(language)
    sentences = []
    for k, text in found:
        if len(text) < 2:  # the mean weight on the previous character needs one
            raise PluginError(
                f"docs_src/explorables/attention_maps.yml: {language} sentence_{k} "
                f"{text!r} has no previous character (2 characters at least)"
            )
        weights = model.attention(text)  # L x (h, n, n)
        sentences.append(
            {
                "text": text,
                "tokens": list(text),
                "weights": [w.round(MAP_DECIMALS).tolist() for w in weights],
            }
        )
    return {
        "layers": model.config.n_layers,
        "heads": model.config.n_heads,
        "sentences": sentences,
    }


DATA = {
    "attention_maps": data_attention_maps,
    "softmax": data_softmax,
    "masks": data_masks,
    "example": data_example,
    "heads": data_heads,
    "kv_cache": data_kv_cache,
    "rope": data_rope,
    "online": data_online,
    "window_sinks": data_window_sinks,
}


# --- drawing, by the modules themselves under Node ---------------------------

_DRAWN: dict[tuple, dict[str, str]] = {}


def _sources_stamp() -> tuple:
    """What a drawing depends on besides the data: the modules and their words."""
    files = [p for p in sorted(FOLDER.glob("*")) if p.suffix in (".js", ".yml")]
    return tuple((p.name, p.stat().st_mtime_ns) for p in [*files, RENDER])


def draw_all(language: str) -> dict[str, str]:
    """Every explorable's default state in ``language``: name -> HTML.

    One Node run (``stages/explorables_render.mjs``) for all of them, kept for
    the rest of the process until a module or its words change.
    """
    key = (language, _sources_stamp())
    if key in _DRAWN:
        return _DRAWN[key]
    missing = set(names()) - set(DATA)
    if missing:
        raise PluginError(
            f"explorables without data in stages/explorables.py: {sorted(missing)}"
        )
    node = shutil.which("node")
    if node is None:
        raise PluginError("the explorables are drawn by Node.js: `node` is not on PATH")
    figures = [
        {"name": name, "words": words_for(name, language), "data": DATA[name](language)}
        for name in names()
    ]
    request = json.dumps({"folder": str(FOLDER), "figures": figures})
    done = subprocess.run(
        [node, str(RENDER)],
        input=request,
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        check=False,
    )
    if done.returncode != 0:
        raise PluginError(f"stages/explorables_render.mjs failed:\n{done.stderr}")
    answers = json.loads(done.stdout)
    drawn = {}
    for figure, answer in zip(figures, answers, strict=True):
        if "error" in answer:
            raise PluginError(
                f"explorable {figure['name']!r} ({language}): {answer['error']}"
            )
        drawn[figure["name"]] = answer["html"]
    # One drawing per edition; a changed module or words file (mkdocs serve)
    # makes a new stamp, and the drawings of older stamps go.
    for old in [k for k in _DRAWN if k[1] != key[1]]:
        del _DRAWN[old]
    _DRAWN[key] = drawn
    return drawn


def render(name: str, language: str) -> str:
    """The figure ``name`` in its default state, in ``language``."""
    drawn = draw_all(language)
    if name not in drawn:
        raise PluginError(f"no explorable named {name!r}: {sorted(drawn)}")
    return drawn[name]


# --- the hook ----------------------------------------------------------------


def on_files(files: Files, config) -> Files:
    for path in sorted(FOLDER.glob("*.js")):
        uri = f"assets/explorables/{path.name}"
        files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files


def on_page_content(html_text: str, page, config, files) -> str:
    found = [m["name"] for m in PLACEHOLDER.finditer(html_text)]
    if not found:
        return html_text
    language = config.theme["language"]
    html_text = PLACEHOLDER.sub(lambda m: render(m["name"], language), html_text)
    css = (FOLDER / "explorables.css").read_text(encoding="utf-8")
    scripts = "".join(
        '<script type="module" src="'
        f'{get_relative_url(f"assets/explorables/{name}.js", page.url)}"></script>'
        for name in dict.fromkeys(found)
    )
    return f"<style>{css}</style>{html_text}{scripts}"
