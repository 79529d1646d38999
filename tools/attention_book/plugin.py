"""The book's build as one MkDocs plugin, ``book`` (``plugins: - book``).

Every step the book adds to MkDocs is here, event by event, in the order it
runs: each line names the stage (a module of ``attention_book.stages``) that
does it. To find where something happens, find its event below.

The plugin is the last of each edition's plugins (``mkdocs.yml``,
``mkdocs.zh-Hant.yml``; ``mkdocs.zh-Hans.yml`` inherits the Traditional list),
so its steps come after Material's search and the other plugins, as the
stages need: the search indexes a page before ``katex`` puts its typeset
formulas back (``on_page_context``). One step runs earlier: the Simplified
conversion of a page's Markdown, before any other plugin reads it.

Options (the PDF's build sets them, ``scripts/build_pdf.py``):

- ``search`` (default true): the search index's fixes (``stages/search.py``);
  the PDF has no search.
- ``print_view`` (default false): the PDF's print page
  (``stages/print_page.py``), with mkdocs-print-site-plugin after this
  plugin (it asks to be the last): it keeps each page's HTML after this
  plugin made it, and writes the print page at the end of the build, after
  which the ``print_page`` stage puts the formulas back (a late priority).
"""

from __future__ import annotations

from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority

from attention_book.stages import (
    book,
    explorables,
    glossary,
    katex,
    notebooks,
    numbering,
    plots,
    print_page,
    search,
    zh_hans,
)


class BookConfig(Config):
    search = config_options.Type(bool, default=True)
    print_view = config_options.Type(bool, default=False)


def chain(item, steps, *args):
    """``item`` passed through ``steps`` in order, as MkDocs chains handlers:
    a step that returns None leaves the item as it was."""
    for step in steps:
        result = step(item, *args)
        item = item if result is None else result
    return item


class BookPlugin(BasePlugin[BookConfig]):
    """The stages of the book's build, in order (the module's docstring)."""

    # --- the configuration and the files ------------------------------------

    def on_config(self, config):
        steps = [book.on_config, zh_hans.on_config, glossary.on_config]
        if self.config.print_view:
            steps.append(print_page.on_config)
        return chain(config, steps)

    def on_files(self, files, config):
        steps = [
            book.on_files,
            numbering.on_files,
            plots.on_files,
            explorables.on_files,
        ]
        if self.config.search:
            steps.append(search.on_files)
        if self.config.print_view:
            steps.append(print_page.on_files)
        return chain(files, steps, config)

    def on_nav(self, nav, config, files):
        return chain(nav, [zh_hans.on_nav], config, files)

    # --- each page ------------------------------------------------------------

    @event_priority(50)  # before any plugin reads the page
    def _convert_markdown(self, markdown, page, config, files):
        return chain(markdown, [zh_hans.on_page_markdown], page, config, files)

    def _page_markdown(self, markdown, page, config, files):
        steps = [
            book.on_page_markdown,  # the first screen's marker, the PDF links
            glossary.on_page_markdown,  # the glossary's table
            numbering.on_page_markdown,  # headings, equations, links numbered
            plots.on_page_markdown,  # the figures, numbered
            notebooks.on_page_markdown,  # the chapter's notebook, from its Markdown
            numbering.anchor_equations,  # an equation's id (not in the notebook)
        ]
        return chain(markdown, steps, page, config, files)

    on_page_markdown = CombinedEvent(_convert_markdown, _page_markdown)

    def on_page_content(self, html, page, config, files):
        steps = [
            book.on_page_content,  # a doctest's <BLANKLINE> shown as Python prints it
            explorables.on_page_content,  # the interactive figures drawn
            notebooks.on_page_content,  # the notebook's link
            katex.on_page_content,  # the maths typeset
        ]
        return chain(html, steps, page, config, files)

    def on_page_context(self, context, page, config, nav):
        steps = [katex.on_page_context]  # after the search indexed the page
        if self.config.print_view:
            steps.append(print_page.on_page_context)
        return chain(context, steps, page, config, nav)

    def on_post_page(self, output, page, config):
        steps = [
            book.on_post_page,
            notebooks.on_post_page,  # the notebook written
            katex.on_post_page,  # the fonts the page uses, preloaded
        ]
        return chain(output, steps, page, config)

    # --- the end of the build ---------------------------------------------------

    def _post_build(self, config):
        katex.on_post_build(config)  # KaTeX's fonts cut; its process stopped
        if self.config.search:
            search.on_post_build(config)  # the search index shrunk

    @event_priority(-100)  # after every plugin's: print-site writes its page
    def _print_page_written(self, config):
        if self.config.print_view:
            print_page.on_post_build(config)  # the formulas put back

    on_post_build = CombinedEvent(_post_build, _print_page_written)

    def on_build_error(self, error):
        katex.on_build_error(error)
