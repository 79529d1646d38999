"""Build every edition of the book into one site folder (``make site``).

Each edition is its own MkDocs build (its own search index, ``<html lang>``
and ``theme.language``) in ``SITE_DIR/<language>/``; the pages of
``site-root/`` go to ``SITE_DIR/``: ``index.html``, which sends readers to
their language or lets them choose, and ``404.html``, the page a host such as
GitHub Pages shows for any address the site does not have.
Every build runs with ``--strict``: a broken link, anchor or snippet fails.
The editions build side by side, one per core.

``scripts/build_site.py`` is the command; ``scripts/bench.py`` times
``build``, and ``scripts/build_pdf.py`` fails with ``BuildError`` too.
"""

from __future__ import annotations

import html
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from urllib.parse import urlsplit

from attention_book import ROOT
from attention_book.editions import LANGUAGES


def build_edition(language: str, site_dir: Path) -> tuple[float, str]:
    """Build one edition into ``site_dir/<language>``: (seconds, its log)."""
    command = [
        sys.executable,
        "-m",
        "mkdocs",
        "build",
        "--strict",
        "--config-file",
        LANGUAGES[language],
        "--site-dir",
        str(site_dir / language),
    ]
    # Material prints a banner about MkDocs 2.0 on every build; the book
    # pins MkDocs 1.x, so keep the build log to what matters.
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
    editions["total"]["seconds"] = time.perf_counter() - start
    return editions


#: The root 404 page's <base> as written in site-root/404.html.
ROOT_404_BASE = '<base href="/">'


def root_path(site_url: str) -> str:
    """The path of ``site_url``: ``/``, or ``/attention_docs/`` for a project site
    on GitHub Pages (``https://user.github.io/attention_docs/``)."""
    return urlsplit(site_url).path.rstrip("/") + "/"


def copy_root_pages(site_dir: Path, site_url: str) -> None:
    """Copy ``site-root/`` to the site's root.

    A host serves the root 404 page at any depth, where relative links would
    point nowhere: its links are relative to its ``<base>``, set here to the
    root of the address the site is built for (``SITE_URL``, the address the
    editions' own links are built for too).
    """
    for source in sorted((ROOT / "site-root").iterdir()):
        target = site_dir / source.name
        if source.name != "404.html":
            shutil.copy2(source, target)
            continue
        page = source.read_text(encoding="utf-8")
        if page.count(ROOT_404_BASE) != 1:
            raise SystemExit(f"{source} must hold {ROOT_404_BASE} once")
        base = f'<base href="{html.escape(root_path(site_url))}">'
        target.write_text(page.replace(ROOT_404_BASE, base), encoding="utf-8")
