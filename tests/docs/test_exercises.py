"""Every chapter ends with exercises whose solutions are collapsed and executed.

A chapter page is every page of the nav but the home, notation, glossary,
references and about pages.
Its last section is ``## 練習問題 { #exercises }`` (ja) or
``## 練習題 { #exercises }`` (zh-Hant), with at least three exercises (an
appendix, which adds a view to the chapters rather than a step of its own, at
least one), each a ``### N. … { #exercise-… }`` heading followed by a collapsed solution
(``??? success "解答"``) that includes at least one example file: the examples
under docs_src/ are executed with their printed output checked, like every
example of the book, so every solution is checked.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from attention_book import numbering, snippets

from .test_nav import flatten, nav
from .test_pages import ANCHOR, HEADING

ROOT = Path(__file__).resolve().parents[2]
NOT_CHAPTERS = {"index.md", "notation.md", "glossary.md", "references.md", "about.md"}
CHAPTERS = [
    p for p in flatten(nav("mkdocs.yml")) if p.endswith(".md") and p not in NOT_CHAPTERS
]
TITLE = {"ja": "練習問題", "zh-Hant": "練習題"}
HINT = {"ja": ("tip", "ヒント"), "zh-Hant": ("tip", "提示")}
SOLUTION = '??? success "解答"'
EXERCISE = re.compile(r"^### (?P<number>\d+)\. \S.*\{ #exercise-[a-z0-9-]+ \}$")
DETAILS = re.compile(r'^\?\?\?\+? (?P<kind>\w+) "(?P<title>[^"]*)"$')


def exercise_sections(text: str) -> tuple[str, list[str]]:
    """The heading of the page's last h2, and the text under each h3 in it."""
    h2 = [m for m in re.finditer(r"^## .*$", text, re.MULTILINE)]
    last = h2[-1]
    body = text[last.end() :]
    parts = re.split(r"^(?=### )", body, flags=re.MULTILINE)
    return last.group(0), [p for p in parts if p.startswith("### ")]


@pytest.mark.parametrize("language", list(TITLE))
@pytest.mark.parametrize("page", CHAPTERS)
def test_the_chapter_ends_with_at_least_three_exercises(page, language) -> None:
    text = (ROOT / "docs" / language / page).read_text(encoding="utf-8")
    heading, exercises = exercise_sections(text)
    match = HEADING.match(heading)
    assert match["text"] == f"{TITLE[language]} {{ #exercises }}", heading
    least = 1 if page in numbering.APPENDICES else 3
    assert len(exercises) >= least, f"{page}: {len(exercises)} exercises"
    for number, exercise in enumerate(exercises, 1):
        title = exercise.splitlines()[0]
        found = EXERCISE.match(title)
        assert found, f"{page}: {title!r} is not '### N. title {{ #exercise-slug }}'"
        assert int(found["number"]) == number, (
            f"{page}: {title!r} is not number {number}"
        )
        assert ANCHOR.search(title)


@pytest.mark.parametrize("language", list(TITLE))
@pytest.mark.parametrize("page", CHAPTERS)
def test_every_exercise_has_a_collapsed_solution_with_an_executed_example(
    page, language
) -> None:
    text = (ROOT / "docs" / language / page).read_text(encoding="utf-8")
    _, exercises = exercise_sections(text)
    for exercise in exercises:
        title = exercise.splitlines()[0]
        blocks = [
            DETAILS.match(line.strip())
            for line in exercise.splitlines()
            if DETAILS.match(line.strip())
        ]
        kinds = [(b["kind"], b["title"]) for b in blocks]
        # collapsed (??? not ???+), the solution last, hints before it
        assert all(not line.startswith("???+") for line in exercise.splitlines())
        assert kinds and kinds[-1] == ("success", "解答"), f"{page} {title}: {kinds}"
        for kind in kinds[:-1]:
            assert kind == HINT[language], f"{page} {title}: {kind}"
        solution = exercise[exercise.index(SOLUTION) :]
        examples = [include.path for include in snippets.includes(solution)]
        assert examples, f"{page} {title}: the solution runs no example"
        for path in examples:
            assert path.startswith("docs_src/") and path.endswith(".pycon"), path
            assert (ROOT / path).is_file(), path


def test_every_chapter_is_listed() -> None:
    """The list follows the nav: a new chapter gets exercises too."""
    assert len(CHAPTERS) >= 16
    assert "backpropagation.md" in CHAPTERS and "summary.md" in CHAPTERS


#: A link that cites an exercise by its number: ``[練習問題 5](#exercise-build)``,
#: ``[KV キャッシュの練習問題 5](kv-cache.md#exercise-my-cache)``.
CITED_EXERCISE = re.compile(
    r"\[[^\]]*?(?P<number>\d+)\]\((?P<page>[a-z0-9-]+\.md)?#(?P<anchor>exercise-[a-z0-9-]+)\)"
)


@pytest.mark.parametrize("language", ["ja", "zh-Hant"])
def test_a_link_that_cites_an_exercise_by_number_says_its_number(language) -> None:
    """The exercises' numbers are typed in their headings, not given by the
    build: a link that names one by its number must say the number its
    heading has now (an exercise added or moved renumbers the others)."""
    folder = ROOT / "docs" / language
    numbers = {
        (page.name, m["anchor"]): m["number"]
        for page in folder.glob("*.md")
        for m in re.finditer(
            r"^### (?P<number>\d+)\. .*\{ #(?P<anchor>exercise-[a-z0-9-]+) \}$",
            page.read_text(encoding="utf-8"),
            re.MULTILINE,
        )
    }
    wrong, cited = [], 0
    for page in sorted(folder.glob("*.md")):
        for m in CITED_EXERCISE.finditer(page.read_text(encoding="utf-8")):
            target = (m["page"] or page.name, m["anchor"])
            cited += 1
            if numbers.get(target) != m["number"]:
                wrong.append(f"{page.name}: {m[0]} (heading: {numbers.get(target)})")
    assert cited > 10, "the pattern finds the links that cite exercises"
    assert not wrong, "\n".join(wrong)
