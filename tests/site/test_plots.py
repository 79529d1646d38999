"""The built site's plots: drawn at build time, per language and per colour scheme.

hooks/plots.py draws every script of docs_src/plots/ into each language's build
as assets/plots/<name>.svg (light) and <name>-dark.svg (dark); nothing of the
kind is committed. The SVGs keep their labels as text in the page's language.
"""

from __future__ import annotations

import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
import yaml

from attention_book.zh_hans import to_simplified_text
from attention_docs.plotting import THEMES

from .helpers import DERIVED, LANGUAGES, ROOT, parse, traditional_characters

PLOTS = ROOT / "docs_src" / "plots"
LABELS = yaml.safe_load((PLOTS / "labels.yml").read_text(encoding="utf-8"))
NAMES = sorted(path.stem for path in PLOTS.glob("*.py"))
VARIANTS = {"": "#only-light", "-dark": "#only-dark"}
SVG = "{http://www.w3.org/2000/svg}"


def labels(name: str, language: str) -> dict:
    """labels.yml's entry; for zh-Hans, the zh-Hant one converted."""
    if language not in DERIVED:
        return LABELS[name][language]
    convert = to_simplified_text
    return {
        key: [convert(v) for v in value] if isinstance(value, list) else convert(value)
        for key, value in LABELS[name][DERIVED[language]].items()
    }


def drawn_labels(name: str, language: str) -> set[str]:
    strings = set()
    for key, value in labels(name, language).items():
        if key != "alt":
            strings |= set(value) if isinstance(value, list) else {value}
    return strings


def svg_texts(path: Path) -> set[str]:
    root = ET.parse(path).getroot()
    return {"".join(element.itertext()) for element in root.iter(f"{SVG}text")}


def text_fills(path: Path) -> set[str]:
    return set(
        re.findall(r"<text style=\"[^\"]*fill: (#[0-9a-f]{6})", path.read_text())
    )


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", NAMES)
def test_both_variants_are_built_with_the_language_labels(site, name, language) -> None:
    light = site / language / "assets" / "plots" / f"{name}.svg"
    dark = site / language / "assets" / "plots" / f"{name}-dark.svg"
    for path in (light, dark):
        assert path.is_file(), path
        texts = svg_texts(path)
        missing = drawn_labels(name, language) - texts
        assert not missing, f"{path}: {missing}"
        for other in LANGUAGES:
            if other == language:
                continue
            foreign = (drawn_labels(name, other) - drawn_labels(name, language)) & texts
            assert not foreign, f"{path} draws {other} labels {foreign}"
        if language == "zh-Hans":
            assert traditional_characters(" ".join(texts)) == [], path
        assert f'xml:lang="{language}"' in path.read_text(encoding="utf-8")
    # labels in each theme's text colour (numbers inside heat-map cells excepted)
    assert THEMES["light"]["text"] in text_fills(light) - text_fills(dark)
    assert THEMES["dark"]["text"] in text_fills(dark) - text_fills(light)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", NAMES)
def test_a_page_shows_both_variants_with_alt_text(site, pages, name, language) -> None:
    showing = []
    for path in pages[language]:
        base = f"http://host/{path.relative_to(site / language).as_posix()}"
        images = {}
        for img in parse(path).select("article img[src]"):
            target = urlsplit(urljoin(base, img["src"]))
            images[(target.path, target.fragment)] = img.get("alt", "")
        found = {
            suffix: images.get((f"/assets/plots/{name}{suffix}.svg", fragment[1:]))
            for suffix, fragment in VARIANTS.items()
        }
        if any(alt is not None for alt in found.values()):
            showing.append(path)
            assert set(found.values()) == {labels(name, language)["alt"]}, path
    assert len(showing) == 1, f"{name} shown on {showing}"
    summaries = [s.get_text() for s in parse(showing[0]).select("details > summary")]
    code = "".join(c.get_text() for c in parse(showing[0]).select("details code"))
    assert summaries and "def figure(labels: dict) -> Figure:" in code


def test_plots_are_generated_not_committed(site) -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "*.svg"], cwd=ROOT, capture_output=True, text=True
    ).stdout.split()
    assert not [path for path in tracked if "/plots/" in path], tracked
    assert not list((ROOT / "docs").rglob("assets/plots"))
    for name in NAMES:
        svgs = {
            (site / language / "assets" / "plots" / f"{name}.svg").read_text()
            for language in LANGUAGES
        }
        assert len(svgs) == len(LANGUAGES), name
