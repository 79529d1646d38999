"""The package's layout: no module uses another module's private names.

What several modules share lives in the two private modules ``_validation``
(argument checks) and ``_kernels`` (numerical kernels), whose names have no
leading underscore and are imported openly. Every other underscore name is
private to the module that defines it. These tests read the source of every
module under ``src/attention_docs`` with :mod:`ast`, without importing it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DIR = ROOT / "src" / "attention_docs"
PACKAGE = "attention_docs"
SHARED = frozenset({"_validation", "_kernels"})  # the private shared modules
MODULES = sorted(PACKAGE_DIR.glob("*.py"))


def is_private(name: str) -> bool:
    """``_name`` is private; ``__name__`` (a dunder) and ``name`` are not."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def package_module(node: ast.ImportFrom) -> str | None:
    """The package module ``node`` imports from ("" for the package itself).

    None for an import from outside the package: ``from numpy import _x``,
    and relative imports of more than one level (the package has no
    subpackages).
    """
    if node.level == 1:
        return node.module or ""
    if node.level == 0 and node.module is not None:
        if node.module == PACKAGE:
            return ""
        if node.module.startswith(PACKAGE + "."):
            return node.module[len(PACKAGE) + 1 :]
    return None


def private_imports(source: str) -> list[str]:
    """Every use of another module's private name in ``source``, as text.

    Counts ``from .X import _name`` and ``from attention_docs.X import _name``
    with X neither ``_validation`` nor ``_kernels``; ``from . import _name``
    unless ``_name`` is one of those two modules; and ``mod._name`` where
    ``mod`` is a package module bound by ``from . import mod``.
    """
    found = []
    modules = {}  # local name -> package module, from "from . import mod"
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        module = package_module(node)
        if module is None:
            continue
        for alias in node.names:
            if module == "":  # from . import name: a module of the package
                modules[alias.asname or alias.name] = alias.name
                if is_private(alias.name) and alias.name not in SHARED:
                    found.append(f"from . import {alias.name}")
            elif module not in SHARED and is_private(alias.name):
                found.append(f"from .{module} import {alias.name}")
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and modules[node.value.id] not in SHARED
            and is_private(node.attr)
        ):
            found.append(f"{node.value.id}.{node.attr}")
    return found


def test_the_modules_are_found():
    names = {path.stem for path in MODULES}
    assert {"__init__", "attention", "_validation", "_kernels"} <= names


@pytest.mark.parametrize("path", MODULES, ids=lambda path: path.name)
def test_no_module_imports_another_modules_private_name(path):
    assert private_imports(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # the layout before _kernels: private helpers of attention and softmax
        (
            "from .attention import _attention, _validated_qkv\n",
            [
                "from .attention import _attention",
                "from .attention import _validated_qkv",
            ],
        ),
        (
            "from .softmax import _softmax_rows_in_place\n",
            ["from .softmax import _softmax_rows_in_place"],
        ),
        (
            "from attention_docs.attention import _scaled_products\n",
            ["from .attention import _scaled_products"],
        ),
        ("from . import _secret\n", ["from . import _secret"]),
        (
            "from . import attention\nattention._attention(q, k, v)\n",
            ["attention._attention"],
        ),
        # allowed: the shared private modules, public names, dunders, other packages
        ("from ._kernels import scaled_products\n", []),
        ("from ._validation import FloatArray, as_float_array\n", []),
        ("from . import _kernels\n_kernels.softmax_rows(s, None)\n", []),
        ("from .attention import attention_kernel, scaled_dot_product_attention\n", []),
        ("from . import __version__\n", []),
        ("from numpy.linalg import _umath_linalg\n", []),
    ],
)
def test_the_check_finds_private_imports(source, expected):
    assert private_imports(source) == expected


def test_the_shared_modules_names_have_no_leading_underscore():
    # the modules are private; what they define is for the whole package
    for name in SHARED:
        tree = ast.parse((PACKAGE_DIR / f"{name}.py").read_text(encoding="utf-8"))
        defined = [
            node.name
            for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.ClassDef)
        ]
        assert defined
        assert [d for d in defined if d.startswith("_")] == [], name
