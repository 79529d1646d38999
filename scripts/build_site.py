"""Build every language's book into one site folder.

Usage: ``python scripts/build_site.py [SITE_DIR]`` (default ``site``).

Each language is its own MkDocs build (its own search index, ``<html lang>``
and ``theme.language``) in ``SITE_DIR/<language>/``; ``site-root/index.html``
becomes ``SITE_DIR/index.html``, which sends readers to their language.
Every build runs with ``--strict``: a broken link, anchor or snippet fails.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: language folder -> MkDocs configuration; the first is the default language.
LANGUAGES = {
    "ja": "mkdocs.yml",
    "zh-Hant": "mkdocs.zh-Hant.yml",
    "zh-Hans": "mkdocs.zh-Hans.yml",  # converted from zh-Hant (hooks/zh_hans.py)
}


def build(site_dir: Path) -> None:
    site_dir = site_dir.resolve()
    if site_dir.exists():
        shutil.rmtree(site_dir)
    site_dir.mkdir(parents=True)
    for language, config in LANGUAGES.items():
        command = [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--config-file",
            config,
            "--site-dir",
            str(site_dir / language),
        ]
        # Material prints a banner about MkDocs 2.0 on every build; the book
        # pins MkDocs 1.x, so keep the build log to what matters.
        env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
        subprocess.run(command, cwd=ROOT, env=env, check=True)
    shutil.copy2(ROOT / "site-root" / "index.html", site_dir / "index.html")


if __name__ == "__main__":
    build(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "site")
