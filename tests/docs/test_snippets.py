"""``attention_book.snippets`` reads the includes as ``pymdownx.snippets`` does.

The book's build code (the examples' tests, the notebooks, the Simplified
conversion, the tests of the pages) reads the ``--8<--`` includes with
``attention_book.snippets``; MkDocs expands them with the extension. Every
page of the hand-written editions must come out the same both ways, with the
extension configured as ``mkdocs.yml`` configures it.
"""

from __future__ import annotations

from pathlib import Path

import markdown
import pytest
from mkdocs.utils.yaml import yaml_load
from pymdownx.snippets import SnippetMissingError

from attention_book import snippets

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted([*(DOCS / "ja").rglob("*.md"), *(DOCS / "zh-Hant").rglob("*.md")])


def snippets_config() -> dict:
    """``pymdownx.snippets``'s settings in mkdocs.yml (every edition inherits them)."""
    with (ROOT / "mkdocs.yml").open("rb") as file:
        extensions = yaml_load(file)["markdown_extensions"]
    if isinstance(extensions, dict):  # the mapping form, which editions extend
        extensions = [{name: settings} for name, settings in extensions.items()]
    settings = [
        entry["pymdownx.snippets"]
        for entry in extensions
        if isinstance(entry, dict) and "pymdownx.snippets" in entry
    ]
    assert len(settings) == 1, "mkdocs.yml configures pymdownx.snippets once"
    return settings[0]


def extension(root: Path, **settings) -> markdown.preprocessors.Preprocessor:
    """The extension's preprocessor, its base paths relative to ``root``."""
    config = {**settings, "base_path": [str(root / p) for p in settings["base_path"]]}
    md = markdown.Markdown(
        extensions=["pymdownx.snippets"],
        extension_configs={"pymdownx.snippets": config},
    )
    return md.preprocessors["snippet"]


def by_extension(text: str, root: Path = ROOT, **settings) -> list[str]:
    settings = settings or snippets_config()
    return extension(root, **settings).run(text.split("\n"))


def test_the_module_reads_includes_as_mkdocs_yml_configures_them() -> None:
    """base_path ["."] (the repository: the book is built from there) and
    check_paths (a missing file fails): change both together."""
    assert snippets_config() == {"base_path": ["."], "check_paths": True}


def test_the_pages_include_files_and_sections_at_every_indent() -> None:
    found = [i for page in PAGES for i in snippets.includes(page.read_text("utf-8"))]
    assert len(found) > 300
    assert any(i.section for i in found) and any(i.indent for i in found)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_every_page_expands_as_the_extension_expands_it(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert snippets.expand_lines(text.split("\n")) == by_extension(text)


# --- the grammar, on files of a folder of its own -----------------------------

FILES = {
    "a.txt": "alpha\nbeta\n",
    "no_newline.txt": "gamma",
    "empty.txt": "",
    "code.py": (
        "import x\n"
        "# --8<-- [start:one]\n"
        "def one():\n"
        "    # --8<-- [start:inner]\n"
        "    return 1\n"
        "    # --8<-- [end:inner]\n"
        "# ;--8<-- [start:shown]\n"
        "# --8<-- [end:one]\n"
        "# --8<-- [start:open]\n"
        "tail\n"
    ),
    "nested.md": 'before\n--8<-- "a.txt"\n--8<-- "nested.md"\nafter\n',
    "backwards.py": "# --8<-- [end:b]\nx\n# --8<-- [start:b]\n",
    "sub/deep.txt": "deep\n",
}

#: name -> (text, the includes it has)
CASES = {
    "a whole file": ('--8<-- "a.txt"', ["a.txt"]),
    "no final newline": ('x\n--8<-- "no_newline.txt"\ny', ["no_newline.txt"]),
    "an empty file": ('--8<-- "empty.txt"\nz', ["empty.txt"]),
    "single quotes, long markers": ("-----8<----- 'a.txt'", ["a.txt"]),
    "indented, tab": (
        '    --8<-- "a.txt"\n\t--8<-- "sub/deep.txt"',
        ["a.txt", "sub/deep.txt"],
    ),
    "a section, markers of others left out": ('--8<-- "code.py:one"', ["code.py:one"]),
    "a section to the end of the file": ('--8<-- "code.py:open"', ["code.py:open"]),
    "a whole file drops its section markers": ('--8<-- "code.py"', ["code.py"]),
    "spaces inside the quotes": ('--8<-- " a.txt "', ["a.txt"]),
    "escaped": (';--8<-- "a.txt"\n;;--8<-- "a.txt"', []),
    "a commented-out path": ('--8<-- ";a.txt"\nkept', []),
    "not an include: text after it": ('--8<-- "a.txt" x\n--8<-- "a.txt" ', []),
    "not an include: no quotes": ("--8<-- a.txt", []),
    "a block of paths": (
        '--8<--\na.txt\n\n  sub/deep.txt\n;b.txt\n--8<-- "x"\n--8<--',
        ["a.txt", "sub/deep.txt"],  # ";b.txt" is left out, "x" inside is ignored
    ),
    "an escaped block marker": (";--8<--\na.txt", []),
    "an unclosed block": ("--8<--\na.txt", ["a.txt"]),
    "section markers in the page": (
        "a\n--8<-- [start:x]\nb # --8<-- [end:x]\n;--8<-- [end:y]",
        [],
    ),
    "nested, and never inside itself": ('--8<-- "nested.md"', ["nested.md"]),
    "inside a fence": ('```pycon\n--8<-- "a.txt"\n```', ["a.txt"]),
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("snippets")
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize(("text", "found"), CASES.values(), ids=CASES)
def test_the_grammar_is_the_extensions(folder: Path, text: str, found) -> None:
    expected = by_extension(text, folder, base_path=["."], check_paths=True)
    assert snippets.expand_lines(text.split("\n"), folder) == expected
    assert [include.spec for include in snippets.includes(text)] == found


def test_an_include_keeps_its_indent_tabs_expanded() -> None:
    assert [i.indent for i in snippets.includes(CASES["indented, tab"][0])] == [
        "    ",
        "    ",
    ]


# --- errors ---------------------------------------------------------------------

#: name -> (text, the error here, the extension's)
ERRORS = {
    "a missing file": (
        '--8<-- "missing.txt"',
        snippets.MissingFileError,
        SnippetMissingError,
    ),
    "a missing section": (
        '--8<-- "code.py:two"',
        snippets.MissingSectionError,
        SnippetMissingError,
    ),
    "an end before the start": (
        '--8<-- "backwards.py:b"',
        snippets.MissingSectionError,
        SnippetMissingError,
    ),
    "only an escaped start": (
        '--8<-- "code.py:shown"',
        snippets.MissingSectionError,
        SnippetMissingError,
    ),
    "a path that leaves the folder": (
        '--8<-- "../a.txt"',
        snippets.MissingFileError,
        SnippetMissingError,
    ),
    "a missing file in a block": (
        "--8<--\nmissing.txt\n--8<--",
        snippets.MissingFileError,
        SnippetMissingError,
    ),
    "no path": ('--8<-- ":one"', snippets.MissingFileError, SnippetMissingError),
    "a folder": ('--8<-- "sub"', snippets.MissingFileError, IsADirectoryError),
}


@pytest.mark.parametrize(("text", "error", "theirs"), ERRORS.values(), ids=ERRORS)
def test_what_the_extension_refuses_is_an_error(folder, text, error, theirs) -> None:
    with pytest.raises(error):
        snippets.expand(text, folder)
    with pytest.raises(theirs):
        by_extension(text, folder, base_path=["."], check_paths=True)


def test_the_errors_are_lookup_errors() -> None:
    assert issubclass(snippets.MissingFileError, snippets.SnippetError)
    assert issubclass(snippets.MissingSectionError, snippets.SnippetError)
    assert issubclass(snippets.SnippetError, LookupError)


def test_the_errors_name_the_file_and_the_section(folder: Path) -> None:
    with pytest.raises(snippets.SnippetError, match=r"missing\.txt does not exist"):
        snippets.expand('--8<-- "missing.txt"', folder)
    with pytest.raises(snippets.SnippetError, match=r"code\.py has no section 'two'"):
        snippets.expand('--8<-- "code.py:two"', folder)


def test_line_ranges_are_refused_not_misread(folder: Path) -> None:
    """The book includes sections; line ranges are a form it does not use."""
    for spec in ("a.txt:1:2", "a.txt:2", "a.txt:1:2,3:4"):
        with pytest.raises(snippets.SnippetError, match="line ranges"):
            snippets.expand(f'--8<-- "{spec}"', folder)
    assert snippets.parse_spec("a.txt:x-1") == ("a.txt", "x-1")
    assert snippets.parse_spec("C:/a.txt") == ("C:/a.txt", None)
