"""Record how long each unit of the test suite took, for the next runs' order.

``python scripts/record_durations.py test-artifacts/junit-*.xml`` reads the
JUnit reports that ``make test``, ``make test-exhaustive`` and ``make
test-all`` write, sums the seconds of each unit that pytest-xdist schedules
as one (``--dist loadscope``: a test module, or a test class), and writes
them to ``tests/durations.json``, longest first (units of at least
``LEAST_SECONDS``). ``tests/conftest.py``
starts the longest units first, so that a run does not end with one core
finishing a long sweep alone. Units the reports do not hold keep their
recorded seconds; run it after a change adds or moves a long test.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DURATIONS = ROOT / "tests" / "durations.json"


#: Units shorter than this need no place of their own in the order.
LEAST_SECONDS = 5.0


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
    seconds: dict[str, float] = {}
    for report in reports:
        for case in ET.parse(report).iter("testcase"):
            unit = scope(case.get("classname", ""))
            if unit is not None:
                seconds[unit] = seconds.get(unit, 0.0) + float(case.get("time", 0))
    return seconds


def main(arguments: list[str]) -> None:
    if not arguments:
        raise SystemExit("usage: record_durations.py JUNIT.xml ...")
    recorded = json.loads(DURATIONS.read_text("utf-8")) if DURATIONS.exists() else {}
    measured = read([Path(argument) for argument in arguments])
    recorded.update({unit: round(s, 1) for unit, s in measured.items()})
    kept = {unit: s for unit, s in recorded.items() if s >= LEAST_SECONDS}
    ordered = dict(sorted(kept.items(), key=lambda item: -item[1]))
    DURATIONS.write_text(json.dumps(ordered, indent=1) + "\n", encoding="utf-8")
    print(f"{DURATIONS.relative_to(ROOT)}: {len(ordered)} units")


if __name__ == "__main__":
    main(sys.argv[1:])
