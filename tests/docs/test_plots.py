"""The book's plots: the scripts of docs_src/plots/, their labels, their pages.

Each plot is a script ``docs_src/plots/<name>.py`` defining ``figure(labels)``;
``docs_src/plots/labels.yml`` holds its words in every language; hooks/plots.py
draws it at build time (tests/site/test_plots.py checks the built site).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import yaml
from matplotlib.figure import Figure
from mkdocs.exceptions import PluginError

from attention_docs import causal_mask
from attention_docs.plotting import theme, to_svg
from hooks import plots

ROOT = Path(__file__).resolve().parents[2]
PLOTS = ROOT / "docs_src" / "plots"
DOCS = ROOT / "docs"
LANGUAGES = ("ja", "zh-Hant")
LABELS = yaml.safe_load((PLOTS / "labels.yml").read_text(encoding="utf-8"))
NAMES = sorted(path.stem for path in PLOTS.glob("*.py"))
CODE_TITLE = {"ja": "この図を描いたコード", "zh-Hant": "繪製此圖的程式碼"}


def load_script(name: str):
    spec = importlib.util.spec_from_file_location(f"_plot_{name}", PLOTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def drawn_labels(entry: dict) -> list[str]:
    """Every string of a language's entry that the figure draws (not `alt`)."""
    strings = []
    for key, value in entry.items():
        if key != "alt":
            strings += value if isinstance(value, list) else [value]
    return strings


def svg_texts(svg: str) -> list[str]:
    return re.findall(r"<text [^>]*>([^<]*)</text>", svg)


def figure(name: str, language: str) -> Figure:
    return load_script(name).figure(LABELS[name][language])


def test_every_script_has_labels_in_every_language() -> None:
    assert NAMES, "the book has plots"
    assert sorted(LABELS) == NAMES
    for name in NAMES:
        assert sorted(LABELS[name]) == sorted(LANGUAGES), name
        keys = {language: sorted(LABELS[name][language]) for language in LANGUAGES}
        assert keys["ja"] == keys["zh-Hant"], f"{name}: {keys}"
        for language in LANGUAGES:
            entry = LABELS[name][language]
            assert isinstance(entry["alt"], str) and len(entry["alt"]) > 20
            assert all(isinstance(s, str) and s.strip() for s in drawn_labels(entry))


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", NAMES)
def test_script_draws_its_labels(name: str, language: str) -> None:
    entry = LABELS[name][language]
    svgs = {}
    for name_of_theme in ("light", "dark"):
        with theme(name_of_theme):
            svgs[name_of_theme] = to_svg(figure(name, language), language=language)
    assert svgs["light"] != svgs["dark"]
    texts = svg_texts(svgs["light"])
    missing = [label for label in drawn_labels(entry) if label not in texts]
    assert not missing, f"{name} ({language}) does not draw {missing}"


def test_script_runs_alone_as_a_page_shows_it() -> None:
    """The pages' Sybil runner executes each script as a block: no side effects."""
    for name in NAMES:
        source = (PLOTS / f"{name}.py").read_text(encoding="utf-8")
        namespace = {"__name__": "__book__"}
        exec(compile(source, name, "exec"), namespace)
        assert callable(namespace["figure"]), name
        assert 'if __name__ == "__main__":' in source


def test_bar_chart_shows_the_weights_of_the_object_view() -> None:
    (ax,) = figure("weights_bar", "ja").axes
    heights = [bar.get_height() for bar in ax.patches]
    assert np.round(heights, 4).tolist() == [0.2683, 0.4889, 0.2428]


def test_heat_map_shows_the_weights_of_the_from_scratch_example() -> None:
    """The matrix of the heat map is the one from_scratch.pycon prints."""
    example = (ROOT / "docs_src" / "self_attention" / "from_scratch.pycon").read_text()
    printed = example.split("print(weights)")[1].split(">>>")[0]
    rows = re.findall(r"\[([\d. ]+)\]", printed.split("\n", 1)[1])
    expected = [[float(v) for v in row.split()] for row in rows]
    ax = figure("self_attention_heatmap", "ja").axes[0]
    matrix = np.asarray(ax.images[0].get_array())
    assert matrix.shape == (5, 5)
    assert np.round(matrix, 3).tolist() == expected
    assert np.allclose(matrix.sum(axis=1), 1.0)


def test_causal_mask_figure_shows_zeros_above_the_diagonal() -> None:
    mask_panel, weights_panel = figure("causal_mask", "ja").axes[:2]
    mask = np.asarray(mask_panel.images[0].get_array()).astype(bool)
    weights = np.asarray(weights_panel.images[0].get_array())
    assert mask.tolist() == causal_mask(5).tolist()
    assert np.all(weights[~mask] == 0.0)
    assert np.all(weights[mask] > 0.0)
    assert np.allclose(weights.sum(axis=1), 1.0)


def test_heads_figure_has_one_heat_map_per_head() -> None:
    fig = figure("multi_head_heads", "ja")
    heads = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in heads] == LABELS["multi_head_heads"]["ja"]["heads"]
    weights = np.array([np.asarray(ax.images[0].get_array()) for ax in heads])
    assert weights.shape == (4, 5, 5)
    assert not np.allclose(weights[0], weights[1]), "the heads differ"


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


# --- the pages ----------------------------------------------------------------

PLOT_IMAGE = re.compile(r"!\[(?P<alt>[^\]]*)\]\((?P<src>[^)]*assets/plots/[^)]*)\)")


def pages_showing(name: str, language: str) -> list[str]:
    return sorted(
        path.name
        for path in (DOCS / language).glob("*.md")
        if f"assets/plots/{name}.svg" in path.read_text(encoding="utf-8")
    )


@pytest.mark.parametrize("name", NAMES)
def test_each_plot_is_shown_on_the_same_page_in_every_language(name: str) -> None:
    shown = {language: pages_showing(name, language) for language in LANGUAGES}
    assert len(shown["ja"]) == 1, shown
    assert shown["zh-Hant"] == shown["ja"], shown


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", NAMES)
def test_plot_is_followed_by_the_code_that_made_it(name: str, language: str) -> None:
    (page,) = pages_showing(name, language)
    text = (DOCS / language / page).read_text(encoding="utf-8")
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
def test_plot_images_leave_their_alt_text_to_labels_yml(language: str) -> None:
    for path in (DOCS / language).glob("*.md"):
        for match in PLOT_IMAGE.finditer(path.read_text(encoding="utf-8")):
            assert match["alt"] == "", f"{path.name}: {match[0]}"


# --- the hook -------------------------------------------------------------------


@pytest.fixture(scope="module")
def hook():
    return plots


def page_markdown(hook, markdown: str, language: str) -> str:
    page = SimpleNamespace(file=SimpleNamespace(src_path="page.md"))
    config = SimpleNamespace(theme={"language": language})
    return hook.on_page_markdown(markdown, page, config, None)


@pytest.mark.parametrize("language", LANGUAGES)
def test_hook_fills_in_the_alt_text_of_the_language(hook, language) -> None:
    image = "(assets/plots/causal_mask-dark.svg#only-dark)"
    alt = LABELS["causal_mask"][language]["alt"]
    assert page_markdown(hook, f"![]{image}", language) == f"![{alt}]{image}"


@pytest.mark.parametrize(
    ("markdown", "message"),
    [
        ("![words](assets/plots/causal_mask.svg#only-light)", "alt text empty"),
        ("![](assets/plots/causal_mask.svg#only-dark)", "#only-light"),
        ("![](assets/plots/causal_mask-dark.svg)", "#only-dark"),
        ("![](assets/plots/no_such_plot.svg#only-light)", "one of"),
    ],
)
def test_hook_rejects_a_wrong_plot_image(hook, markdown, message) -> None:
    with pytest.raises(PluginError, match=message):
        page_markdown(hook, markdown, "ja")
