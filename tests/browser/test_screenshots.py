"""A full-page screenshot of one page per language, kept as a test artefact.

The PNGs land in test-artifacts/ (gitignored; CI uploads them) for a person
to look at. The test also asks Chromium which fonts drew the page's text:
the CJK text must come from a CJK font, not from boxes of a fallback.
"""

from __future__ import annotations

import struct

import pytest

from ..site.helpers import LANGUAGES
from .conftest import ARTIFACTS, wait_for_math

#: Pictures for people to look at: the exhaustive tier takes them.
pytestmark = pytest.mark.exhaustive

PAGE = "scaled-dot-product"
#: Noto's CJK variants that would draw the language's Han characters with
#: another region's glyph shapes: book.css names the right fonts per language.
WRONG_VARIANTS = {
    "ja": ("CJK SC", "CJK TC", "CJK HK", "CJK KR"),
    "zh-Hant": ("CJK JP", "CJK SC", "CJK KR"),
    "zh-Hans": ("CJK JP", "CJK TC", "CJK HK", "CJK KR"),
}
WIDTH = 1280
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's header (its IHDR chunk)."""
    assert data[:8] == PNG_SIGNATURE, "not a PNG"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def fonts_drawing(page, selector: str) -> dict[str, int]:
    """The fonts Chromium used for the text of ``selector``: name -> glyphs."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]})
    finally:
        cdp.detach()
    return {font["familyName"]: font["glyphCount"] for font in fonts["fonts"]}


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_screenshot_of_one_page(open_page, language):
    page, watch = open_page(
        f"{language}/{PAGE}/",
        color_scheme="light",
        viewport={"width": WIDTH, "height": 900},
    )
    wait_for_math(page)
    page.evaluate("document.fonts.ready.then(() => true)")

    for selector in ("article h1", "article p"):
        fonts = fonts_drawing(page, selector)
        assert any("CJK" in name for name in fonts), (
            f"{language}: {selector} drawn without a CJK font: {fonts}"
        )
        wrong = [n for n in fonts if any(v in n for v in WRONG_VARIANTS[language])]
        assert not wrong, f"{language}: {selector} drawn with {wrong}"

    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{language}-{PAGE}.png"
    path.unlink(missing_ok=True)
    page.screenshot(path=path, full_page=True)

    data = path.read_bytes()
    width, height = png_size(data)
    assert width == WIDTH
    assert height > 3 * 900, f"{path.name}: {height} px high, not the full page"
    assert len(data) > 100_000, f"{path.name}: only {len(data)} bytes"
    assert not watch.problems(), watch.problems()
