"""The GitHub workflows: valid for actionlint, and doing what the README says."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

from hooks import notebooks

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
ACTIONLINT = Path(sys.executable).parent / "actionlint"


def test_workflows_pass_actionlint() -> None:
    assert len(WORKFLOWS) >= 2
    result = subprocess.run(
        [str(ACTIONLINT), "-no-color", *map(str, WORKFLOWS)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def steps(name: str) -> list[dict]:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / name).read_text())
    return [step for job in workflow["jobs"].values() for step in job["steps"]]


def test_ci_runs_the_readme_test_command() -> None:
    assert {"run": "make test"} in [
        {k: v for k, v in step.items() if k == "run"} for step in steps("ci.yml")
    ]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make test" in readme
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_pages_builds_the_site_and_deploys_with_the_official_actions() -> None:
    used = [step.get("uses", "").split("@")[0] for step in steps("pages.yml")]
    for action in (
        "actions/configure-pages",
        "actions/upload-pages-artifact",
        "actions/deploy-pages",
    ):
        assert action in used
    # `make pdf` builds the site first (its prerequisite), then the PDFs that
    # the site's home and about pages link.
    assert any(step.get("run") == "make pdf" for step in steps("pages.yml"))
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^pdf: .*\bsite\b", makefile, re.MULTILINE)


def test_pages_publishes_the_notebooks_where_colab_links_point(tmp_path) -> None:
    """The Pages workflow pushes the built notebooks to the notebooks branch."""
    runs = [step.get("run", "") for step in steps("pages.yml")]
    assert "scripts/publish_notebooks.sh site" in runs
    site = tmp_path / "site"
    for language in ("ja", "zh-Hant"):
        folder = site / language / "softmax"
        folder.mkdir(parents=True)
        (folder / "softmax.ipynb").write_text("{}", encoding="utf-8")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    result = subprocess.run(
        [str(ROOT / "scripts" / "publish_notebooks.sh"), str(site)],
        env={**os.environ, "NOTEBOOKS_REMOTE": str(remote)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    files = subprocess.run(
        ["git", "-C", str(remote), "ls-tree", "-r", "--name-only", "notebooks"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert files == ["ja/softmax.ipynb", "zh-Hant/softmax.ipynb"]
    # The address a chapter's "Open in Colab" link gives for that file.
    url = notebooks.colab_url("https://github.com/o/r", "ja", "softmax.ipynb")
    assert url == (
        "https://colab.research.google.com/github/o/r/blob/notebooks/ja/softmax.ipynb"
    )
    assert notebooks.colab_url("https://gitlab.com/o/r", "ja", "softmax.ipynb") is None
