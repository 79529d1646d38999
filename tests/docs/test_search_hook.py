"""hooks/search.py without a build: its edits of Material's search worker and
its tidying of the search index's text."""

from __future__ import annotations

from pathlib import Path

import material
import pytest
from mkdocs.exceptions import PluginError

from hooks import search as hook

WORKERS = Path(material.__file__).parent / "templates/assets/javascripts/workers"


@pytest.fixture(scope="module")
def worker() -> str:
    [path] = WORKERS.glob("search.*.min.js")
    return path.read_text(encoding="utf-8")


def test_each_edit_finds_its_code_once_in_materials_worker(worker) -> None:
    patched = hook.patch_worker(worker)
    assert patched != worker
    assert len(patched) == len(worker) + len("=") - len("-1") - len("*")
    assert '.join(" ")' in patched


def test_a_worker_that_has_changed_fails_the_build(worker) -> None:
    with pytest.raises(PluginError, match="has changed"):
        hook.patch_worker(hook.patch_worker(worker))


@pytest.mark.parametrize(
    ("text", "tidied"),
    [
        ("\u200b注意力\u200b。", "\u200b注意力。"),
        ("（\u200b注意力\u200b）\u200b，\u200b權重", "（注意力），\u200b權重"),
        ("「\u200b分數\u200b」", "「分數」"),
        ("\u200b矩陣\u200b的\u200b乘積", "\u200b矩陣\u200b的\u200b乘積"),  # words stay
        ("softmax \u200b函數", "softmax \u200b函數"),
    ],
)
def test_tidy_removes_breaks_next_to_punctuation_only(text, tidied) -> None:
    assert hook.tidy(text) == tidied
