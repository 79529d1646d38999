"""Build every edition of the book into one site folder (``make site``).

Each edition is its own MkDocs build (its own search index, ``<html lang>``
and ``theme.language``) in ``SITE_DIR/<language>/``; the pages of
``site-root/`` go to ``SITE_DIR/``: ``index.html``, which sends readers to
their language or lets them choose, and ``404.html``, the page a host such as
GitHub Pages shows for any address the site does not have. Beside them, the
files that browsers and crawlers ask the root of a site for: ``favicon.ico``
(the book's icon, drawn from its SVG), ``robots.txt`` and ``sitemap.xml``, a
sitemap index of the editions' sitemaps.
Every build runs with ``--strict``: a broken link, anchor or snippet fails.
The editions build side by side, one per core.

``BOOK_BUILDER=properdocs`` builds with ProperDocs, the maintained fork of
MkDocs 1.6 (``make site-properdocs``), instead of MkDocs: the same
configuration, hooks, theme and plugins (ProperDocs runs MkDocs' plugin and
theme entry points). ``decisions/0001-platform.md`` says why both are kept.

``scripts/build_site.py`` is the command; ``scripts/bench.py`` times
``build``, and ``scripts/build_pdf.py`` fails with ``BuildError`` too.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from urllib.parse import urlsplit

from attention_book import ROOT
from attention_book.editions import LANGUAGES

#: The programs that can build the book (``BOOK_BUILDER``), MkDocs by default.
BUILDERS = ("mkdocs", "properdocs")


def builder() -> str:
    """The program named by ``BOOK_BUILDER``: ``mkdocs`` (unset) or ``properdocs``."""
    name = os.environ.get("BOOK_BUILDER", "mkdocs")
    if name not in BUILDERS:
        raise ValueError(f"BOOK_BUILDER={name!r}: expected one of {BUILDERS}")
    return name


def build_edition(language: str, site_dir: Path) -> tuple[float, str]:
    """Build one edition into ``site_dir/<language>``: (seconds, its log)."""
    command = [
        sys.executable,
        "-m",
        builder(),
        "build",
        "--strict",
        "--config-file",
        LANGUAGES[language],
        "--site-dir",
        str(site_dir / language),
    ]
    # Material prints, on every build run by MkDocs, its own notice that it
    # reaches end of life on 2027-05-05 (and that Zensical succeeds it); the
    # variable that silences it is named after MkDocs 2.0 but silences that
    # notice. decisions/0001-platform.md records that date and the plan, so
    # the build's log keeps to what a build of this book reports.
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    start = time.perf_counter()
    result = subprocess.run(
        command,
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - start
    if result.returncode:
        raise BuildError(language, result.stdout)
    return seconds, result.stdout


class BuildError(Exception):
    """An edition's build failed; its log says why."""

    def __init__(self, language: str, log: str) -> None:
        super().__init__(f"the {language} edition failed to build:\n{log}")
        self.language, self.log = language, log


def side_by_side(task, languages, site_dir: Path, done: str, jobs=None) -> dict:
    """Run ``task(language, site_dir) -> (seconds, log)`` for every edition.

    The editions are independent, so ``jobs`` of them (default: one per
    core, at most one per edition) run at once. Each edition's log is printed
    in one piece when it is done (``done`` says what was done: "built").
    Returns, per edition in the given order, ``{"seconds", "log"}``, and
    ``"total"``: the wall time of the whole. A ``BuildError`` ends it.
    """
    languages = list(languages)
    jobs = jobs or max(1, min(len(languages), os.cpu_count() or 1))
    start = time.perf_counter()
    results: dict[str, dict] = {}
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {
            pool.submit(task, language, site_dir): language for language in languages
        }
        for future in as_completed(futures):
            seconds, log = future.result()  # a BuildError ends the build
            language = futures[future]
            print(f"---- {language}: {done} in {seconds:.1f} s\n{log}", flush=True)
            results[language] = {"seconds": seconds, "log": log}
    results["total"] = {"seconds": time.perf_counter() - start, "log": ""}
    return {language: results[language] for language in [*languages, "total"]}


def build(site_dir: Path, jobs: int | None = None) -> dict[str, dict]:
    """Build every edition, side by side on as many cores as there are.

    Returns, per edition, its build time and log, and ``"total"``: the wall
    time of the whole site (``side_by_side``).
    """
    site_dir = site_dir.resolve()
    if site_dir.exists():
        shutil.rmtree(site_dir)
    site_dir.mkdir(parents=True)
    start = time.perf_counter()
    editions = side_by_side(build_edition, LANGUAGES, site_dir, "built", jobs)
    copy_root_pages(site_dir, os.environ.get("SITE_URL", "/"))
    write_root_files(site_dir, os.environ.get("SITE_URL", DEFAULT_SITE_URL))
    editions["total"]["seconds"] = time.perf_counter() - start
    return editions


#: Where the editions are built for when SITE_URL is not set (stages/book.py).
DEFAULT_SITE_URL = "http://127.0.0.1:8000/"
#: The book's icon (theme.favicon), which favicon.ico is drawn from.
FAVICON_SVG = ROOT / "overrides" / "assets" / "images" / "favicon.svg"

#: The root 404 page's <base> as written in site-root/404.html.
ROOT_404_BASE = '<base href="/">'


def root_path(site_url: str) -> str:
    """The path of ``site_url``: ``/``, or ``/attention_docs/`` for a project site
    on GitHub Pages (``https://user.github.io/attention_docs/``)."""
    return urlsplit(site_url).path.rstrip("/") + "/"


#: A Simplified word of a root page, written as the Traditional one it is
#: converted from: ``{{zh-Hans: 找不到這個頁面}}``.
SIMPLIFIED = re.compile(r"\{\{zh-Hans: ([^{}]+)\}\}")


def root_page(source: Path) -> str:
    """A page of ``site-root/`` as the site holds it: its Simplified words
    converted from the Traditional ones it marks (no Simplified word is typed
    by hand, as in the editions: ``attention_book.zh_hans``)."""
    from attention_book.zh_hans import to_simplified

    return SIMPLIFIED.sub(
        lambda m: to_simplified(m[1]), source.read_text(encoding="utf-8")
    )


def copy_root_pages(site_dir: Path, site_url: str) -> None:
    """Copy ``site-root/`` to the site's root, its pages through ``root_page``.

    A host serves the root 404 page at any depth, where relative links would
    point nowhere: its links are relative to its ``<base>``, set here to the
    root of the address the site is built for (``SITE_URL``, the address the
    editions' own links are built for too).
    """
    for source in sorted((ROOT / "site-root").iterdir()):
        target = site_dir / source.name
        if source.suffix != ".html":
            shutil.copy2(source, target)
            continue
        page = root_page(source)
        if source.name == "404.html":
            if page.count(ROOT_404_BASE) != 1:
                raise SystemExit(f"{source} must hold {ROOT_404_BASE} once")
            base = f'<base href="{html.escape(root_path(site_url))}">'
            page = page.replace(ROOT_404_BASE, base)
        target.write_text(page, encoding="utf-8")


def write_root_files(site_dir: Path, site_url: str) -> None:
    """Write what browsers and crawlers ask a site's root for.

    ``favicon.ico`` (browsers ask for it where a page names no icon: a PDF,
    a file, the server's own error page), ``robots.txt``, which names the
    sitemap, and ``sitemap.xml``: a sitemap index of the editions' own
    sitemaps, with absolute addresses, as the protocol asks.
    """
    base = site_url.rstrip("/") + "/"
    (site_dir / "favicon.ico").write_bytes(favicon_ico(FAVICON_SVG))
    (site_dir / "robots.txt").write_text(
        f"User-agent: *\nAllow: /\n\nSitemap: {base}sitemap.xml\n", encoding="utf-8"
    )
    entries = "".join(
        f"  <sitemap><loc>{html.escape(base + language)}/sitemap.xml</loc></sitemap>\n"
        for language in LANGUAGES
    )
    (site_dir / "sitemap.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        f"{entries}</sitemapindex>\n",
        encoding="utf-8",
    )


#: The only SVG the icon may use: rectangles, with a fill and an opacity.
SVG = "{http://www.w3.org/2000/svg}"


def favicon_ico(svg: Path, size: int = 256) -> bytes:
    """The icon ``svg`` as an ICO file (16, 32 and 48 px), drawn with Pillow.

    The icon is a few rounded rectangles (overrides/assets/images/favicon.svg);
    anything else in it is refused rather than drawn wrong.
    """
    import io
    import xml.etree.ElementTree as ET

    from PIL import Image, ImageColor, ImageDraw

    root = ET.parse(svg).getroot()
    scale = size / float(root.get("viewBox").split()[2])
    image = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    fill = None
    for element in root.iter():
        tag = element.tag.removeprefix(SVG)
        fill = element.get("fill", fill)
        if tag in ("svg", "g"):
            continue
        if tag != "rect":
            raise ValueError(f"{svg}: cannot draw <{tag}> into favicon.ico")
        x, y = (float(element.get(name, 0)) * scale for name in ("x", "y"))
        width, height = (
            float(element.get(name)) * scale for name in ("width", "height")
        )
        red, green, blue = ImageColor.getrgb(fill)
        alpha = round(255 * float(element.get("opacity", 1)))
        layer = Image.new("RGBA", image.size, (0, 0, 0, 0))
        ImageDraw.Draw(layer).rounded_rectangle(
            (x, y, x + width - 1, y + height - 1),
            radius=float(element.get("rx", 0)) * scale,
            fill=(red, green, blue, alpha),
        )
        image = Image.alpha_composite(image, layer)
    out = io.BytesIO()
    image.save(out, format="ICO", sizes=[(16, 16), (32, 32), (48, 48)])
    return out.getvalue()
