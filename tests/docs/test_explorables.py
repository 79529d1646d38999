"""The interactive figures' sources: words, placeholders, formats, weight.

The browser tests (tests/browser/test_explorables.py) drive the figures;
these check, without a site build, what the hook and the pages promise, and
the default state that each module draws under Node (the page's state
without JavaScript, in print and in the search) against the package.
"""

from __future__ import annotations

import gzip
import html
import itertools
import json
import math
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from attention_book import load_yaml, zh_hans
from attention_book.stages import explorables
from attention_docs import causal_mask, running_example
from tests import explorables_oracle as oracle
from tests.explorables_charts import Chart, charts

ROOT = Path(__file__).resolve().parents[2]
EDITIONS = ("ja", "zh-Hant")
NAMES = explorables.names()
PLACEHOLDER = '<div class="explorable" data-explorable="{}"></div>'
INCLUDE = re.compile(r'--8<-- "([^"]+)"')


def test_every_script_has_data_and_words() -> None:
    assert NAMES == sorted(explorables.DATA)
    for name in NAMES:
        assert (explorables.FOLDER / f"{name}.yml").is_file(), name


@pytest.mark.parametrize("name", NAMES)
def test_words_exist_in_every_language(name: str) -> None:
    words = load_yaml((explorables.FOLDER / f"{name}.yml").read_text("utf-8"))
    assert set(words) == set(EDITIONS), name
    keys = set(words["ja"])
    assert keys == set(words["zh-Hant"]), name
    assert {"title", "static"} <= keys
    for language in EDITIONS:
        assert all(isinstance(v, str) and v.strip() for v in words[language].values())
        # A message's {names} are the same in every language.
        for key, text in words[language].items():
            assert set(re.findall(r"\{\w+\}", text)) == set(
                re.findall(r"\{\w+\}", words["ja"][key])
            ), (name, language, key)
    # and the words every figure shares (core.yml), which none redefines
    shared = load_yaml((explorables.FOLDER / "core.yml").read_text("utf-8"))
    assert set(shared) == set(EDITIONS) and set(shared["ja"]) == set(shared["zh-Hant"])
    assert not keys & set(shared["ja"]), name
    simplified = explorables.words_for(name, "zh-Hans")
    assert set(simplified) == keys | set(shared["ja"])


@pytest.mark.parametrize("name", NAMES)
def test_traditional_rows_and_columns_are_covered(name: str) -> None:
    """A 列 or 行 of the Traditional words must be one the table converts."""
    words = load_yaml((explorables.FOLDER / f"{name}.yml").read_text("utf-8"))
    pattern = zh_hans.overrides()[1]
    left = [
        t for t in words["zh-Hant"].values() if re.search("[列行]", pattern.sub(" ", t))
    ]
    assert left == []


@pytest.mark.parametrize("name", NAMES)
def test_each_explorable_is_on_one_page_the_same_in_both_editions(name: str) -> None:
    placeholder = PLACEHOLDER.format(name)
    found = {}
    for language in EDITIONS:
        pages = [
            p
            for p in sorted((ROOT / "docs" / language).glob("*.md"))
            if placeholder in p.read_text("utf-8")
        ]
        assert len(pages) == 1, (language, pages)
        text = pages[0].read_text("utf-8")
        assert text.count(placeholder) == 1
        before = text[: text.index(placeholder)]
        # Its place: after the same example, in the same section.
        found[language] = (
            pages[0].name,
            # an example of the edition's own folder counts as the same
            [
                path.replace(f"/{language}/", "/<edition>/")
                for path in INCLUDE.findall(before)[-1:]
            ],
            re.findall(r"\{ #([\w-]+) \}", before)[-1:],
        )
    assert found["ja"] == found["zh-Hant"]


@pytest.mark.parametrize("language", ["ja", "zh-Hant", "zh-Hans"])
@pytest.mark.parametrize("name", NAMES)
def test_default_state_is_drawn_in_every_language(name: str, language: str) -> None:
    figure = explorables.render(name, language)
    assert figure.startswith(f'<section class="explorable" data-explorable="{name}"')
    assert figure.count("<section") == 1  # the search leaves all of it out
    assert "<noscript>" in figure and "aria-live" in figure
    assert "data-search-exclude" in figure
    # Every control has a name: a label around it, or aria-label.
    controls = re.findall(r"<(?:input|select)\b[^>]*>", figure)
    labelled = figure.count("<label") + len(
        re.findall(r"<input[^>]*aria-label", figure)
    )
    assert controls and labelled >= len(controls)


def run_module(code: str):
    """What ``code`` (an ES module importing from ``./core.js`` and the other
    modules of the folder) prints as JSON, run by Node in that folder."""
    done = subprocess.run(
        ["node", "--input-type=module", "-e", code],
        cwd=explorables.FOLDER,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def test_numbers_are_formatted_for_the_reader() -> None:
    shown = run_module(
        'import { fmt, sci } from "./core.js";'
        "console.log(JSON.stringify([fmt(0.27406862, 3), fmt(-1.5, 2),"
        "fmt(-0.00001, 3), fmt(-0, 1), sci(0.0067153, 1), sci(0.33, 1),"
        "fmt(5e199, 2), fmt(-12345678, 1), fmt(999999.4, 0), fmt(2.1e-9, 4),"
        "fmt(0, 4), fmt(-0.00004, 4), fmt(0.00005, 4)]));"
    )
    assert shown == [
        "0.274",
        "\u22121.50",
        # not 0, yet 0.000 at 3 decimals: written m × 10⁻ⁿ, never "−0.000"
        # or "0.000" (r37: a weight of 2.1 × 10⁻⁹ shown as 0.0000)
        "\u22121.0 × 10\u207b\u2075",
        "0.0",
        "6.7 × 10<sup>\u22123</sup>",
        "3.3 × 10<sup>\u22121</sup>",
        # a huge score of the example (F40 of the round-29 figure review:
        # "5e+199" beside the softmax explorable's "× 10ⁿ")
        "5.00 × 10\u00b9\u2079\u2079",
        "\u22121.2 × 10\u2077",
        "999999",
        "2.1 × 10\u207b\u2079",
        "0.0000",  # 0 itself
        "\u22124.0 × 10\u207b\u2075",
        "0.0001",  # rounds to a nonzero last digit: as it is
    ]
    for x, digits in ((2.1e-9, 4), (-0.00001, 3), (0.0, 4), (0.27406862, 3)):
        assert oracle.fmt(x, digits) == run_module(
            'import { fmt } from "./core.js";'
            f"console.log(JSON.stringify(fmt({x}, {digits})));"
        )


#: (x, digits, gap) and what a reader must read: a value that is not ±1 but
#: would round to ±1 (issue 40: a weight of 0.99992 shown as "1.000").
NEAR_ONE = [
    ((0.99992, 3, None), ">\u00a00.999"),
    ((0.9951, 2, None), ">\u00a00.99"),
    ((1.0004, 3, None), "<\u00a01.001"),
    ((-0.99992, 3, None), "<\u00a0\u22120.999"),
    ((-1.0004, 3, None), ">\u00a0\u22121.001"),
    ((1.0, 3, None), "1.000"),  # 1 itself
    ((-1.0, 4, None), "\u22121.0000"),
    ((0.9994, 3, None), "0.999"),  # rounds below 1: as it is
    ((1.0, 4, -3.9e-22), ">\u00a00.9999"),  # the float 1, known to be 1 − ε
    ((0.9999999999999999, 3, 0.0), "1.000"),  # known to be 1: a row's sum
    ((0.00004, 3, None), "4.0 × 10\u207b\u2075"),  # and 0's side, as before
]


@pytest.mark.parametrize(("args", "text"), NEAR_ONE)
def test_a_value_that_is_not_1_never_shows_as_1(args, text) -> None:
    x, digits, gap = args
    call = f"fmt({x!r}, {digits}{'' if gap is None else f', {gap!r}'})"
    shown = run_module(
        f'import {{ fmt }} from "./core.js"; console.log(JSON.stringify({call}));'
    )
    assert shown == text
    assert oracle.fmt(x, digits, gap) == text


class Cells(HTMLParser):
    """Every ``data-value`` of a figure's tables: key -> {(i, j): x}."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, dict[tuple[int, int], float]] = {}
        self.table = None
        self.cell = None

    def handle_starttag(self, tag, attrs) -> None:
        a = dict(attrs)
        if tag == "table" and "data-matrix" in a:
            self.table = self.tables.setdefault(a["data-matrix"], {})
        elif tag == "td" and "data-i" in a and self.table is not None:
            self.cell = (int(a["data-i"]), int(a["data-j"]))
            if "data-value" in a:
                self.table[self.cell] = float(a["data-value"])
        elif "data-value" in a and self.cell is not None and self.table is not None:
            self.table[self.cell] = float(a["data-value"])

    def handle_endtag(self, tag) -> None:
        if tag == "table":
            self.table = None
        elif tag == "td":
            self.cell = None


def drawn(name: str, language: str = "ja") -> dict[str, np.ndarray]:
    return drawn_from(explorables.render(name, language))


def drawn_from(html: str) -> dict[str, np.ndarray]:
    """Every table's data-values of a drawn figure, as arrays (NaN where none)."""
    parser = Cells()
    parser.feed(html)
    tables = {}
    for key, cells in parser.tables.items():
        shape = tuple(max(ix) + 1 for ix in zip(*cells, strict=True))
        grid = np.full(shape, np.nan)
        for (i, j), x in cells.items():
            grid[i, j] = x
        tables[key] = grid
    return tables


def test_the_running_example_is_drawn_as_the_package_computes_it() -> None:
    tables = drawn("example")
    state = oracle.example_state(running_example()[0])
    for key in ("q", "k", "v", "scores", "weights", "output"):
        np.testing.assert_allclose(tables[key], state[key], rtol=1e-12, err_msg=key)


def test_the_masks_are_drawn_as_the_package_computes_them() -> None:
    tables = drawn("masks", "zh-Hans")
    state = oracle.masks_state(3, 3, causal_mask(3, 3))
    for key in ("scores", "weights", "output"):
        np.testing.assert_allclose(tables[key], state[key], rtol=1e-12, err_msg=key)


def grid_cells(figure: str) -> dict[tuple[int, int], dict[str, str]]:
    """The attributes of each cell of the masks' grid (data-matrix=weights)."""
    grid = figure.split('data-matrix="weights"')[1].split("</table>")[0]
    cells = {}
    for attrs, inner in re.findall(r"<td ([^>]*)>(.*?)</td>", grid):
        a = dict(re.findall(r'([\w-]+)(?:="([^"]*)")?', attrs))
        if "data-sum" in a:  # a row's sum, at the row's end
            continue
        box = dict(re.findall(r'([\w-]+)(?:="([^"]*)")?', inner.split(">")[0]))
        cells[int(a["data-i"]), int(a["data-j"])] = a | {"box": box}
    return cells


@pytest.mark.parametrize("language", ["ja", "zh-Hant"])
def test_the_masks_grid_is_drawn_hatched_and_named(language: str) -> None:
    """Without JavaScript the grid shows the causal mask hatched where it is
    False, each cell's colour its weight, and each checkbox its words."""
    figure = explorables.render("masks", language)
    cells = grid_cells(figure)
    mask = causal_mask(3, 3)
    weights = oracle.masks_state(3, 3, mask)["weights"]
    words = explorables.words_for("masks", language)
    for (i, j), cell in cells.items():
        assert ("data-masked" in cell) == (not mask[i, j]), (i, j)
        assert float(cell["style"].split("--w:")[1].strip(" ;")) == weights[i][j]
        assert ("checked" in cell["box"]) == mask[i, j]
        name = words["cell"].format(i=i + 1, j=j + 1)
        assert cell["box"]["aria-label"] == name
    assert len(cells) == 9
    assert words["query"].format(i=1) in figure and words["key"].format(j=3) in figure
    # one Tab stop for the grid, its first cell; each row's sum at its end
    stops = [ij for ij, cell in cells.items() if cell["box"]["tabindex"] == "0"]
    assert stops == [(0, 0)]
    sums = re.findall(r'data-sum="(\d)" data-value="([^"]*)">([^<]*)<', figure)
    assert [(int(i), float(v), text) for i, v, text in sums] == [
        (i, float(np.sum(weights[i])), "1.000") for i in range(3)
    ]
    said = re.search(r'class="explorable-status"[^>]*>(.*?)</p>', figure)[1]
    assert said == words["status_ok"] + words["causal_yes"]


def test_the_example_outputs_are_named_in_words() -> None:
    figure = explorables.render("example", "ja")
    z = oracle.example_state(running_example()[0])["output"]
    for i, row in enumerate(z):
        for j, value in enumerate(row):
            name = f"z({i + 1}, {j + 1}) = {oracle.fmt(value, 3)}："
            assert (
                f'aria-label="{name}トークン {i + 1} の出力の第 {j + 1} 成分"' in figure
            )


def test_the_heads_are_drawn_as_the_package_computes_them() -> None:
    """The default state (the heads that look at different tokens, h = 2)
    and the running example, each with one head's weights (h = 1) beside."""
    data = explorables.data_heads("zh-Hant")
    assert data["input"] == "preset"
    for inputs, tables in (
        ("preset", drawn("heads", "zh-Hant")),
        ("example", drawn_from(draw_with("heads", data | {"input": "example"}))),
    ):
        state = oracle.heads_state(2, "mixing", inputs=inputs)
        for i in range(2):
            for key, values in (
                ("weights", state["weights"]),
                ("term", state["terms"]),
            ):
                np.testing.assert_allclose(tables[f"{key}{i}"], values[i], rtol=1e-12)
        for key in ("q", "k", "v", "single", "concat", "w_o", "output"):
            np.testing.assert_allclose(tables[key], state[key], rtol=1e-12, err_msg=key)


def test_the_heads_preset_shows_heads_that_look_at_different_tokens() -> None:
    """The input the figure opens with: at h = 2 head 1 weighs each token
    itself most, head 2 the previous token (token 1 itself), each by 0.894;
    one head over the four columns (h = 1) splits tokens 2 and 3 evenly
    between those two keys (0.468 each), which the heads keep apart."""
    state = oracle.heads_state(2, "mixing")
    head1, head2 = (np.asarray(a) for a in state["weights"])
    single = np.asarray(state["single"])
    assert list(head1.argmax(axis=1)) == [0, 1, 2]
    assert list(head2.argmax(axis=1)) == [0, 0, 1]
    assert {oracle.fmt(a, 3) for a in head1.max(axis=1)} == {"0.894"}
    assert {oracle.fmt(a, 3) for a in head2.max(axis=1)} == {"0.894"}
    for i, (a, b) in ((1, (0, 1)), (2, (1, 2))):
        assert single[i, a] == pytest.approx(single[i, b], abs=1e-15)
        assert oracle.fmt(single[i, a], 3) == "0.468"
    # the single head's score is the heads' scores summed over sqrt(h)
    for h in (2, 4):
        state = oracle.heads_state(h, "mixing")
        np.testing.assert_allclose(
            np.sum(state["scores"], axis=0) / math.sqrt(h),
            state["single_scores"],
            atol=1e-12,
        )


def test_the_window_and_sinks_are_drawn_as_the_package_computes_them() -> None:
    """The default state is the page's figure: n = 10, W = 4, two sinks."""
    sizes = explorables.WINDOW_DEFAULT
    n = sizes["n"]
    state = oracle.window_state(n, sizes["window"], sizes["n_sink"])
    assert state["kept"] == [0, 1, 6, 7, 8, 9]  # the sinks and the last W
    for language in ("ja", "zh-Hant"):
        tables = drawn("window_sinks", language)
        np.testing.assert_array_equal(tables["mask"][:n, :n], state["mask"])
        capacity = state["capacity"]
        np.testing.assert_array_equal(tables["cache"][:, :capacity], state["slots"])
        figure = explorables.render("window_sinks", language)
        for key in ("rows", "capacity", "full"):
            assert f'data-result="{key}" data-value="{state[key]}"' in figure, key
        # the newest query's weights with the two sinks and without them
        sinks = oracle.window_weights(n, sizes["window"], sizes["n_sink"])
        np.testing.assert_allclose(
            tables["weights"][:n].T, sinks["weights"], rtol=1e-12, atol=1e-15
        )
        for key in ("drop_window", "ratio_window", "drop_sinks", "ratio_sinks"):
            shown = re.search(rf'data-result="{key}" data-value="([^"]+)"', figure)
            assert abs(float(shown[1]) - sinks[key]) <= 1e-12 * sinks[key], key


def test_the_window_s_factor_is_1_with_no_sink_outside_it() -> None:
    """Every key in the window (W = n): nothing dropped, and 1/(1 − a_drop)
    is 1, written "1.0", though the share kept, a float64 sum, is 1 − 2.2 ×
    10⁻¹⁶ (issue 40: "> 0.9" for a factor that is 1); the page's window
    drops the sink and makes it far more than 1."""
    data = explorables.DATA["window_sinks"]("ja")
    figure = draw_with("window_sinks", data | {"n": 16, "window": 16, "n_sink": 0})
    said = dict(re.findall(r'data-result="(\w+)" data-value="[^"]+">([^<]*)<', figure))
    assert (said["drop_window"], said["ratio_window"]) == ("0.000", "1.0")
    assert (said["drop_sinks"], said["ratio_sinks"]) == ("0.000", "1.0")
    sinks = oracle.window_weights(10, 4, 2)  # the page's figure
    assert sinks["drop_window"] > 0.99 and sinks["ratio_window"] > 1000
    assert 1 < sinks["ratio_sinks"] < 1.001


def test_without_sinks_the_window_drops_the_sink_s_weight() -> None:
    """n_sink = 0 is the window alone: it drops the sink, and the figure says
    so (designer s21, issue 40: it showed a = 0 and ×1.0, as if dropping
    the sinks changed nothing); the row of the window with its sinks is
    then the window's, named with its 0 sinks; the full attention's row
    beside them."""
    data = explorables.DATA["window_sinks"]("ja")
    words = explorables.words_for("window_sinks", "ja")
    figure = draw_with("window_sinks", data | {"n_sink": 0})
    sinks = oracle.window_weights(data["n"], data["window"], 0)
    for key in ("drop_window", "drop_sinks"):
        value = float(
            re.search(rf'data-result="{key}" data-value="([^"]+)"', figure)[1]
        )
        assert abs(value - sinks[key]) <= 1e-12 and value > 0.99, key
    ratio = re.search(r'data-result="ratio_sinks" data-value="[^"]+">([^<]*)<', figure)
    assert (
        ratio[1] == oracle.fmt(sinks["ratio_sinks"], 1) and sinks["ratio_sinks"] > 1000
    )
    assert words["with_sinks"].format(n=0) in figure
    tables = drawn_from(figure)
    n = data["n"]
    np.testing.assert_allclose(
        tables["weights"][:n].T, sinks["weights"], rtol=1e-12, atol=1e-15
    )
    np.testing.assert_array_equal(tables["weights"][:, 1], tables["weights"][:, 2])


def band_cells(figure: str) -> dict[tuple[int, int], dict[str, str]]:
    """The attributes of each cell of the window's grid, and of its button."""
    grid = figure.split('data-matrix="mask"')[1].split("</table>")[0]
    cells = {}
    for attrs, inner in re.findall(r"<td ([^>]*)>(.*?)</td>", grid):
        a = dict(re.findall(r'([\w-]+)(?:="([^"]*)")?', attrs))
        if "data-sum" in a:  # a row's sum, at the row's end
            continue
        button = dict(re.findall(r'([\w-]+)(?:="([^"]*)")?', inner.split(">")[0]))
        cells[int(a["data-i"]), int(a["data-j"])] = a | {"button": button}
    return cells


def window_sinks_drawn(n: int, window: int, n_sink: int, language: str = "ja") -> str:
    data = explorables.DATA["window_sinks"](language)
    sizes = {"n": n, "window": window, "n_sink": n_sink}
    return draw_with("window_sinks", data | sizes, language)


@pytest.mark.parametrize("language", ["ja", "zh-Hant"])
@pytest.mark.parametrize(("n", "window", "n_sink"), [(10, 4, 2), (16, 3, 0), (5, 8, 1)])
def test_the_window_grid_and_cache_are_the_package_s(
    n: int, window: int, n_sink: int, language: str
) -> None:
    """Each cell of the grid: its kind (window, sink, outside the window, a
    later position) as sliding_window_mask gives it, hatched where False,
    named in words; each row of the cache holds the position RollingKVCache
    put there; the chart draws the cache's length after t tokens (and, with
    no sink, kv_cache_bytes(window=W)'s tokens) beside t, the cursor at n."""
    html = window_sinks_drawn(n, window, n_sink, language)
    state = oracle.window_state(n, window, n_sink)
    words = explorables.words_for("window_sinks", language)
    cells = band_cells(html)
    most = explorables.WINDOW_DEFAULT["max"]
    assert len(cells) == most * most
    for (i, j), cell in cells.items():
        if i >= n or j >= n:
            assert "hidden" in cell or f'<tr data-i="{i}" hidden' in html, (i, j)
            continue
        kind = str(state["kinds"][i, j])
        assert cell["data-kind"] == kind, (i, j)
        assert ("data-masked" in cell) == (not state["mask"][i, j]), (i, j)
        name = words["cell"].format(
            i=i, j=j, m=state["mask"][i, j], kind=words[f"kind_{kind}"]
        )
        assert cell["button"]["aria-label"] == name
    tables = drawn_from(html)
    np.testing.assert_array_equal(
        tables["cache"][:, : state["capacity"]], state["slots"]
    )
    assert (tables["cache"][:, state["capacity"] :] == -1).all()
    chart = Chart(charts(html)["rows"])
    assert abs(chart.cursor() - n) < 1e-3
    assert chart.notes() == [(n, str(state["rows"]))]  # the rows, at the cursor
    lines = chart.lines()
    full = oracle.window_state(most, window, n_sink)["lengths"]
    for t, (x, y) in enumerate(lines[0][0]):
        assert abs(x - t) < 1e-3 and abs(y - full[t]) < 1e-3, (t, x, y)
        if n_sink == 0 and t > 0:  # kv_cache_bytes counts n >= 1 tokens
            from attention_docs import kv_cache_bytes

            assert (
                kv_cache_bytes(1, 1, 1, t, bytes_per_value=1, window=window)
                == 2 * full[t]
            )
    assert [round(y, 3) for _, y in lines[1][0]] == list(range(most + 1))
    # The words under the grid: the newest query's keys and the cache's rows.
    said = html.split("data-linked-said")[1].split("</p>")[0]
    assert ", ".join(map(str, state["kept"])) in said
    for r, p in enumerate(state["slots"][0]):
        if p >= 0:
            assert words["slot_item"].format(r=r, p=p) in said


def test_the_kv_calculator_agrees_with_the_page() -> None:
    """The default state is the page's GPT-3 175B: 9 GiB, 768 MiB, 96 MiB."""
    sizes = explorables.KV_DEFAULT
    totals = {
        kind: oracle.kv_state(kind, sizes, 2)["total"] for kind in explorables.KV_KINDS
    }
    # MLA with d_c = 512, d_h^R = 64 on GPT-3's 96 layers: 96 * 576 * 2 * 2048
    assert totals == {
        "mha": 9 * 2**30,
        "gqa": 768 * 2**20,
        "mqa": 96 * 2**20,
        "mla": 96 * 576 * 2 * 2048,
    }
    figure = explorables.render("kv_cache", "ja")
    assert f'data-result="total" data-value="{9 * 2**30}">9,663,676,416<' in figure
    assert ">9.00 GiB<" in figure


@pytest.mark.parametrize("name", NAMES)
def test_each_page_adds_under_60_kib_of_javascript(name: str) -> None:
    """The figure's module and the shared core, gzipped, stay far under 60 KiB."""
    module = explorables.FOLDER / f"{name}.js"
    imports = re.findall(r'from "\./([\w.]+)"', module.read_text("utf-8"))
    # the shared modules only, and nothing from another host
    assert "core.js" in imports
    assert set(imports) <= {f"{shared}.js" for shared in explorables.SHARED}
    scripts = [module, *(explorables.FOLDER / i for i in imports)]
    size = sum(len(gzip.compress(p.read_bytes(), 9)) for p in scripts)
    assert size < 60 * 1024, size


@pytest.mark.parametrize("name", NAMES)
def test_simplified_words_keep_no_traditional_character(name: str) -> None:
    import opencc

    t2s = opencc.OpenCC("t2s")
    for key, text in explorables.words_for(name, "zh-Hans").items():
        plain = re.sub(r"<[^>]+>", "", text)
        assert t2s.convert(plain) == plain, (name, key, plain)


@pytest.mark.parametrize("name", NAMES)
def test_the_search_leaves_the_figure_out(name: str) -> None:
    """Its numbers and controls are no text to search (Material's own parser)."""
    from material.plugins.search.plugin import Parser

    parser = Parser()
    parser.feed(f'<h1 id="t">T</h1><p>a</p>{explorables.render(name, "ja")}<p>b</p>')
    parser.close()
    assert "".join("".join(s.text) for s in parser.data) == "<p>a</p><p>b</p>"


@pytest.mark.parametrize("language", ["ja", "zh-Hans"])
def test_the_attention_maps_are_the_trained_model_s(language: str) -> None:
    """The default state: the first sentence, layer 1, head 1 (the edition's model)."""
    from attention_docs import load_pretrained

    sentence = explorables.words_for("attention_maps", language)["sentence_1"]
    a = load_pretrained(language).attention(sentence)[0][0]
    shown = drawn("attention_maps", language)["weights"][
        : len(sentence), : len(sentence)
    ]
    np.testing.assert_allclose(shown, a, atol=0.5e-4 + 1e-7)


@pytest.mark.parametrize("language", ["ja", "zh-Hant"])
def test_every_head_s_previous_character_weight_is_a_bar(language: str) -> None:
    """Without JavaScript: each of the 12 heads' weights as a thumbnail heat
    map and its mean weight on the previous character (of the weights the
    page carries, the model's to 4 decimals), a button named in words, layer 1's head 1
    pressed; the chosen head's weights a heat map whose cells' colour is
    the weight, buttons at and below the diagonal only."""
    from attention_docs import load_pretrained

    words = explorables.words_for("attention_maps", language)
    sentence = words["sentence_1"]
    n = len(sentence)
    weights = load_pretrained(language).attention(sentence)
    figure = explorables.render("attention_maps", language)
    bars = re.findall(
        r'<td data-l="(\d)" data-h="(\d)" class="explorable-thumb-cell">'
        r"<button ([^>]*)>(<svg.*?</svg>)<span data-value=\"([^\"]+)\">",
        figure,
    )
    assert len(bars) == len(weights) * weights[0].shape[0]
    for layer, head, button, thumb, value in bars:
        a = np.round(weights[int(layer) - 1][int(head) - 1], explorables.MAP_DECIMALS)
        prev = np.mean([a[i, i - 1] for i in range(1, n)])
        assert abs(float(value) - prev) <= 1e-12, (layer, head)
        # the thumbnail: a square at and below the diagonal for each weight
        assert f'viewBox="0 0 {n} {n}"' in thumb and 'aria-hidden="true"' in thumb
        squares = re.findall(
            r'<rect x="(\d+)" y="(\d+)"[^>]*style="--w: ([\d.e-]+);"', thumb
        )
        assert {(int(y), int(x)) for x, y, _ in squares} == {
            (i, j) for i in range(n) for j in range(i + 1)
        }
        for x, y, v in squares:
            assert float(v) == a[int(y), int(x)], (layer, head, y, x)
        pressed = (layer, head) == ("1", "1")
        assert f'aria-pressed="{str(pressed).lower()}"' in button
        name = words["pick"].format(l=layer, h=head, prev=oracle.weight(prev))
        assert f'aria-label="{name}"' in button
    # the colour's scale under the map, 0 to 1 (its words are the caption's)
    assert re.search(
        r'<p class="explorable-ramp-legend" aria-hidden="true"><span>0</span>'
        r'<span class="explorable-ramp"></span><span>1</span></p>',
        figure,
    )
    grid = figure.split('data-matrix="weights"')[1].split("</table>")[0]
    a = np.round(weights[0][0], explorables.MAP_DECIMALS)
    cells = re.findall(r'<td data-i="(\d+)" data-j="(\d+)"([^>]*)>(<button)?', grid)
    assert len(cells) == n * n
    for i, j, attrs, button in cells:
        i, j = int(i), int(j)
        assert bool(button) == (j <= i), (i, j)  # the causal mask's cells: blank
        if j <= i:
            assert float(attrs.split("--w: ")[1].split(";")[0]) == a[i, j]
            assert ("explorable-previous" in attrs) == (j == i - 1)


@pytest.mark.parametrize("language", ["ja", "zh-Hant"])
def test_the_attention_maps_write_every_weight_by_one_rule(language: str) -> None:
    """Each weight 2 decimals, a weight below 0.005 "< 0.01" (review r43):
    never "0.00" beside "2.0 × 10⁻⁴", as if a softmax weight could be 0; nor
    "1.00" but for the first query's one key (issue 40), as if a weight over
    two keys could be 1."""
    figure = explorables.render("attention_maps", language)
    grid = figure.split('data-matrix="weights"')[1].split("</table>")[0]
    number = re.compile(r'<span data-value="([^"]+)">([^<]*)</span>')
    shown = []
    for i, row in re.findall(r'<tr data-i="(\d+)"[^>]*>(.*?)</tr>', grid):
        for value, text in number.findall(row):
            shown.append((int(i), float(value), html.unescape(text)))
    assert shown
    for i, value, text in shown:
        assert text == oracle.weight(value, sole=i == 0), (i, value, text)
        assert "× 10" not in text and text != "0.00"
        assert (text == "1.00") == (i == 0), (i, value, text)
    assert any(text == "< 0.01" for *_, text in shown)


def test_the_kv_calculator_offers_deepseek_v3() -> None:
    """The preset button carries DeepSeek-V3's sizes; the MLA inputs start off."""
    figure = explorables.render("kv_cache", "ja")
    preset = re.search(r"<button[^>]*data-preset=\"deepseek_v3\"[^>]*>", figure)
    assert preset, "no DeepSeek-V3 preset"
    for key, value in explorables.KV_PRESETS["deepseek_v3"].items():
        assert f'data-set-{key}="{value}"' in preset.group(0), key
    for key in ("latent", "rope"):
        field = re.search(rf"<input[^>]*data-size=\"{key}\"[^>]*>", figure).group(0)
        assert "disabled" in field, key  # MHA by default
    assert '<option value="mla">' in figure


#: The Node process that draws the states this module asks for, one request
#: a line (``explorables_render.mjs --lines``): one start of Node and
#: happy-dom for the module, not one a drawing.
_RENDERER: list[subprocess.Popen] = []


@pytest.fixture(scope="module", autouse=True)
def _renderer_closes():
    yield
    for process in _RENDERER:
        process.stdin.close()
        process.wait(timeout=60)
        process.stdout.close()
        process.stderr.close()
    _RENDERER.clear()


def draw_with(name: str, data: dict, language: str = "ja") -> str:
    """The figure ``name`` drawn by its module under Node from ``data``."""
    request = {
        "folder": str(explorables.FOLDER),
        "figures": [
            {"name": name, "words": explorables.words_for(name, language), "data": data}
        ],
    }
    if not _RENDERER:
        _RENDERER.append(
            subprocess.Popen(
                ["node", str(explorables.RENDER), "--lines"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                cwd=ROOT,
            )
        )
    process = _RENDERER[0]
    process.stdin.write(json.dumps(request) + "\n")
    process.stdin.flush()
    line = process.stdout.readline()
    if not line:  # Node ended: say why
        _RENDERER.clear()
        raise AssertionError(f"explorables_render.mjs ended:\n{process.stderr.read()}")
    (answer,) = json.loads(line)
    assert "error" not in answer, answer
    return answer["html"]


def softmax_weights(x, t: float) -> np.ndarray:
    from attention_docs import softmax

    return softmax(t * np.asarray(x, dtype=np.float64))


@pytest.mark.parametrize(
    ("x", "t"),
    [([1.0, 2.0, 3.0], 1.0), ([0.0, 0.0, 5.0], 10.0), ([-1.5, 2.0, 2.5], 3.7)],
)
def test_the_softmax_charts_draw_the_package_s_curves(x, t) -> None:
    """w_j(t) and max|J|(t) for t = 0, 0.1, …, 10, and the cursor at t."""
    if [x, t] == [explorables.SOFTMAX_X, explorables.SOFTMAX_T]:
        html = explorables.render("softmax", "zh-Hans")  # the page's own drawing
    else:
        html = draw_with("softmax", {"x": x, "t": t})
    drawn = charts(html)
    weights, jmax = Chart(drawn["weights"]), Chart(drawn["jmax"], log_y=True)
    # The drawing is placed to 0.01 of its 160 units of height, 276 of width.
    for chart in (weights, jmax):
        assert abs(chart.cursor() - t) < 1e-3, (chart.cursor(), t)
    curves = weights.lines()
    assert sorted(curves) == [0, 1, 2]
    for j, pieces in curves.items():
        (points,) = pieces  # one unbroken curve
        assert len(points) == 101
        for k, (tk, wk) in enumerate(points):
            assert abs(tk - k / 10) < 1e-3
            assert abs(wk - softmax_weights(x, k / 10)[j]) < 1e-4, (j, k / 10, wk)
    # max|J| (line 0) under ε (line 1), the bound the page proves (r45)
    lines = jmax.lines()
    assert sorted(lines) == [0, 1]
    for line, key in ((0, "jmax"), (1, "rest")):
        (points,) = lines[line]
        for k, (_, log_v) in enumerate(points):
            expected = oracle.softmax_state(x, k / 10)[key]
            assert abs(log_v - math.log10(expected)) < 1e-3, (key, k / 10, log_v)
    # the scores x_j as bars at j = 1, 2, 3, from 0; bar j its own series,
    # in the colour of its curve w_j (r47)
    dots = Chart(drawn["scores"]).dots()
    assert sorted(dots) == list(range(len(x)))
    bars = [p for k in sorted(dots) for p in dots[k]]
    assert len(bars) == len(x)
    for j, (at, xj) in enumerate(bars):
        assert abs(at - (j + 1)) < 1e-2 and abs(xj - x[j]) < 1e-2, (j, at, xj)


def test_the_saturated_softmax_keeps_its_small_numbers() -> None:
    """x = (0, 0, 5), t = 10: ε = 2e^-50 / (1 + 2e^-50) ≈ 3.86e-22, and so max|J|."""
    html = draw_with("softmax", {"x": [0.0, 0.0, 5.0], "t": 10.0})
    epsilon = 2 * math.exp(-50) / (1 + 2 * math.exp(-50))
    for key in ("rest", "jmax"):
        value = float(re.search(rf'data-result="{key}" data-value="([^"]+)"', html)[1])
        assert abs(value - epsilon) <= 1e-12 * epsilon, (key, value)
    # the largest weight, the float 1, is 1 − ε: not "1.0000" beside ε
    assert re.search(r'data-result="largest" data-value="1">&gt;&nbsp;0.9999<', html)
    assert re.search(r'data-s="2">&gt;&nbsp;0.9999<', html)
    # the log axis stops at 10^-16 (review F23): the curve is drawn down to
    # it, and marked where it leaves the plot, the first t below it
    chart = Chart(charts(html)["jmax"], log_y=True)
    (points,) = chart.lines()[0]
    below = [
        k / 10
        for k in range(101)
        if oracle.softmax_state([0.0, 0.0, 5.0], k / 10)["jmax"] < 1e-16
    ]
    assert len(points) == 101 - len(below) and below
    assert min(at for at, _ in chart.ticks["y"]) == 1e-16
    leaves = r'data-leaves="([\d.]+)"><path class="explorable-leaves explorable-line-0"'
    assert re.findall(leaves, chart.svg) == [str(below[0])]


class Spoken(HTMLParser):
    """The text of an element that a screen reader reads: what is not under
    ``aria-hidden="true"``, and no TeX annotation of a typeset formula."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0  # > 0 inside a hidden subtree
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        if (
            self.depth
            or dict(attrs).get("aria-hidden") == "true"
            or tag == "annotation"
        ):
            self.depth += 1

    def handle_endtag(self, tag) -> None:
        if self.depth:
            self.depth -= 1

    def handle_data(self, data) -> None:
        if not self.depth:
            self.parts.append(data)


def spoken(html: str) -> str:
    parser = Spoken()
    parser.feed(html)
    return re.sub(r"\s+", " ", "".join(parser.parts)).strip()


def element(html: str, pattern: str) -> str:
    """The inner HTML of the first <p> whose start tag matches ``pattern``."""
    return re.search(rf"<p {pattern}[^>]*>(.*?)</p>", html)[1]


#: A power and a superscript and subscript said in each edition's words.
SAID = {
    "ja": (
        "3.9 × 10 の −22 乗",
        "head 下付き i W 上付き O 下付き i",
        "x 下付き 3",
        "10 の 308 乗",
    ),
    "zh-Hant": (
        "3.9 × 10 的 −22 次方",
        "head 下標 i W 上標 O 下標 i",
        "x 下標 3",
        "10 的 308 次方",
    ),
    "zh-Hans": (
        "3.9 × 10 的 −22 次方",
        "head 下标 i W 上标 O 下标 i",
        "x 下标 3",
        "10 的 308 次方",
    ),
}


@pytest.mark.parametrize("language", ["ja", "zh-Hant", "zh-Hans"])
def test_the_live_region_says_powers_and_indices_in_words(language) -> None:
    """What the live region says is text: "3.9 × 10<sup>−22</sup>" would be
    heard "10−22" and "head<sub>i</sub>W<sup>O</sup><sub>i</sub>" "headiWOi".
    The shown form is hidden from the screen reader and said in the edition's
    words beside it (core.js, speak())."""
    power, product, sub_3, power_308 = SAID[language]
    html = draw_with("softmax", {"x": [0.0, 0.0, 5.0], "t": 10.0}, language)
    said = spoken(element(html, 'class="explorable-status"'))
    assert f"ε = {power}" in said and "10\u221222" not in said, said
    heads = explorables.render("heads", language)
    said = spoken(element(heads, 'class="explorable-status"'))
    assert product in said and "headiWOi" not in said, said
    # an error that names x_3 and 10^308 says them in words too
    html = draw_with("softmax", {"x": [0.0, 0.0, 1e308], "t": 10.0}, language)
    said = spoken(element(html, 'class="explorable-error"'))
    assert sub_3 in said and power_308 in said and "10308" not in said, said


#: A number as fmt() writes it below its decimals or from a million on.
SUPERSCRIPTED = re.compile("[\u207b\u2070\u00b9\u00b2\u00b3\u2074-\u2079]")


@pytest.mark.parametrize("language", ["ja", "zh-Hant", "zh-Hans"])
def test_labels_and_numbers_say_indices_and_powers_in_words(language) -> None:
    """A control is named by its label, which a listener would hear flattened
    ("x<sub>3</sub>" as "x3", "d<sub>model</sub>" as "dmodel"), and a number
    shown "1.9 × 10⁻²²" as "10−22": each is shown hidden from the screen
    reader and said in the edition's words beside it (core.js: sayLabels(),
    show() through speak())."""
    power, _, sub_3, _ = SAID[language]
    html = draw_with("softmax", {"x": [0.0, 0.0, 5.0], "t": 10.0}, language)
    labels = [
        spoken(label)
        for label in re.findall(r'<label class="explorable-field">(.*?)<input', html)
    ]
    assert sub_3 in labels, labels
    # the weights 1.9e-22 of x_1 and x_2 at t = 10, and every other number
    # written with a power: shown, and said in words
    powered = [
        (shown, said)
        for shown, said in re.findall(
            r'data-value="[^"]*"[^>]*><span aria-hidden="true">((?:[^<]|</?sup>)*)'
            r'</span><span class="explorable-said">([^<]*)</span>',
            html,
        )
    ]
    assert ("1.9 × 10⁻²²", power.replace("3.9", "1.9")) in powered, powered
    assert ("3.9 × 10<sup>−22</sup>", power) in powered, powered  # ε, max|J|
    unsaid = re.findall(r'data-value="[^"]*"[^>]*>([^<]+(?:<sup>)?)', html)
    assert not [n for n in unsaid if SUPERSCRIPTED.search(n) or "<sup>" in n], unsaid
    heads = explorables.render("heads", language)
    model = re.findall(r'<label class="explorable-field">(.*?)<select', heads)[1]
    assert "model" in spoken(model) and "dmodel" not in spoken(model), spoken(model)


@pytest.mark.parametrize("language", ["ja", "zh-Hant"])
def test_the_softmax_refuses_an_overflowing_input_where_it_was_typed(language) -> None:
    """x_3 = 1e308, t = 10: t x_3 is not a float64 (the package raises);
    the figure names the input, marks it, and shows no NaN."""
    from attention_docs import softmax

    with np.errstate(over="ignore"), pytest.raises(ValueError, match="infinite"):
        softmax(10 * np.array([0.0, 0.0, 1e308]))
    html = draw_with("softmax", {"x": [0.0, 0.0, 1e308], "t": 10.0}, language)
    assert "NaN" not in html and "Infinity" not in html
    error = re.search(r'(<p class="explorable-error"[^>]*>)(.*?)</p>', html)
    assert error and "hidden" not in error[1]
    assert "x<sub>3</sub>" in error[2] and "10.0" in error[2]
    field = re.search(r'<input[^>]*data-x="2"[^>]*>', html)[0]
    assert 'aria-invalid="true"' in field
    assert 'aria-describedby="explorable-softmax-error"' in field
    assert re.search(r'data-result="rest" data-value="">\u2014<', html)
    # The curves stop where t x_3 overflows: t ≤ 1.7 (1.8e308 > the largest float64).
    curves = Chart(charts(html)["weights"]).lines()
    for pieces in curves.values():
        (points,) = pieces
        assert abs(points[-1][0] - 1.7) < 1e-3


def test_the_softmax_names_the_sampling_temperature() -> None:
    """1/t is the temperature of generation.md#temperature, in both editions."""
    for language in EDITIONS:
        html = explorables.render("softmax", language)
        assert 'href="../generation/#temperature"' in html
        assert "1/t" in html
    for language in EDITIONS:
        page = (ROOT / "docs" / language / "generation.md").read_text("utf-8")
        assert "{ #temperature }" in page


def kv_total(sizes: dict, n: int, kind: str = "mha", b: int = 2) -> int:
    return oracle.kv_state(kind, {**sizes, "tokens": n}, b)["total"]


def test_the_kv_chart_draws_the_package_s_sizes() -> None:
    """The size against n (GPT-3 175B) of each kind, MHA's line the current
    one, the cursor at n = 2048, a line at each device's memory, and a ring
    where MHA's cache outgrows it, all read back through the axes' ticks."""
    sizes = explorables.KV_DEFAULT
    html = explorables.render("kv_cache", "zh-Hant")
    chart = Chart(charts(html)["size"], log_x=True, log_y=True)
    assert abs(chart.cursor() - math.log10(sizes["tokens"])) < 1e-3
    lines = chart.lines()
    assert sorted(lines) == list(range(len(explorables.KV_KINDS)))
    # n = 1, 2, 5, 10, …, 10^6 and the cursor's 2048, in order
    drawn_n = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 2048, 5000]
    drawn_n += [m * 10**k for k in range(4, 7) for m in (1, 2, 5) if m * 10**k <= 10**6]
    for k, kind in enumerate(explorables.KV_KINDS):
        (points,) = lines[k]
        assert len(points) == len(drawn_n)
        for (log_n, log_bytes), n in zip(points, drawn_n, strict=True):
            assert abs(log_n - math.log10(n)) < 1e-3, (n, log_n)
            assert abs(log_bytes - math.log10(kv_total(sizes, n, kind))) < 1e-3, n
        # each line and its name pick its kind; MHA's is the current one
        assert re.search(rf'data-line="{k}" data-key="{kind}" data-pick', chart.svg)
        assert re.search(rf'data-label="{k}" data-key="{kind}" data-pick', chart.svg)
    assert chart.svg.count("explorable-line-current") == 2  # MHA's line and name
    assert re.search(
        r'explorable-line-0 explorable-line-current" data-line="0"', chart.svg
    )
    # the least n whose cache is larger than each device: 5,087, 16,955, 29,882
    for key, gb in explorables.KV_DEVICES:
        first = oracle.kv_fills(sizes, oracle.device_bytes(gb))
        assert (
            kv_total(sizes, first)
            > oracle.device_bytes(gb)
            >= kv_total(sizes, first - 1)
        )
        assert (
            f'data-fill="{key}" data-value="{first}"><button type="button" '
            f'data-go="{first}">從 n = {oracle.grouped(first)} 起<' in html
        )
        # its ring is pressed (a target 24 units across) and its rule named
        assert f'data-hit="{first}" data-key="{key}" data-pick' in chart.svg
        assert f'data-key="{key}"><line class="explorable-rule"' in chart.svg
        mark = re.search(
            rf'<circle class="explorable-mark" data-mark="{first}" '
            r'cx="([\d.]+)" cy="([\d.]+)"',
            chart.svg,
        )
        assert abs(chart.value("x", float(mark[1])) - math.log10(first)) < 1e-3
        assert (
            abs(chart.value("y", float(mark[2])) - math.log10(oracle.device_bytes(gb)))
            < 1e-3
        )
    assert [
        oracle.kv_fills(sizes, oracle.device_bytes(gb))
        for _, gb in explorables.KV_DEVICES
    ] == [
        5087,
        16955,
        29882,
    ]
    points = lines[0][0]
    rules = chart.rules()
    assert sorted(at for at, _ in rules) == [
        oracle.device_bytes(gb) for _, gb in explorables.KV_DEVICES
    ]
    for at, drawn_at in rules:
        assert abs(drawn_at - math.log10(at)) < 1e-3
    # 1 KiB to 1 PiB: MQA's cache of one token (48 KiB) to MHA's of a
    # million (4.3 TiB)
    assert kv_total(sizes, 1, "mqa") == 48 * 2**10
    assert [text for text in re.findall(r">(1 [KMGTP]i?B)<", chart.svg)] == [
        "1 KiB",
        "1 MiB",
        "1 GiB",
        "1 TiB",
        "1 PiB",
    ]


def test_the_kv_chart_bends_at_the_window() -> None:
    """With W = 4096 the cache stops growing at n = W: a flat line after it."""
    sizes = dict(explorables.KV_DEFAULT)
    html = draw_with("kv_cache", data_kv(window=4096))
    ((points,), *_) = (
        Chart(charts(html)["size"], log_x=True, log_y=True).lines().values()
    )
    flat = [y for log_n, y in points if 10**log_n >= 4096 - 0.5]
    assert len(flat) > 3 and max(flat) - min(flat) < 1e-9
    expected = oracle.kv_state("mha", sizes | {"tokens": 10**6}, 2, window=4096)
    assert expected["total"] == kv_total(sizes, 4096)
    assert abs(flat[0] - math.log10(expected["total"])) < 1e-3
    grows = [y for log_n, y in points if 10**log_n <= 4096 + 0.5]
    assert grows[-1] - grows[0] > 3  # n = 1 to 4096: 3.6 decades
    # under the window the cache never outgrows a device: said, and no ring
    never = "超えません（窓があるので、キャッシュは最大でも 18.00 GiB）"
    for key, _ in explorables.KV_DEVICES:
        assert f'data-fill="{key}" data-value="">{never}<' in html
    assert "explorable-mark" not in html
    assert oracle.in_units(kv_total(sizes, 4096)) == "18.00 GiB"


def data_kv(**changes) -> dict:
    data = explorables.DATA["kv_cache"]("ja")
    sizes = changes.pop("sizes", {})
    return data | {"sizes": data["sizes"] | sizes} | changes


#: The kinds' comparison: a row's kind, its bar's --w, its size (data-value,
#: text), its ratio (data-value, shown text), and whether it is current.
KV_COMPARE = re.compile(
    r'<tr data-kind="(\w+)"[^>]*?(?: class="([^"]*)")?[^>]*>.*?--w: ([\d.e-]+);?">'
    r'</span><span data-size-of="" data-value="(\d*)">(.*?)</span></td>'
    r'<td data-ratio="" data-value="([\d.]*)">(.*?)</td></tr>'
)


def kv_compared(html: str) -> dict:
    table = re.search(r"<table[^>]*data-compare[^>]*>(.*?)</table>", html)[1]
    rows = {}
    for kind, classes, w, value, text, ratio, shown in KV_COMPARE.findall(table):
        shown = re.sub(r'<span class="explorable-said">.*?</span>', "", shown)
        rows[kind] = {
            "w": float(w),
            "total": int(value) if value else None,
            "text": text,
            "ratio": float(ratio) if ratio else None,
            "shown": re.sub(r"<[^>]*>", "", shown),
            "current": "explorable-current" in (classes or ""),
        }
    return rows


@pytest.mark.parametrize(
    ("sizes", "window"),
    [
        ({}, 0),  # the page's GPT-3: GQA 1/12, MQA 1/96 (issue 40)
        ({"layers": 61, "heads": 128, "latent": 512, "rope": 64, "tokens": 5000}, 3000),
    ],
)
def test_the_kv_calculator_compares_the_kinds_on_one_linear_scale(
    sizes: dict, window: int
) -> None:
    """Without JavaScript: every kind's cache at n, a bar each as long as
    its bytes over the largest, and MHA's bytes over its bytes with the
    sizes that make that ratio (h / g, h, 2 h d_k / (d_c + d_h^R)); the log
    chart draws the kinds as parallel lines, where 12 times less is a small
    offset (designer s21, issue 40)."""
    every = explorables.KV_DEFAULT | sizes
    html = draw_with("kv_cache", data_kv(sizes=sizes, window=window))
    rows = kv_compared(html)
    assert list(rows) == list(explorables.KV_KINDS)
    totals = {k: oracle.kv_state(k, every, 2, window=window)["total"] for k in rows}
    largest = max(totals.values())
    h, g = every["heads"], every["groups"]
    width = every["latent"] + every["rope"]
    mla = 2 * h * every["d_k"] / width
    expected = {
        "mha": "基準",
        "gqa": f"1/{h // g}（h/g = {h}/{g}）",
        "mqa": f"1/{h}（h = {h}）",
        "mla": f"1/{oracle.fmt(mla, 1)}（2hdk/(dc + dhR) = "
        f"{oracle.grouped(2 * h * every['d_k'])}/{width}）",
    }
    for k, row in rows.items():
        assert row["total"] == totals[k], k
        assert row["text"] == oracle.in_units(totals[k]), k
        assert abs(row["w"] - totals[k] / largest) < 1e-12, k
        assert abs(row["ratio"] - totals["mha"] / totals[k]) < 1e-12, k
        assert row["shown"] == expected[k], (k, row["shown"])
        assert row["current"] == (k == "mha"), k  # the page opens on MHA
    if not sizes:
        assert [rows[k]["ratio"] for k in ("gqa", "mqa")] == [12, 96]


def test_the_kv_comparison_is_emptied_with_a_refusal() -> None:
    html = draw_with("kv_cache", data_kv(sizes={"tokens": 12345678901234567890}))
    rows = kv_compared(html)
    assert all(r["total"] is None and r["ratio"] is None for r in rows.values())
    assert all(
        r["text"] == r["shown"] == "\u2014" and r["w"] == 0 for r in rows.values()
    )


def test_the_kv_calculator_writes_tib_and_huge_sizes_as_the_book_does() -> None:
    """4.29 TiB, not 4394.53 GiB; and m × 10^e TiB, never 3.7e+21 GiB."""
    for sizes in ({"tokens": 10**6}, {"layers": 10**15, "tokens": 10**6}):
        total = kv_total(explorables.KV_DEFAULT | sizes, sizes["tokens"])
        html = draw_with("kv_cache", data_kv(sizes=sizes))
        shown = re.search(
            r'data-result="total_units" data-value="(\d+)">(.*?)</dd>', html
        )
        assert int(shown[1]) == total
        assert re.sub(r"</?sup>", "", shown[2]) == oracle.in_units(total)
        assert "e+" not in re.sub(r"<[^>]*>", "", html)  # the text a reader sees
    assert oracle.in_units(9 * 2**30 * 10**6 // 2048) == "4.29 TiB"


def test_the_kv_calculator_refuses_n_above_the_safe_integers() -> None:
    """n = 12 345 678 901 234 567 890 cannot be read exactly: refused, said why."""
    html = draw_with("kv_cache", data_kv(sizes={"tokens": 12345678901234567890}))
    field = re.search(r'<input[^>]*data-size="tokens"[^>]*>', html)[0]
    assert 'aria-invalid="true"' in field
    assert 'aria-describedby="explorable-kv_cache-error"' in field
    error = re.search(r'(<p class="explorable-error"[^>]*>)(.*?)</p>', html)
    assert "hidden" not in error[1] and "9,007,199,254,740,991" in error[2]
    assert "トークンの数 n" in error[2]
    assert re.search(r'data-result="total" data-value="">\u2014<', html)


#: A device's rule: its value, its line's height, the leader to a moved
#: label (x1, y1, x2, y2) if any, and its label's right end, baseline and text.
KV_RULE = re.compile(
    r'<g data-rule="(?P<at>[^"]+)"[^>]*><line class="explorable-rule"'
    r' x1="(?P<left>[\d.]+)" x2="(?P<right>[\d.]+)"'
    r'[^>]*y1="(?P<y>[\d.]+)"[^>]*></line>'
    r'(?:<line class="explorable-rule-leader" x1="(?P<x1>[\d.]+)" y1="(?P<y1>[\d.]+)" '
    r'x2="(?P<x2>[\d.]+)" y2="(?P<y2>[\d.]+)"></line>)?'
    r'<text class="explorable-rule-label" x="(?P<x>[\d.]+)" y="(?P<ly>[\d.]+)" '
    r'text-anchor="(?P<anchor>start|end)">(?P<text>[^<]*)</text></g>'
)


@pytest.mark.parametrize("language", ["ja", "zh-Hant", "zh-Hans"])
def test_the_kv_chart_names_each_device_by_its_line(language: str) -> None:
    """Each device's label is drawn by its own ring (r47: the names stacked
    in the chart's corner were far from the rings they name): left of the
    ring, clear of the size's curve, which is below the lines there (review
    F28, r37: at the lines' right end the labels crossed the curve); just
    above its line, or, when lines are closer than a line of text, in a
    column left of the leftmost ring, in the lines' order, joined to its
    ring by a leader; labels a line of text and its rim (15 units) apart,
    and no line through a label's text."""
    svg = charts(explorables.render("kv_cache", language))["size"]
    words = explorables.words_for("kv_cache", language)
    drawn = [m.groupdict() for m in KV_RULE.finditer(svg)]
    assert len(drawn) == len(explorables.KV_DEVICES) == svg.count("<g data-rule=")
    names = {
        oracle.device_bytes(gb): words[f"device_{key}"]
        for key, gb in explorables.KV_DEVICES
    }
    sizes = dict(explorables.KV_DEFAULT)
    rings = {}
    for _, gb in explorables.KV_DEVICES:
        first = oracle.kv_fills(sizes, oracle.device_bytes(gb))
        ring = re.search(rf'data-mark="{first}" cx="([\d.]+)" cy="([\d.]+)"', svg)
        rings[oracle.device_bytes(gb)] = (float(ring[1]), float(ring[2]))
    column = min(x for x, _ in rings.values()) - 8
    for rule in drawn:
        assert rule["text"] == names[float(rule["at"])]  # each label on its line
        assert rule["anchor"] == "end"
        ring_x, ring_y = rings[float(rule["at"])]
        line, x, y = (float(rule[k]) for k in ("y", "x", "ly"))
        assert abs(ring_y - line) < 0.01  # the ring on its line
        if rule["x1"] is None:
            assert abs(y - (line - 3)) < 0.01 and abs(x - (ring_x - 8)) < 0.01
        else:  # the leader runs from the ring to the label
            assert abs(x - column) < 0.01
            assert float(rule["x1"]) == ring_x and abs(float(rule["y1"]) - line) < 0.01
            assert abs(float(rule["x2"]) - (x + 2)) < 0.01
            assert abs(float(rule["y2"]) - (y - 4)) < 0.01
    assert any(rule["x1"] is not None for rule in drawn)  # 80 and 141 GB: close
    heights = sorted(float(rule["ly"]) for rule in drawn)
    assert all(b - a >= 15 for a, b in itertools.pairwise(heights))
    order = sorted(drawn, key=lambda rule: float(rule["y"]))
    assert [rule["ly"] for rule in order] == sorted(
        (rule["ly"] for rule in drawn), key=float
    )  # the labels in the lines' order
    for rule in drawn:  # the text from its baseline up 12 units, with its rim
        top, bottom = float(rule["ly"]) - 13, float(rule["ly"]) + 2
        assert not any(top < float(r["y"]) < bottom for r in drawn), rule
    # the current kind's curve passes below the labels left of the rings
    (path,) = re.findall(
        r'data-line="0" data-key="mha" data-pick(?:="")? d="([^"]+)"', svg
    )
    points = [tuple(map(float, p)) for p in re.findall(r"([\d.]+) ([\d.]+)", path)]
    assert any(px <= column for px, _ in points)
    for low in (py for px, py in points if px <= column):
        assert low > max(heights) + 4, (low, heights)


def test_the_kv_chart_names_the_devices_at_the_left_without_rings() -> None:
    """Under a window no ring is drawn: the labels are at the lines' left
    end, where the curve is lowest (review F28, r37)."""
    svg = charts(draw_with("kv_cache", data_kv(window=4096)))["size"]
    drawn = [m.groupdict() for m in KV_RULE.finditer(svg)]
    assert len(drawn) == len(explorables.KV_DEVICES)
    for rule in drawn:
        assert rule["anchor"] == "start"
        assert float(rule["left"]) <= float(rule["x"]) <= float(rule["left"]) + 12


@pytest.mark.parametrize(
    ("m", "r", "d"), [(3, 0, 16), (3, 0, 4), (0, 3, 16), (32, 29, 8)]
)
def test_the_rope_is_drawn_as_the_package_computes_it(m: int, r: int, d: int) -> None:
    """Each pair's angle and term, the rotated vectors, the curve of the score
    against m − r at every offset the sliders reach, and the cursor at m − r."""
    data = explorables.data_rope("ja")
    if (m, r, d) == (explorables.ROPE_M, explorables.ROPE_N, explorables.ROPE_D):
        html = explorables.render("rope", "zh-Hans")  # the page's own drawing
    else:
        html = draw_with("rope", data | {"m": m, "r": r, "d": d})
    parser = Cells()
    parser.feed(html)
    state = oracle.rope_state(m, r, d)
    pairs = np.array(
        [[parser.tables["pairs"][i, j] for j in range(3)] for i in range(d // 2)]
    )
    np.testing.assert_allclose(pairs, state["pairs"], rtol=1e-12, atol=1e-12)
    rotated = np.array(  # one row a component: (qR_m)_j, (kR_r)_j
        [[parser.tables["rotated"][j, c] for c in range(2)] for j in range(d)]
    )
    np.testing.assert_allclose(
        rotated, np.column_stack([state["q"], state["k"]]), rtol=1e-12, atol=1e-12
    )
    assert f'data-result="score" data-value="{state["score"]!r}"' in html or (
        abs(
            float(re.search(r'data-result="score" data-value="([^"]+)"', html)[1])
            - state["score"]
        )
        < 1e-12
    )
    # Hidden: the pairs and components beyond d.
    shown = re.findall(
        r'<div class="explorable-plane" data-pair="(\d+)"( hidden="")?', html
    )
    assert [int(i) for i, hidden in shown if not hidden] == list(range(d // 2))
    oracle.rope_chart_agrees(Chart(charts(html)["score"]), d, m - r)
    # The score depends on m − r only: the cursor's height is the score.
    assert abs(oracle.rope_curve(d, [m - r])[0] - state["score"]) < 1e-9


def test_the_softmax_offers_a_tie_and_one_largest_input() -> None:
    """Two buttons set x and t (issue 40: nothing invited the tie): at the
    same t, one largest input saturates the softmax (the Jacobian fades),
    two tied largest inputs split the weight and keep the Jacobian's 1/4."""
    presets = explorables.SOFTMAX_PRESETS
    tie, apart = (
        oracle.softmax_state(presets[k]["x"], presets[k]["t"]) for k in ("tie", "apart")
    )
    assert presets["tie"]["t"] == presets["apart"]["t"]
    assert sorted(presets["tie"]["x"])[-1] == sorted(presets["tie"]["x"])[-2]
    assert tie["jmax"] > 0.249 and apart["jmax"] < 0.01
    for language in ("ja", "zh-Hant", "zh-Hans"):
        html = explorables.render("softmax", language)
        words = explorables.words_for("softmax", language)
        for name, p in presets.items():
            x = " ".join(oracle.fmt(v, 0) for v in p["x"])
            label = words[f"preset_{name}"].format(
                x="(" + x.replace(" ", ", ") + ")", t=oracle.fmt(p["t"], 0)
            )
            assert (
                f'data-preset="{name}" data-set-x="{x}" '
                f'data-set-t="{oracle.fmt(p["t"], 0)}" disabled="">{label}</button>'
            ) in html, name


def test_the_rope_opens_at_d_16_and_the_page_says_its_score() -> None:
    """The figure opens at d = 16, where the score against m − r decays
    (issue 40: d = 4's first pair turns 1 rad a step and its curve looked
    like noise); the sentence before it, in each hand-written edition, gives
    the score the figure shows, and d = 4's of the page's example."""
    assert explorables.data_rope("ja")["d"] == explorables.ROPE_D == 16
    m, r = explorables.ROPE_M, explorables.ROPE_N
    shown = oracle.fmt(oracle.rope_state(m, r, 16)["score"], 4)
    small = oracle.fmt(oracle.rope_state(m, r, 4)["score"], 4)
    html = explorables.render("rope", "ja")
    assert re.search(rf'data-result="score" data-value="[^"]+">{shown}<', html)
    for language in EDITIONS:
        text = (ROOT / "docs" / language / "positional-encoding.md").read_text("utf-8")
        before = text[: text.index(PLACEHOLDER.format("rope"))].rstrip()
        sentence = before.rsplit("\n\n", 1)[1]
        assert shown in sentence and small.replace("-", "\u2212") in sentence, language
        assert "d = 16" in sentence, language


def test_the_rope_says_that_the_score_depends_on_m_minus_r_only() -> None:
    for language in ("ja", "zh-Hant", "zh-Hans"):
        html = explorables.render("rope", language)
        words = explorables.words_for("rope", language)
        assert words["same"] in html and "m − r" in words["same"]


def test_the_heads_have_the_figures_head_colours() -> None:
    """explorables.css colours head g as diagrams.FILLS' head{g+1}, light and dark."""
    from attention_book.diagrams import FILLS

    css = (explorables.FOLDER / "explorables.css").read_text("utf-8")
    blocks = re.findall(
        r'(\[data-md-color-scheme="slate"\] )?'
        r'\.explorable\[data-explorable="heads"\] \{([^}]*)\}',
        css,
    )
    themes = {("dark" if slate else "light"): body for slate, body in blocks}
    assert set(themes) == {"light", "dark"}
    for theme, body in themes.items():
        for g in range(max(explorables.HEAD_COUNTS)):
            found = re.search(rf"--explorable-head-{g}:\s*(#[0-9a-f]{{6}})", body)
            assert found and found[1] == FILLS[theme][f"head{g + 1}"], (theme, g)
        # one head over every column (h = 1): the weights A, in A's colour
        found = re.search(r"--explorable-head-a:\s*(#[0-9a-f]{6})", body)
        assert found and found[1] == FILLS[theme]["a"], theme


def srgb_luminance(colour: str) -> float:
    """WCAG's relative luminance of ``#rrggbb``."""
    channels = [int(colour[k : k + 2], 16) / 255 for k in (1, 3, 5)]
    linear = [
        c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels
    ]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def test_the_heads_maps_ramp_keeps_black_or_white_text_and_one_lightness() -> None:
    """The heads' maps run from the page's colour through a mid tone to a
    deep (light scheme) or a light (dark scheme) tone, with black text on
    one side of the mid tone and white on the other: the mid tone must keep
    both at >= 4.5:1 (relative luminance 0.175 to 0.183), every head's tone
    must have the same lightness as the others' (so that the heads compare),
    and the ends must leave the weights room (issue 40: the old tones, 0.53
    and 0.23, put the page's weights 1.3:1 apart)."""
    css = (explorables.FOLDER / "explorables.css").read_text("utf-8")
    blocks = re.findall(
        r'(\[data-md-color-scheme="slate"\] )?'
        r'\.explorable\[data-explorable="heads"\] \{([^}]*)\}',
        css,
    )
    tones = {}
    for slate, body in blocks:
        for g, stop, colour in re.findall(
            r"--explorable-head-([\da])-(mid|top):\s*(#[0-9a-f]{6})", body
        ):
            tones[("dark" if slate else "light", g, stop)] = colour
    # the heads and one head over every column (h = 1, "a": A's hue)
    heads = [*map(str, range(max(explorables.HEAD_COUNTS))), "a"]
    for g in heads:
        tones.setdefault(("dark", g, "mid"), tones[("light", g, "mid")])
    for theme in ("light", "dark"):
        for stop in ("mid", "top"):
            lights = [srgb_luminance(tones[(theme, g, stop)]) for g in heads]
            assert max(lights) / min(lights) < 1.05, (theme, stop, lights)
            if stop == "mid":
                assert all(0.175 <= y <= 0.183 for y in lights), (theme, lights)
            elif theme == "light":
                assert max(lights) <= 0.05, lights  # white text, well below mid
            else:
                assert min(lights) >= 0.5, lights  # black text, well above mid


def test_the_heads_maps_have_a_scale_of_their_tones() -> None:
    """Without JavaScript (the page's two heads) the maps' colour scale has
    a row for each shown head, its tones at the weights 0 to 1."""
    for language in ("ja", "zh-Hant", "zh-Hans"):
        html = explorables.render("heads", language)
        words = explorables.words_for("heads", language)
        scale = re.search(
            r'<div class="explorable-head-scale" aria-hidden="true">(.*?)'
            r'<div class="explorable-tables explorable-head-maps">',
            html,
        )[1]
        assert words["scale"] in scale
        rows = re.findall(
            r'<div class="explorable-head-scale-row" data-head="([\da])"'
            r'( hidden="")?>(.*?)</div>',
            scale,
        )
        assert [(g, bool(hidden)) for g, hidden, _ in rows] == [("a", False)] + [
            (str(g), g >= 2) for g in range(4)
        ]
        for g, _, row in rows:
            name = (
                words["single_short"]
                if g == "a"
                else words["use_head"].format(g=int(g) + 1)
            )
            assert name in row
            tones = re.findall(
                r'<span data-w="" style="--w: ([\d.]+)">([\d.]+)</span>', row
            )
            assert [float(a) for a, _ in tones] == [0, 0.2, 0.4, 0.6, 0.8, 1]
            assert all(a == shown for a, shown in tones)


@pytest.mark.parametrize("language", ["ja", "zh-Hant", "zh-Hans"])
def test_the_heads_maps_are_named_in_words(language: str) -> None:
    """Without JavaScript each head's map shows its weights, each cell named."""
    html = draw_with("heads", explorables.data_heads(language) | {"h": 4}, language)
    words = explorables.words_for("heads", language)
    state = oracle.heads_state(4, "mixing")
    for g in range(4):
        for i in range(3):
            for j in range(3):
                name = words["cell"].format(
                    g=g + 1,
                    i=i + 1,
                    j=j + 1,
                    weight=oracle.fmt(state["weights"][g][i][j], 3),
                )
                assert f'aria-label="{name}"' in html, name
    for i in range(3):
        for j in range(3):
            name = words["single_cell"].format(
                i=i + 1, j=j + 1, weight=oracle.fmt(state["single"][i][j], 3)
            )
            assert f'aria-label="{name}"' in html, name
    assert words["query"].format(i=3) in html and words["key"].format(j=1) in html


def test_the_online_panels_draw_the_package_s_running_max_sum_and_output() -> None:
    """Without JavaScript: the scores as bars with m over them, l with its
    drops by e^(m - m') (each factor written at its drop) before the adds,
    o / l settling on softmax(s) V, after each key of the page's scores, on
    one axis t; no cursor (no block processed yet)."""
    for language in ("ja", "zh-Hant", "zh-Hans"):
        svgs = charts(explorables.render("online", language))
        s = list(explorables.ONLINE_S)
        oracle.online_panels_agree(svgs, s, 1, None, live=False)
        # s = (1, 3, 0.5, 4): m rises at keys 2 and 4, by e^-2 and e^-1
        rescale = explorables.words_for("online", language)["rescale"]
        assert [text for _, text in Chart(svgs["sum"]).notes()] == [
            f"{rescale} ×0.135",
            "×0.368",
        ]
        # l drops and grows again at the t of its block, a whole number of
        # keys (issue 40: the drop was drawn at t = 1.75 and 3.75, a t of no
        # meaning), the drop's turn marked by a triangle at e^(m - m') l
        (ls,) = Chart(svgs["sum"]).lines()[0]
        assert all(abs(t - round(t)) < 1e-3 for t, _ in ls), ls
        steps = oracle.online_state(s, 1)["steps"]
        turns = [
            (float(t), float(np.exp(a[0] - b[0]) * a[1]))
            for t, (a, b) in enumerate(itertools.pairwise(steps), start=2)
            if b[0] > a[0]
        ]
        dips = [
            tuple(map(float, d.split()))
            for d in re.findall(r'data-dip="([^"]+)"', svgs["sum"])
        ]
        assert [t for t, _ in dips] == [t for t, _ in turns] == [2, 4]
        for (_, y), (_, shrunk) in zip(dips, turns, strict=True):
            assert abs(y - shrunk) <= 1e-12 * shrunk
        # one axis t for the three panels
        ticks = {key: Chart(svg).ticks["x"] for key, svg in svgs.items()}
        assert ticks["scores"] == ticks["sum"] == ticks["output"]


@pytest.mark.parametrize("name", NAMES)
def test_a_notebook_shows_the_default_state_only(name: str) -> None:
    """What the figure hides (a larger matrix's rows, later steps, an empty
    error) is left out of a notebook's copy, which runs no script, whether
    the HTML says ``hidden`` or, written back by the DOM, ``hidden=""``."""
    from attention_book.stages.notebooks import static_figure

    figure = static_figure(explorables.render(name, "ja"), name)
    assert not re.search(r'\shidden(?:="")?[\s>]', figure), name


def test_a_notebook_shows_the_window_of_the_page_s_figure() -> None:
    """n = 10: ten queries and ten keys, and the cache's n_sink + W = 6 rows."""
    from attention_book.stages.notebooks import static_figure

    figure = static_figure(explorables.render("window_sinks", "ja"), "window_sinks")
    grid = figure.split('data-matrix="mask"')[1].split("</table>")[0]
    assert grid.count("<tr") == 2 + 10 and grid.count("<td data-i") == 100
    cache = figure.split('data-matrix="cache"')[1].split("</table>")[0]
    assert re.findall(r'<td[^>]*data-value="([-\d]+)"', cache) == [
        "0",
        "1",
        "6",
        "7",
        "8",
        "9",
    ]


@pytest.mark.parametrize("language", ["ja", "zh-Hant", "zh-Hans"])
def test_the_labels_set_their_maths_as_the_pages_do(language: str) -> None:
    """Review F39: the labels' maths are the pages' MathML (KaTeX, class
    book-math), the same in every edition: Q = XW_Q a formula, not upright
    text with a <sub>, and √d_k an msqrt (its bar drawn with the radical)."""
    for name, key, tex in (
        ("example", "q", "Q = XW_Q"),
        ("example", "scores", r"S = QK^\top/\sqrt{d_k}"),
        ("heads", "q", "Q = XW_Q"),
        ("heads", "k", "K = XW_K"),
        ("heads", "v", "V = XW_V"),
        ("heads", "w_o_matrix", "W^O"),
        ("softmax", "jacobian", r"\partial w_j/\partial u_l"),
        ("rope", "score", r"(\mathbf{q}R_m)(\mathbf{k}R_r)^\top"),
    ):
        words = explorables.words_for(name, language)
        assert (
            f'<annotation encoding="application/x-tex">{tex}</annotation>' in words[key]
        )
        assert 'class="book-math"' in words[key]
        assert "<sub>" not in words[key] and "$" not in words[key]
        assert words[key] in explorables.render(name, language), (name, key)
    html = explorables.render("example", language)
    caption = re.search(r'data-matrix="scores"><caption>(.*?)</caption>', html)[1]
    assert caption.count("<msqrt>") == 1 and "√" not in caption


def test_the_example_writes_huge_values_as_the_book_does() -> None:
    """x₁₁ = 10¹⁰⁰ makes scores and outputs of 10¹⁰⁰ and more: each is shown
    as "m × 10ⁿ", never "1e+100" (F40 of the round-29 figure review), and
    its data-value keeps the number the package computes."""
    data = explorables.DATA["example"]("ja")
    x = [row[:] for row in data["x"]]
    x[0][0] = 1e100
    html = draw_with("example", data | {"x": x})
    assert "e+" not in re.sub(r"<[^>]*>", "", html)  # the text a reader sees
    shown = re.findall(r"\d × 10[⁰¹²³⁴⁵⁶⁷⁸⁹]+", html)
    assert len(shown) >= 3, shown
    tables, state = drawn_from(html), oracle.example_state(x)
    for key in ("q", "k", "scores", "output"):
        np.testing.assert_allclose(tables[key], state[key], rtol=1e-12, err_msg=key)
