"""The book's MkDocs hooks, the ``hooks:`` of mkdocs.yml.

MkDocs loads each hook from its path (with this folder on ``sys.path`` while
the file runs), not as a module of this package: a hook imports nothing
relative, and code that hooks share lives in ``attention_book``. This file
lets the tests import them, once, as modules: ``from hooks import katex``.
"""
