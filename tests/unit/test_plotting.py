"""Tests of attention_docs.plotting: what is drawn, labels, themes, SVG output."""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display; the functions themselves never need pyplot

import numpy as np
import pytest
from matplotlib.colors import to_hex, to_rgb
from matplotlib.figure import Figure

import attention_docs
from attention_docs import (
    MultiHeadAttention,
    attention_weights,
    causal_mask,
)
from attention_docs.plotting import (
    FONT_FAMILIES,
    MASKED_HATCH,
    THEMES,
    WEIGHTS_RAMP,
    hatch_masked,
    plot_causal_mask,
    plot_heads,
    plot_heatmap,
    plot_weights_bar,
    set_upright_ylabel,
    theme,
    to_svg,
    weights_cmap,
)

SVG = "{http://www.w3.org/2000/svg}"
# Every URL matplotlib writes into an SVG once to_svg drops its metadata: the
# SVG and XLink namespaces and the SVG 1.1 DTD (identifiers, never fetched).
ALLOWED_URLS = {
    "http://www.w3.org/2000/svg",
    "http://www.w3.org/1999/xlink",
    "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd",
}
JA = "アテンション重み"
ZH = "注意力權重"


def seed_weights() -> np.ndarray:
    return np.array([0.26831, 0.48890, 0.24279])


def random_weights(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    scores = np.random.default_rng(seed).standard_normal(shape)
    return attention_docs.softmax(scores)


def texts(svg: str) -> list[str]:
    """The text content of every <text> element of an SVG document."""
    root = ET.fromstring(svg.encode("utf-8"))
    return ["".join(element.itertext()) for element in root.iter(f"{SVG}text")]


def text_styles(svg: str) -> list[str]:
    root = ET.fromstring(svg.encode("utf-8"))
    return [element.get("style", "") for element in root.iter(f"{SVG}text")]


# --- plot_weights_bar -------------------------------------------------------


def test_bar_heights_are_the_weights() -> None:
    weights = seed_weights()
    fig, ax = plot_weights_bar(
        weights,
        labels=["Key 1", "Key 2", "Key 3"],
        title="Attention Weights (Query vs Keys)",
        xlabel="Keys",
        ylabel="Attention Weight",
    )
    assert isinstance(fig, Figure)
    assert ax.figure is fig
    assert [bar.get_height() for bar in ax.patches] == weights.tolist()
    assert [bar.get_x() + bar.get_width() / 2 for bar in ax.patches] == [0, 1, 2]
    assert tuple(ax.get_ylim()) == (0.0, 1.0)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["Key 1", "Key 2", "Key 3"]
    assert [t.get_text() for t in ax.texts] == ["0.27", "0.49", "0.24"]
    assert ax.get_title() == "Attention Weights (Query vs Keys)"
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("Keys", "Attention Weight")


def test_bar_defaults_label_keys_by_index_and_set_no_title() -> None:
    _, ax = plot_weights_bar([0.5, 0.5])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "1"]
    assert (ax.get_title(), ax.get_xlabel(), ax.get_ylabel()) == ("", "", "")


def test_bar_draws_into_a_given_axes() -> None:
    fig = Figure()
    left, right = fig.subplots(1, 2)
    returned_fig, returned_ax = plot_weights_bar([1.0, 0.0], ax=right)
    assert returned_fig is fig and returned_ax is right
    assert len(right.patches) == 2 and not left.patches


def test_bar_in_a_subfigure_returns_the_whole_figure() -> None:
    fig = Figure()
    sub = fig.subfigures(1, 2)[1]
    returned_fig, _ = plot_weights_bar([1.0], ax=sub.subplots())
    assert returned_fig is fig


@pytest.mark.parametrize(
    ("weights", "kwargs", "error", "message"),
    [
        ([[0.5, 0.5]], {}, ValueError, r"`weights` must have shape \(n_k,\)"),
        ([], {}, ValueError, "`weights` is empty"),
        (
            [0.5, 1.5],
            {},
            ValueError,
            r"`weights` must hold attention weights in \[0, 1\]",
        ),
        ([-0.1, 1.0], {}, ValueError, "from -0.1 to 1.0"),
        ([np.nan, 1.0], {}, ValueError, "`weights` contains NaN"),
        (["a", "b"], {}, TypeError, "`weights` must hold real numbers"),
        ([0.5, 0.5], {"labels": ["a"]}, ValueError, "`labels` has 1 entries but"),
        ([0.5, 0.5], {"ax": "axes"}, TypeError, "`ax` must be a matplotlib Axes"),
    ],
)
def test_bar_rejects_bad_input(weights, kwargs, error, message) -> None:
    with pytest.raises(error, match=message):
        plot_weights_bar(weights, **kwargs)


# --- plot_heatmap -----------------------------------------------------------


def test_heatmap_image_is_the_matrix_on_a_scale_from_zero() -> None:
    weights = random_weights((5, 4))
    fig, ax = plot_heatmap(weights, title="t", xlabel="keys", ylabel="queries")
    (image,) = ax.images
    np.testing.assert_array_equal(image.get_array(), weights)
    assert image.get_clim() == (0.0, 1.0)  # every weights' map: 0 to 1
    assert image.get_cmap().name == "weights"
    assert ax.get_xticks().tolist() == [0, 1, 2, 3]
    assert ax.get_yticks().tolist() == [0, 1, 2, 3, 4]
    assert (ax.get_title(), ax.get_xlabel(), ax.get_ylabel()) == (
        "t",
        "keys",
        "queries",
    )
    assert len(fig.axes) == 2, "the heat map and its colour bar"
    assert not ax.texts


def test_heatmap_without_colorbar_and_with_annotations() -> None:
    weights = np.array([[1.0, 0.0], [0.25, 0.75]])
    fig, ax = plot_heatmap(weights, colorbar=False, annotate=True)
    assert fig.axes == [ax]
    assert [t.get_text() for t in ax.texts] == ["1.00", "0.00", "0.25", "0.75"]
    assert [t.get_position() for t in ax.texts] == [(0, 0), (1, 0), (0, 1), (1, 1)]
    # light text on the deep rose of weight 1, dark text on the white of 0
    assert ax.texts[0].get_color() == "#ffffff"
    assert ax.texts[1].get_color() == "#000000"


def test_heatmap_of_zeros_keeps_a_usable_scale() -> None:
    _, ax = plot_heatmap(np.zeros((2, 2)))
    assert ax.images[0].get_clim() == (0.0, 1.0)


def test_heatmap_of_a_long_sequence_uses_fewer_integer_ticks() -> None:
    _, ax = plot_heatmap(random_weights((40, 40)))
    ticks = ax.get_xticks()
    assert len(ticks) < 40
    assert np.all(ticks == np.round(ticks))


@pytest.mark.parametrize(
    ("weights", "error", "message"),
    [
        (np.ones(3) / 3, ValueError, r"`weights` must have shape \(n_q, n_k\)"),
        (np.ones((1, 2, 2)) / 2, ValueError, r"got shape \(1, 2, 2\)"),
        (np.full((2, 2), 2.0), ValueError, r"in \[0, 1\]"),
        (np.array([[1j]]), TypeError, "must hold real numbers"),
    ],
)
def test_heatmap_rejects_bad_input(weights, error, message) -> None:
    with pytest.raises(error, match=message):
        plot_heatmap(weights)


# --- plot_causal_mask -------------------------------------------------------


def causal_example(n: int = 4):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, 8))
    w_q, w_k = rng.standard_normal((2, 8, 8)) / np.sqrt(8)
    mask = causal_mask(n)
    return mask, attention_weights(x @ w_q, x @ w_k, mask=mask)


def test_causal_mask_panels_show_the_mask_and_the_masked_weights() -> None:
    mask, weights = causal_example()
    fig, ax = plot_causal_mask(
        mask, weights, titles=("mask", "weights"), xlabel="key", ylabel="query"
    )
    assert ax.shape == (2,)
    mask_panel, weights_panel = ax
    np.testing.assert_array_equal(mask_panel.images[0].get_array(), mask.astype(int))
    np.testing.assert_array_equal(weights_panel.images[0].get_array(), weights)
    mask_labels = np.array([t.get_text() for t in mask_panel.texts]).reshape(4, 4)
    assert mask_labels.tolist() == np.where(mask, "True", "False").tolist()
    weight_labels = np.array([t.get_text() for t in weights_panel.texts]).reshape(4, 4)
    assert set(weight_labels[~mask]) == {"0.00"}, "zeros above the diagonal"
    assert np.all(weights_panel.images[0].get_array()[~mask] == 0.0)
    assert [a.get_title() for a in ax] == ["mask", "weights"]
    assert [a.get_xlabel() for a in ax] == ["key", "key"]
    assert [a.get_ylabel() for a in ax] == ["query", "query"]  # one above the other
    assert weights_panel.images[0].get_clim() == (0.0, 1.0)
    assert len(fig.axes) == 3, "two panels and the weights' colour bar"


def test_causal_mask_rejects_bad_input() -> None:
    mask, weights = causal_example()
    with pytest.raises(TypeError, match="mask must be boolean"):
        plot_causal_mask(mask.astype(int), weights)
    with pytest.raises(ValueError, match=r"`mask` must have shape \(n_q, n_k\)"):
        plot_causal_mask(mask[0], weights)
    with pytest.raises(ValueError, match=r"`mask` has n_k=4 but `weights` has n_k=3"):
        plot_causal_mask(mask, weights[:, :3])
    with pytest.raises(
        ValueError, match="`weights` must be 0 wherever `mask` is False"
    ):
        plot_causal_mask(mask, random_weights((4, 4)))
    with pytest.raises(ValueError, match="`titles` must be a pair"):
        plot_causal_mask(mask, weights, titles=("only one",))


# --- plot_heads -------------------------------------------------------------


def heads_example() -> np.ndarray:
    rng = np.random.default_rng(0)
    mha = MultiHeadAttention(d_model=8, h=4, rng=rng)
    _, weights = mha(rng.standard_normal((5, 8)))
    return weights  # (4, 5, 5)


def test_heads_one_axes_per_head_on_one_colour_scale() -> None:
    weights = heads_example()
    titles = ["head 1", "head 2", "head 3", "head 4"]
    fig, ax = plot_heads(weights, titles=titles, xlabel="key", ylabel="query")
    assert ax.shape == (4,)
    for i, panel in enumerate(ax):
        np.testing.assert_array_equal(panel.images[0].get_array(), weights[i])
    assert {panel.images[0].get_clim() for panel in ax} == {(0.0, 1.0)}
    assert [panel.get_title() for panel in ax] == titles
    assert [panel.get_xlabel() for panel in ax] == ["key"] * 4  # one row
    assert [panel.get_ylabel() for panel in ax] == ["query", "", "", ""]
    assert len(fig.axes) == 5, "four heads and one shared colour bar"


def test_heads_in_a_grid_label_the_outer_panels_and_drop_empty_cells() -> None:
    weights = heads_example()[:3]
    fig, ax = plot_heads(weights, xlabel="key", ylabel="query", ncols=2)
    assert ax.shape == (3,)
    assert len(fig.axes) == 4, "three heads and the colour bar; no empty panel"
    # 2 x 2 grid: heads 0, 1 on top, head 2 below head 0
    assert [panel.get_ylabel() for panel in ax] == ["query", "", "query"]
    assert [panel.get_xlabel() for panel in ax] == ["", "key", "key"]
    assert [panel.get_title() for panel in ax] == ["", "", ""]


@pytest.mark.parametrize(
    ("weights", "kwargs", "message"),
    [
        (np.ones((5, 5)) / 5, {}, r"`weights` must have shape \(h, n_q, n_k\)"),
        (np.ones((2, 3, 3)) / 3, {"titles": ["a"]}, "`titles` has 1 entries"),
        (np.ones((2, 3, 3)) / 3, {"ncols": 0}, "`ncols` must be a positive integer"),
        (np.full((2, 3, 3), -1.0), {}, r"in \[0, 1\]"),
    ],
)
def test_heads_rejects_bad_input(weights, kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        plot_heads(weights, **kwargs)


# --- hatch_masked -----------------------------------------------------------


def test_masked_cells_are_hatched_in_the_themes_grey() -> None:
    mask = causal_mask(3)
    for name in ("light", "dark"):
        with theme(name):
            ax = Figure().subplots()
            patches = hatch_masked(ax, mask, origin=(10.0, 20.0), cell=2.0)
        corners = [(p.get_x(), p.get_y()) for p in patches]
        assert corners == [(12.0, 20.0), (14.0, 20.0), (14.0, 22.0)]  # j > i only
        assert {p.get_hatch() for p in patches} == {"//"}
        assert {to_hex(p.get_edgecolor()) for p in patches} == {MASKED_HATCH[name]}
        assert not any(p.get_fill() for p in patches)
        assert {p.get_linewidth() for p in patches} == {0.0}  # stripes, no border


def test_the_hatch_is_the_masks_explorables_grey_of_false() -> None:
    """The figures' stripes and the masks explorable's hatch are one grey per
    scheme: MASKED_HATCH copies explorables.css's --explorable-false, so a
    change to either side must change the other."""
    css = (
        Path(__file__).resolve().parents[2] / "docs_src/explorables/explorables.css"
    ).read_text(encoding="utf-8")
    light = re.search(r"\.explorable \{[^}]*--explorable-false: (#[0-9a-f]{6})", css)
    dark = re.search(
        r'"slate"\] \.explorable \{[^}]*--explorable-false: (#[0-9a-f]{6})', css
    )
    assert light and dark
    assert {"light": light[1], "dark": dark[1]} == MASKED_HATCH


def test_heads_hatch_the_masked_cells_and_only_with_a_mask() -> None:
    mask = causal_mask(4)
    weights = np.stack([attention_weights(np.eye(4), np.eye(4), mask=mask)] * 2)
    fig, ax = plot_heads(weights, mask=mask)
    assert [len(a.patches) for a in ax] == [6, 6]  # the 6 cells above the diagonal
    assert {p.get_hatch() for a in ax for p in a.patches} == {"//"}
    assert "<pattern" in to_svg(fig)
    _, ax = plot_heads(weights)
    assert [len(a.patches) for a in ax] == [0, 0]


@pytest.mark.parametrize(
    ("mask", "message"),
    [
        (np.ones((3, 4), dtype=bool), "n_q"),
        (np.ones(4, dtype=bool), "must have shape"),
        (~causal_mask(4) | np.eye(4, dtype=bool), "0 wherever `mask` is False"),
    ],
)
def test_heads_reject_a_mask_that_does_not_fit(mask, message) -> None:
    weights = attention_weights(np.eye(4), np.eye(4), mask=causal_mask(4))[None]
    with pytest.raises(ValueError, match=message):
        plot_heads(weights, mask=mask)


def test_hatch_rejects_bad_input() -> None:
    ax = Figure().subplots()
    with pytest.raises(TypeError, match="boolean"):
        hatch_masked(ax, np.ones((2, 2)))
    with pytest.raises(ValueError, match="`cell` must be positive"):
        hatch_masked(ax, causal_mask(2), cell=0.0)
    with pytest.raises(TypeError, match="must be a matplotlib Axes"):
        hatch_masked("axes", causal_mask(2))


# --- set_upright_ylabel -----------------------------------------------------


def _label_box(fig: Figure, ax, label) -> tuple[float, float, float]:
    """(left, bottom) of the y label of ``ax`` and the top of ``ax``, in points."""
    fig.canvas.draw()
    box = label.get_window_extent()
    top = ax.get_window_extent().y1
    points = 72 / fig.dpi
    return box.x0 * points, box.y0 * points, top * points


def test_upright_ylabel_sits_above_the_axis_half_a_line_up() -> None:
    fig = Figure(figsize=(4, 3), dpi=100)
    ax = fig.subplots()
    label = set_upright_ylabel(ax, "weight")
    assert ax.yaxis.label is label and label.get_text() == "weight"
    assert label.get_rotation() == 0.0  # upright, not turned by 90 degrees
    assert (label.get_ha(), label.get_va()) == ("left", "bottom")
    left, bottom, top = _label_box(fig, ax, label)
    # its foot half a line of its own size above the top of the axis
    assert bottom == pytest.approx(top + 0.5 * label.get_size(), abs=0.5)
    assert left < ax.get_window_extent().x0 * 72 / fig.dpi  # left of the axis


def test_upright_ylabel_at_a_height_without_lift() -> None:
    fig = Figure(figsize=(4, 3), dpi=100)
    ax = fig.subplots()
    label = set_upright_ylabel(ax, "PE", y=1.07, lift=0)
    _, bottom, top = _label_box(fig, ax, label)
    height = ax.get_window_extent().height * 72 / fig.dpi
    assert bottom == pytest.approx(top + 0.07 * height, abs=0.5)


def test_the_plots_set_their_y_labels_upright() -> None:
    fig, ax = plot_weights_bar([0.5, 0.5], ylabel="a_j")
    label = ax.yaxis.label
    _, bottom, top = _label_box(fig, ax, label)
    assert label.get_rotation() == 0.0
    assert bottom == pytest.approx(top + 0.5 * label.get_size(), abs=0.5)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"ax": "not an axes"}, TypeError, "must be a matplotlib Axes"),
        ({"y": float("nan")}, ValueError, "`y` must be finite"),
        ({"lift": -0.5}, ValueError, "`lift` must be finite and not negative"),
        ({"lift": float("inf")}, ValueError, "`lift` must be finite"),
    ],
)
def test_upright_ylabel_rejects_bad_input(kwargs, error, message) -> None:
    ax = Figure().subplots()
    arguments = {"ax": ax, "ylabel": "i", **kwargs}
    with pytest.raises(error, match=message):
        set_upright_ylabel(arguments.pop("ax"), arguments.pop("ylabel"), **arguments)


def test_every_weights_map_is_in_the_weights_colours_from_zero_to_one() -> None:
    """One colour means one weight in every figure: the heat maps of weights
    (heat map, causal mask, heads) use the ramp of A, the diagrams' and the
    explorables' pink, from 0 to 1, in each theme, whatever the largest
    weight (a head's weights below 0.7 are not drawn as if they reached 1)."""
    weights = heads_example() * 0.6
    for name, (page, middle, deep) in WEIGHTS_RAMP.items():
        with theme(name):
            _, heat = plot_heatmap(weights[0])
            _, (_, masked) = plot_causal_mask(*causal_example())
            _, heads = plot_heads(weights)
        for ax in [heat, masked, *heads]:
            (image,) = ax.images
            assert image.get_clim() == (0.0, 1.0)
            cmap = image.get_cmap()
            assert [to_hex(cmap(x)) for x in (0.0, 1.0)] == [page, deep]
            # the middle of its 256 steps: within one step of A's fill
            np.testing.assert_allclose(cmap(0.5)[:3], to_rgb(middle), atol=1.5 / 255)
        with theme(name):
            assert to_hex(weights_cmap()(1.0)) == deep == THEMES[name]["bar"]


# --- theme ------------------------------------------------------------------


def test_theme_sets_colours_and_a_transparent_background_then_restores() -> None:
    before = dict(matplotlib.rcParams)
    for name, colours in THEMES.items():
        with theme(name):
            rc = matplotlib.rcParams
            assert rc["text.color"] == colours["text"]
            assert rc["axes.labelcolor"] == colours["text"]
            assert rc["xtick.labelcolor"] == colours["text"]
            assert rc["figure.facecolor"] == "none"
            assert rc["savefig.transparent"] is True
            _, ax = plot_weights_bar([1.0])
            assert (
                matplotlib.colors.to_hex(ax.patches[0].get_facecolor())
                == (colours["bar"])
            )
    assert dict(matplotlib.rcParams) == before


def test_theme_cycles_the_rose_then_the_books_accent() -> None:
    for name in ("light", "dark"):
        with theme(name):
            cycle = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
        assert cycle == [THEMES[name]["bar"], THEMES[name]["accent"]]
    assert THEMES["light"]["accent"] == "#c2410c"  # diagrams.FILLS' accent
    assert THEMES["dark"]["accent"] == "#fdba74"


def test_theme_rejects_an_unknown_name() -> None:
    with pytest.raises(ValueError, match="`name` must be 'light' or 'dark'"):
        with theme("sepia"):
            pass


# --- to_svg -----------------------------------------------------------------


def labelled_figure(language_labels: tuple[str, str, str]) -> Figure:
    title, xlabel, ylabel = language_labels
    fig, _ = plot_heatmap(
        random_weights((3, 3)), title=title, xlabel=xlabel, ylabel=ylabel
    )
    return fig


@pytest.mark.parametrize(
    ("language", "labels"),
    [
        ("ja", ("自己注意の重み行列", "キーの位置", "クエリの位置")),
        ("zh-Hant", ("自注意力權重矩陣", "鍵的位置", "查詢的位置")),
    ],
)
def test_svg_keeps_the_labels_as_text_in_the_page_fonts(language, labels) -> None:
    svg = to_svg(labelled_figure(labels), language=language)
    assert set(labels) <= set(texts(svg))
    assert "DejaVuSans-" not in svg, "no glyph outlines: the browser draws the text"
    stack = ", ".join(
        name if name == "sans-serif" else f"'{name}'"
        for name in FONT_FAMILIES[language]
    )
    styles = text_styles(svg)
    assert styles
    assert all(f"font-family: {stack};" in style for style in styles), styles[0]
    assert re.search(rf'<svg [^>]*xml:lang="{language}"', svg)


def test_svg_refers_to_no_other_file_or_host() -> None:
    svg = to_svg(labelled_figure(("重み", "キー", "クエリ")))
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", svg))
    assert urls <= ALLOWED_URLS, urls - ALLOWED_URLS
    assert "http://www.w3.org/2000/svg" in urls
    # images are inline PNG data; other links point inside the document
    hrefs = re.findall(r"href=\"([^\"]*)\"", svg)
    assert any(href.startswith("data:image/png;base64,") for href in hrefs)
    assert all(href.startswith(("data:image/png;base64,", "#")) for href in hrefs)
    assert "<metadata" not in svg and "<dc:date" not in svg
    assert "matplotlib.org" not in svg


def test_svg_is_deterministic() -> None:
    def build() -> str:
        with theme("light"):
            fig, _ = plot_causal_mask(*causal_example(), titles=("因果マスク", "重み"))
            return to_svg(fig, language="ja")

    first, second = build(), build()
    assert first == second
    assert re.search(r'id="p[0-9a-f]+"', first), "clip paths have hashed ids"


def test_dark_and_light_svg_differ_in_text_colour() -> None:
    fills = {}
    for name in ("light", "dark"):
        with theme(name):
            fig, _ = plot_weights_bar([0.3, 0.7], title=JA, xlabel=ZH)
            svg = to_svg(fig)
        fills[name] = set(re.findall(r"<text style=\"[^\"]*fill: (#[0-9a-f]{6})", svg))
    assert fills["light"] == {THEMES["light"]["text"]}
    assert fills["dark"] == {THEMES["dark"]["text"]}


def test_svg_measures_cjk_labels_without_warnings_only_when_written_as_text() -> None:
    """Tests run with -W error: to_svg must not warn about CJK glyphs.

    matplotlib measures text with DejaVu Sans, which has no kana or Han glyphs.
    That matters when matplotlib draws the glyphs (PNG) and still warns then;
    in to_svg's SVG the browser draws them, so to_svg ignores that warning only.
    """
    with matplotlib.rc_context({"font.family": ["DejaVu Sans"]}):
        fig = labelled_figure(("注意力權重", "アテンション重み", "鍵"))
        svg = to_svg(fig, language="zh-Hant")  # no warning escapes
        assert "注意力權重" in texts(svg)
        with pytest.warns(UserWarning, match=r"missing from font\(s\) DejaVu Sans"):
            fig.savefig(io.BytesIO(), format="png")


def test_svg_leaves_the_global_settings_alone() -> None:
    before = dict(matplotlib.rcParams)
    to_svg(labelled_figure(("a", "b", "c")))
    assert dict(matplotlib.rcParams) == before


def test_svg_rejects_bad_input() -> None:
    with pytest.raises(TypeError, match="`fig` must be a matplotlib Figure"):
        to_svg("figure")
    with pytest.raises(ValueError, match="`language` must be one of"):
        to_svg(Figure(), language="fr")


def test_core_package_does_not_import_matplotlib() -> None:
    """attention_docs itself needs numpy only; plotting is imported on demand."""
    import subprocess
    import sys

    code = (
        "import sys, attention_docs; "
        "print('matplotlib' in sys.modules, 'attention_docs.plotting' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["False", "False"]
