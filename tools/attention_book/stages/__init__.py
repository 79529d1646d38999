"""The stages of the book's build, run by the ``book`` plugin
(``attention_book.plugin``).

Each stage is a module whose functions are named after the MkDocs events
they handle (``on_config``, ``on_page_markdown`` …) and take the event's
arguments. Only the plugin calls them, in the order it lists; a stage
imports no other stage, and what stages share lives in ``attention_book``.

- ``book``: the site's address per edition, KaTeX's files, the search's
  dictionaries, the first screen's marker, the PDF links.
- ``zh_hans``: the Simplified edition converted from the Traditional one.
- ``glossary``: the glossary's table and its search keywords.
- ``numbering``: the chapters, sections and equations numbered, and the
  links to numbered things (``attention_book.numbering``: the scheme).
- ``plots``: the figures drawn for the book, numbered, in both schemes.
- ``explorables``: the interactive figures' default state.
- ``notebooks``: a notebook of every chapter.
- ``katex``: the maths typeset at build time, its fonts cut.
- ``search``: the search index's fixes for Japanese and Chinese.
- ``print_page``: the PDF's print page (only in the PDF's build).
"""
