"""The GitHub workflows: valid for actionlint, and doing what the README says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

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
    assert any(step.get("run") == "make site" for step in steps("pages.yml"))
