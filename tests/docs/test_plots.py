"""The figures drawn at build time (plots, diagrams): their labels, their pages.

Each figure is a script ``docs_src/<kind>/<name>.py`` (``plots`` or
``diagrams``) defining ``figure(labels)``; the folder's ``labels.yml`` holds
its words, its alt text and its caption in every language; stages/plots.py
draws it at build time and numbers it on its page (tests/site/test_plots.py
checks the built site).
"""

from __future__ import annotations

import functools
import importlib.util
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from matplotlib.figure import Figure
from mkdocs.exceptions import PluginError

from attention_book import load_yaml
from attention_book.diagrams import MIN_PX, plain, smallest_text_px
from attention_book.stages import plots
from attention_docs import (
    attention_scores,
    blockwise_attention,
    project_qkv,
    running_example,
    scaled_dot_product_attention,
)
from attention_docs.plotting import theme, to_svg

ROOT = Path(__file__).resolve().parents[2]
PLOTS = ROOT / "docs_src" / "plots"
DOCS = ROOT / "docs"
LANGUAGES = ("ja", "zh-Hant")
KINDS = {"plots": PLOTS, "diagrams": ROOT / "docs_src" / "diagrams"}
ALL_LABELS = {
    kind: load_yaml((folder / "labels.yml").read_text(encoding="utf-8"))
    for kind, folder in KINDS.items()
}
LABELS = ALL_LABELS["plots"]
NAMES = sorted(path.stem for path in PLOTS.glob("*.py"))
#: (kind, name) of every figure drawn at build time
FIGURES = [
    (kind, path.stem)
    for kind, folder in KINDS.items()
    for path in sorted(folder.glob("*.py"))
]
CODE_TITLE = {"ja": "この図を描いたコード", "zh-Hant": "繪製此圖的程式碼"}
#: Keys of a labels.yml entry that are not drawn in the figure.
NOT_DRAWN = ("alt", "caption")
KANA = re.compile(r"[\u3041-\u30ff]")
SVG = "{http://www.w3.org/2000/svg}"


@functools.cache  # one module per script, as the build keeps (stages/plots.py)
def load_script(name: str, kind: str = "plots"):
    path = KINDS[kind] / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_{kind}_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def drawn_labels(entry: dict) -> list[str]:
    """Every string of a language's entry that the figure draws, as it reads
    (a label of several lines: each line, which the SVG writes as a text)."""
    strings = []
    for key, value in entry.items():
        if key not in NOT_DRAWN:
            strings += value if isinstance(value, list) else [value]
    return [plain(line) for s in strings for line in s.split("\n")]


def svg_texts(svg: str) -> list[str]:
    root = ET.fromstring(svg.split("\n", 3)[3])  # after the XML and DOCTYPE lines
    return ["".join(element.itertext()) for element in root.iter(f"{SVG}text")]


def figure(name: str, language: str, kind: str = "plots") -> Figure:
    return load_script(name, kind).figure(
        {**ALL_LABELS[kind][name][language], "edition": language}
    )


@functools.cache
def drawer() -> plots.Drawer:
    return plots.Drawer()


@functools.cache
def draw(kind: str, name: str, language: str, name_of_theme: str) -> str:
    """The figure's SVG as the build writes it, drawn by the build's own
    ``Drawer``: taken from ``.cache/figures`` when a build (or an earlier run)
    drew it from the same inputs, the script and its words among them, and
    written there otherwise (kept: the tests that read the same drawing share it)."""
    entry = ALL_LABELS[kind][name][language]
    return drawer().svg(kind, name, entry, name_of_theme, language)


def test_every_script_has_labels_in_every_language() -> None:
    assert NAMES, "the book has plots"
    for kind, folder in KINDS.items():
        labels = ALL_LABELS[kind]
        assert sorted(labels) == sorted(path.stem for path in folder.glob("*.py"))
        for name in labels:
            assert sorted(labels[name]) == sorted(LANGUAGES), name
            keys = {language: sorted(labels[name][language]) for language in LANGUAGES}
            assert keys["ja"] == keys["zh-Hant"], f"{name}: {keys}"
            for language in LANGUAGES:
                entry = labels[name][language]
                assert isinstance(entry["alt"], str) and len(entry["alt"]) > 20
                assert isinstance(entry["caption"], str) and len(entry["caption"]) > 8
                assert all(
                    isinstance(s, str) and s.strip() for s in drawn_labels(entry)
                )


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("kind", "name"), FIGURES)
def test_alt_text_and_caption_are_in_the_language(kind, name, language) -> None:
    entry = ALL_LABELS[kind][name][language]
    for key in NOT_DRAWN:
        has_kana = bool(KANA.search(entry[key]))
        assert has_kana == (language == "ja"), f"{name} {key} ({language})"
        assert re.search(r"[\u4e00-\u9fff]", entry[key]), f"{name} {key} ({language})"
    if language != "ja":  # no Japanese word among the drawn labels
        japanese = [label for label in drawn_labels(entry) if KANA.search(label)]
        assert not japanese, f"{name} ({language}) draws {japanese}"


#: TeX that a screen reader would spell out in an alt text ("h underscore 1"):
#: an alt text writes a symbol as it is heard (h1, W Q, d k, exp(1);
#: docs-dev/style.md#adding-a-figure).
ALT_TEX = re.compile(r"[_^\\$]")
#: Names of code an alt text may quote as they are written: the package's
#: functions and the methods of the object view's classes.
CODE_NAMES = {
    "split_heads": "src/attention_docs/multihead.py",
    "merge_heads": "src/attention_docs/multihead.py",
    "compute_attention_weights": "docs_src/object_view/classes.pycon",
    "retrieve_values": "docs_src/object_view/classes.pycon",
}


def test_the_code_names_an_alt_text_may_quote_are_code() -> None:
    for name, path in CODE_NAMES.items():
        assert f"def {name}(" in (ROOT / path).read_text(encoding="utf-8"), name


@pytest.mark.parametrize("language", [*LANGUAGES, "zh-Hans"])
@pytest.mark.parametrize(("kind", "name"), FIGURES)
def test_alt_text_holds_no_tex(kind, name, language) -> None:
    """An alt text is read aloud: no ``h_1``, ``W^O``, ``\\sqrt`` or ``$``
    (F22 of the round-29 figure review)."""
    alt = plots.labels_for(ALL_LABELS[kind], name, language)["alt"]
    for name_of_code in CODE_NAMES:
        alt = alt.replace(name_of_code, "")
    assert not ALT_TEX.findall(alt), f"{name} ({language}): {alt}"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("kind", "name"), FIGURES)
def test_script_draws_its_labels(kind: str, name: str, language: str) -> None:
    entry = ALL_LABELS[kind][name][language]
    texts = svg_texts(draw(kind, name, language, "light"))
    # a label is a text of the figure, or begins one ("... = 4") or its
    # bracketed part ("BPE（語彙数 2000）")
    missing = [
        label
        for label in drawn_labels(entry)
        if not any(text.startswith(label) or f"（{label}" in text for text in texts)
    ]
    assert not missing, f"{name} ({language}) does not draw {missing}"
    other = next(lang for lang in LANGUAGES if lang != language)
    foreign = set(drawn_labels(ALL_LABELS[kind][name][other])) - set(
        drawn_labels(entry)
    )
    drawn = [label for label in foreign if any(label in text for text in texts)]
    assert not drawn, f"{name} ({language}) draws {other} words {drawn}"


@pytest.mark.parametrize(("kind", "name"), FIGURES)
def test_dark_variant_differs(kind: str, name: str) -> None:
    """The dark theme reaches the figure. (That its text reads on the dark
    page, in every language, is test_figure_contrast.py's.)"""
    assert draw(kind, name, "ja", "light") != draw(kind, name, "ja", "dark")


@pytest.mark.parametrize(("kind", "name"), FIGURES)
def test_text_is_legible_on_a_phone(kind: str, name: str) -> None:
    """No text below MIN_PX px once the figure is shrunk to a phone's column."""
    svg = draw(kind, name, "ja", "light")
    assert smallest_text_px(svg) >= MIN_PX - 0.05, f"{name}: {smallest_text_px(svg)}"


def test_script_runs_alone_as_a_page_shows_it() -> None:
    """The pages' Sybil runner executes each script as a block: no side effects."""
    for kind, name in FIGURES:
        source = (KINDS[kind] / f"{name}.py").read_text(encoding="utf-8")
        namespace = {"__name__": "__book__"}
        exec(compile(source, name, "exec"), namespace)
        assert callable(namespace["figure"]), name
        assert 'if __name__ == "__main__":' in source


def test_bar_chart_shows_the_weights_of_the_object_view() -> None:
    (ax,) = figure("weights_bar", "ja").axes
    heights = [bar.get_height() for bar in ax.patches]
    assert np.round(heights, 4).tolist() == [0.2683, 0.4889, 0.2428]


def test_heat_map_shows_a_repeated_word_attending_to_itself() -> None:
    """Five tokens, tokens 0 and 3 one word, W_Q = W_K = 2I: every score is 2
    (same word) or 0, so a word seen once keeps 0.65 for itself and 0.09 for
    each other token, and each of the two equal words 0.42 for both, 0.06
    for the rest: the numbers the pages quote, written in the cells."""
    ax = figure("self_attention_heatmap", "ja").axes[0]
    matrix = np.asarray(ax.images[0].get_array())
    same = np.equal.outer([0, 1, 2, 0, 3], [0, 1, 2, 0, 3])
    e2 = np.exp(2.0)
    once = np.where(same, e2, 1.0) / (e2 + 4.0)
    twice = np.where(same, e2, 1.0) / (2.0 * e2 + 3.0)
    expected = np.where(same.sum(axis=1, keepdims=True) == 2, twice, once)
    np.testing.assert_allclose(matrix, expected, rtol=1e-12)
    written = [[t.get_text() for t in ax.texts][5 * i : 5 * i + 5] for i in (0, 1)]
    assert written == [
        ["0.42", "0.06", "0.06", "0.42", "0.06"],
        ["0.09", "0.65", "0.09", "0.09", "0.09"],
    ]
    tokens = LABELS["self_attention_heatmap"]["ja"]["tokens"]
    assert [t.get_text() for t in ax.get_xticklabels()] == tokens
    assert tokens[0] == tokens[3] and len(set(tokens)) == 4


def test_heads_figure_shows_four_nameable_heads() -> None:
    """Head 1 attends to itself, head 2 to the previous token (token 0 to
    itself), head 3 to the first token, head 4 evenly: each query's largest
    weight where the page says, and most of its weight."""
    fig = figure("multi_head_heads", "ja")
    heads = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in heads] == LABELS["multi_head_heads"]["ja"]["heads"]
    weights = np.array([np.asarray(ax.images[0].get_array()) for ax in heads])
    assert weights.shape == (4, 5, 5)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0)
    looked_at = ([0, 1, 2, 3, 4], [0, 0, 1, 2, 3], [0, 0, 0, 0, 0])
    for head, targets in zip(weights[:3], looked_at, strict=True):
        assert head.argmax(axis=-1).tolist() == targets
        assert head[np.arange(5), targets].min() > 0.95
    np.testing.assert_allclose(weights[3], 0.2)


def test_sinusoidal_encoding_figure_shows_the_encoding() -> None:
    """The heat map holds PE(pos, 2i) = sin(pos / 10000^(2i/64)), cos at 2i + 1."""
    ax = figure("sinusoidal_encoding", "ja").axes[0]
    image = ax.images[0]
    matrix = np.asarray(image.get_array())
    assert matrix.shape == (64, 64)
    assert image.get_clim() == (-1.0, 1.0)  # the whole range of sin and cos
    assert matrix[0].tolist() == [0.0, 1.0] * 32  # sin 0, cos 0
    assert matrix[5, 2] == pytest.approx(np.sin(5 / 10000 ** (2 / 64)))
    assert matrix[63, 63] == pytest.approx(np.cos(63 / 10000 ** (62 / 64)))


def test_sinusoidal_curves_figure_shows_components_and_dot_products() -> None:
    """Top: PE(pos, c) against pos for a few components c, sin at even c and
    cos at odd c. Bottom: PE_m . PE_r = sum_i cos((m - r) omega_i) against
    |m - r| for several m, the same curve for each m (positional-encoding.md
    #relative), largest at 0 (d_model / 2) and lower far away."""
    curves, dots = figure("sinusoidal_curves", "ja").axes[:2]
    omega = 10000.0 ** (-np.arange(0, 64, 2) / 64)  # omega_i, d_model = 64
    assert len(curves.lines) >= 3
    for line in curves.lines:
        c = int(line.get_label().split()[-1])  # "成分 16"
        pos = np.asarray(line.get_xdata())
        expected = (np.sin if c % 2 == 0 else np.cos)(pos * omega[c // 2])
        assert np.allclose(line.get_ydata(), expected), c
    styles = {line.get_linestyle() for line in curves.lines}
    assert len(styles) == len(curves.lines), "each curve has its own line style"
    series = [np.asarray(line.get_ydata()) for line in dots.lines]
    t = np.asarray(dots.lines[0].get_xdata())
    assert len(series) >= 2 and t.tolist() == list(range(64))
    expected = np.cos(t[:, None] * omega[None, :]).sum(axis=1)
    for values in series:
        assert np.allclose(values, expected)
    assert series[0][0] == pytest.approx(32.0)
    assert series[0][1:].max() < 31.0 and series[0][40:].max() < 20.0


def test_gradient_saturation_figure_draws_the_table_of_its_example() -> None:
    """The lines are the medians that saturation.pycon prints (the same draws),
    and they show what backpropagation.md#saturation says of them."""
    example = ROOT / "docs_src" / "backpropagation" / "saturation.pycon"
    number = r"\s+(\d+(?:\.\d+)?)"
    rows = re.findall(rf"^\s*(\d+){number * 4}$", example.read_text(), re.MULTILINE)
    table = np.array(rows, dtype=float)  # d_k, |dW_Q| u/s, per query u/s
    assert table[:, 0].tolist() == [4, 8, 16, 32, 64, 128, 256, 512, 1024]
    total, query = figure("gradient_saturation", "ja").axes[:2]
    drawn = {
        "total": [line.get_ydata() for line in total.lines],  # unscaled, scaled
        "query": [line.get_ydata() for line in query.lines],
    }
    d_k = table[:, 0].tolist()
    for ax in (total, query):
        assert [line.get_xdata().tolist() for line in ax.lines] == [d_k, d_k]
    assert np.round(drawn["total"], 1).tolist() == table[:, 1:3].T.tolist()
    assert np.round(drawn["query"], 4).tolist() == table[:, 3:5].T.tolist()
    unscaled_query, scaled_query = drawn["query"]
    for scaled in (drawn["total"][1], scaled_query):  # flat with the scaling
        assert scaled.max() / scaled.min() < 1.5
    assert unscaled_query.max() / unscaled_query[-1] > 1000  # one query: vanishes
    assert np.all(drawn["total"][0] > 2 * drawn["total"][1])  # the sum: does not


def test_permutation_figure_draws_the_rows_and_their_outputs() -> None:
    """Fig. 11.1 shows numbers (F16 of the round-29 figure review): x's rows,
    and the outputs, which the swap moves without changing a digit."""
    from attention_docs import running_example, self_attention

    x, w_q, w_k, w_v = running_example()
    z = self_attention(x, w_q, w_k, w_v)
    with theme("light"):
        texts = svg_texts(to_svg(figure("permutation", "ja", "diagrams")))
    for value in np.round(z, 2).ravel():
        # each output value twice: in the original order and after the swap
        assert texts.count(f"{value:.2f}") >= 2, value
    assert texts.count("1") + texts.count("0") >= 2 * x.size


def test_dot_product_angle_figure_draws_q_dot_k_as_lengths_and_cosine() -> None:
    """One query, keys of one length at growing angles: the figure writes each
    q . k, equal to |q| |k| cos(theta), and marks the key closest in
    direction as the largest (scaled-dot-product.md#scores)."""
    script = load_script("dot_product_angle", "diagrams")
    q, k = script.vectors()
    lengths = np.linalg.norm(k, axis=1)
    assert np.allclose(lengths, lengths[0]), "the keys share one length"
    theta = np.arctan2(k[:, 1], k[:, 0]) - np.arctan2(q[1], q[0])
    assert np.all(np.diff(theta) > 0) and theta[0] > 0 and theta[-1] > np.pi / 2
    products = np.linalg.norm(q) * lengths * np.cos(theta)
    assert np.allclose(k @ q, products)
    for language in LANGUAGES:
        texts = svg_texts(draw("diagrams", "dot_product_angle", language, "light"))
        for j, value in enumerate(products, start=1):
            shown = f"{value:.2f}".replace("-0.00", "0.00").replace("-", "−")
            assert f"q · k{j} = {shown}" in texts, (language, j, texts)
            degrees = f"θ{j} = {np.degrees(theta[j - 1]):.0f}°"
            assert degrees in texts, (language, degrees)
        largest = ALL_LABELS["diagrams"]["dot_product_angle"][language]["largest"]
        assert texts.count(largest) == 1
        alt = ALL_LABELS["diagrams"]["dot_product_angle"][language]["alt"]
        for value in products:
            assert f"{value:.2f}".replace("-", "−").replace("−0.00", "0.00") in alt


def test_blockwise_steps_figure_draws_the_packages_numbers() -> None:
    """Queries 1 and 2 of the running example, keys in blocks of 2: after each
    block, m, l and O are the summary of the keys seen so far as the package
    computes it, O / l is the package's output on those keys, and the figure,
    its alt texts and the page's example show those numbers."""
    script = load_script("blockwise_steps", "diagrams")
    q, k, v = project_qkv(*running_example())
    q = q[:2]
    scores = attention_scores(q, k)
    table = script.steps()
    assert [list(row["keys"]) for row in table] == [[0, 1], [2]]
    shown = []
    for row in table:
        seen = slice(0, row["keys"].stop)
        assert row["s"].tolist() == scores[:, row["keys"].start : seen.stop].tolist()
        m = scores[:, seen].max(axis=1)
        assert row["m"].tolist() == m.tolist()
        assert np.allclose(row["rescale"], np.exp(row["m_before"] - m))
        assert np.allclose(row["ell"], np.exp(scores[:, seen] - m[:, None]).sum(axis=1))
        z = row["o"] / row["ell"][:, None]
        assert np.allclose(z, scaled_dot_product_attention(q, k[seen], v[seen]))
        assert np.allclose(z, blockwise_attention(q, k[seen], v[seen], block_size=2))
        shown += [*row["rescale"], *row["ell"], *row["o"].ravel()]
    z = table[-1]["o"] / table[-1]["ell"][:, None]
    assert np.allclose(
        z, scaled_dot_product_attention(*project_qkv(*running_example()))[:2]
    )
    # the maximum rises once: query 2 at key 3, whose sums shrink by e^(0.5 - 1)
    assert table[1]["rescale"].tolist() == [1.0, np.exp(-0.5)]
    with theme("light"):
        texts = svg_texts(to_svg(figure("blockwise_steps", "ja", "diagrams")))
    numbers = [script.number(value) for value in shown] + [
        f"{v:.4f}" for v in z.ravel()
    ]
    assert all(n in texts for n in numbers), sorted(set(numbers) - set(texts))
    for language in LANGUAGES:
        alt = ALL_LABELS["diagrams"]["blockwise_steps"][language]["alt"]
        missing = [n for n in numbers if n not in alt]
        assert not missing, (language, missing)
    example = (
        ROOT / "docs_src" / "efficient_attention" / "blockwise.pycon"
    ).read_text()
    printed = example.split("print(np.round(z, 3))")[1].split(">>>")[0]
    rows = re.findall(r"\[([\d. ]+)\]", printed)
    assert [[float(x) for x in r.split()] for r in rows[:2]] == np.round(z, 3).tolist()


# --- the pages ----------------------------------------------------------------

FIGURE_IMAGE = re.compile(
    r"!\[(?P<alt>[^\]]*)\]\((?P<src>[^)]*assets/(?:plots|diagrams)/[^)]*)\)"
)
#: A figure shown on a page: its light image, then its dark one.
SHOWN = re.compile(
    r"^!\[\]\(assets/(?P<kind>plots|diagrams)/(?P<name>\w+)\.svg#only-light\)\n"
    r"!\[\]\(assets/(?P=kind)/(?P=name)-dark\.svg#only-dark\)$",
    re.MULTILINE,
)
REFERENCE = re.compile(r"\[\]\(#fig-(?P<name>[\w-]+)\)")


def page_text(language: str, page: str) -> str:
    return (DOCS / language / page).read_text(encoding="utf-8")


def pages_showing(name: str, language: str, kind: str = "plots") -> list[str]:
    return sorted(
        path.name
        for path in (DOCS / language).glob("*.md")
        if f"assets/{kind}/{name}.svg" in path.read_text(encoding="utf-8")
    )


def figures_of(language: str, page: str) -> list[str]:
    return [m["name"] for m in SHOWN.finditer(page_text(language, page))]


@pytest.mark.parametrize(("kind", "name"), FIGURES)
def test_each_figure_is_shown_on_the_same_page_in_every_language(kind, name) -> None:
    shown = {language: pages_showing(name, language, kind) for language in LANGUAGES}
    assert len(shown["ja"]) == 1, shown
    assert shown["zh-Hant"] == shown["ja"], shown
    for language in LANGUAGES:
        assert figures_of(language, shown["ja"][0]).count(name) == 1, language


def test_every_page_shows_its_figures_in_the_same_order_in_every_language() -> None:
    for path in sorted((DOCS / "ja").glob("*.md")):
        figures = {language: figures_of(language, path.name) for language in LANGUAGES}
        assert figures["ja"] == figures["zh-Hant"], path.name


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("kind", "name"), FIGURES)
def test_the_text_refers_to_each_figure(kind, name, language) -> None:
    """Each figure is named in its page's prose by its number: ``[](#fig-name)``."""
    (page,) = pages_showing(name, language, kind)
    referred = [m["name"] for m in REFERENCE.finditer(page_text(language, page))]
    assert name.replace("_", "-") in referred, f"{language}/{page}: {name}"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", NAMES)
def test_plot_is_followed_by_the_code_that_made_it(name: str, language: str) -> None:
    (page,) = pages_showing(name, language)
    text = page_text(language, page)
    expected = (
        f"![](assets/plots/{name}.svg#only-light)\n"
        f"![](assets/plots/{name}-dark.svg#only-dark)\n\n"
        f'??? example "{CODE_TITLE[language]}"\n\n'
        f"    ```python\n"
        f'    --8<-- "docs_src/plots/{name}.py"\n'
        f"    ```\n"
    )
    assert expected in text, f"{language}/{page}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_figure_images_leave_their_alt_text_to_labels_yml(language: str) -> None:
    for path in (DOCS / language).glob("*.md"):
        for match in FIGURE_IMAGE.finditer(path.read_text(encoding="utf-8")):
            assert match["alt"] == "", f"{path.name}: {match[0]}"


# --- the hook -------------------------------------------------------------------


@pytest.fixture(scope="module")
def hook():
    return plots


def page_markdown(hook, markdown: str, language: str, page: str = "masks.md") -> str:
    page = SimpleNamespace(file=SimpleNamespace(src_path=page))
    config = SimpleNamespace(theme={"language": language})
    return hook.on_page_markdown(markdown, page, config, None)


PAIR = (
    "![](assets/plots/weights_bar.svg#only-light)\n"
    "![](assets/plots/weights_bar-dark.svg#only-dark)"
)


@pytest.mark.parametrize("language", [*LANGUAGES, "zh-Hans"])
def test_hook_makes_a_numbered_figure_with_alt_text_and_caption(hook, language) -> None:
    entry = plots.labels_for(LABELS, "weights_bar", language)
    text = page_markdown(hook, f"See [](#fig-weights-bar).\n\n{PAIR}\n", language)
    number = f"{plots.figure_word(language)} 1"
    assert f"See [{number}](#fig-weights-bar)." in text
    assert '<figure class="book-figure" id="fig-weights-bar" markdown="span">' in text
    alt = plots.MARKDOWN_SPECIAL.sub(r"\\\1", entry["alt"])
    assert f"![{alt}](assets/plots/weights_bar.svg#only-light)" in text
    assert f"![{alt}](assets/plots/weights_bar-dark.svg#only-dark)" in text
    assert (
        f'<figcaption><span class="book-figure-number">{number}</span> '
        f"{entry['caption']}</figcaption>"
    ) in text


def test_hook_numbers_the_papers_figure_in_the_same_sequence(hook) -> None:
    fig2 = (
        '<figure class="fig2">\n<svg></svg>\n'
        '<figcaption id="c">Words</figcaption>\n</figure>'
    )
    text = page_markdown(hook, f"{fig2}\n\n{PAIR}\n", "ja", page="multi-head.md")
    assert (
        '<figcaption id="c"><span class="book-figure-number">図 1</span> Words' in text
    )
    assert '<span class="book-figure-number">図 2</span>' in text


@pytest.mark.parametrize(
    ("markdown", "message"),
    [
        ("![words](assets/plots/weights_bar.svg#only-light)", "alt text empty"),
        ("![](assets/plots/weights_bar.svg#only-dark)", "#only-light"),
        ("![](assets/plots/weights_bar-dark.svg)", "#only-dark"),
        ("![](assets/plots/no_such_plot.svg#only-light)", "one of"),
        ("![](assets/diagrams/no_such_diagram.svg#only-light)", "one of"),
        ("![](assets/plots/weights_bar-dark.svg#only-dark)", "a pair"),
        (f"{PAIR}\n\nSee [](#fig-no-such-figure).", "links to no figure"),
    ],
)
def test_hook_rejects_a_wrong_figure(hook, markdown, message) -> None:
    with pytest.raises(PluginError, match=message):
        page_markdown(hook, markdown, "ja")


def test_a_drawn_figure_is_kept_under_the_hash_of_every_input(tmp_path, monkeypatch):
    """The cache gives back what was drawn, and any changed input draws anew."""
    monkeypatch.setattr(plots, "CACHE", tmp_path)
    monkeypatch.delenv("BOOK_FIGURE_CACHE", raising=False)
    entry = plots.labels_for(LABELS, "weights_bar", "ja")
    drawer = plots.Drawer()
    drawn = []
    monkeypatch.setattr(drawer, "_draw", lambda *args: drawn.append(args) or "<svg/>")
    assert drawer.svg("plots", "weights_bar", entry, "light", "ja") == "<svg/>"
    assert drawer.svg("plots", "weights_bar", entry, "light", "ja") == "<svg/>"
    assert len(drawn) == 1, "the second build takes the figure from the cache"
    assert [p.suffix for p in tmp_path.iterdir()] == [".svg"], "no partial file left"
    # Every input is in the key: words, theme, language, the package's code.
    key = plots.figure_key(drawer.digest, "plots", "weights_bar", entry, "light", "ja")
    changed = [
        plots.figure_key(
            drawer.digest, "plots", "weights_bar", {**entry, "x": 1}, "light", "ja"
        ),
        plots.figure_key(drawer.digest, "plots", "weights_bar", entry, "dark", "ja"),
        plots.figure_key(
            drawer.digest, "plots", "weights_bar", entry, "light", "zh-Hant"
        ),
        plots.figure_key(
            drawer.digest, "plots", "self_attention_heatmap", entry, "light", "ja"
        ),
        plots.figure_key("0" * 64, "plots", "weights_bar", entry, "light", "ja"),
    ]
    assert key not in changed and len(set(changed)) == len(changed)
    assert drawer.digest == plots.inputs_digest()


def test_the_inputs_digest_follows_the_code_the_figures_run(tmp_path) -> None:
    for folder in ("src/attention_docs", "tools/attention_book/stages"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "core.py").write_text("x = 1\n")
    digest = plots.inputs_digest(tmp_path)
    assert plots.inputs_digest(tmp_path) == digest
    for path in [
        tmp_path / "src" / "attention_docs" / "core.py",
        tmp_path / "tools" / "attention_book" / "stages" / "core.py",
    ]:
        original = path.read_text()
        path.write_text(original + "y = 2\n")
        assert plots.inputs_digest(tmp_path) != digest, path
        path.write_text(original)
    (tmp_path / "src" / "attention_docs" / "new.py").write_text("")
    assert plots.inputs_digest(tmp_path) != digest, "a new module is an input"


def test_drawing_keeps_the_package_the_process_holds(monkeypatch) -> None:
    """The build imports the package afresh only when its sources changed.

    Re-importing it unchanged left the tests with two copies of every class
    (``model must be a LanguageModel, got LanguageModel``) and patches on
    modules that the package no longer used.
    """
    import sys

    def ours(name: str) -> bool:
        return name.startswith("attention_docs") or name == "attention_book.diagrams"

    held = {n: m for n, m in sys.modules.items() if ours(n)}
    monkeypatch.setattr(plots, "_IMPORTED_FROM", None)
    plotting = plots._plotting()
    assert plots._plotting() is plotting
    assert all(sys.modules[name] is module for name, module in held.items())
    # An edited source (``mkdocs serve``) is read again; the tests' copies
    # go back afterwards, so the rest of the run keeps the objects it holds.
    try:
        monkeypatch.setattr(plots, "_IMPORTED_FROM", ((__file__, 0),))
        assert plots._plotting() is not plotting
        assert sys.modules["attention_docs"] is not held["attention_docs"]
    finally:
        for name in [n for n in sys.modules if ours(n)]:
            del sys.modules[name]
        sys.modules.update(held)


def test_the_cache_can_be_turned_off(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(plots, "CACHE", tmp_path)
    monkeypatch.setenv("BOOK_FIGURE_CACHE", "0")
    drawer = plots.Drawer()
    monkeypatch.setattr(drawer, "_draw", lambda *args: "<svg/>")
    entry = plots.labels_for(LABELS, "weights_bar", "ja")
    assert drawer.svg("plots", "weights_bar", entry, "light", "ja") == "<svg/>"
    assert not list(tmp_path.iterdir())


def test_a_captions_formulas_go_the_texts_way_to_katex() -> None:
    """A caption's ``\\(…\\)`` becomes the span pymdownx.arithmatex makes of
    a formula of the text, which stages/katex.py typesets (F4 of the
    round-29 figure review); code stays code and the rest is escaped."""
    caption = r"本書の \(Q = XW_Q\) と \(a < b\)、`block_size`、x < y"
    assert plots.caption_html(caption) == (
        r'本書の <span class="arithmatex">\(Q = XW_Q\)</span> と '
        r'<span class="arithmatex">\(a &lt; b\)</span>、'
        "<code>block_size</code>、x &lt; y"
    )
    assert plots.caption_text(caption) == "本書の  と 、block_size、x < y"
    # a TeX script outside a formula is left as it is written
    assert plots.caption_html("_k と W_Q") == "_k と W_Q"


@pytest.mark.parametrize("language", [*LANGUAGES, "zh-Hans"])
@pytest.mark.parametrize(("kind", "name"), FIGURES)
def test_a_captions_maths_is_written_as_maths(kind, name, language) -> None:
    """A caption's symbols are formulas, typeset as the text's: no TeX script
    (``W_Q``, ``W^O``) or backslash is left in its plain text."""
    caption = plots.labels_for(ALL_LABELS[kind], name, language)["caption"]
    plain_text = plots.caption_text(caption)
    assert not re.findall(r"[_^\\$]", plain_text), f"{name} ({language}): {caption}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_captions_formula_is_typeset_on_the_page(
    hook, book_markdown, language
) -> None:
    """Through the build's own steps (the hook, the book's Markdown, the
    KaTeX stage), the formula of Fig 5.2's caption, \\(Q = XW_Q\\), reaches
    the page's figcaption as the MathML the text's formulas get."""
    from lxml import html as lxml_html

    from attention_book.stages import katex

    pair = (
        "![](assets/diagrams/qkv_numbers.svg#only-light)\n"
        "![](assets/diagrams/qkv_numbers-dark.svg#only-dark)"
    )
    text = page_markdown(hook, pair + "\n", language, "query-key-value.md")
    page = SimpleNamespace(file=SimpleNamespace(src_uri=f"{language}/fig-caption.md"))
    content = katex.on_page_content(book_markdown().convert(text), page, None, None)
    formulas = katex._TYPESET.pop(page.file.src_uri)
    (caption,) = lxml_html.fragment_fromstring(content, create_parent="div").iter(
        "figcaption"
    )
    placeholders = caption.cssselect("span.arithmatex > formula-text")
    assert placeholders, lxml_html.tostring(caption, encoding="unicode")
    typeset = [formulas[int(p.get("data-n"))] for p in placeholders]
    assert all("<math" in formula for formula in typeset), typeset
    assert any("<annotation" in f and "Q = XW_Q" in f for f in typeset), typeset


#: A hyphen-minus before a number in a figure's text ("-1"): the book
#: writes a negative number with the minus sign U+2212 ("−1").
HYPHEN_NUMBER = re.compile(r"(?<![\w.])-(?=[\d.])")


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("kind", "name"), FIGURES)
def test_figures_write_negative_numbers_with_the_minus_sign(kind, name, language):
    """F5 of the round-29 figure review: Fig 2's keys printed "-1"."""
    texts = svg_texts(draw(kind, name, language, "light"))
    hyphens = [text for text in texts if HYPHEN_NUMBER.search(text)]
    assert not hyphens, f"{name} ({language}): {hyphens}"


#: A symbol written raw in a figure's text (``W_Q``, ``dW_Q``, ``d_k``,
#: ``d_model``): the label should have said ``W_{Q}`` (``markup`` sets it).
RAW_SCRIPT = re.compile(r"(?<![A-Za-z])[A-Za-z]{1,2}[_^](?:[A-Za-z0-9⊤]|\{)")


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("kind", "name"), FIGURES)
def test_figures_set_their_symbols_as_maths(kind, name, language) -> None:
    """No raw ``W_Q`` or ``d_model`` is left in a figure's text, and every
    subscript is a real one (a ``tspan`` shifted below the line); no TeX
    command (``\\mathbf``) is left either."""
    svg = draw(kind, name, language, "light")
    raw = [t for t in svg_texts(svg) if RAW_SCRIPT.search(t) or "\\" in t]
    assert not raw, f"{name} ({language}): raw sub- or superscripts {raw}"


# --- bold symbols: vectors as the text sets them --------------------------------

#: The maths of a page: ``\(...\)`` and ``\[...\]``.
PAGE_MATHS = re.compile(r"\\\((.+?)\\\)|\\\[(.+?)\\\]", re.DOTALL)
#: A symbol the text sets bold: ``\mathbf{q}``, ``\boldsymbol{\tau}``.
TEX_BOLD = re.compile(r"\\(?:mathbf|boldsymbol)\{(\\?[A-Za-z]+)\}")
GREEK = {"alpha": "α", "tau": "τ", "omega": "ω", "theta": "θ", "ell": "ℓ"}
#: Letters of a figure that its page sets bold elsewhere but that are no
#: vector in the figure, and why.
NOT_VECTORS = {
    ("softmax_steps", "x"): "x_j, an entry of the vector x",
    ("rope_rotation", "x"): "x_0 and x_1, the pair's two entries (the axes)",
    ("online_steps", "s"): "s_t, one score (the page's s_t)",
    ("query_groups", "q"): "q_i names query head i (the page's W_i^Q), "
    "not a token's query vector",
    ("latent_cache_bytes", "h"): "h_kv, the number of key-value heads (the "
    "page's h_{kv}); the page's bold h_t is the paper's name of the layer input",
}
#: Vectors of a figure whose page writes no formula with them: set bold as
#: the rest of the book writes them (notation.md: vectors are bold).
VECTORS_BY_NOTATION = {
    ("bottleneck", "h"): "Bahdanau et al.'s states, h_j in scaled-dot-product.md",
    ("bottleneck", "c"): "Bahdanau et al.'s context vector, c_i there",
    ("path_length", "h"): "a recurrent layer's states (h_{i-1} in zh-Hant)",
}


def page_bold_symbols(page: str) -> set[tuple[str, bool]]:
    """(letter, inside a script) of every symbol that the page's maths, in
    either edition, sets bold: ``("q", False)`` for ``\\mathbf{q}_i``,
    ``("τ", True)`` for ``E_{\\boldsymbol{\\tau}}``."""
    found = set()
    for language in LANGUAGES:
        for match in PAGE_MATHS.finditer(page_text(language, page)):
            maths = match[1] or match[2]
            for bold in TEX_BOLD.finditer(maths):
                letter = bold[1].lstrip("\\")
                before = maths[: bold.start()]
                script = bool(re.search(r"_\{[^{}]*$|_$", before))
                found.add((GREEK.get(letter, letter), script))
    return found


def drawn_symbols(svg: str) -> list[tuple[str, bool, bool, str]]:
    """(letter, drawn bold, inside a script, its text) of every symbol that
    a figure's maths draws (a letter ``markup`` set italic or bold; not the
    upright words such as ``softmax`` or ``model``)."""
    from attention_book.diagrams import MATH_FAMILIES

    root = ET.fromstring(svg.split("\n", 3)[3])
    found = []

    def walk(element, bold, italic, script, maths, text):
        style = element.get("style", "")
        if re.search(r"font-weight: (700|bold)", style):
            bold = True
        if "font-weight: normal" in style:
            bold = False
        symbol = False
        if element.get("font-weight") == "bold":
            bold = symbol = True
        if element.get("font-style") == "italic":
            italic = symbol = True
        script = script or element.get("data-script") is not None
        maths = maths or MATH_FAMILIES in style
        pieces = [(element.text, None)] + [(child.tail, child) for child in element]
        for piece, child in pieces:
            if child is not None:
                walk(child, bold, italic, script, maths, text)
            if maths and (italic or symbol):
                found.extend(
                    (c, bold, script, text) for c in piece or "" if c.isalpha()
                )

    for element in root.iter(f"{SVG}text"):
        walk(element, False, False, False, False, "".join(element.itertext()))
    return found


@pytest.mark.parametrize(("kind", "name"), FIGURES)
def test_figures_set_bold_what_their_page_sets_bold(kind: str, name: str) -> None:
    """A symbol of a figure is bold exactly when the text of the page that
    shows the figure sets it bold (KaTeX's ``\\mathbf``, ``\\boldsymbol``):
    the page's q_i is a bold vector, so the figure's is too; its d_k stays
    italic, and so does a label's maths drawn bold for emphasis."""
    (page,) = pages_showing(name, "ja", kind)
    bold_on_page = page_bold_symbols(page)
    wrong = set()
    for language in LANGUAGES:
        for letter, bold, script, text in drawn_symbols(
            draw(kind, name, language, "light")
        ):
            vector = (letter, script) in bold_on_page and (
                name,
                letter,
            ) not in NOT_VECTORS
            vector = vector or (not script and (name, letter) in VECTORS_BY_NOTATION)
            if bold != vector:
                wrong.add((letter, "bold" if bold else "not bold", text))
    assert not wrong, f"{name} ({page}): {sorted(wrong)}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_backward_graph_sets_its_gradients_as_maths(language) -> None:
    """Fig 10.1's dQ, dS, dA, dV, dK and dZ are italic, as the text's
    \\(dQ\\) (F6 of the round-29 figure review)."""
    svg = draw("diagrams", "backward_graph", language, "light")
    italic = re.findall(r'<tspan font-style="italic">([^<]*)<', svg)
    assert {"dQ", "dS", "dA", "dV", "dK", "dZ"} <= set(italic), italic


def test_a_sub_and_a_superscript_in_a_row_are_stacked() -> None:
    """d_h^R and W^O_1 as TeX sets them: the second script moves back over
    (or under) the first (F9 and F7 of the round-29 figure review)."""
    from attention_book.diagrams import markup

    for label in ("d_{h}^{R}", "W^{O}_{1}"):
        out = markup(f'<text style="font-size: 15px" x="0">{label}</text>')
        shifts = re.findall(r'data-script="(\w+)" dy="[-\d.]+"( dx="-[\d.]+")?', out)
        assert len(shifts) == 2 and not shifts[0][1] and shifts[1][1], out
    # scripts with text between them stay side by side
    out = markup('<text style="font-size: 15px" x="0">d_{h} + x^{2}</text>')
    assert " dx=" not in out


def test_scripts_move_by_dy_and_the_text_after_them_comes_back() -> None:
    """A script moves by an explicit ``dy`` (``baseline-shift="sub"`` sets it
    far too low in Chromium), a stacked pair further apart, and the text
    after it returns to the baseline: summing the ``dy`` in order, each
    script sits at its shift and each other text at 0. A stacked pair's
    second script moves back under the first, and the text after it past
    the longer one."""
    from attention_book.diagrams import SCRIPT_SHIFT, STACKED_SHIFT, markup

    cases = {
        "d_{h}^{R} = 4": STACKED_SHIFT,
        "W^{UQ}_{i} x": STACKED_SHIFT,
        "d_{h} + x^{2}": SCRIPT_SHIFT,
        "トークン d_{model} です": SCRIPT_SHIFT,
    }
    for label, shifts in cases.items():
        out = markup(f'<text style="font-size: 15px" x="0">{label}</text>')
        assert "baseline-shift" not in out, out
        pen, ahead = 0.0, []
        for element in ET.fromstring(out).iter():
            pen += float(element.get("dy", 0))
            script = element.get("data-script")
            if script:
                mark = "_" if script == "sub" else "^"
                assert pen == pytest.approx(shifts[mark] * 15), out
            elif element.get("dy") is not None:
                assert pen == pytest.approx(0), out
                ahead.append(float(element.get("dx", 0)))
        if not label.endswith("}"):
            assert pen == pytest.approx(0), out
        # "UQ" is wider than "i": the text after the pair moves right
        assert (ahead[-1] > 0) == label.startswith("W"), out


def test_the_latent_cache_figure_has_no_unexplained_hatch() -> None:
    """Fig 22.1's MLA bar was hatched with nothing saying why (F9)."""
    for language in LANGUAGES:
        svg = draw("plots", "latent_cache_bytes", language, "light")
        assert "<pattern" not in svg


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_projections_draw_the_product_x_w(language) -> None:
    """Fig 5.1 reads X · W_Q = Q, not W_Q = Q: each weight matrix has "X ·"
    before it, as Fig 2.1 draws x_2 · W_Q (F10 of the round-29 figure review)."""
    texts = svg_texts(draw("diagrams", "qkv_projection", language, "light"))
    assert texts.count("X") == 4, texts  # the input and the three products
    assert texts.count("·") == 3 and texts.count("=") == 3, texts


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_yarn_line_is_seen_where_it_lies_on_another(language) -> None:
    """Fig 23.1: YaRN lies on the original RoPE (pair 20) and on position
    interpolation (pair 46); its line carries markers and each panel says
    which line it lies on (F12 of the round-29 figure review)."""
    entry = ALL_LABELS["plots"]["rope_scaling"][language]
    fig = figure("rope_scaling", language)
    for ax, same in zip(fig.axes, entry["same"], strict=True):
        (yarn,) = [line for line in ax.get_lines() if line.get_label() == entry["yarn"]]
        assert yarn.get_marker() == "o"
        assert same in [text.get_text() for text in ax.texts]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_alibi_titles_name_the_slope_as_the_page_does(language) -> None:
    """Fig 23.2's panels are titled with the page's slope μ_i of their head
    and its value (alibi_slopes), not the paper's m, which the page uses for
    a query's position (F13 of the round-29 figure review)."""
    from attention_docs.positional import alibi_slopes

    script = load_script("alibi_weights")
    slopes = alibi_slopes(script.h)
    titles = ALL_LABELS["plots"]["alibi_weights"][language]["heads"]
    assert titles == [f"μ_{{{h + 1}}} = 1/{round(1 / slopes[h])}" for h in script.HEADS]
    page = (DOCS / language / "long-context.md").read_text(encoding="utf-8")
    assert "\\(\\mu_i\\)" in page


@pytest.mark.parametrize("theme_name", ["light", "dark"])
def test_the_training_model_colours_z_as_z(theme_name) -> None:
    """Fig 12.1's Z box is Z's teal, not S's lavender (F19 of the round-29
    figure review): each matrix keeps its colour."""
    from attention_book.diagrams import FILLS

    svg = draw("diagrams", "training_model", "ja", theme_name).lower()
    assert FILLS[theme_name]["z"].lower() in svg
    assert FILLS[theme_name]["s"].lower() not in svg


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_token_lengths_name_the_vocabulary_size_in_words(language) -> None:
    """Fig 1.2 names the vocabulary size in the edition's words (語彙サイズ 2000),
    which its caption writes as the page's |\\mathcal{V}|: not V, the value
    matrix's letter (F34 of the round-29 figure review), nor 𝒱, which an
    image can only draw in whatever maths font the reader's machine has."""
    texts = svg_texts(draw("diagrams", "token_lengths", language, "light"))
    words = ALL_LABELS["diagrams"]["token_lengths"][language]["size"]
    sizes = [text for text in texts if "（" in text and text.endswith("）")]
    assert len(sizes) == 5 and all(f"（{words} " in s for s in sizes), texts
    assert not [text for text in texts if "V" in text], texts
    caption = ALL_LABELS["diagrams"]["token_lengths"][language]["caption"]
    assert "\\(|\\mathcal{V}| = 2000\\)" in caption


#: Unicode's Mathematical Alphanumeric Symbols (𝐪, 𝒱).
MATH_ALPHANUMERICS = re.compile("[\U0001d400-\U0001d7ff]")


@pytest.mark.parametrize(("kind", "name"), FIGURES)
def test_figures_draw_no_mathematical_alphanumerics(kind, name) -> None:
    """A figure is an image: it cannot use the page's STIX Two Math, so a
    character like 𝒱 would be drawn in whatever maths font the reader's
    machine has, or not at all (Fig 1.2 drew it in DejaVu Math TeX Gyre in
    the PDFs). A figure sets its symbols with :func:`markup` instead."""
    for language in LANGUAGES:
        texts = svg_texts(draw(kind, name, language, "light"))
        found = [text for text in texts if MATH_ALPHANUMERICS.search(text)]
        assert not found, f"{name} ({language}): {found}"


def test_markup_sets_symbols_as_the_text_does() -> None:
    """KaTeX's conventions: Latin letters italic, words of a subscript
    (``model``), functions, digits and operators upright, all in a serif."""
    from attention_book.diagrams import MATH_FAMILIES, markup

    def typeset(body: str) -> str:
        return markup(f'<text style="font-size: 15px" x="0">{body}</text>')

    def italic(out: str) -> str:
        return "".join(re.findall(r'<tspan font-style="italic">([^<]*)<', out))

    for symbol in ("X", "W_{Q}", "x_{2}", "QK^{⊤}", "dQ", "dZ"):
        out = typeset(symbol)
        assert MATH_FAMILIES in out, out
        assert italic(out) == "".join(c for c in symbol if c.isalpha()), out
    # E[ids] as the text's E[\mathrm{ids}]: E italic, as in E^{⊤} (F33)
    out = typeset("X = E[ids]")
    assert italic(out) == "XE" and "[ids]" in out and MATH_FAMILIES in out, out
    # a gradient is maths, as the text's \(dQ\) (F6 of the round-29 review)
    assert italic(typeset("G = dZ")) == "GdZ"
    out = typeset("d_{model}")
    assert italic(out) == "d" and ">model</tspan>" in out, out
    # a product of two letters, a thin space between them: both italic, as
    # the text's 4nd^2 (F8 of the round-29 figure review); without the space
    # two letters read as a word and stay upright
    out = typeset("4n\u2009d^{2} + 2n^{2}\u2009d")
    assert italic(out) == "ndnd" and out.count(MATH_FAMILIES) == 1, out
    assert italic(typeset("4nd^{2}")) == ""
    out = typeset("softmax(S + B)")
    assert italic(out) == "SB" and ">softmax(" in out, out
    out = typeset("スケーリングあり（1/√d_{k}）")
    assert out.startswith(
        '<text style="font-size: 15px" x="0">スケーリングあり（<tspan'
    )
    assert ">1/√" in out and italic(out) == "dk"
    # words, code and numbers are not maths
    for plain_text in (
        "Attention",
        "True",
        "q.shape = (2, 2, 3)",
        "0.245",
        "KV",
        "DeepSeek-V3",  # a name: F9 of the round-29 figure review
    ):
        assert MATH_FAMILIES not in typeset(plain_text), plain_text
    # a label drawn with text(..., math=False): a token's letter stays a letter
    kept = '<g id="plain-3">\n <text style="font-size: 15px" x="0">a</text>'
    assert markup(kept) == kept


def test_markup_sets_bold_symbols_as_katex_does() -> None:
    """``\\mathbf{q}``: bold upright (KaTeX's \\mathbf); ``\\boldsymbol{τ}``:
    bold italic, also in a script; the marks leave the text (``plain``); a
    label drawn bold for emphasis keeps its maths at the normal weight."""
    from attention_book.diagrams import markup

    def typeset(body: str, style: str = "font-size: 15px") -> str:
        return markup(f'<text style="{style}" x="0">{body}</text>')

    out = typeset(r"\mathbf{q}_{1}·\mathbf{k}_{j}")
    assert '<tspan font-weight="bold">q</tspan>' in out, out
    assert '<tspan font-weight="bold">k</tspan>' in out, out
    assert re.findall(r'<tspan font-style="italic">([^<]*)<', out) == ["j"], out
    out = typeset(r"X = E_{\boldsymbol{τ}} + PE")
    assert '<tspan font-weight="bold"><tspan font-style="italic">τ</tspan>' in out
    assert 'data-script="sub" dy="3"><tspan font-weight="bold">' in out, out
    for label in (r"\mathbf{q}_{1}·\mathbf{k}_{j}", r"トークン \boldsymbol{τ}"):
        assert "\\" not in "".join(ET.fromstring(typeset(label)).itertext())
        assert plain(label) == "".join(ET.fromstring(typeset(label)).itertext())
    assert plain(r"E_{\boldsymbol{τ}} と \mathbf{x}_{1}") == "Eτ と x1"
    emphasised = typeset(
        r"\mathbf{z} = Σ_{j} a_{j} = 1", "font-weight: 700; font-size: 15px"
    )
    assert "serif; font-weight: normal" in emphasised, emphasised
    assert '<tspan font-weight="bold">z</tspan>' in emphasised, emphasised


@pytest.mark.parametrize("name", ["sinusoidal_curves", "rope_scaling"])
@pytest.mark.parametrize("name_of_theme", ["light", "dark"])
def test_the_line_plots_draw_in_the_books_palette(name, name_of_theme) -> None:
    """The sinusoidal curves and the RoPE scaling plot drew their fourth curve
    in viridis' teal, a colour
    of no theme and the same in both; every curve is now one of the theme's
    (issue 40: one colour language)."""
    from matplotlib.colors import to_hex

    from attention_docs.plotting import THEMES

    palette = set(THEMES[name_of_theme].values())
    with theme(name_of_theme):
        fig = figure(name, "ja")
    colours = {to_hex(line.get_color()) for ax in fig.axes for line in ax.get_lines()}
    assert colours <= palette, colours - palette
    assert THEMES[name_of_theme]["accent"] in colours


@pytest.mark.parametrize(
    ("kind", "name"),
    [
        ("plots", "self_attention_heatmap"),
        ("plots", "weights_bar"),
        ("plots", "latent_cache_bytes"),
        ("diagrams", "token_lengths"),
    ],
)
def test_no_title_repeats_the_caption(kind, name) -> None:
    """Figs 8.4, B.2, 22.1 and 1.2 carried a title that said again what their
    caption says; the caption alone names them (issue 40)."""
    for language in LANGUAGES:
        assert "title" not in ALL_LABELS[kind][name][language]
        caption = plain(ALL_LABELS[kind][name][language]["caption"])
        texts = svg_texts(draw(kind, name, language, "light"))
        assert not [t for t in texts if len(t) > 8 and t in caption], texts


@pytest.mark.parametrize(
    ("kind", "name"), [("plots", "alibi_weights"), ("diagrams", "lm_heads")]
)
def test_masked_cells_are_hatched_and_the_caption_says_so(kind, name) -> None:
    """Figs 23.2 and 18.1: a masked cell and a weight near 0 looked alike in
    the dark scheme; the masked cells are hatched in both, as the masks
    explorable hatches them, and the caption says what the stripes mean."""
    for language in LANGUAGES:
        assert "斜線" in ALL_LABELS[kind][name][language]["caption"]
        for name_of_theme in ("light", "dark"):
            assert "<pattern" in draw(kind, name, language, name_of_theme)
