"""Record how long each test took, for the next runs' order.

``python scripts/record_durations.py test-artifacts/junit-*.xml`` reads the
JUnit reports that ``make test``, ``make test-exhaustive`` and ``make
test-all`` write and writes the seconds of every test (setup, call and
teardown) of at least ``LEAST_SECONDS`` to ``tests/durations.json``, by node
id, longest first. ``tests/conftest.py`` adds up the recorded seconds of the
tests a run selects in each unit that pytest-xdist schedules as one (``--dist
loadscope``: a module, or a test class) and starts the longest units first, so
that a run does not end with one core finishing a long sweep alone; a unit's
length is that of the tier that runs (a module whose long tests are
exhaustive is short in ``make test``). Tests the reports do not hold keep
their recorded seconds; run it after a change adds or moves a long test.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DURATIONS = ROOT / "tests" / "durations.json"


#: Tests shorter than this add nothing that changes the order.
LEAST_SECONDS = 0.5


def scope(classname: str) -> str | None:
    """A JUnit classname as xdist's scope: ``tests.browser.test_x.TestY`` is
    ``tests/browser/test_x.py::TestY`` (the longest prefix that is a module),
    ``docs_src.masks.causal.pycon`` is ``docs_src/masks/causal.pycon`` (an
    example file); None if it names no file of the repository."""
    parts = classname.split(".")
    for end in range(len(parts), 0, -1):
        path = Path(*parts[:end]).with_suffix(".py")
        if (ROOT / path).is_file():
            rest = parts[end:]
            return path.as_posix() + "".join(f"::{name}" for name in rest)
    for end in range(len(parts) - 1, 0, -1):
        path = Path(*parts[:end], ".".join(parts[end:]))
        if (ROOT / path).is_file():
            return path.as_posix()
    return None


def read(reports: list[Path]) -> dict[str, float]:
    """Seconds by node id (``tests/site/test_pdf.py::test_x[ja]``,
    ``docs_src/masks/boolean.pycon::line:3,column:1``) in the reports."""
    seconds: dict[str, float] = {}
    for report in reports:
        for case in ET.parse(report).iter("testcase"):
            unit = scope(case.get("classname", ""))
            if unit is not None:
                test = f"{unit}::{case.get('name', '')}"
                seconds[test] = seconds.get(test, 0.0) + float(case.get("time", 0))
    return seconds


def main(arguments: list[str]) -> None:
    if not arguments:
        raise SystemExit("usage: record_durations.py JUNIT.xml ...")
    recorded = json.loads(DURATIONS.read_text("utf-8")) if DURATIONS.exists() else {}
    measured = read([Path(argument) for argument in arguments])
    recorded.update({test: round(s, 1) for test, s in measured.items()})
    kept = {test: s for test, s in recorded.items() if s >= LEAST_SECONDS}
    ordered = dict(sorted(kept.items(), key=lambda item: (-item[1], item[0])))
    DURATIONS.write_text(json.dumps(ordered, indent=1) + "\n", encoding="utf-8")
    print(f"{DURATIONS.relative_to(ROOT)}: {len(ordered)} tests")


if __name__ == "__main__":
    main(sys.argv[1:])
