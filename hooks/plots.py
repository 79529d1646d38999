"""The book's plots, drawn from the package at build time (never a stale image).

- Each script ``docs_src/plots/<name>.py`` defines ``figure(labels)``: it
  computes its data with ``attention_docs`` and draws it with
  ``attention_docs.plotting``, returning a matplotlib Figure. The page that
  shows the plot also shows the script (an ``--8<--`` include).
- ``docs_src/plots/labels.yml`` holds the words of every plot in every
  language: ``{name: {language: {alt: ..., <label>: ...}}}``.
- ``on_files``: for the build's language (``theme.language``) every script is
  drawn twice, inside ``theme("light")`` and ``theme("dark")``, and added to
  the site as ``assets/plots/<name>.svg`` and ``assets/plots/<name>-dark.svg``.
  The SVGs keep their text as text, so the browser draws the labels with the
  page's fonts. A warning while drawing fails the build, as ``--strict`` does.
- ``on_page_markdown``: a page shows a plot with Material's light/dark switch,
  ``![](assets/plots/<name>.svg#only-light)`` and
  ``![](assets/plots/<name>-dark.svg#only-dark)``, with an empty alt text; the
  hook fills it in from ``labels.yml``, so every language's words about a plot
  live in one file.
- The Simplified Chinese book (zh-Hans) uses the Traditional labels converted
  by ``attention_book.zh_hans``, like the rest of its pages.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
import traceback
import warnings
from pathlib import Path

import yaml
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

from attention_book.editions import DERIVED
from attention_book.zh_hans import to_simplified_text

ROOT = Path(__file__).resolve().parent.parent
PLOTS = ROOT / "docs_src" / "plots"
LABELS = PLOTS / "labels.yml"
THEMES = {"light": "", "dark": "-dark"}  # theme -> suffix of the file name
IMAGE = re.compile(
    r"!\[(?P<alt>[^\]]*)\]\((?P<src>(?:\.\./)*assets/plots/(?P<file>[^)#\s]+))"
    r"(?P<fragment>#[^)\s]*)?\)"
)
MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]])")


def _plotting():
    """Import ``attention_docs.plotting`` afresh (``mkdocs serve`` rebuilds)."""
    for name in [n for n in sys.modules if n.partition(".")[0] == "attention_docs"]:
        del sys.modules[name]  # re-read src/ on every build, so no plot is stale
    try:
        return importlib.import_module("attention_docs.plotting")
    except ModuleNotFoundError as error:
        if (error.name or "").partition(".")[0] not in ("matplotlib", "attention_docs"):
            raise
        raise PluginError(
            f"the book's plots need {error.name}: run `make site`, or "
            "`pip install -e '.[plot]'` in the book's virtual environment"
        ) from error


def load_labels() -> dict:
    """``labels.yml``, checked against the scripts of ``docs_src/plots/``."""
    labels = yaml.safe_load(LABELS.read_text(encoding="utf-8"))
    scripts = {path.stem for path in PLOTS.glob("*.py")}
    if not isinstance(labels, dict) or set(labels) != scripts:
        found = sorted(labels) if isinstance(labels, dict) else labels
        raise PluginError(
            f"{LABELS.relative_to(ROOT)} must have one entry per script of "
            f"docs_src/plots/: scripts {sorted(scripts)}, entries {found}"
        )
    return labels


def _convert(value, convert):
    if isinstance(value, str):
        return convert(value)
    if isinstance(value, list):
        return [_convert(item, convert) for item in value]
    return value


def labels_for(labels: dict, name: str, language: str) -> dict:
    if language in DERIVED:
        entry = labels_for(labels, name, DERIVED[language])
        return {
            key: _convert(value, to_simplified_text) for key, value in entry.items()
        }
    entry = labels[name].get(language) if isinstance(labels[name], dict) else None
    if not isinstance(entry, dict) or not entry.get("alt"):
        raise PluginError(
            f"{LABELS.relative_to(ROOT)}: {name} needs a `{language}` entry "
            "with an `alt` text"
        )
    return entry


def draw(plotting, name: str, labels: dict, theme: str, language: str) -> str:
    """Run ``docs_src/plots/<name>.py`` and return its figure as SVG."""
    path = PLOTS / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_book_plot_{name}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            spec.loader.exec_module(module)
            with plotting.theme(theme):
                fig = module.figure(labels)
                return plotting.to_svg(fig, language=language)
    except Exception as error:
        raise PluginError(
            f"{path.relative_to(ROOT)} failed to draw its {theme} figure for "
            f"{language}:\n{traceback.format_exc()}"
        ) from error


def on_files(files: Files, config) -> Files:
    language = config.theme["language"]
    plotting = _plotting()
    labels = load_labels()
    for name in sorted(labels):
        entry = labels_for(labels, name, language)
        for theme, suffix in THEMES.items():
            svg = draw(plotting, name, entry, theme, language)
            uri = f"assets/plots/{name}{suffix}.svg"
            files.append(File.generated(config, uri, content=svg))
    return files


def _fill_alt(match: re.Match, labels: dict, language: str, page: str) -> str:
    file, fragment = match["file"], match["fragment"] or ""
    name, dark, extension = re.fullmatch(r"(.+?)(-dark)?(\.svg)?", file).groups()
    expected = "#only-dark" if dark else "#only-light"
    if extension is None or name not in labels or fragment != expected:
        raise PluginError(
            f"{page}: {match[0]} must be assets/plots/<name>.svg#only-light or "
            f"assets/plots/<name>-dark.svg#only-dark, <name> one of {sorted(labels)}"
        )
    if match["alt"]:
        raise PluginError(
            f"{page}: {match[0]} must leave its alt text empty: it comes from "
            f"{LABELS.relative_to(ROOT)}"
        )
    alt = MARKDOWN_SPECIAL.sub(r"\\\1", labels_for(labels, name, language)["alt"])
    return f"![{alt}]({match['src']}{fragment})"


def on_page_markdown(markdown, page, config, files):
    if "assets/plots/" not in markdown:
        return markdown
    labels = load_labels()
    language = config.theme["language"]
    return IMAGE.sub(
        lambda match: _fill_alt(match, labels, language, page.file.src_path),
        markdown,
    )
