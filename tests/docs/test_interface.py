"""The interface words of each edition, in that edition's usage.

A reader sees words that are not the book's pages: the search box, the copy
button and its "copied" message, the previous/next links of the footer, the
table of contents, the skip link, the language selector, "back to top", the
colour scheme toggle and the heading links' tooltip. Material writes most of
them from its language file (partials/languages/<language>.html, which
overrides/ may replace), the rest come from each edition's configuration.

- No English word in any edition (names such as RSS excepted).
- The Traditional edition is Taiwan's: no character that OpenCC's
  Simplified-to-Taiwan character conversion ("s2tw") would change (个, 脚),
  and none of a list of Hong Kong or mainland words (拷貝, 倉庫, 跳轉, 檢索 …;
  OpenCC's phrase conversion, s2twp, would also change words that are right
  in Taiwan: 項目 → 專案).
- The Simplified edition is the mainland's: no word that OpenCC's
  Taiwan-to-mainland conversion ("tw2sp") would change, nor one of a list of
  Taiwan words (设定, 搜寻 …).
- No Simplified word is typed by hand: the Simplified edition's words are the
  Traditional edition's, converted at build time (stages/zh_hans.py), and the
  build's code, templates and configuration hold no Simplified word but a few
  that are no conversion (``TYPED``).

tests/site/test_interface.py checks the same on the built pages.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import material
import opencc
import pytest
from mkdocs.config import load_config

from attention_book.stages import zh_hans

ROOT = Path(__file__).resolve().parents[2]
MATERIAL = Path(material.__file__).parent / "templates"
CONFIGS = {
    "ja": ROOT / "mkdocs.yml",
    "zh-Hant": ROOT / "mkdocs.zh-Hant.yml",
    "zh-Hans": ROOT / "mkdocs.zh-Hans.yml",
}

#: Keys of Material's language files that are no words a reader sees, or that
#: belong to features the book does not use (blog, RSS, reading time).
UNUSED = re.compile(r"^(language|direction|search\.config\.|blog\.|rss\.|readtime\.)")
#: English in an interface string: three Latin letters in a row, but names.
ENGLISH = re.compile(r"[A-Za-z]{3,}")
NAMES = {"RSS"}

#: Hong Kong or mainland words; Taiwan says 複製, 儲存庫, 跳到, 搜尋, 輸入,
#: 導覽, 缺少, 連結, 資料, 設定, 訊息, 預設, 頁尾.
NOT_TAIWAN = [
    "拷貝", "倉庫", "跳轉", "檢索", "鍵入", "導航", "缺失", "鏈接",
    "數據", "設置", "信息", "默認", "頁脚", "頁腳",
]  # fmt: skip
#: Taiwan words that tw2sp leaves as they are; the mainland says 设置, 搜索,
#: 文件, 数据, 屏幕, 登录, 默认, 网络, 软件, 信息.
NOT_MAINLAND = [
    "设定", "搜寻", "档案", "资料", "萤幕", "登入", "预设", "网路", "软体", "讯息",
]  # fmt: skip


@cache
def _opencc(config: str) -> opencc.OpenCC:
    return opencc.OpenCC(config)


@cache
def config(language: str):
    """The edition's configuration as its build sees it (after on_config)."""
    cfg = load_config(str(CONFIGS[language]))
    return zh_hans.on_config(cfg)


def material_keys() -> list[str]:
    english = (MATERIAL / "partials" / "languages" / "en.html").read_text("utf-8")
    return re.findall(r'^\s*"([\w.]+)":', english, re.M)


@cache
def material_strings(language: str) -> dict[str, str]:
    """Every string of Material's language file as this edition renders it
    (the book's overrides/ first, then Material's own, then its English)."""
    # The theme's own environment, as MkDocs and the PDF's print-site plugin
    # make it (the book's filters included: stages/zh_hans.py).
    env = config(language).theme.get_env()
    template = env.from_string(
        '{% import "partials/language.html" as lang with context %}{{ lang.t(key) }}'
    )
    context = {"config": {"theme": {"language": language}}}
    return {key: template.render(context, key=key) for key in material_keys()}


def interface_strings(language: str) -> dict[str, str]:
    """What a reader of the edition sees of its interface, by where it comes from."""
    strings = {
        key: value
        for key, value in material_strings(language).items()
        if not UNUSED.match(key)
    }
    cfg = config(language)
    strings["toc.permalink_title"] = cfg.mdx_configs["toc"]["permalink_title"]
    for i, palette in enumerate(cfg.theme["palette"]):
        strings[f"palette.{i}"] = palette["toggle"]["name"]
    return strings


@pytest.mark.parametrize("language", sorted(CONFIGS))
def test_the_edition_says_what_language_it_is(language: str) -> None:
    assert material_strings(language)["language"] == language


@pytest.mark.parametrize("language", sorted(CONFIGS))
def test_no_interface_word_is_english(language: str) -> None:
    english = {
        key: value
        for key, value in interface_strings(language).items()
        if set(ENGLISH.findall(value)) - NAMES or not value.strip()
    }
    assert english == {}


def test_the_heading_links_have_a_tooltip_in_each_language() -> None:
    titles = {lang: config(lang).mdx_configs["toc"] for lang in CONFIGS}
    assert all(toc["permalink"] is True for toc in titles.values())
    assert titles["zh-Hant"]["permalink_title"] == "永久連結"
    assert titles["zh-Hans"]["permalink_title"] == "永久链接"
    assert re.search("[\u3040-\u30ff]", titles["ja"]["permalink_title"])


def not_taiwanese(text: str) -> list[str]:
    found = [word for word in NOT_TAIWAN if word in text]
    if _opencc("s2tw").convert(text) != text:
        found.append(f"s2tw: {_opencc('s2tw').convert(text)}")
    return found


def not_mainland(text: str) -> list[str]:
    found = [word for word in NOT_MAINLAND if word in text]
    if _opencc("tw2sp").convert(text) != text:
        found.append(f"tw2sp: {_opencc('tw2sp').convert(text)}")
    return found


def test_the_traditional_interface_is_taiwanese() -> None:
    # Every key, the unused ones too: none should read Hong Kong or mainland.
    strings = material_strings("zh-Hant") | interface_strings("zh-Hant")
    found = {
        key: words for key, value in strings.items() if (words := not_taiwanese(value))
    }
    assert found == {}
    assert material_strings("zh-Hant")["clipboard.copy"] == "複製"
    assert material_strings("zh-Hant")["clipboard.copied"] == "已複製"


def test_the_simplified_interface_is_mainland() -> None:
    strings = material_strings("zh-Hans") | interface_strings("zh-Hans")
    found = {
        key: words for key, value in strings.items() if (words := not_mainland(value))
    }
    assert found == {}
    assert material_strings("zh-Hans")["clipboard.copy"] == "复制"
    assert material_strings("zh-Hans")["clipboard.copied"] == "已复制"


@pytest.mark.parametrize(
    ("check", "text"),
    [
        (not_taiwanese, "拷貝"),  # Material's zh-Hant copy button
        (not_taiwanese, "找到 1 个符合條件的結果"),  # a Simplified 个
        (not_taiwanese, "前往倉庫"),
        (not_mainland, "管理设定"),
        (not_mainland, "搜尋"),
    ],
)
def test_the_checks_find_the_other_usage(check, text: str) -> None:
    assert check(text) != []


def test_the_simplified_configuration_types_no_word() -> None:
    """mkdocs.zh-Hans.yml inherits the Traditional words; the hook converts them."""
    raw = load_config(str(CONFIGS["zh-Hans"]))
    traditional = config("zh-Hant")
    for key in ("site_name", "site_description", "copyright"):
        assert raw[key] == traditional[key], key
        assert config("zh-Hans")[key] == zh_hans.to_simplified(traditional[key])
    assert config("zh-Hans").copyright.endswith("代码：MIT 许可证")
    assert material_strings("zh-Hans")["search"] == "搜索"
    assert material_strings("zh-Hans")["nav"] == "导航栏"  # the phrase table's


#: Han characters (and kana, to tell Japanese apart) in a run.
HAN_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]+")
KANA = re.compile(r"[\u3040-\u30ff]")
#: Where the build's code, templates and configuration live.
SCANNED = ["overrides", "scripts", "site-root", "tools/attention_book", "mkdocs*.yml"]
#: The Simplified words that may be typed: (file, word) -> why.
GLOSSARY_STAGE = "tools/attention_book/stages/glossary.py"
GLOSSARY_STAGE_JA_1 = (GLOSSARY_STAGE, "中国語")
GLOSSARY_STAGE_JA_2 = (GLOSSARY_STAGE, "繁体字")
TYPED = {
    ("mkdocs.yml", "简体中文"): (
        "the language menu: the Simplified edition names its own language, "
        "which is no conversion of 繁體中文"
    ),
    ("scripts/pdf/cover.html", "简体中文版"): "the PDF's title page: the same",
    ("site-root/index.html", "阅读简体中文版"): "the root chooser's link: the same",
    ("scripts/pdf/cover.html", "繁体中文版"): "its comment: what a conversion gives",
    ("tools/attention_book/stages/book.py", "数式"): (
        "Japanese: the ja edition's name for a display formula's box"
    ),
    ("overrides/assets/javascripts/scrollable.js", "数式"): (
        "Japanese: its comment names the ja edition's word"
    ),
    (
        "tools/attention_book/stages/glossary.py",
        "中国語",
    ): "Japanese (中国語（繁体字）)",
    (
        "tools/attention_book/stages/glossary.py",
        "繁体字",
    ): "Japanese (中国語（繁体字）)",
    ("mkdocs.yml", "記号"): "Japanese (a comment on the Japanese search)",
    ("overrides/partials/languages/zh-Hant.html", "頁脚"): (
        "a comment: the Hong Kong words the Traditional edition avoids"
    ),
    ("overrides/partials/languages/zh-Hant.html", "个"): "the same comment",
    ("scripts/build_pdf.py", "页"): "a comment: the ideograph behind a radical",
    ("tools/attention_book/zh_hans.py", "代码"): "the docstring: what OpenCC gives",
    ("tools/attention_book/zh_hans.py", "数据"): "the docstring: what OpenCC gives",
    ("tools/attention_book/zh_hans.py", "对象"): "the docstring: what OpenCC gives",
    ("tools/attention_book/zh_hans.py", "图"): "a doctest of edition_words",
}


def simplified_words(text: str) -> set[str]:
    """The runs of Han characters of ``text`` that are Simplified (that
    OpenCC's Simplified-to-Traditional conversion changes), but Japanese."""
    return {
        run
        for run in HAN_RUN.findall(text)
        if not KANA.search(run) and _opencc("s2t").convert(run) != run
    }


def typed_simplified_words() -> dict[tuple[str, str], int]:
    found: dict[tuple[str, str], int] = {}
    for pattern in SCANNED:
        paths = ROOT.glob(pattern) if "*" in pattern else (ROOT / pattern).rglob("*")
        for path in sorted(paths):
            if not path.is_file() or path.suffix not in {
                ".py",
                ".html",
                ".yml",
                ".js",
                ".mjs",
                ".css",
                ".md",
            }:
                continue
            relative = path.relative_to(ROOT).as_posix()
            for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
                for word in simplified_words(line):
                    found.setdefault((relative, word), number)
    return found


def test_no_simplified_word_is_typed_by_hand() -> None:
    """The Simplified edition's words are converted from the Traditional ones
    (stages/zh_hans.py, attention_book.zh_hans.edition_words), never typed."""
    found = typed_simplified_words()
    typed = {
        f"{path}:{line}: {word}"
        for (path, word), line in found.items()
        if (path, word) not in TYPED
    }
    assert typed == set(), "write the Traditional words and convert them"
    assert set(TYPED) <= set(found), "TYPED lists a word that is gone"


def test_the_scan_finds_a_typed_simplified_word() -> None:
    assert simplified_words('"zh-Hans": ("简体中文", "说明章节")') == {
        "简体中文",
        "说明章节",
    }
    assert simplified_words("中国語（繁体字）の説明している節") == {"中国語", "繁体字"}
    assert simplified_words("說明的一節 ページの読み込み 図") == set()


@pytest.mark.parametrize("language", ["ja", "zh-Hans"])
def test_every_environment_of_the_theme_has_the_filters(language: str) -> None:
    """The PDF's print page is rendered in an environment that the print-site
    plugin makes itself (``theme.get_env()``), after MkDocs' own: both render
    the templates that use the book's filters (the progress bar's name)."""
    theme = config(language).theme
    for env in (theme.get_env(), theme.get_env()):
        html = env.get_template("partials/progress.html").render()
        words = {"ja": "ページの読み込み", "zh-Hans": "页面加载进度"}
        assert f'aria-label="{words[language]}"' in html
