"""The run's order: the longest units of work first (tests/conftest.py)."""

from __future__ import annotations

import re

from .conftest import DURATIONS, recorded_durations, unit_seconds
from .site.helpers import ROOT


def test_every_recorded_test_names_a_test() -> None:
    """A renamed module, class or test would silently lose its place at the
    front."""
    recorded = recorded_durations()
    assert recorded, f"{DURATIONS.name}: run scripts/record_durations.py"
    for test, seconds in recorded.items():
        assert seconds >= 0, test
        path, *names = test.split("::")
        module = ROOT / path
        assert module.is_file(), test
        assert names, test
        if module.suffix != ".py":
            continue  # an example's doctest: "line:3,column:1"
        source = module.read_text(encoding="utf-8")
        *classes, function = names
        for name in classes:
            assert re.search(rf"^class {name}\b", source, re.MULTILINE), test
        function = function.split("[", 1)[0]
        assert re.search(rf"^\s*(async )?def {function}\b", source, re.MULTILINE), test


def test_the_longest_units_come_first(request) -> None:
    """In this run, the units come in the order of their recorded seconds:
    the longest that needs the site (it starts the build), then those that
    need no site, then the others needing it."""
    items = request.session.items
    recorded = unit_seconds(items)
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


def test_the_recorder_reads_tests_from_junit_reports(tmp_path) -> None:
    """JUnit's classnames and names become node ids, and their seconds add up."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "record_durations", ROOT / "scripts" / "record_durations.py"
    )
    recorder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(recorder)
    report = tmp_path / "junit.xml"
    report.write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="tests.browser.test_every_page.TestJapanese"'
        ' name="test_a" time="2.5"/>'
        '<testcase classname="tests.browser.test_every_page.TestJapanese"'
        ' name="test_a" time="1"/>'
        '<testcase classname="tests.site.test_pdf" name="test_b[ja]" time="4"/>'
        '<testcase classname="docs_src.masks.boolean.pycon"'
        ' name="line:3,column:1" time="0.5"/>'
        '<testcase classname="no.such.module" name="test_c" time="9"/>'
        "</testsuite></testsuites>",
        encoding="utf-8",
    )
    assert recorder.read([report]) == {
        "tests/browser/test_every_page.py::TestJapanese::test_a": 3.5,
        "tests/site/test_pdf.py::test_b[ja]": 4.0,
        "docs_src/masks/boolean.pycon::line:3,column:1": 0.5,
    }
    assert recorder.scope("docs_src.masks.boolean.pycon") == (
        "docs_src/masks/boolean.pycon"
    )
    assert recorder.scope("no.such.module") is None


def test_a_unit_lasts_as_long_as_the_tests_the_run_selects(monkeypatch) -> None:
    """A module whose long tests are exhaustive is short in make test."""
    from types import SimpleNamespace

    from . import conftest

    recorded = {"tests/m.py::test_long": 60.0, "tests/m.py::test_short": 2.0}
    monkeypatch.setattr(conftest, "recorded_durations", lambda: recorded)
    short = SimpleNamespace(nodeid="tests/m.py::test_short")
    long = SimpleNamespace(nodeid="tests/m.py::test_long")
    assert unit_seconds([short]) == {"tests/m.py": 2.0}
    assert unit_seconds([short, long]) == {"tests/m.py": 62.0}
