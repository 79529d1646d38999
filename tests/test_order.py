"""The run's order: the longest units of work first (tests/conftest.py)."""

from __future__ import annotations

import re

from .conftest import DURATIONS, recorded_durations
from .site.helpers import ROOT


def test_every_recorded_unit_names_a_test_module_or_class() -> None:
    """A renamed module or class would silently lose its place at the front."""
    recorded = recorded_durations()
    assert recorded, f"{DURATIONS.name}: run scripts/record_durations.py"
    for scope, seconds in recorded.items():
        assert seconds >= 0, scope
        path, _, name = scope.partition("::")
        module = ROOT / path
        assert module.is_file(), scope
        if name:
            source = module.read_text(encoding="utf-8")
            assert re.search(rf"^class {name}\b", source, re.MULTILINE), scope


def test_the_longest_units_come_first(request) -> None:
    """In this run, the units come in the order of their recorded seconds:
    the longest that needs the site (it starts the build), then those that
    need no site, then the others needing it."""
    recorded = recorded_durations()
    items = request.session.items
    scopes = list(dict.fromkeys(item.nodeid.rsplit("::", 1)[0] for item in items))
    needs_site = {
        item.nodeid.rsplit("::", 1)[0]
        for item in items
        if item.get_closest_marker("site") or item.get_closest_marker("browser")
    }
    first = [scope for scope in scopes if scope in needs_site][:1]
    assert scopes[: len(first)] == first
    rest = scopes[len(first) :]
    assert rest == sorted(rest, key=lambda scope: scope in needs_site)
    for group in (
        [s for s in rest if s not in needs_site],
        [s for s in rest if s in needs_site],
    ):
        known = [scope for scope in group if recorded.get(scope, 0) > 0]
        assert group[: len(known)] == known
        assert [recorded[s] for s in known] == sorted(
            (recorded[s] for s in known), reverse=True
        )
    if first and recorded.get(first[0], 0) > 0:
        assert recorded[first[0]] == max(recorded.get(s, 0) for s in needs_site)


def test_the_recorder_reads_units_from_junit_reports(tmp_path) -> None:
    """JUnit's classnames become xdist's scopes, and their seconds add up."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "record_durations", ROOT / "scripts" / "record_durations.py"
    )
    recorder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(recorder)
    report = tmp_path / "junit.xml"
    report.write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="tests.browser.test_every_page.TestJapanese" time="2.5"/>'
        '<testcase classname="tests.browser.test_every_page.TestJapanese" time="1"/>'
        '<testcase classname="tests.site.test_pdf" time="4"/>'
        "</testsuite></testsuites>",
        encoding="utf-8",
    )
    assert recorder.read([report]) == {
        "tests/browser/test_every_page.py::TestJapanese": 3.5,
        "tests/site/test_pdf.py": 4.0,
    }
    assert recorder.scope("docs_src.masks.boolean.pycon") == (
        "docs_src/masks/boolean.pycon"
    )
    assert recorder.scope("no.such.module") is None
