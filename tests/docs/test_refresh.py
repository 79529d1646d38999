"""attention_book.refresh writes example outputs anew, statements unchanged."""

from __future__ import annotations

from attention_book.refresh import refresh


def test_outputs_are_replaced_and_statements_kept() -> None:
    text = (
        ">>> x = 2\n"
        ">>> for i in range(2):\n"
        "...     print(i * x)\n"
        "...\n"
        "7\n"
        ">>> print('a\\n\\nb')\n"
        "a\n"
        ">>> 1 / 0\n"
        "Traceback (most recent call last):\n"
        "  ...\n"
        "KeyError: 1\n"
    )
    assert refresh(text) == (
        ">>> x = 2\n"
        ">>> for i in range(2):\n"
        "...     print(i * x)\n"
        "...\n"
        "0\n"
        "2\n"
        ">>> print('a\\n\\nb')\n"
        "a\n"
        "<BLANKLINE>\n"
        "b\n"
        ">>> 1 / 0\n"
        "Traceback (most recent call last):\n"
        "  ...\n"
        "ZeroDivisionError: division by zero\n"
    )


def test_a_correct_file_is_unchanged() -> None:
    text = ">>> print(1 + 1)\n2\n>>> [0.5]\n[0.5]\n"
    assert refresh(text) == text
