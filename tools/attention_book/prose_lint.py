"""The prose linters of the two hand-written editions, as the ecosystem uses them.

- Japanese (``docs/ja``): textlint with textlint-rule-preset-ja-technical-writing,
  the spacing rule between Japanese and Latin text, and the glossary's term rules
  (textlint-rule-prh); configuration ``lint/textlint.ja.yml``.
- Traditional Chinese (``docs/zh-Hant``): zhlint (spaces and punctuation between
  CJK and Latin text; ``lint/zhlint.yml``) and textlint with the glossary's term
  rules (``lint/textlint.zh-Hant.yml``).

The term rules are made at every run from ``docs_src/glossary.yml`` (each
entry's ``avoid`` words, ``glossary.prh_rules``) into a temporary folder: the
glossary stays their one source and nothing generated is committed.

The figures' words (the ``ja:`` and ``zh-Hant:`` entries of
``docs_src/diagrams/labels.yml`` and ``docs_src/plots/labels.yml``: captions,
alt texts and drawn labels) are checked against the same term rules
(``label_findings``), in Python: a rule is a literal word, as prh matches it,
and a finding names the line of the YAML file. The Japanese words also keep
the pages' space between Japanese and Latin text (``JA_LATIN_TOUCH``).

The linters read a *lint view* of each page (``lint_view``), line for line the
same as the page, so that a finding's line is the page's: code blocks, maths,
``--8<--`` includes, HTML lines and attribute lists ``{ #id }`` are blanked or
stood in for, and the bodies of admonitions are taken out of their indentation
(Markdown would read them as code) with the title as a heading. One node
process runs per linter, over every page.

``python -m attention_book.prose_lint`` (``make lint``) prints every finding
as ``file:line: rule: message`` and exits 1 if there is one.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path

import yaml

from . import ROOT, load_yaml, numbering
from .glossary import LANGUAGES, prh_rules, term_rules

DOCS = ROOT / "docs"
#: The words of the figures drawn at build time, per language.
LABELS = [ROOT / "docs_src" / kind / "labels.yml" for kind in ("diagrams", "plots")]
CONFIG = ROOT / "lint"
NODE_BIN = ROOT / "node_modules" / ".bin"

#: Inline maths, \( ... \), stands in as one word. In Japanese, the
#: noun 式: a formula reads as a noun, and textlint's rules that parse the
#: sentence (max-ten, no-doubled-joshi) then read "式、式、式 の成分" as a
#: list of nouns (a Latin letter would trip ja-unnatural-alphabet). In
#: Chinese, inline code: zhlint leaves it alone and checks the spaces around
#: it, as the book spaces a formula like a Latin word.
MATH_STAND_IN = {"ja": "式", "zh-Hant": "`x`"}

#: "### 3. ..." numbers an exercise: the number is a label, not a sentence.
HEADING_NUMBER = re.compile(r"^(#{1,6}\s+)\d+(?:\.\d+)*\.\s+")
#: A sentence that flows into a displayed formula ends there.
SENTENCE_END = tuple("。．.！？!?：:")
FENCE = re.compile(r"^\s*(```|~~~)")
ADMONITION = re.compile(
    r'^(\s*)(?:!!!|\?\?\?\+?)\s+[\w-]+(?:\s+[\w-]+)*(?:\s+"(.*)")?\s*$'
)
# Maths is \( \) inline and \[ \] displayed; $ is a dollar sign (docs-dev/style.md).
DISPLAY_OPEN = re.compile(r"^\s*(\\\[)")
INLINE_MATH = re.compile(r"\\\((?:\\.|[^\\])*?\\\)")
ATTR_LIST = re.compile(r"\s*\{\s*[#.:][^}\n]*\}")
HTML_TAG = re.compile(r"<[^>\n]*>")
#: Chinese text: inline code and link targets, which no rule reads, and the
#: Latin runs among the rest (below).
PROTECTED = re.compile(r"`[^`\n]*`|\]\([^)\s]*\)")
LATIN = "A-Za-z\u00c0-\u024f"  # with the accented letters of names (Łukasz, Ré)
LATIN_RUN = re.compile(
    r'"[^"\[\]`]*"|\((?:[A-Za-z]|[0-9]{1,3})\)'
    rf"|[{LATIN}][{LATIN}0-9 .,&'’:/*-]*(?:\([{LATIN}0-9 .,&]*\))?[{LATIN}0-9)]?"
)
CJK_CHARS = "\u3000-\u9fff\uf900-\ufaff\uff00-\uffef"
CJK = re.compile(f"[{CJK_CHARS}]")
#: An English title quoted as a link, "[Layer Normalization](https://…)".
QUOTED_LINK = re.compile(r'"\[([^\]"`]*)\]\([^)\s]*\)"')
#: A number with its thousands grouped (4,199,936) holds no comma of a sentence.
GROUPED_NUMBER = re.compile(r"(?<![\d,.])\d{1,3}(?:,\d{3})+(?![\d,])")
#: An en dash or hyphen joining two Chinese words (編碼器–解碼器).
CJK_DASH = re.compile(f"(?<=[{CJK_CHARS}])[–-](?=[{CJK_CHARS}])")
#: A link with no text to a numbered figure, equation or section, of this
#: page or another: [](#fig-...) reads "図 3.2", [](page.md#eq-...) "式 (3.1)",
#: [](page.md#loss) "14.4 節" in the built page (attention_book.numbering).
NUMBERED_REFERENCE = re.compile(r"\[\]\(((?:[\w-]+\.md)?#(?:(fig|eq)-)?[^)\s]*)\)")


@dataclass(frozen=True)
class Finding:
    path: str  # relative to the repository, e.g. docs/ja/softmax.md
    line: int
    column: int
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.rule}: {self.message}"


def lint_view(markdown: str, language: str) -> str:
    """The page's prose for the linters, with the page's line numbers."""
    out: list[str] = []
    fence: str | None = None  # the open fence's marker
    display = None  # the closing of an open display maths block
    admonitions: list[int] = []  # indentations of the open admonitions
    lines = markdown.split("\n")
    if lines[0] == "---" and "---" in lines[1:]:  # YAML front matter
        end = lines.index("---", 1)
        out, lines = [""] * (end + 1), lines[end + 1 :]
    for line in lines:
        stripped = line.strip()
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            out.append("")
            continue
        if display is not None:
            if stripped.endswith(display):
                display = None
            out.append("")
            continue
        indent = len(line) - len(line.lstrip(" "))
        if stripped:
            while admonitions and indent < admonitions[-1] + 4:
                admonitions.pop()
        depth = 4 * len(admonitions)
        body = line[depth:] if line[:depth].strip() == "" else line.lstrip(" ")
        if match := FENCE.match(line):
            fence = match[1]
            out.append("")
            continue
        if match := DISPLAY_OPEN.match(line):
            closing = "\\]"
            rest = stripped[len(match[1]) :]
            if not rest.endswith(closing):
                display = closing
            # "…連鎖律から \[ … \] となります。": the formula is part of the
            # sentence, which the lint view ends with the formula's stand-in.
            before = next(
                (i for i in range(len(out) - 1, -1, -1) if out[i].strip()), None
            )
            if (
                before is not None
                and not out[before].lstrip().startswith(("#", "|"))
                and not out[before].endswith(SENTENCE_END)
            ):
                joint = "" if out[before].endswith(tuple("、，；（「")) else " "
                out[before] += f"{joint}{MATH_STAND_IN[language]}。"
            out.append("")
            continue
        if match := ADMONITION.match(line):
            admonitions.append(indent)
            title = match[2] or ""
            # The title as a heading: a heading ends without 。.
            out.append(f"###### {title}" if title.strip() else "")
            continue
        if stripped.startswith(("--8<--", "<!--", "![")):
            out.append("")
            continue
        if stripped.startswith("<"):
            body = HTML_TAG.sub("", body)
        body = INLINE_MATH.sub(MATH_STAND_IN[language], body)
        body = NUMBERED_REFERENCE.sub(
            lambda m: f"[{_reference_text(m[2], language)}]({m[1]})", body
        )
        body = ATTR_LIST.sub("", body)
        body = HEADING_NUMBER.sub(r"\1", body)
        body = _latin_as_code(body, language)
        out.append(body.rstrip())
    return "\n".join(out)


def _reference_text(kind: str | None, language: str) -> str:
    """What a reference to a numbered figure, equation or section reads in
    the book."""
    word = {"fig": "figure", "eq": "equation", None: "section"}[kind]
    return numbering.WORDS[language][word].format("3.1")


def _latin_as_code(text: str, language: str) -> str:
    """A line with each Latin phrase that holds punctuation as code.

    An English phrase or citation in Chinese or Japanese prose keeps its own
    punctuation
    (Vaswani et al. (2017), Rabe & Staats, 2021, "We suspect"); zhlint reads
    a half-width comma or period between two words as Chinese punctuation to
    widen, textlint's max-comma counts its commas as the sentence's. As
    inline code, the phrase is left alone and zhlint still checks
    the spaces around it, as around any Latin word. A single word with a
    period after it (NumPy.) is not a phrase: its period is still checked.
    A line with no Chinese or Japanese at all (a reference's authors and
    title) is English: left out (zhlint fails on some of them).
    An English title quoted as a link, "[title](url)", is English too. Labels
    of equations and cases, (5), (a), keep their half-width parentheses. An
    en dash joining two Chinese words (編碼器–解碼器, 柯西–舒瓦茲) takes no
    spaces in Taiwan's usage: zhlint reads it as a Latin character, so the
    view shows it as a Chinese one.
    """
    if not CJK.search(text) and not text.lstrip().startswith("|"):  # not a table
        return ""

    def phrase(match: re.Match) -> str:
        run = match[0].rstrip(" ")
        tail = match[0][len(run) :]
        label = run.startswith(('"', "("))  # "We suspect", (a), (5)
        if label or (" " in run.strip() and re.search(r"[.,&():]", run)):
            return f"`{run.replace('`', '')}`{tail}"
        return match[0]

    text = QUOTED_LINK.sub(lambda m: m[0] if CJK.search(m[1]) else f"`{m[1]}`", text)
    if language.startswith("zh"):
        text = CJK_DASH.sub("與", text)
    text = GROUPED_NUMBER.sub(lambda m: m[0].replace(",", ""), text)
    parts = PROTECTED.split(text)
    kept = PROTECTED.findall(text)
    out = [LATIN_RUN.sub(phrase, parts[0])]
    for code, part in zip(kept, parts[1:], strict=True):
        out += [code, LATIN_RUN.sub(phrase, part)]
    return "".join(out)


def pages(language: str) -> list[Path]:
    # The glossary page's table is generated from glossary.yml (stages/glossary.py).
    return sorted((DOCS / language).glob("*.md"))


def _write_views(
    language: str, folder: Path, only: set[str] | None = None
) -> dict[str, str]:
    """Each page's lint view in ``folder``; view path -> the page's path."""
    names = {}
    target = folder / language
    target.mkdir(parents=True)
    for page in pages(language):
        if only is not None and page.name not in only:
            continue
        view = target / page.name
        view.write_text(lint_view(page.read_text("utf-8"), language), "utf-8")
        names[str(view)] = page.relative_to(ROOT).as_posix()
    return names


def _textlint_config(language: str, folder: Path) -> Path:
    """The committed textlint configuration with the generated prh dictionary."""
    config = load_yaml((CONFIG / f"textlint.{language}.yml").read_text("utf-8"))
    dictionary = folder / f"prh.{language}.yml"
    dictionary.write_text(
        yaml.safe_dump(prh_rules(language), allow_unicode=True), encoding="utf-8"
    )
    config.setdefault("rules", {})["prh"] = {"rulePaths": [str(dictionary)]}
    path = folder / f"textlintrc.{language}.json"
    path.write_text(json.dumps(config, ensure_ascii=False), "utf-8")
    return path


def _start_textlint(language: str, folder: Path, views: list[str]) -> subprocess.Popen:
    config = _textlint_config(language, folder)
    return subprocess.Popen(
        [
            str(NODE_BIN / "textlint"),
            "--config",
            str(config),
            "--format",
            "json",
            "--no-color",
            *views,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )


def _textlint_findings(
    process: subprocess.Popen, names: dict[str, str]
) -> list[Finding]:
    stdout, stderr = process.communicate()
    try:
        results = json.loads(stdout)
    except json.JSONDecodeError:
        message = f"textlint failed ({process.returncode}):\n{stderr}{stdout}"
        raise RuntimeError(message) from None
    findings = []
    for result in results:
        lines = Path(result["filePath"]).read_text("utf-8").split("\n")
        for message in result["messages"]:
            line, column = message["line"], message["column"]
            text = lines[line - 1] if line <= len(lines) else ""
            context = text[max(0, column - 9) : column + 8]
            findings.append(
                Finding(
                    names[result["filePath"]],
                    line,
                    column,
                    f"textlint/{message['ruleId']}",
                    # The first line says it; the rest explains the rule.
                    message["message"].strip().split("\n")[0]
                    + (f": 「{context}」" if context.strip() else ""),
                )
            )
    return findings


def _start_zhlint(folder: Path, views: list[str]) -> subprocess.Popen:
    config = load_yaml((CONFIG / "zhlint.yml").read_text("utf-8"))
    request = folder / "zhlint.json"
    request.write_text(json.dumps({"config": config, "files": views}), "utf-8")
    return subprocess.Popen(
        ["node", str(CONFIG / "zhlint.mjs"), str(request)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )


def _zhlint_findings(process: subprocess.Popen, names: dict[str, str]) -> list[Finding]:
    stdout, stderr = process.communicate()
    if process.returncode:
        raise RuntimeError(f"zhlint failed ({process.returncode}):\n{stderr}{stdout}")
    findings = []
    for result in json.loads(stdout):
        text = Path(result["file"]).read_text("utf-8")
        lines, fixed = text.split("\n"), result.get("result", text).split("\n")
        for validation in result["validations"]:
            index = validation["index"]
            line = text.count("\n", 0, index) + 1
            column = index - (text.rfind("\n", 0, index) + 1) + 1
            where = ""
            if validation["name"] != "crash" and len(fixed) == len(lines):
                where = _change(lines[line - 1], fixed[line - 1], column)
            findings.append(
                Finding(
                    names[result["file"]],
                    line,
                    column,
                    f"zhlint/{validation['name']}",
                    f"{validation['message']}{where}",
                )
            )
    return findings


def _change(line: str, fixed: str, column: int) -> str:
    """': 「old」 -> 「new」', the change zhlint would make to ``line`` nearest
    to ``column`` (zhlint's positions can be off by a link's address)."""
    changes = [
        op
        for op in SequenceMatcher(None, line, fixed, autojunk=False).get_opcodes()
        if op[0] != "equal"
    ]
    if not changes:
        return ""
    _, i1, i2, j1, j2 = min(changes, key=lambda op: abs(op[1] - (column - 1)))
    before = line[max(0, i1 - 6) : i2 + 6]
    after = fixed[max(0, j1 - 6) : j2 + 6]
    return f": 「{before}」 -> 「{after}」"


def _scalars(node: yaml.Node) -> list[yaml.ScalarNode]:
    if isinstance(node, yaml.ScalarNode):
        return [node]
    if isinstance(node, yaml.SequenceNode):
        return [s for item in node.value for s in _scalars(item)]
    if isinstance(node, yaml.MappingNode):
        return [s for _, value in node.value for s in _scalars(value)]
    return []


#: Where Japanese text meets a Latin letter or a digit with no space between
#: them (「位置のone-hot」): the pages' rule (ja-space-between-half-and-full-width,
#: lint/textlint.ja.yml) for the figures' words, which textlint does not read.
JA_LATIN_TOUCH = re.compile(
    r"(?<=[\u3040-\u30ff\u4e00-\u9fff])(?=[A-Za-z0-9])"
    r"|(?<=[A-Za-z0-9])(?=[\u3040-\u30ff\u4e00-\u9fff])"
)


def label_findings(
    languages: tuple[str, ...] = LANGUAGES, files: list[Path] | None = None
) -> list[Finding]:
    """The glossary's term rules over the figures' words: every avoided word
    in a ``ja:`` or ``zh-Hant:`` string of the labels files (a figure's
    caption, alt text and drawn labels), at its line in the file; and in a
    ``ja:`` string, every place where Japanese text meets a Latin letter or a
    digit without the space the pages write there (:data:`JA_LATIN_TOUCH`)."""
    findings = []
    for language in languages:
        rules = [
            (word, expected)
            for expected, words in term_rules(language)
            for word in words
        ]
        spacing = JA_LATIN_TOUCH if language == "ja" else None
        for path in files if files is not None else LABELS:
            text = path.read_text("utf-8")
            root = yaml.compose(text, Loader=yaml.SafeLoader)
            for _, figure in root.value if root is not None else []:
                for key, value in getattr(figure, "value", []):
                    if key.value != language:
                        continue
                    for scalar in _scalars(value):
                        for word, expected in rules:
                            for match in re.finditer(re.escape(word), scalar.value):
                                message = f"{word} => {expected}"
                                findings.append(
                                    _label_finding(
                                        path, text, scalar, match.start(), message
                                    )
                                )
                        if spacing is None:
                            continue
                        for match in spacing.finditer(scalar.value):
                            message = "a space between Japanese and Latin text"
                            findings.append(
                                _label_finding(
                                    path,
                                    text,
                                    scalar,
                                    match.start(),
                                    message,
                                    "ja-space",
                                )
                            )
    return sorted(findings, key=lambda f: (f.path, f.line, f.column, f.rule))


def _label_finding(
    path: Path,
    text: str,
    scalar: yaml.ScalarNode,
    index: int,
    message: str,
    rule: str = "glossary-terms",
) -> Finding:
    """A finding at ``index`` of ``scalar``'s text: its line in the file (exact
    for a one-line or a literal block string, the string's first line for a
    folded one)."""
    start = scalar.start_mark
    line, column = start.line + 1, start.column + 1 + index
    if scalar.style in ('"', "'"):
        column += 1
    elif scalar.style == "|":
        before = scalar.value[:index]
        line += 1 + before.count("\n")
        in_file = text.split("\n")[line - 1]
        indent = len(in_file) - len(in_file.lstrip(" "))
        column = indent + index - (before.rfind("\n") + 1) + 1
    try:
        name = path.relative_to(ROOT).as_posix()
    except ValueError:
        name = path.as_posix()
    return Finding(name, line, column, rule, message)


def missing_tools() -> str | None:
    """Why the linters cannot run here, or None."""
    if not shutil.which("node"):
        return "node is not installed"
    for tool in ("textlint", "zhlint"):
        if not (NODE_BIN / tool).exists():
            return (
                f"{NODE_BIN / tool} is missing: run `npm ci` in {ROOT} "
                "(make setup does; a node_modules linked from an older "
                "checkout lacks the linters)"
            )
    return None


def lint(
    languages: tuple[str, ...] = LANGUAGES, only: set[str] | None = None
) -> list[Finding]:
    """Every finding of every linter over the pages of ``languages`` (only
    the pages named in ``only``, file names such as masks.md, if given), and
    of the term rules over the figures' words (unless ``only`` leaves out
    ``labels.yml``)."""
    with tempfile.TemporaryDirectory(prefix="prose-lint-") as tmp:
        folder = Path(tmp)
        names: dict[str, str] = {}
        running = []
        for language in languages:
            views = _write_views(language, folder, only)
            if not views:
                continue
            names.update(views)
            running.append(
                (_textlint_findings, _start_textlint(language, folder, list(views)))
            )
            if language == "zh-Hant":
                running.append((_zhlint_findings, _start_zhlint(folder, list(views))))
        findings = [
            finding
            for collect, process in running
            for finding in collect(process, names)
        ]
    if only is None or "labels.yml" in only:
        findings += label_findings(languages)
    return sorted(findings, key=lambda f: (f.path, f.line, f.column, f.rule))


def main(argv: list[str] | None = None) -> int:
    """``prose_lint [ja] [zh-Hant] [page.md ...]``: the languages (both if
    none is named) and the pages (all if none is named, with the figures'
    words; ``labels.yml`` names these) to lint."""
    args = argv if argv is not None else sys.argv[1:]
    languages = tuple(a for a in args if a in LANGUAGES) or LANGUAGES
    only = {Path(a).name for a in args if a not in LANGUAGES} or None
    if problem := missing_tools():
        print(f"prose_lint: {problem}", file=sys.stderr)
        return 2
    findings = lint(languages, only)
    for finding in findings:
        print(finding)
    if findings:
        print(f"{len(findings)} findings", file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
