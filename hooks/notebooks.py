"""Notebook pages (mkdocs-jupyter): links into the book, and no other host.

mkdocs-jupyter (0.26) renders a notebook with nbconvert and puts the HTML into
the page as it is, past MkDocs' Markdown processing. This hook finishes the
job for every ``*.ipynb`` page:

- **Links to the book's pages.** A Markdown cell writes a link the way a page
  does, ``[softmax](softmax.md#stability)``, which also works in a notebook
  opened next to the pages. mkdocs-jupyter leaves it pointing at the ``.md``
  source (danielfrg/mkdocs-jupyter#157). The hook rewrites it to the page's
  URL, relative to the notebook's page; a link to a file that is not in the
  book fails the build, and the anchor is handed to MkDocs, which checks it
  like any page's link (``validation: anchors``, an error with ``--strict``;
  tests/site/test_notebook_pages.py checks the built links and anchors too).
- **No request to another host.** nbconvert's template always adds MathJax
  (with mkdocs-jupyter's empty ``custom_mathjax_url``, an empty
  ``<script src="">`` plus its configuration) and a module that imports
  Mermaid from cdnjs as soon as a cell holds a Mermaid diagram. The notebooks
  hold no Mermaid, and their maths is typeset while the book is built, like
  every page's (``hooks/katex.py``). The hook removes both scripts and fails
  the build if anything else in the notebook's HTML would load from another
  host.
  (``include_requirejs`` stays off, the plugin's default, so no require.js.)
- **Permalinks.** nbconvert marks a heading's permalink ``anchor-link``; the
  hook gives it Material's ``headerlink`` class, so that it looks like the
  other pages' and the search index leaves its ``¶`` out of section titles.
- **Search.** A code cell's prompts (``In [3]:``, ``Out[3]:``), the
  "Copied!" notice of its copy button and the hidden copy of its code that
  the button copies are marked ``data-search-exclude``, so that the search
  index and its snippets hold the notebook's text and code once, without
  them. Material's parser compares elements by tag name (the first nested
  closing tag of the same name would end an exclusion), so only elements
  that hold nothing but text are marked.
"""

from __future__ import annotations

import posixpath
import re
from urllib.parse import unquote, urlsplit

from mkdocs.exceptions import PluginError

MATHJAX = re.compile(
    r"<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->", re.DOTALL
)
MERMAID = re.compile(
    r'<script type="module">(?:(?!</script>).)*?mermaid(?:(?!</script>).)*?</script>',
    re.DOTALL,
)
REMOTE = re.compile(
    r"""<(?:script|link|img|iframe|source|embed|object)\b[^>]*?"""
    r"""\b(?:src|href|data)\s*=\s*["']?(?:https?:)?//[^"'\s>]*"""
    r"""|\bimport\s*\(\s*["'](?:https?:)?//[^"']*"""
    r"""|<script\b[^>]*\bsrc\s*=\s*["']\s*["']"""
    r"""|url\(\s*["']?(?:https?:)?//[^"')]*|@import\s+["'](?:https?:)?//[^"']*"""
)
#: Opening tags of the notebook's text-only elements the search leaves out.
SEARCH_EXCLUDED = re.compile(
    r'<(?:div class="jp-(?:In|Out)putPrompt\b|span class="notice"'
    r'|div class="clipboard-copy-txt")[^>]*(?=>)'
)
LINK = re.compile(r"""(<a\b[^>]*?\bhref=")([^"]*)(")""")
ID = re.compile(r"""\bid="([^"]+)\"""")


def is_notebook(page) -> bool:
    return page.file.src_uri.endswith(".ipynb")


def _rewrite_links(html: str, page, files) -> str:
    links_to_anchors = page.links_to_anchors
    if links_to_anchors is None:
        links_to_anchors = page.links_to_anchors = {}

    def rewrite(match: re.Match) -> str:
        url = match[2]
        parts = urlsplit(url)
        if parts.scheme or parts.netloc or not parts.path:
            return match[0]
        path = unquote(parts.path)
        if not path.endswith((".md", ".ipynb")):
            return match[0]
        src_uri = posixpath.normpath(
            posixpath.join(posixpath.dirname(page.file.src_uri), path)
        )
        target = files.get_file_from_path(src_uri)
        if target is None:
            raise PluginError(
                f"{page.file.src_uri}: the link '{url}' points to '{src_uri}', "
                "which is not a page of the book"
            )
        new = target.url_relative_to(page.file)
        if parts.fragment:
            new += "#" + parts.fragment
            links_to_anchors.setdefault(target, {}).setdefault(parts.fragment, url)
        return match[1] + new + match[3]

    return LINK.sub(rewrite, html)


def on_page_content(html: str, page, config, files) -> str:
    if not is_notebook(page):
        return html
    html = MATHJAX.sub("", html)
    html = MERMAID.sub("", html)
    remote = [m[0][:200] for m in REMOTE.finditer(html)]
    if remote:
        raise PluginError(
            f"{page.file.src_uri}: the notebook's HTML would load from another "
            "host:\n  " + "\n  ".join(remote)
        )
    html = html.replace('class="anchor-link"', 'class="headerlink"')
    html = _rewrite_links(html, page, files)
    # The search plugin drops the attribute from the page once it is indexed.
    html = SEARCH_EXCLUDED.sub(r'\g<0> data-search-exclude="true"', html)
    page.present_anchor_ids = set(ID.findall(html))
    return html
