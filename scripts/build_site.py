"""Build every language's book into one site folder.

Usage: ``python scripts/build_site.py [SITE_DIR]`` (default ``site``).

Each language is its own MkDocs build in ``SITE_DIR/<language>/``, and the
pages of ``site-root/`` go to ``SITE_DIR/``; every build runs with
``--strict``, the editions side by side, one per core. The code is
``attention_book.site`` (``scripts/bench.py`` times it too).
"""

from __future__ import annotations

import sys
from pathlib import Path

from attention_book import ROOT
from attention_book.site import BuildError, build

if __name__ == "__main__":
    try:
        times = build(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "site")
    except BuildError as error:
        print(error, file=sys.stderr)
        raise SystemExit(1) from None
    print(
        "built in "
        + ", ".join(
            f"{name} {edition['seconds']:.1f} s" for name, edition in times.items()
        )
    )
