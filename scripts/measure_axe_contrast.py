"""Time axe-core on one page: all rules, and color-contrast restricted by a
rule selector that skips KaTeX and code (``axe.configure``), in alternating
loads of the page.

``python scripts/measure_axe_contrast.py SITE ja/positional-encoding/`` with
SITE a built site (``make site``); docs-dev/performance.md has the figures.
"""

from __future__ import annotations

import functools
import http.server
import json
import statistics
import sys
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

from attention_book.browser import CHROMIUM

AXE = Path(__file__).resolve().parent.parent / "node_modules/axe-core/axe.min.js"
SKIP = ".katex, .katex *, pre, pre *, code, code *"
SELECTOR = "body *" + "".join(f":not({part.strip()})" for part in SKIP.split(","))
LOADS = 6
RUN = """async ([restrict, selector]) => {
  if (restrict) axe.configure({rules: [{id: "color-contrast", selector}]});
  const start = performance.now();
  const every = await axe.run(document, {resultTypes: ["violations"]});
  const all = performance.now() - start;
  const again = performance.now();
  await axe.run(document, {runOnly: ["color-contrast"], resultTypes: ["violations"]});
  return {all, contrast: performance.now() - again,
          violations: every.violations.map((v) => v.id)};
}"""


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def measure(site: str, path: str) -> dict[bool, list[tuple[float, float]]]:
    handler = functools.partial(Quiet, directory=site)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/{path}"
    times: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
            )
            for load in range(LOADS):
                restrict = bool(load % 2)
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.goto(url, wait_until="load")
                page.evaluate("document.fonts.ready")
                page.add_style_tag(
                    content="* { content-visibility: visible !important; }"
                )
                page.add_script_tag(path=str(AXE))
                found = page.evaluate(RUN, [restrict, SELECTOR])
                times[restrict].append((found["all"], found["contrast"]))
                name = "restricted" if restrict else "default"
                print(
                    name,
                    round(found["all"]),
                    round(found["contrast"]),
                    json.dumps(found["violations"]),
                    flush=True,
                )
                page.close()
            browser.close()
    finally:
        server.shutdown()
    return times


if __name__ == "__main__":
    for restrict, runs in measure(sys.argv[1], sys.argv[2]).items():
        every = statistics.median(all_ for all_, _ in runs)
        contrast = statistics.median(c for _, c in runs)
        name = "restricted" if restrict else "default"
        print(f"{name}: all rules {every:.0f} ms, color-contrast {contrast:.0f} ms")
