"""Benchmark of the book and the package: ``make bench``.

Prints a table and writes it as JSON (default ``bench/results.json``):

- build time of each language and of the whole site;
- for one page per language, in headless Chromium: bytes transferred (raw and
  gzip), number of requests, and the time until every formula is rendered;
- wall time of the test suite;
- scaled dot-product attention against the bare cost of its two matrix
  products (QK^T and AV) at n = 128, 1024, 4096 with d = 64, and the peak
  memory of the (n, n) weights.

Numbers, not assertions: nothing here fails because something is slow.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gzip
import http.server
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import threading
import time
import timeit
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from build_site import LANGUAGES  # noqa: E402

PAGES = {language: "scaled-dot-product/" for language in LANGUAGES}
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build(site: Path, base_url: str) -> dict[str, float]:
    env = {**os.environ, "SITE_URL": base_url, "NO_MKDOCS_2_WARNING": "1"}
    times = {}
    for language, config in LANGUAGES.items():
        start = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "mkdocs",
                "build",
                "--strict",
                "-f",
                config,
                "-d",
                str(site / language),
            ],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
        )
        times[language] = time.perf_counter() - start
    (site / "index.html").write_bytes((ROOT / "site-root" / "index.html").read_bytes())
    times["total"] = sum(times.values())
    return times


@contextlib.contextmanager
def serve(site: Path, port: int):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=site)
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.shutdown()


def page_weight(base_url: str) -> dict[str, dict[str, float]]:
    from playwright.sync_api import sync_playwright

    results = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for language, page_path in PAGES.items():
            page = browser.new_page()
            bodies: list[bytes] = []
            page.on("response", lambda r, b=bodies: b.append(r.body()))
            url = f"{base_url}{language}/{page_path}"
            page.goto(url, wait_until="load")
            page.wait_for_function(
                "document.querySelectorAll('.arithmatex').length > 0 &&"
                " [...document.querySelectorAll('.arithmatex')]"
                ".every(e => e.querySelector('.katex'))"
            )
            math_ms = page.evaluate("performance.now()")
            page.wait_for_load_state("networkidle")
            results[language] = {
                "page": f"{language}/{page_path}",
                "requests": len(bodies),
                "bytes_raw": sum(len(b) for b in bodies),
                "bytes_gzip": sum(len(gzip.compress(b)) for b in bodies),
                "math_rendered_ms": round(math_ms, 1),
            }
            page.close()
        browser.close()
    return results


def test_suite_time() -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - start


def attention_cost(sizes=(128, 1024, 4096), d: int = 64) -> list[dict[str, float]]:
    from attention_docs import scaled_dot_product_attention

    rng = np.random.default_rng(0)
    rows = []
    for n in sizes:
        rows.append(_attention_row(scaled_dot_product_attention, rng, n, d))
    return rows


def _attention_row(sdpa_function, rng, n: int, d: int) -> dict[str, float]:
    q, k, v = (rng.standard_normal((n, d)) for _ in range(3))
    a = rng.random((n, n))
    number = max(1, int(2e8 // (n * n * d)))

    def best(statement) -> float:
        return min(timeit.repeat(statement, number=number, repeat=5)) / number

    sdpa = best(lambda: sdpa_function(q, k, v))
    matmuls = best(lambda: (q @ k.T, a @ v))
    tracemalloc.start()
    sdpa_function(q, k, v)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "n": n,
        "d": d,
        "sdpa_ms": round(sdpa * 1e3, 3),
        "two_matmuls_ms": round(matmuls * 1e3, 3),
        "ratio": round(sdpa / matmuls, 2),
        "weights_mib": round(n * n * 8 / 2**20, 1),
        "peak_mib": round(peak / 2**20, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "results.json")
    parser.add_argument(
        "--skip-tests", action="store_true", help="do not time the test suite"
    )
    args = parser.parse_args()

    port = free_port()
    base_url = f"http://127.0.0.1:{port}/"
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp)
        builds = build(site, base_url)
        with serve(site, port):
            pages = page_weight(base_url)
    results = {
        "machine": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
        },
        "build_seconds": {k: round(v, 2) for k, v in builds.items()},
        "pages": pages,
        "test_suite_seconds": None if args.skip_tests else round(test_suite_time(), 1),
        "attention": attention_cost(),
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(table(results))
    print(f"\nwritten to {args.output}")


def table(results: dict) -> str:
    lines = [
        "build (s)        "
        + "  ".join(f"{k}: {v}" for k, v in results["build_seconds"].items())
    ]
    lines.append("")
    lines.append(
        f"{'page':28} {'requests':>8} {'raw KiB':>9} {'gzip KiB':>9} {'math ms':>8}"
    )
    for row in results["pages"].values():
        lines.append(
            f"{row['page']:28} {row['requests']:>8} "
            f"{row['bytes_raw'] / 1024:>9.1f} {row['bytes_gzip'] / 1024:>9.1f} "
            f"{row['math_rendered_ms']:>8.1f}"
        )
    lines.append("")
    lines.append(f"test suite (s)   {results['test_suite_seconds']}")
    lines.append("")
    lines.append(
        f"{'n':>6} {'d':>4} {'sdpa ms':>10} {'2 matmuls ms':>13} {'ratio':>6} "
        f"{'weights MiB':>12} {'peak MiB':>9}"
    )
    for row in results["attention"]:
        lines.append(
            f"{row['n']:>6} {row['d']:>4} {row['sdpa_ms']:>10} "
            f"{row['two_matmuls_ms']:>13} {row['ratio']:>6} "
            f"{row['weights_mib']:>12} {row['peak_mib']:>9}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
