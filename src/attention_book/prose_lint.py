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
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml

from . import ROOT
from .glossary import LANGUAGES, prh_rules

DOCS = ROOT / "docs"
CONFIG = ROOT / "lint"
NODE_BIN = ROOT / "node_modules" / ".bin"

#: Inline maths, \( ... \) or $...$, stands in as this inline code: the
#: linters leave code alone, and see that something sits between the words
#: (the book spaces inline maths as it spaces a Latin word).
MATH_STAND_IN = "`x`"

#: "### 3. ..." numbers an exercise: the number is a label, not a sentence.
HEADING_NUMBER = re.compile(r"^(#{1,6}\s+)\d+(?:\.\d+)*\.\s+")
#: A sentence that flows into a displayed formula ends there.
SENTENCE_END = tuple("。．.！？!?：:")
FENCE = re.compile(r"^\s*(```|~~~)")
ADMONITION = re.compile(
    r'^(\s*)(?:!!!|\?\?\?\+?)\s+[\w-]+(?:\s+[\w-]+)*(?:\s+"(.*)")?\s*$'
)
DISPLAY_OPEN = re.compile(r"^\s*(\\\[|\$\$)")
INLINE_MATH = re.compile(r"\\\((?:\\.|[^\\])*?\\\)|(?<![\\$])\$(?!\$)[^$\n]+?(?<!\\)\$")
ATTR_LIST = re.compile(r"\s*\{\s*[#.:][^}\n]*\}")
HTML_TAG = re.compile(r"<[^>\n]*>")
#: Chinese text: inline code and link targets, which no rule reads, and the
#: Latin runs among the rest (below).
PROTECTED = re.compile(r"`[^`\n]*`|\]\([^)\s]*\)")
LATIN_RUN = re.compile(
    r'"[ -~]*?"|[A-Za-z][A-Za-z0-9 .,&\'’:/-]*(?:\([A-Za-z0-9 .,&]*\))?[A-Za-z0-9)]?'
)
FIGURE_REFERENCE = re.compile(r"\[\]\((#fig-[^)\s]*)\)")
#: A figure reference [](#fig-...) reads "図 4.2" in the built page (hooks/plots.py).
FIGURE_WORD = {"ja": "図", "zh-Hant": "圖"}


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
    for line in markdown.split("\n"):
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
            closing = "\\]" if match[1] == "\\[" else "$$"
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
                out[before] += f" {MATH_STAND_IN}。"
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
        body = INLINE_MATH.sub(MATH_STAND_IN, body)
        body = FIGURE_REFERENCE.sub(rf"[{FIGURE_WORD[language]} 1.1](\1)", body)
        body = ATTR_LIST.sub("", body)
        body = HEADING_NUMBER.sub(r"\1", body)
        if language.startswith("zh"):
            body = _latin_as_code(body)
        out.append(body.rstrip())
    return "\n".join(out)


def _latin_as_code(text: str) -> str:
    """A Chinese line with each Latin phrase that holds punctuation as code.

    An English phrase or citation in Chinese prose keeps its own punctuation
    (Vaswani et al. (2017), Rabe & Staats, 2021, "We suspect"); zhlint reads
    a half-width comma or period between two words as Chinese punctuation to
    widen. As inline code, the phrase is left alone and zhlint still checks
    the spaces around it, as around any Latin word. A single word with a
    period after it (NumPy.) is not a phrase: its period is still checked.
    """

    def phrase(match: re.Match) -> str:
        run = match[0].rstrip(" ")
        tail = match[0][len(run) :]
        quoted = run.startswith('"')
        if quoted or (" " in run.strip() and re.search(r"[.,&():]", run)):
            return f"`{run.replace('`', '')}`{tail}"
        return match[0]

    parts = PROTECTED.split(text)
    kept = PROTECTED.findall(text)
    out = [LATIN_RUN.sub(phrase, parts[0])]
    for code, part in zip(kept, parts[1:], strict=True):
        out += [code, LATIN_RUN.sub(phrase, part)]
    return "".join(out)


def pages(language: str) -> list[Path]:
    # The glossary page's table is generated from glossary.yml (hooks/glossary.py).
    return sorted((DOCS / language).glob("*.md"))


def _write_views(language: str, folder: Path) -> dict[str, str]:
    """Each page's lint view in ``folder``; view path -> the page's path."""
    names = {}
    target = folder / language
    target.mkdir(parents=True)
    for page in pages(language):
        view = target / page.name
        view.write_text(lint_view(page.read_text("utf-8"), language), "utf-8")
        names[str(view)] = page.relative_to(ROOT).as_posix()
    return names


def _textlint_config(language: str, folder: Path) -> Path:
    """The committed textlint configuration with the generated prh dictionary."""
    config = yaml.safe_load((CONFIG / f"textlint.{language}.yml").read_text("utf-8"))
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
    return [
        Finding(
            names[result["filePath"]],
            message["line"],
            message["column"],
            f"textlint/{message['ruleId']}",
            message["message"].replace("\n", " "),
        )
        for result in results
        for message in result["messages"]
    ]


def _start_zhlint(folder: Path, views: list[str]) -> subprocess.Popen:
    config = yaml.safe_load((CONFIG / "zhlint.yml").read_text("utf-8"))
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
        for validation in result["validations"]:
            index = validation["index"]
            line = text.count("\n", 0, index) + 1
            column = index - (text.rfind("\n", 0, index) + 1) + 1
            context = text[max(0, index - 8) : index + 8].replace("\n", "⏎")
            findings.append(
                Finding(
                    names[result["file"]],
                    line,
                    column,
                    f"zhlint/{validation['name']}",
                    f"{validation['message']}: 「{context}」",
                )
            )
    return findings


def lint(languages: tuple[str, ...] = LANGUAGES) -> list[Finding]:
    """Every finding of every linter over the pages of ``languages``."""
    with tempfile.TemporaryDirectory(prefix="prose-lint-") as tmp:
        folder = Path(tmp)
        names: dict[str, str] = {}
        running = []
        for language in languages:
            views = _write_views(language, folder)
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
    return sorted(findings, key=lambda f: (f.path, f.line, f.column, f.rule))


def main(argv: list[str] | None = None) -> int:
    languages = tuple(argv or sys.argv[1:]) or LANGUAGES
    findings = lint(languages)
    for finding in findings:
        print(finding)
    if findings:
        print(f"{len(findings)} findings", file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
