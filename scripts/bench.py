"""Benchmark of the book and the package: ``make bench``.

Prints a table and writes it as JSON (default ``bench/results.json``):

- build time of each edition and of the whole site (the editions build side
  by side, one per core: ``scripts/build_site.py``), and the part of each
  edition's build spent typesetting maths (``stages/katex.py`` logs it);
- for every page of every edition, loaded in headless Chromium with a cold
  cache: bytes transferred (raw and gzip), number of requests, first
  contentful paint, largest contentful paint and cumulative layout shift;
  the table shows each edition's heaviest chapter page (most gzip bytes),
  the bytes each page with an interactive figure adds for its scripts
  (``assets/explorables/``, gzip), and each edition's search index (which a
  page fetches only when its reader turns to the search);
- a slow phone: every page of every edition at 390 x 844 with the CPU
  slowed 4x (Chromium's throttling, as a phone's is slower than the
  machine's), the median of three cold loads (the pages' runs interleaved):
  first contentful paint, the time to DOMContentLoaded (Material's script
  has then set up the page: copy buttons, navigation, search), the total
  blocking time (each long task's time past 50 ms, from the first paint on,
  as Lighthouse counts it) and the longest task in that span, the latency
  of a tap at the first paint (from the touch to the next frame after its
  handlers), the page's number of elements, and whether the page meets the
  goal of issue 44 (``PHONE_GOAL``). ``--slow-phone-only`` measures just
  that (``--edition ja`` for one edition, ``--site`` for a site already
  built, ``--runs`` for the number of loads);
- the test suite as ``make test`` runs it, and its quick tier (``make quick``):
  pytest's own time, the wall time, the machine's CPU time, and the test
  time of each part of the suite;
- the package: plain (``scaled_dot_product_attention``) and blockwise
  attention against the bare cost of their two matrix products (QK^T and AV)
  at n = 128, 1024, 4096 with d = 64, in float64 and float32, without a mask
  and with a causal one, and the peak memory each allocates as a multiple of
  one (n, n) array; and each edition's language model, the time per
  generated token with and without the KV cache (``--package-only`` prints
  just these two tables).

Numbers, not assertions: nothing here fails because something is slow.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gzip
import http.server
import io
import json
import os
import platform
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import timeit
import tracemalloc
from pathlib import Path

import numpy as np

from attention_book import ROOT
from attention_book.browser import CHROMIUM, CHROMIUM_ARGS
from attention_book.editions import LANGUAGES
from attention_book.site import build as build_site
from attention_book.site import build_edition

#: stages/katex.py's summary line in a build's log.
MATH_LOG = re.compile(r"KaTeX typeset (\d+) formulas .* maths took ([\d.]+) s")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build(site: Path, base_url: str) -> dict[str, dict[str, float]]:
    os.environ["SITE_URL"] = base_url
    with contextlib.redirect_stdout(io.StringIO()):  # the logs are in editions
        editions = build_site(site)
    results = {}
    for name, edition in editions.items():
        row = {"seconds": round(edition["seconds"], 2)}
        math = MATH_LOG.search(edition["log"])
        if math:
            row["formulas"] = int(math[1])
            row["math_seconds"] = float(math[2])
        results[name] = row
    return results


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


@contextlib.contextmanager
def serve(site: Path, port: int):
    handler = functools.partial(QuietHandler, directory=site)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.shutdown()


#: First and largest contentful paint and layout shift, once the page has
#: settled (fonts loaded, half a second more).
PAINT = """() => new Promise(resolve => {
    const result = { fcp: null, lcp: null, cls: 0 };
    for (const entry of performance.getEntriesByType("paint"))
        if (entry.name === "first-contentful-paint") result.fcp = entry.startTime;
    new PerformanceObserver(list => {
        for (const entry of list.getEntries()) result.lcp = entry.startTime;
    }).observe({ type: "largest-contentful-paint", buffered: true });
    new PerformanceObserver(list => {
        for (const entry of list.getEntries())
            if (!entry.hadRecentInput) result.cls += entry.value;
    }).observe({ type: "layout-shift", buffered: true });
    document.fonts.ready.then(() => setTimeout(() => resolve(result), 500));
})"""


def book_pages(site: Path, language: str) -> list[str]:
    """Every page of an edition, as paths below the site root."""
    return sorted(
        path.parent.relative_to(site).as_posix() + "/"
        for path in (site / language).rglob("index.html")
        if "search" not in path.parts
    )


#: Installed before the page's own scripts run: the long tasks and the
#: input events' timings (Event Timing: from the input to the next frame
#: after its handlers) from the start of the load, and a capturing click
#: handler that keeps the benchmark's tap from following a link.
PHONE_INIT = """window.__bookLongTasks = [];
new PerformanceObserver(list => window.__bookLongTasks.push(...list.getEntries()))
    .observe({ type: "longtask", buffered: true });
window.__bookEvents = [];
new PerformanceObserver(list => window.__bookEvents.push(...list.getEntries()))
    .observe({ type: "event", durationThreshold: 16, buffered: true });
window.__bookTap = {};
addEventListener("pointerdown", event => {
    window.__bookTap.down = event.timeStamp;
}, true);
addEventListener("click", event => {
    event.preventDefault();
    window.__bookTap.click = performance.now();
}, true);"""

#: Once the page has settled (1 s without a long task after the load, at
#: most 15 s): DOMContentLoaded; the total blocking time as Lighthouse counts
#: it (every long task's time past 50 ms, from the first contentful paint
#: on) and the longest task in that span (what a tap can wait at worst);
#: the benchmark's tap (dispatched at the first paint): the longest of its
#: events from the input to the next frame, or, if each took under 16 ms
#: (Event Timing leaves those out), the time from the press to the click's
#: handler; and the page's number of elements.
PHONE = """() => new Promise(resolve => {
    const started = performance.now();
    const settle = () => {
        const tasks = window.__bookLongTasks;
        const last = tasks.length
            ? Math.max(...tasks.map(e => e.startTime + e.duration)) : 0;
        const now = performance.now();
        if (now - last < 1000 && now - started < 15000) {
            setTimeout(settle, 200);
            return;
        }
        const navigation = performance.getEntriesByType("navigation")[0];
        const paint = performance.getEntriesByName("first-contentful-paint")[0];
        const fcp = paint ? paint.startTime : 0;
        let tbt = 0, longest = 0;
        for (const e of tasks) {
            const end = e.startTime + e.duration;
            const span = end - Math.max(e.startTime, fcp);
            if (span <= 0) continue;
            tbt += Math.max(0, span - 50);
            longest = Math.max(longest, span);
        }
        const tap = window.__bookTap;
        const events = window.__bookEvents.filter(e => e.interactionId);
        let tapMs = null;
        if (events.length) tapMs = Math.max(...events.map(e => e.duration));
        else if (tap.down !== undefined && tap.click !== undefined)
            tapMs = tap.click - tap.down;
        resolve({
            fcp,
            dcl: navigation.domContentLoadedEventEnd,
            tbt,
            longest,
            tap: tapMs,
            tap_at: tap.down === undefined ? null : tap.down,
            long_tasks: tasks.reduce((sum, e) => sum + e.duration, 0),
            elements: document.getElementsByTagName("*").length,
        });
    };
    settle();
})"""

#: The slow phone's goal (issue 44), for the table's last column.
PHONE_GOAL = {"dcl_ms": 3000, "tbt_ms": 600, "tap_ms": 200}

#: The phone both measurements emulate: a 390 x 844 touch screen.
PHONE_SCREEN = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 3,
    "is_mobile": True,
    "has_touch": True,
}
#: Where the benchmark taps: the middle of that screen.
TAP = (195, 422)


def phone_load(browser, url: str) -> dict:
    """One cold load of ``url`` on a slow phone (390 x 844, CPU slowed 4x),
    with a tap at the middle of the screen as soon as the first contentful
    paint is reported."""
    context = browser.new_context(**PHONE_SCREEN)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
    cdp.send("Page.enable")
    cdp.send("Page.setLifecycleEventsEnabled", {"enabled": True})
    painted = []
    cdp.on(
        "Page.lifecycleEvent",
        lambda event: (
            painted.append(1) if event["name"] == "firstContentfulPaint" else None
        ),
    )
    page.add_init_script(PHONE_INIT)
    page.goto(url, wait_until="commit", timeout=120_000)
    deadline = time.monotonic() + 120
    while not painted:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{url}: no first contentful paint in 120 s")
        page.wait_for_timeout(5)
    x, y = TAP
    for kind in ("touchStart", "touchEnd"):
        points = [{"x": x, "y": y}] if kind == "touchStart" else []
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})
    page.wait_for_load_state("load", timeout=120_000)
    result = page.evaluate(PHONE)
    context.close()
    return result


def slow_phone(
    browser, site: Path, base_url: str, language: str, runs: int = 3
) -> list[dict]:
    """Every page of an edition on a slow phone (``phone_load``); the
    median of ``runs`` cold loads, the runs of the pages interleaved."""
    pages = book_pages(site, language)
    loads: dict[str, list[dict]] = {path: [] for path in pages}
    for _ in range(runs):
        for path in pages:
            loads[path].append(phone_load(browser, base_url + path))
    rows = []
    for path, results in loads.items():

        def median(key, results=results):
            values = [r[key] for r in results if r[key] is not None]
            return round(statistics.median(values)) if values else None

        row = {
            "page": path,
            "elements": results[0]["elements"],
            "fcp_ms": median("fcp"),
            "dcl_ms": median("dcl"),
            "tbt_ms": median("tbt"),
            "longest_task_ms": median("longest"),
            "tap_ms": median("tap"),
            "long_tasks_ms": median("long_tasks"),
        }
        row["meets_goal"] = all(
            row[key] is not None and row[key] <= limit
            for key, limit in PHONE_GOAL.items()
        )
        rows.append(row)
    return rows


#: What the main thread's trace events are, by name (the first match wins).
TRACE_KINDS = (
    (
        "style",
        re.compile(r"recalcStyle|UpdateLayoutTree|rebuildLayoutTree|updateStyle"),
    ),
    ("layout", re.compile(r"Layout|^InlineNode")),
    ("script", re.compile(r"^(EvaluateScript|FunctionCall|v8|V8|RunMicrotasks)")),
    ("parse", re.compile(r"^ParseHTML|Decode|^HTMLDocumentParser")),
    ("paint", re.compile(r"Paint|Composit")),
)
TRACE_CATEGORIES = [
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "v8.execute",
    "blink",
    "loading",
]


def main_thread_costs(events: list[dict]) -> dict[str, float]:
    """The page's main thread's CPU time (ms, each event's own, without its
    children's) by kind (``TRACE_KINDS``, the rest as "other"), and the
    number of elements it styled ("styled", summed over its style passes)."""
    names = {
        (e["pid"], e["tid"]): e["args"]["name"]
        for e in events
        if e.get("ph") == "M" and e.get("name") == "thread_name"
    }
    busy: dict[tuple, int] = {}
    for e in events:
        thread = (e.get("pid"), e.get("tid"))
        if e.get("ph") == "X" and names.get(thread) == "CrRendererMain":
            busy[thread] = busy.get(thread, 0) + 1
    main = max(busy, key=busy.get)  # the page's, not the browser's own pages'
    spans = sorted(
        (
            e
            for e in events
            if (e.get("pid"), e.get("tid")) == main
            and e.get("ph") == "X"
            and "tdur" in e
        ),
        key=lambda e: (e["ts"], -e["dur"]),
    )
    costs = dict.fromkeys([kind for kind, _ in TRACE_KINDS] + ["other"], 0.0)
    costs["styled"] = 0
    stack: list[list] = []  # [event, its own time so far]
    own: list[list] = []
    for e in spans:
        while stack and stack[-1][0]["ts"] + stack[-1][0]["dur"] <= e["ts"]:
            stack.pop()
        if stack:
            stack[-1][1] -= e["tdur"]
        entry = [e, e["tdur"]]
        stack.append(entry)
        own.append(entry)
        if e["name"] == "UpdateLayoutTree":
            costs["styled"] += e.get("args", {}).get("elementCount") or 0
    for e, time_us in own:
        if "RunTask" in e["name"]:
            continue
        kind = next((k for k, name in TRACE_KINDS if name.search(e["name"])), "other")
        costs[kind] += max(0, time_us) / 1000
    costs["total"] = sum(costs[k] for k, _ in TRACE_KINDS) + costs["other"]
    return costs


def phone_trace(browser, url: str) -> dict[str, float]:
    """Where the main thread spends a cold load of ``url`` at a phone's size
    (``main_thread_costs``): a Chromium performance trace to 1.5 s after
    the load, the CPU not slowed. The CPU time is the machine's (the slow
    phone's is about 4 times as long), and depends less on other jobs
    running beside it than wall time does."""
    context = browser.new_context(**PHONE_SCREEN)
    page = context.new_page()
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "trace.json"
        browser.start_tracing(page=page, path=trace, categories=TRACE_CATEGORIES)
        page.goto(url, wait_until="load", timeout=120_000)
        page.wait_for_timeout(1500)
        browser.stop_tracing()
        context.close()
        events = json.loads(trace.read_bytes())
    if isinstance(events, dict):
        events = events["traceEvents"]
    return main_thread_costs(events)


def trace_table(rows: dict[str, dict[str, float]]) -> str:
    kinds = ["total", *(k for k, _ in TRACE_KINDS), "other"]
    lines = [
        f"{'main thread, CPU ms (not slowed)':36} "
        + " ".join(f"{k:>7}" for k in kinds)
        + f" {'styled':>8}"
    ]
    for page, costs in rows.items():
        lines.append(
            f"{page:36} "
            + " ".join(f"{costs[k]:>7.0f}" for k in kinds)
            + f" {costs['styled']:>8.0f}"
        )
    return "\n".join(lines)


def phone_table(results: dict[str, list[dict]]) -> str:
    lines = [
        f"{'slow phone (390 px, CPU/4)':36} {'elements':>8} {'FCP ms':>7} "
        f"{'DCL ms':>7} {'TBT ms':>7} {'longest':>8} {'tap ms':>7} {'goal':>5}"
    ]
    for rows in results.values():
        for row in rows:
            lines.append(
                f"{row['page']:36} {row['elements']:>8} {row['fcp_ms']:>7} "
                f"{row['dcl_ms']:>7} {row['tbt_ms']:>7} {row['longest_task_ms']:>8} "
                f"{row['tap_ms'] if row['tap_ms'] is not None else '-':>7} "
                f"{'ok' if row['meets_goal'] else 'over':>5}"
            )
    lines.append(
        f"goal: DCL <= {PHONE_GOAL['dcl_ms']} ms, TBT <= {PHONE_GOAL['tbt_ms']} ms, "
        f"tap answered within {PHONE_GOAL['tap_ms']} ms"
    )
    return "\n".join(lines)


def page_weight(site: Path, base_url: str) -> dict[str, dict]:
    """Each edition's pages, first load, cold cache; the heaviest in full."""
    from playwright.sync_api import sync_playwright

    results = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for language in LANGUAGES:
            rows = []
            for path in book_pages(site, language):
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                page = context.new_page()
                bodies: list[bytes] = []
                added: list[bytes] = []  # an interactive figure's scripts

                def on_response(r, b=bodies, a=added):
                    b.append(r.body())
                    if "/assets/explorables/" in r.url:
                        a.append(b[-1])

                page.on("response", on_response)
                page.goto(base_url + path, wait_until="load")
                paint = page.evaluate(PAINT)
                page.wait_for_load_state("networkidle")
                rows.append(
                    {
                        "page": path,
                        "requests": len(bodies),
                        "bytes_raw": sum(len(b) for b in bodies),
                        "bytes_gzip": sum(len(gzip.compress(b)) for b in bodies),
                        "fcp_ms": round(paint["fcp"] or 0, 1),
                        "lcp_ms": round(paint["lcp"] or 0, 1),
                        "cls": round(paint["cls"], 4),
                        "explorables_gzip": sum(len(gzip.compress(b)) for b in added),
                    }
                )
                context.close()
            heaviest = max(rows, key=lambda row: row["bytes_gzip"])
            # Fetched when the reader turns to the search, not on a first load.
            index = (site / language / "search" / "search_index.json").read_bytes()
            results[language] = {
                "heaviest": heaviest,
                "all": rows,
                "search_index": {
                    "bytes_raw": len(index),
                    "bytes_gzip": len(gzip.compress(index)),
                },
                "slow_phone": slow_phone(browser, site, base_url, language),
            }
        browser.close()
    return results


#: The parts of the suite, by where a test lives (first match wins).
TEST_PARTS = [
    ("PDFs (making and reading them)", "tests/site/test_pdf.py"),
    ("notebooks (built and run)", "tests/site/test_notebooks.py"),
    ("browser: the sweep of every page", "tests/browser/test_every_page.py"),
    ("browser: the other checks", "tests/browser/"),
    ("built site, static checks", "tests/site/"),
    ("sources, parity, hooks", "tests/docs/"),
    ("package: unit tests", "tests/unit/"),
    ("package: doctests", "src/"),
    ("examples and pages' code", "docs"),
    ("workflows", "tests/test_workflows.py"),
]


def busy_core_seconds() -> float | None:
    """CPU time the whole machine has spent so far (Linux), in seconds."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except OSError:
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


#: The test command of ``make test``.
PYTEST = [sys.executable, "-m", "pytest", "-q", "-n", "auto", "--dist", "loadscope"]


def run_pytest(*args: str) -> dict:
    """Run pytest as ``make test`` does; its own time, the wall time, the
    machine's CPU time, and each test's time (setup and teardown included)."""
    import xml.etree.ElementTree as ET

    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "junit.xml"
        busy, start = busy_core_seconds(), time.perf_counter()
        subprocess.run(
            [*PYTEST, f"--junitxml={report}", *args],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        wall = time.perf_counter() - start
        busy_after = busy_core_seconds()
        suite = ET.parse(report).getroot().find("testsuite")
    times: dict[str, float] = {}
    for case in suite.iter("testcase"):
        name = case.get("classname", "").replace(".", "/")
        times[name] = times.get(name, 0.0) + float(case.get("time", 0))
    return {
        "pytest_seconds": round(float(suite.get("time")), 1),
        "wall_seconds": round(wall, 1),
        "busy_core_seconds": None if busy is None else round(busy_after - busy, 1),
        "tests": int(suite.get("tests")),
        "times": times,
    }


def test_suite_times() -> dict:
    """The whole suite and the quick tier, timed as ``make test`` and
    ``make quick`` run them, and where the whole suite's time goes: each
    part's summed test time (the workers run side by side, so the parts add
    up to more than the suite's own time)."""
    full = run_pytest()
    quick = run_pytest("-m", "not site and not browser")
    parts: dict[str, float] = {name: 0.0 for name, _ in TEST_PARTS}
    for name, seconds in full.pop("times").items():
        for part, prefix in TEST_PARTS:
            if name.startswith(prefix.removesuffix(".py")):
                parts[part] += seconds
                break
    quick.pop("times")
    return {
        "full": full,
        "quick": quick,
        "parts": {part: round(seconds, 1) for part, seconds in parts.items()},
    }


def attention_cost(sizes=(128, 1024, 4096), d: int = 64) -> list[dict]:
    """Plain and blockwise attention against their two bare matrix products.

    For every n, dtype (float64, float32) and mask (none, causal): the best of
    five timings of ``scaled_dot_product_attention``, ``blockwise_attention``
    (default block size) and the two products ``q @ k.T`` and ``a @ v`` alone,
    and the peak memory each function allocates (tracemalloc, which counts
    numpy's allocations), as a multiple of one (n, n) array of the dtype.
    The same for the backward passes: ``scaled_dot_product_attention_backward``
    and ``blockwise_attention_backward`` (from the forward's output and
    log-sum-exp, default block size), with a random upstream gradient.
    """
    from attention_docs import (
        blockwise_attention,
        blockwise_attention_backward,
        causal_mask,
        scaled_dot_product_attention_backward,
    )
    from attention_docs import scaled_dot_product_attention as plain

    rows = []
    for n in sizes:
        for dtype in (np.float64, np.float32):
            rng = np.random.default_rng(0)
            q, k, v = (rng.standard_normal((n, d)).astype(dtype) for _ in range(3))
            a = rng.random((n, n)).astype(dtype)
            number = max(1, int(2e8 // (n * n * d)))

            def best(statement, number=number) -> float:
                return min(timeit.repeat(statement, number=number, repeat=5)) / number

            matmuls = best(lambda q=q, k=k, a=a, v=v: (q @ k.T, a @ v))
            one = n * n * np.dtype(dtype).itemsize
            for mask in (None, causal_mask(n)):
                row = {
                    "n": n,
                    "d": d,
                    "dtype": np.dtype(dtype).name,
                    "mask": "none" if mask is None else "causal",
                    "two_matmuls_ms": round(matmuls * 1e3, 3),
                }
                for name, function in (
                    ("plain", plain),
                    ("blockwise", blockwise_attention),
                ):
                    call = functools.partial(function, q, k, v, mask=mask)
                    seconds = best(call)
                    tracemalloc.start()
                    call()
                    _, peak = tracemalloc.get_traced_memory()
                    tracemalloc.stop()
                    row[f"{name}_ms"] = round(seconds * 1e3, 3)
                    row[f"{name}_ratio"] = round(seconds / matmuls, 2)
                    row[f"{name}_peak_nn"] = round(peak / one, 3)
                out, lse = blockwise_attention(q, k, v, mask=mask, return_lse=True)
                g = rng.standard_normal(out.shape).astype(dtype)
                backward = {
                    "plain_backward": functools.partial(
                        scaled_dot_product_attention_backward, q, k, v, g, mask=mask
                    ),
                    "blockwise_backward": functools.partial(
                        blockwise_attention_backward, q, k, v, out, lse, g, mask=mask
                    ),
                }
                for name, call in backward.items():
                    seconds = best(call, number=1)
                    tracemalloc.start()
                    call()
                    _, peak = tracemalloc.get_traced_memory()
                    tracemalloc.stop()
                    row[f"{name}_ms"] = round(seconds * 1e3, 3)
                    row[f"{name}_peak_nn"] = round(peak / one, 3)
                rows.append(row)
    return rows


def generation_cost(prompt_len: int = 16, new_tokens: int = 96) -> list[dict]:
    """Time per generated token of each edition's language model, with and
    without the KV cache (greedy, best of three runs; the prompt is the start
    of the held-out text)."""
    from attention_docs import generate, load_pretrained
    from attention_docs.language_model import EDITIONS, load_corpus, split_corpus

    rows = []
    for edition in EDITIONS:
        model = load_pretrained(edition)
        prompt = split_corpus(load_corpus(edition))[1][:prompt_len]
        row = {"edition": edition, "prompt": prompt_len, "new_tokens": new_tokens}
        for name, cache in (("cached", True), ("uncached", False)):
            seconds = min(
                timeit.repeat(
                    functools.partial(
                        generate,
                        model,
                        prompt,
                        new_tokens,
                        greedy=True,
                        use_cache=cache,
                    ),
                    number=1,
                    repeat=3,
                )
            )
            row[f"{name}_ms_per_token"] = round(seconds / new_tokens * 1e3, 2)
        row["speedup"] = round(
            row["uncached_ms_per_token"] / row["cached_ms_per_token"], 1
        )
        rows.append(row)
    return rows


def generation_table(rows: list[dict]) -> str:
    lines = [
        f"{'language model':14} {'prompt':>6} {'new':>5} {'cached ms/token':>16} "
        f"{'uncached ms/token':>18} {'speed-up':>9}"
    ]
    for row in rows:
        lines.append(
            f"{row['edition']:14} {row['prompt']:>6} {row['new_tokens']:>5} "
            f"{row['cached_ms_per_token']:>16} {row['uncached_ms_per_token']:>18} "
            f"{row['speedup']:>9}"
        )
    return "\n".join(lines)


def slow_phone_only(languages: list[str], args) -> dict[str, list[dict]]:
    """The slow phone's rows of ``languages``, from ``args.site`` or a build
    of just those editions."""
    from playwright.sync_api import sync_playwright

    port = free_port()
    base_url = f"http://127.0.0.1:{port}/"
    with tempfile.TemporaryDirectory() as tmp:
        site = args.site
        if site is None:
            site = Path(tmp)
            os.environ["SITE_URL"] = base_url
            for language in languages:
                build_edition(language, site)
        results = {}
        with serve(site, port), sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for language in [] if args.trace else languages:
                results[language] = slow_phone(
                    browser, site, base_url, language, args.runs
                )
            traces = {}
            for path in args.trace or []:
                runs = [phone_trace(browser, base_url + path) for _ in range(args.runs)]
                traces[path] = {
                    key: statistics.median(run[key] for run in runs) for key in runs[0]
                }
            browser.close()
    if traces:
        print(trace_table(traces))
        print()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "results.json")
    parser.add_argument(
        "--skip-tests", action="store_true", help="do not time the test suite"
    )
    parser.add_argument(
        "--package-only",
        action="store_true",
        help="only the package table (attention against its matrix products)",
    )
    parser.add_argument(
        "--slow-phone-only",
        action="store_true",
        help="only the slow phone: every page of the editions, built first "
        "(or taken from --site)",
    )
    parser.add_argument(
        "--edition",
        action="append",
        choices=list(LANGUAGES),
        help="with --slow-phone-only: this edition only (may be repeated)",
    )
    parser.add_argument(
        "--runs", type=int, default=3, help="cold loads per page on the slow phone"
    )
    parser.add_argument(
        "--trace",
        action="append",
        metavar="PAGE",
        help="with --slow-phone-only: instead, trace this page (ja/softmax/) at "
        "a phone's size and print where its main thread's time goes (median of "
        "--runs loads; may be repeated)",
    )
    parser.add_argument(
        "--site",
        type=Path,
        help="with --slow-phone-only: a site already built (scripts/build_site.py)",
    )
    args = parser.parse_args()
    if args.slow_phone_only:
        phone = slow_phone_only(args.edition or list(LANGUAGES), args)
        if phone:
            print(phone_table(phone))
        return
    if args.package_only:
        print(attention_table(attention_cost()))
        print()
        print(generation_table(generation_cost()))
        return

    port = free_port()
    base_url = f"http://127.0.0.1:{port}/"
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp)
        builds = build(site, base_url)
        with serve(site, port):
            pages = page_weight(site, base_url)
    results = {
        "machine": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
        },
        "build": builds,
        "pages": pages,
        "test_suite": None if args.skip_tests else test_suite_times(),
        "attention": attention_cost(),
        "generation": generation_cost(),
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(table(results))
    print(f"\nwritten to {args.output}")


def table(results: dict) -> str:
    lines = [f"{'build':10} {'seconds':>8} {'formulas':>9} {'maths s':>8}"]
    for name, row in results["build"].items():
        lines.append(
            f"{name:10} {row['seconds']:>8} {row.get('formulas', ''):>9} "
            f"{row.get('math_seconds', ''):>8}"
        )
    lines.append("")
    lines.append(
        f"{'heaviest page':28} {'requests':>8} {'raw KiB':>9} "
        f"{'gzip KiB':>9} "
        f"{'FCP ms':>7} {'LCP ms':>7} {'CLS':>7}"
    )
    for edition in results["pages"].values():
        for row in [edition["heaviest"]]:
            lines.append(
                f"{row['page']:28} {row['requests']:>8} "
                f"{row['bytes_raw'] / 1024:>9.1f} {row['bytes_gzip'] / 1024:>9.1f} "
                f"{row['fcp_ms']:>7.0f} {row['lcp_ms']:>7.0f} {row['cls']:>7.4f}"
            )
    for edition in results["pages"].values():
        for row in edition["all"]:
            if row.get("explorables_gzip"):
                lines.append(
                    f"{row['page']:28} {'':>8} {'figure JS':>9} "
                    f"{row['explorables_gzip'] / 1024:>9.1f}"
                )
    for language, edition in results["pages"].items():
        index = edition["search_index"]
        lines.append(
            f"{language + ' search index (on search)':28} {'':>8} "
            f"{index['bytes_raw'] / 1024:>9.1f} {index['bytes_gzip'] / 1024:>9.1f}"
        )
    lines.append("")
    lines.append(
        phone_table(
            {
                language: edition.get("slow_phone", [])
                for language, edition in results["pages"].items()
            }
        )
    )
    lines.append("")
    suite = results["test_suite"]
    if suite:
        for tier in ("full", "quick"):
            row = suite[tier]
            lines.append(
                f"test suite, {tier:5} {row['tests']:>5} tests: pytest "
                f"{row['pytest_seconds']} s, wall {row['wall_seconds']} s, "
                f"CPU {row['busy_core_seconds']} core-s"
            )
        lines.append("where the full suite's test time goes (s, summed over workers):")
        for part, seconds in suite["parts"].items():
            lines.append(f"  {part:36} {seconds:>7}")
        lines.append("")
    lines.append(attention_table(results["attention"]))
    lines.append("")
    lines.append(generation_table(results["generation"]))
    return "\n".join(lines)


def attention_table(rows: list[dict]) -> str:
    """The package table: times in ms, ratios to the two products, peaks in n x n."""
    lines = [
        f"{'n':>5} {'dtype':>7} {'mask':>6} {'2 matmuls':>10} {'plain':>9} "
        f"{'ratio':>6} {'peak/nn':>8} {'blockwise':>10} {'ratio':>6} {'peak/nn':>8}"
    ]
    for row in rows:
        lines.append(
            f"{row['n']:>5} {row['dtype']:>7} {row['mask']:>6} "
            f"{row['two_matmuls_ms']:>10.2f} {row['plain_ms']:>9.2f} "
            f"{row['plain_ratio']:>6.2f} {row['plain_peak_nn']:>8.3f} "
            f"{row['blockwise_ms']:>10.2f} {row['blockwise_ratio']:>6.2f} "
            f"{row['blockwise_peak_nn']:>8.3f}"
        )
    lines.append("")  # the backward passes: times in ms, peaks in n x n
    lines.append(
        f"{'n':>5} {'dtype':>7} {'mask':>6} {'plain bwd':>10} {'peak/nn':>8} "
        f"{'blockwise bwd':>14} {'peak/nn':>8}"
    )
    for row in rows:
        lines.append(
            f"{row['n']:>5} {row['dtype']:>7} {row['mask']:>6} "
            f"{row['plain_backward_ms']:>10.2f} "
            f"{row['plain_backward_peak_nn']:>8.3f} "
            f"{row['blockwise_backward_ms']:>14.2f} "
            f"{row['blockwise_backward_peak_nn']:>8.3f}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
