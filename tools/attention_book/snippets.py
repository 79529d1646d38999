"""The ``--8<--`` includes of the pages, read as ``pymdownx.snippets`` reads them.

The pages include their examples, plot scripts, figures and the package's
source with ``pymdownx.snippets`` (``mkdocs.yml``: ``base_path: ["."]``,
``check_paths: true``). What needs a page as its reader sees it (the
examples' tests in ``conftest.py``, the notebooks of ``stages/notebooks.py``)
or needs to know what a page includes (the Simplified conversion, the tests
of the pages) reads the includes here, with the extension's own grammar:

- ``--8<-- "path"``, a line of its own (any number of ``-`` on either side of
  ``8<``, double or single quotes, nothing after the closing quote), puts the
  file's lines in its place, each indented as the ``--8<--`` line is. A file
  that ends with a newline ends with an empty line.
- ``--8<-- "path:name"`` puts only the lines between the file's lines
  ``--8<-- [start:name]`` and ``--8<-- [end:name]`` (a marker may follow
  other text, a comment sign: ``# --8<-- [start:name]``; a section with no
  end marker runs to the end of the file).
- A block of paths, one a line, between two lines ``--8<--``, includes each.
- ``;`` before a marker escapes it (the line is text, less one ``;``); a path
  that starts with ``;`` is left out. Section markers are left out of
  whatever includes their file, and of the page.
- Included files are read the same way (nested includes); a file that is
  already being included is not included again inside itself.

Paths are relative to the repository (``base_path: ["."]``: the book is built
from there) and may not leave it (``restrict_base_path``). A missing file or
section is an error (``check_paths: true``): ``SnippetError``. So are the forms
the book does not use, line ranges (``"path:1:5"``), rather than being read
some other way than the extension reads them.

``tests/docs/test_snippets.py`` checks that every page of the book expands
here exactly as the extension expands it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from attention_book import ROOT

#: An example written in an edition's language lives in a folder named after
#: the edition, ``docs_src/<page>/<edition>/<name>.pycon`` (its prompts and
#: outputs are text in that language); each edition's page includes its own
#: folder at the same place, and the Simplified page, converted from the
#: Traditional one, includes ``zh-Hans/`` where that page has ``zh-Hant/``.
EDITION_FOLDER = re.compile(r"/(?P<edition>ja|zh-Hant|zh-Hans)/")


def for_edition(path: str, edition: str) -> str:
    """``path`` with its edition folder (if any) replaced by ``edition``'s.

    >>> for_edition("docs_src/generation/zh-Hant/greedy.pycon", "zh-Hans")
    'docs_src/generation/zh-Hans/greedy.pycon'
    >>> for_edition("docs_src/masks/causal.pycon", "zh-Hans")
    'docs_src/masks/causal.pycon'
    """
    return EDITION_FOLDER.sub(f"/{edition}/", path, count=1)


#: Markdown's ``tab_length``: a tab in the indent of an include counts as 4.
TAB_LENGTH = 4

#: ``--8<-- "path"`` (``escape``: the ``;`` that make it text).
INCLUDE = re.compile(
    r"""
    ^(?P<indent>[ \t]*)
    (?P<escape>;*)
    (?P<marker>-+8<-+[ \t]+)
    (?P<quoted>"(?:\\"|[^"\n\r])+?"|'(?:\\'|[^'\n\r])+?')(?![ \t])\r?$
    """,
    re.VERBOSE,
)
#: The ``--8<--`` that opens and closes a block of paths.
BLOCK_MARKER = re.compile(r"^(?P<indent>[ \t]*)(?P<escape>;*)-+8<-+\r?$")
#: ``--8<-- [start:name]`` and ``--8<-- [end:name]``, anywhere in a line. The
#: lookarounds keep the shortest ``pre`` from splitting a run of ``;`` or ``-``.
SECTION_MARKER = re.compile(
    r"""
    ^(?P<pre>.*?)
    (?<!;)(?!(?<=-)-)
    (?P<escape>;*)
    (?P<marker>-+8<-+[ \t]+)
    (?P<section>\[[ \t]*(?P<type>start|end)[ \t]*:[ \t]*
        (?P<name>[a-z][-_0-9a-z]*)[ \t]*\])
    (?P<post>.*?)$
    """,
    re.VERBOSE | re.IGNORECASE,
)
#: A path, then line ranges (``:1:5,8:``) or a section (``:name``).
_TARGET = re.compile(
    r"(?i)(?P<path>.*?)(?:(?P<lines>(?::-?[0-9]*){1,2}"
    r"(?:(?:,(?=[-0-9:])-?[0-9]*)(?::-?[0-9]*)?)*)|:(?P<section>[a-z][-_0-9a-z]*))?$"
)


class SnippetError(LookupError):
    """An include that ``pymdownx.snippets`` (``check_paths: true``) refuses,
    or a form of include that this module does not read."""


class MissingFileError(SnippetError):
    """An include names a file that is not there."""


class MissingSectionError(SnippetError):
    """An include names a section that its file does not mark."""


@dataclass(frozen=True)
class Include:
    """A file, or one section of it, that a text includes."""

    path: str  #: relative to the repository, as written
    section: str | None = None  #: the ``name`` of ``"path:name"``
    indent: str = ""  #: the indent of the ``--8<--`` line, tabs expanded

    @property
    def spec(self) -> str:
        """As written between the quotes: ``path`` or ``path:name``."""
        return self.path if self.section is None else f"{self.path}:{self.section}"


def parse_spec(spec: str) -> tuple[str, str | None]:
    """``"path"`` -> ``(path, None)``, ``"path:name"`` -> ``(path, name)``.

    >>> parse_spec("src/attention_docs/training.py:forward")
    ('src/attention_docs/training.py', 'forward')
    >>> parse_spec("docs_src/masks/causal.pycon")
    ('docs_src/masks/causal.pycon', None)
    """
    match = _TARGET.match(spec)
    path = match["path"].strip()
    if not path:
        raise MissingFileError(f"an include names no file: {spec!r}")
    if match["lines"]:
        raise SnippetError(
            f"{spec}: line ranges are not read by attention_book.snippets "
            "(include a section, path:name)"
        )
    return path, match["section"]


def _unescape(line: str, marker: re.Match) -> str:
    """A section marker after a ``;``, as text: one ``;`` fewer."""
    return (
        marker["pre"]
        + marker["escape"].replace(";", "", 1)
        + marker["marker"]
        + marker["section"]
        + marker["post"]
    )


def _section_marker(line: str) -> re.Match | None:
    return SECTION_MARKER.match(line) if "8<-" in line else None


def _scan(lines: list[str], is_section: bool = False) -> Iterator[str | Include]:
    """Each line of content (a ``str``), and each ``Include`` where it goes.

    Notation (markers, paths, section markers) yields nothing. ``is_section``:
    the lines are a section of a file, whose markers are already dealt with.
    """
    block = False
    for line in lines:
        inline = INCLUDE.match(line)
        marker = inline or BLOCK_MARKER.match(line)
        if marker:
            if marker["escape"]:
                yield line.replace(";", "", 1)
                continue
            if not inline:
                block = not block
                continue
            if block:  # no inline include directly inside a block
                continue
            indent, path = inline["indent"], inline["quoted"][1:-1].strip()
        elif block:
            indent, path = re.match(r"[ \t]*", line)[0], line.strip()
            if not path:  # an empty line of a block is a blank line
                yield ""
                continue
        else:
            section = None if is_section else _section_marker(line)
            if section is None:
                yield line
            elif section["escape"]:
                yield _unescape(line, section)
            continue
        if path.startswith(";"):  # left out
            continue
        path, name = parse_spec(path)
        yield Include(path, name, indent.expandtabs(TAB_LENGTH))


def includes(text: str) -> list[Include]:
    """What ``text`` includes, in order (not what its included files include).

    >>> includes('```pycon\\n--8<-- "docs_src/a.pycon"\\n    --8<-- "b.py:x"\\n```')
    ... # doctest: +NORMALIZE_WHITESPACE
    [Include(path='docs_src/a.pycon', section=None, indent=''),
     Include(path='b.py', section='x', indent='    ')]
    """
    return [item for item in _scan(text.split("\n")) if isinstance(item, Include)]


def find_file(path: str, root: Path = ROOT) -> Path:
    """The file an include names: ``path`` under ``root``, which it may not leave."""
    base = os.path.abspath(root)
    file = os.path.abspath(os.path.join(base, path))
    inside = file.startswith(base if base.endswith(os.sep) else base + os.sep)
    if not (inside and os.path.isfile(file)):
        raise MissingFileError(f"the included file {path} does not exist under {root}")
    return Path(file)


def read_lines(file: Path) -> list[str]:
    """The file's lines; one that ends with a newline ends with an empty line."""
    text = file.read_text(encoding="utf-8")
    return text.split("\n") if text else []


def section_lines(lines: list[str], name: str, where: str = "the file") -> list[str]:
    """The lines between ``--8<-- [start:name]`` and ``--8<-- [end:name]``.

    Markers of other sections inside it are left out. The first start marker
    counts (another start is skipped); an end marker before any start ends
    the search.
    """
    found, inside, out = False, False, []
    for line in lines:
        marker = _section_marker(line)
        if marker and marker["escape"]:
            line = _unescape(line, marker)
        elif marker and marker["name"] == name:
            if marker["type"] == "start":  # (a second start is skipped)
                found = inside = True
                continue
            break  # the end, or an end (or START) before the start
        elif marker:
            continue  # another section's marker
        if inside:
            out.append(line)
    if not found:
        raise MissingSectionError(
            f"{where} has no section {name!r} (a line --8<-- [start:{name}])"
        )
    return out


def expand_lines(lines: list[str], root: Path = ROOT) -> list[str]:
    """The lines with every include in place, as ``pymdownx.snippets`` puts them."""
    return _expand(lines, root, seen=set())


def _expand(
    lines: list[str], root: Path, seen: set[Path], is_section: bool = False
) -> list[str]:
    out: list[str] = []
    for item in _scan(lines, is_section):
        if isinstance(item, str):
            out.append(item)
            continue
        file = find_file(item.path, root)
        if file in seen:  # a file inside itself: left out
            continue
        included = read_lines(file)
        if included and item.section is not None:
            included = section_lines(included, item.section, item.path)
        seen.add(file)
        try:
            nested = _expand(included, root, seen, item.section is not None)
        finally:
            seen.remove(file)
        out += [item.indent + line for line in nested]
    return out


def expand(text: str, root: Path = ROOT) -> str:
    """``text`` with every include in place, as ``pymdownx.snippets`` puts them.

    >>> expand('--8<-- "LICENSE"').splitlines()[0]
    'MIT License'
    """
    return "\n".join(expand_lines(text.split("\n"), root))
