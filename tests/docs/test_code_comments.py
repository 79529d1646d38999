"""The code a page shows speaks in symbols; its explanations are the page's.

An example is written once and shown in every edition, so whatever its code
says in words would be English on a Japanese or Chinese page. The
explanation of a line belongs to the prose around the block (or, rarely, to
a Material code annotation), in the page's language; the code keeps only
comments and docstrings that are written in symbols.

**The rule.** A comment (the text after ``#``) or a docstring in code shown
on a page (a fenced ``pycon``/``python`` block of ``docs/ja`` or
``docs/zh-Hant``, with its ``--8<--`` includes expanded) may hold:

- numbers and punctuation, operators and arrows: ``(n, d) @ (d, d) -> (n, d)``,
  ``= 0.01``, ``<=``, ``...``;
- one-letter symbols (``A``, ``Q``, ``h``, ``i``) and symbols with an
  index, a digit or a capital inside (``d_k``, ``z_11``, ``W_Q``, ``dL/dZ``,
  ``dQ``, ``PE``, ``float32``, ``1e-8``) and differentials (``ds``, ``dt``);
- names of the code in the same block (``# x @ w_q``, ``# mask: (2, 3, 3)``)
  and Python's ``True``, ``False``, ``None``; a few names of the package's
  arguments and methods and of Python's functions, ``API_NAMES`` (``scale``,
  ``len``, ``save``);
- the words that formulas write: ``FORMULA_WORDS`` below (``softmax``,
  ``sqrt``, ``exp``, ``log``, ``max``, ``sum``, ``diag``, ``rank``, the boxes of
  the paper's Figure 2 such as ``Concat``, Greek letters such as ``sigma``),
  and the names of dimensions in a shape, ``DIMENSIONS``
  (``(batch, heads, n, d_k)``).

Any other word is prose, and fails: ``# n_k = 3 keys`` does
(``# n_k = 3`` does not). The test reports each one with its page, its block
and the included file it comes from.

The same rule holds for the words a plot script draws when it runs alone
(the labels of its ``if __name__ == "__main__":`` block): a chapter's
notebook draws the plot with them, in every edition, so they are symbols
(``"j"``, ``"head_1"``, ``"softmax(q K^T)"``); the page's figure draws the
edition's words of ``docs_src/plots/labels.yml``. And it holds for the text an
example prints beside its numbers (``f"n = {n}: cached {cached:,}"``), but
for units: ``UNITS`` (``bytes``, ``MiB``).
"""

from __future__ import annotations

import ast
import io
import keyword
import re
import tokenize
from pathlib import Path

import pytest

from attention_book import snippets

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
EDITIONS = ("ja", "zh-Hant")
PAGES = sorted(p for edition in EDITIONS for p in (DOCS / edition).glob("*.md"))
LANGUAGES = ("pycon", "python", "py")

#: Function names that formulas write as words.
FORMULA_WORDS = frozenset(
    "softmax sqrt exp log max min sum mean median diag rowsum argmax logsumexp lse "
    "norm var sin cos tanh relu ln Var rank sign argmin ceil inf nan "
    # the boxes of the paper's Figure 2
    "Attention Concat Linear Scale Mask "
    # Greek letters, spelled as the formulas' letters
    "alpha beta gamma delta eps epsilon theta lambda mu pi sigma tau omega phi "
    # the feature map elu(x) + 1 of linear attention
    "elu "
    # the index of a position in PE(pos, 2i)
    "pos "
    # the group of query head i in grouped-query attention (kv-cache.md#mqa-gqa)
    "grp".split()
)
#: Names of dimensions in shapes: ``(batch, heads, n, d_k)``.
DIMENSIONS = frozenset({"batch", "heads", "chunk", "vocab"})
#: Names of the package's arguments and methods and of Python's functions that
#: a comment or a label may use as symbols: ``scale = 1 / sqrt(d_k)``,
#: ``len(cache)``, ``tuned.save(..., dtype="float16")``.
API_NAMES = frozenset({"scale", "len", "save", "dtype"})
#: Units that a printed line may carry after its number.
UNITS = frozenset({"bytes", "MiB", "GiB"})
#: Python's constants, which a comment may name as the code does.
CONSTANTS = frozenset({"True", "False", "None"})
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: A differential: ``dx``, ``ds``, ``dt`` (``dQ`` has its capital).
DIFFERENTIAL = re.compile(r"d[a-z]")
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`]*)$")


def fenced_blocks(text: str):
    """(line, info, body) of every fenced block, its indent removed."""
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        match = FENCE.match(line)
        if fence is None:
            if match:
                fence, start, body = match, number, []
            continue
        if (
            match
            and not match["info"].strip()
            and match["fence"][0] == fence["fence"][0]
            and len(match["fence"]) >= len(fence["fence"])
        ):
            yield start, fence["info"].strip(), "\n".join(body)
            fence = None
            continue
        indent = len(fence["indent"])
        body.append(line[indent:] if not line[:indent].strip() else line)


def source_of(info: str, text: str) -> str:
    """The Python source of a block: a session's statements, or the script."""
    if info.split()[0] != "pycon" and not text.lstrip().startswith(">>>"):
        return text
    lines = []
    for line in text.split("\n"):
        stripped = line.lstrip()
        if stripped[:4] in (">>> ", "... ") or stripped in (">>>", "..."):
            lines.append(stripped[4:])
    return "\n".join(lines)


def names_of(source: str) -> set[str]:
    """The names the code defines or uses. Python's keywords are not names: a
    comment's "from", "in" or "and" is an English word even if the code has
    ``from attention_docs import …``."""
    found = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(source + "\n").readline):
            if token.type == tokenize.NAME and not (
                keyword.iskeyword(token.string) or keyword.issoftkeyword(token.string)
            ):
                found.add(token.string)
    except (tokenize.TokenError, SyntaxError):
        pass
    return found


def comments_of(source: str) -> list[tuple[int, str]]:
    """(line, text) of every comment and docstring of ``source``."""
    found = []
    tokens = tokenize.generate_tokens(io.StringIO(source + "\n").readline)
    for token in tokens:
        if token.type == tokenize.COMMENT:
            found.append((token.start[0], token.string[1:].strip()))
    tree = ast.parse(source)
    for node in ast.walk(tree):
        kinds = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        if isinstance(node, kinds) and ast.get_docstring(node):
            found.append((node.body[0].lineno, ast.get_docstring(node)))
    return sorted(found)


def prose_words(comment: str, names: set[str] = frozenset()) -> list[str]:
    """The words of ``comment`` that the rule does not allow."""
    return [
        word
        for word in WORD.findall(comment)
        if not (
            len(word) == 1
            or "_" in word
            or any(c.isdigit() or c.isupper() for c in word[1:])
            or word in names
            or word in FORMULA_WORDS
            or word in CONSTANTS
            or word in DIMENSIONS
            or word in API_NAMES
            or DIFFERENTIAL.fullmatch(word)
        )
    ]


def prose_comments(page: Path) -> list[str]:
    """Every comment of the code ``page`` shows that holds prose, described."""
    found = []
    for line, info, body in fenced_blocks(page.read_text(encoding="utf-8")):
        if not info or info.split()[0] not in LANGUAGES:
            continue
        source = source_of(info, snippets.expand(body))
        names = names_of(source)
        origin = ", ".join(i.spec for i in snippets.includes(body)) or "the page"
        for _, comment in comments_of(source):
            words = prose_words(comment, names)
            if words:
                found.append(f"{page.name}:{line} ({origin}): {comment!r}")
    return found


def printed_text(source: str) -> list[str]:
    """The literal text of every ``print(...)`` call of ``source``: its
    strings and the literal parts of its f-strings."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "print"
        ):
            for part in ast.walk(node):
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    found.append(part.value)
    return found


def prose_printed(page: Path) -> list[str]:
    """Every printed text of the code ``page`` shows that holds prose."""
    found = []
    for line, info, body in fenced_blocks(page.read_text(encoding="utf-8")):
        if not info or info.split()[0] not in LANGUAGES:
            continue
        source = source_of(info, snippets.expand(body))
        names = names_of(source) | UNITS
        origin = ", ".join(i.spec for i in snippets.includes(body)) or "the page"
        for text in printed_text(source):
            if prose_words(text, names):
                found.append(f"{page.name}:{line} ({origin}): {text!r}")
    return found


def page_id(path: Path) -> str:
    return path.relative_to(DOCS).as_posix()


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_code_on_a_page_explains_nothing_in_english(page: Path) -> None:
    found = prose_comments(page)
    assert not found, (
        "explanations in English in code shown on the page; write them in the "
        "page's prose, or as symbols (shapes, formulas):\n" + "\n".join(found)
    )


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_what_the_code_prints_is_labelled_in_symbols(page: Path) -> None:
    found = prose_printed(page)
    assert not found, (
        "English words printed beside the numbers; label them with symbols or "
        "the code's names:\n" + "\n".join(found)
    )


PLOTS = sorted((ROOT / "docs_src" / "plots").glob("*.py"))


def standalone_labels(source: str) -> list[str]:
    """The strings of a plot script's ``if __name__ == "__main__":`` block."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
            return [
                part.value
                for part in ast.walk(node)
                if isinstance(part, ast.Constant) and isinstance(part.value, str)
            ]
    raise AssertionError('no `if __name__ == "__main__":` block')


@pytest.mark.parametrize("script", PLOTS, ids=lambda p: p.name)
def test_a_plot_run_alone_draws_symbols(script: Path) -> None:
    """The labels a notebook draws the plot with, in every edition."""
    source = script.read_text(encoding="utf-8")
    names = names_of(source)
    keys = {
        key.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Dict)
        for key in node.keys
        if isinstance(key, ast.Constant)
    }
    words = {
        label: prose_words(label, names)
        for label in standalone_labels(source)
        if label not in keys
    }
    assert not {label: w for label, w in words.items() if w}


@pytest.mark.parametrize(
    "comment",
    [
        "(n, d) @ (d, d) -> (n, d)",
        "S = Q K^T / sqrt(d_k): (3, 4) @ (4, 3) -> (3, 3)",
        "dL/dZ = G",
        "n_q = 2, n_k = 3",
        "e^(m - m'): 0",
        "float64, 1e-8",
        "x @ w_q",
    ],
)
def test_symbols_are_allowed(comment: str) -> None:
    assert prose_words(comment, {"x", "w_q"}) == []


@pytest.mark.parametrize(
    ("comment", "words"),
    [
        ("n_k = 3 keys", ["keys"]),
        ("row by row", ["row", "by", "row"]),
        ("K and V", ["and"]),
        ("numpy counts from 0", ["numpy", "counts", "from"]),
    ],
)
def test_words_are_prose(comment: str, words: list[str]) -> None:
    assert prose_words(comment) == words


def test_a_keyword_of_the_code_is_still_a_word_in_a_comment() -> None:
    source = "from attention_docs import softmax\nq = x @ w_q  # Q from X\n"
    names = names_of(source)
    assert {"x", "w_q", "softmax"} <= names
    assert "from" not in names and "import" not in names
    assert prose_words("head_1: Q from X, K, V from Y", names) == ["from", "from"]
    assert prose_words("head_1: Q = X W_Q;  K, V = Y W_K, Y W_V", names) == []


def test_comments_and_docstrings_are_read() -> None:
    source = 'def f():\n    """Twice x."""\n    return 2 * x  # (n,)\n'
    assert comments_of(source) == [(2, "Twice x."), (3, "(n,)")]


def test_a_session_is_read_without_prompts_and_output() -> None:
    text = ">>> x = 1  # one\n>>> for i in []:\n...     pass\n...\n1 # not code\n"
    assert source_of("pycon", text) == "x = 1  # one\nfor i in []:\n    pass\n"
