"""The reader's package: its wheel holds ``attention_docs`` and nothing else.

The book's build code (``attention_book``) is a package of its own
(``tools/pyproject.toml``), installed for development and never published.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_wheel_ships_only_attention_docs_and_its_data(tmp_path) -> None:
    # Built from a copy of what the wheel is made of, so that setuptools'
    # build/ and egg-info folders neither land in the work tree nor come
    # from an older build of it.
    project = tmp_path / "project"
    project.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, project / name)
    shutil.copytree(
        ROOT / "src", project / "src", ignore=shutil.ignore_patterns("*.egg-info")
    )
    command = [sys.executable, "-m", "pip", "wheel", str(project), "--no-deps"]
    command += ["--no-build-isolation", "--quiet", "--wheel-dir", str(tmp_path)]
    subprocess.run(command, check=True, capture_output=True)
    (wheel,) = tmp_path.glob("attention_docs-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names}
    (info,) = [top for top in tops if top.endswith(".dist-info")]
    assert tops == {"attention_docs", info}, tops
    assert any(name.startswith("attention_docs/data/lm-ja.") for name in names)
    metadata = (
        zipfile.ZipFile(wheel)
        .read(next(n for n in names if n.endswith(".dist-info/METADATA")))
        .decode()
    )
    # its dependencies: numpy, and the extras' tools for readers (no build tools)
    assert "mkdocs" not in metadata and "jieba" not in metadata


def test_the_build_code_is_its_own_unpublished_package() -> None:
    import tomllib

    tools = tomllib.loads((ROOT / "tools" / "pyproject.toml").read_text("utf-8"))
    assert tools["project"]["name"] == "attention-book"
    assert "Private :: Do Not Upload" in tools["project"]["classifiers"]
    assert "attention_docs" in tools["project"]["dependencies"]
