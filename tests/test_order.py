"""The run's order: the longest units of work first (tests/conftest.py)."""

from __future__ import annotations

import re

from .conftest import LONGEST_FIRST
from .site.helpers import ROOT


def test_every_longest_unit_names_a_test_module_or_class() -> None:
    """A renamed module or class would silently lose its place at the front."""
    assert len(set(LONGEST_FIRST)) == len(LONGEST_FIRST)
    for scope in LONGEST_FIRST:
        path, _, name = scope.partition("::")
        module = ROOT / path
        assert module.is_file(), scope
        if name:
            source = module.read_text(encoding="utf-8")
            assert re.search(rf"^class {name}\b", source, re.MULTILINE), scope


def test_the_longest_units_come_first(request) -> None:
    """In a whole run, the items start with the listed units, in their order."""
    items = request.session.items
    scopes = list(dict.fromkeys(item.nodeid.rsplit("::", 1)[0] for item in items))
    listed = [scope for scope in scopes if scope in LONGEST_FIRST]
    assert scopes[: len(listed)] == listed
    assert listed == [scope for scope in LONGEST_FIRST if scope in listed]
