"""The GitHub workflows: valid for actionlint, and doing what the README says."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from attention_book import load_yaml
from attention_book.stages import notebooks

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
ACTIONLINT = Path(sys.executable).parent / "actionlint"
#: The expression of the commit the CI run that triggered Pages tested.
HEAD_SHA = "${{ github.event.workflow_run.head_sha }}"


def test_workflows_pass_actionlint() -> None:
    assert len(WORKFLOWS) >= 2
    result = subprocess.run(
        [str(ACTIONLINT), "-no-color", *map(str, WORKFLOWS)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def workflow(name: str) -> dict:
    return load_yaml((ROOT / ".github" / "workflows" / name).read_text())


def triggers(name: str) -> dict:
    """The workflow's `on:` (YAML 1.1 reads the bare key `on` as True)."""
    loaded = workflow(name)
    return loaded.get("on", loaded.get(True))


def jobs(name: str) -> dict[str, dict]:
    return workflow(name)["jobs"]


def steps(name: str) -> list[dict]:
    return [step for job in jobs(name).values() for step in job["steps"]]


def action(step: dict) -> str:
    """The action a step uses, without its version ("" for a `run` step)."""
    return step.get("uses", "").split("@")[0]


def runs(job: dict) -> list[str]:
    return [step.get("run", "") for step in job["steps"]]


def index(job: dict, predicate) -> int:
    """The position of the job's first step that satisfies the predicate."""
    found = [i for i, step in enumerate(job["steps"]) if predicate(step)]
    assert found, (
        f"no such step in {[s.get('run') or s.get('uses') for s in job['steps']]}"
    )
    return found[0]


def permissions(name: str, job: dict) -> dict[str, str]:
    """A job's token permissions: its own, or else the workflow's."""
    granted = job.get("permissions", workflow(name).get("permissions"))
    assert isinstance(granted, dict), (
        "permissions must be listed, not read-all/write-all"
    )
    return granted


def test_ci_runs_the_readme_test_command_and_the_exhaustive_tier() -> None:
    """On GitHub the tiers run side by side (a matrix); .ci/run runs them in
    turn, the README's command first."""
    test = jobs("ci.yml")["test"]
    assert test["strategy"]["matrix"]["tier"] == ["test", "test-exhaustive"]
    assert {"run": "make ${{ matrix.tier }}"} in [
        {k: v for k, v in step.items() if k == "run"} for step in test["steps"]
    ]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make test" in readme
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert script.index("make test") < script.index("make test-exhaustive")


def test_one_job_says_whether_every_job_passed() -> None:
    """The check a branch protection requires: it needs every other job and
    fails unless each succeeded (also when one was skipped or cancelled)."""
    every = jobs("ci.yml")
    green = every["all-green"]
    assert set(green["needs"]) == set(every) - {"all-green"}
    assert green["if"] == "always()"
    assert "needs.*.result" in green["steps"][0]["env"]["RESULTS"]


def test_the_tiers_together_are_every_test() -> None:
    """make test deselects the `exhaustive` marker, make test-exhaustive
    selects it: each test runs in exactly one of them."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")

    def recipe(target: str) -> str:
        return makefile.split(f"\n{target}:", 1)[1].split("\n\n", 1)[0]

    assert '-m "not exhaustive"' in recipe("test")
    assert "-m exhaustive" in recipe("test-exhaustive")
    assert " -m " not in recipe("test-all")


def test_ci_builds_the_book_with_properdocs_too() -> None:
    """A job builds the site with ProperDocs and runs the site's tests on it."""
    assert {"run": "make test-properdocs"} in [
        {k: v for k, v in step.items() if k == "run"}
        for step in jobs("ci.yml")["properdocs"]["steps"]
    ]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\ntest-properdocs:", 1)[1].split("\n\n", 1)[0]
    assert "BOOK_BUILDER=properdocs" in recipe and "tests/site" in recipe
    assert (ROOT / "decisions" / "0001-platform.md").is_file()


def test_every_job_has_a_timeout() -> None:
    for path in WORKFLOWS:
        for name, job in jobs(path.name).items():
            minutes = job.get("timeout-minutes")
            assert isinstance(minutes, int), f"{path.name}: {name} has no timeout"
            assert 0 < minutes <= 60, f"{path.name}: {name} may run {minutes} min"
    # make test targets five minutes of pytest, the exhaustive tier about
    # eight more, plus the setup.
    assert jobs("ci.yml")["test"]["timeout-minutes"] <= 45


def test_node_is_a_supported_lts() -> None:
    """Node 20 reached its end of life in April 2026; 22 and 24 are LTS."""
    setups = [step for p in WORKFLOWS for step in steps(p.name)]
    setups = [step for step in setups if action(step) == "actions/setup-node"]
    assert setups
    for step in setups:
        version = str(step["with"]["node-version"])
        assert re.fullmatch(r"\d+(\.x)?", version), version
        assert int(version.split(".")[0]) >= 22, version


def test_python_and_node_packages_are_cached() -> None:
    """pip's cache (~/.cache/pip, which the Makefile's venv uses) and npm's."""
    for path in WORKFLOWS:
        for name, job in jobs(path.name).items():
            for step in job["steps"]:
                options = step.get("with", {})
                if action(step) == "actions/setup-python":
                    assert options.get("cache") == "pip", f"{path.name}: {name}"
                    assert options.get("cache-dependency-path") == "constraints.txt"
                if action(step) == "actions/setup-node":
                    assert options.get("cache") == "npm", f"{path.name}: {name}"
    assert (ROOT / "constraints.txt").is_file()
    assert (ROOT / "package-lock.json").is_file()


def test_ci_runs_once_per_change_and_cancels_stale_runs() -> None:
    """A pull request's branch is tested as the pull request, not also as a push."""
    on = triggers("ci.yml")
    assert set(on) == {"push", "pull_request"}
    assert on["push"] == {"branches": ["main"]}
    concurrency = workflow("ci.yml")["concurrency"]
    assert concurrency["cancel-in-progress"] is True
    assert "github.ref" in concurrency["group"]


def test_pages_deploys_only_a_commit_that_passed_ci() -> None:
    """Pages runs on CI's successful push run on main, and builds that very commit."""
    on = triggers("pages.yml")
    # No push (it would not wait for the tests) and no workflow_dispatch
    # (a manual run would deploy a commit no test run has passed).
    assert set(on) == {"workflow_run"}
    assert on["workflow_run"] == {
        "workflows": [workflow("ci.yml")["name"]],
        "types": ["completed"],
        "branches": ["main"],
    }
    build = jobs("pages.yml")["build"]
    condition = re.sub(r"\s+", " ", build["if"])
    assert "github.event.workflow_run.conclusion == 'success'" in condition
    assert "github.event.workflow_run.event == 'push'" in condition
    assert "||" not in condition
    # Every other job waits for build, so none runs when build is skipped.
    for name, job in jobs("pages.yml").items():
        if name != "build":
            assert "if" not in job, name
            needs = job["needs"] if isinstance(job["needs"], list) else [job["needs"]]
            assert set(needs) & {"build", "deploy"}, name
    checkouts = [s for s in steps("pages.yml") if action(s) == "actions/checkout"]
    assert checkouts
    for step in checkouts:
        assert step["with"]["ref"] == HEAD_SHA
    # The last-updated dates come from git history.
    checkout = next(s for s in build["steps"] if action(s) == "actions/checkout")
    assert checkout["with"]["fetch-depth"] == 0


def test_pages_builds_the_site_and_deploys_with_the_official_actions() -> None:
    used = [action(step) for step in steps("pages.yml")]
    for name in (
        "actions/configure-pages",
        "actions/upload-pages-artifact",
        "actions/deploy-pages",
    ):
        assert name in used
    # `make pdf` builds the site first (its prerequisite), then the PDFs that
    # the site's home and about pages link: a site built with BOOK_PDF=1,
    # the only one whose pages link them (stages/book.py).
    assert any(step.get("run") == "make pdf" for step in steps("pages.yml"))
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^pdf: .*\bsite\b", makefile, re.MULTILINE)
    assert re.search(r"^pdf: export BOOK_PDF := 1$", makefile, re.MULTILINE)


def test_the_job_that_builds_holds_no_write_token() -> None:
    """The job that installs and runs the dependencies can write nothing."""
    builders = [
        (name, job)
        for name, job in jobs("pages.yml").items()
        if "make pdf" in runs(job)
    ]
    assert builders
    for name, job in builders:
        granted = permissions("pages.yml", job)
        assert "write" not in granted.values(), f"{name}: {granted}"


def test_the_deployed_pdfs_are_the_tested_ones() -> None:
    """In the job that builds: make pdf, then the PDF tests on it, then the upload."""
    (build,) = [job for job in jobs("pages.yml").values() if "make pdf" in runs(job)]
    made = index(build, lambda step: step.get("run") == "make pdf")
    tested = index(
        build,
        lambda step: (
            step.get("run", "").split()
            == [".venv/bin/python", "-m", "pytest", "tests/site/test_pdf.py"]
        ),
    )
    assert build["steps"][tested].get("env", {}).get("BOOK_SITE") == "site"
    uploaded = index(
        build, lambda step: action(step) == "actions/upload-pages-artifact"
    )
    assert build["steps"][uploaded]["with"]["path"] == "site"
    assert made < tested < uploaded
    assert not any(step.get("continue-on-error") for step in build["steps"])
    assert (ROOT / "tests" / "site" / "test_pdf.py").is_file()


def test_the_job_that_can_push_installs_and_runs_nothing() -> None:
    """The job with `contents: write` runs git and bash: no make, pip or npm."""
    writers = [
        (name, job)
        for name, job in jobs("pages.yml").items()
        if permissions("pages.yml", job).get("contents") == "write"
    ]
    assert [name for name, _ in writers] == ["publish-notebooks"]
    for path in WORKFLOWS:
        for name, job in jobs(path.name).items():
            if permissions(path.name, job).get("contents") != "write":
                continue
            for step in job["steps"]:
                assert action(step) not in {
                    "actions/setup-python",
                    "actions/setup-node",
                }, name
                words = re.findall(r"[\w./-]+", step.get("run", ""))
                for tool in ("make", "pip", "pip3", "npm", "npx", "python", "python3"):
                    assert tool not in words, f"{name} runs {tool}"
                assert ".venv/" not in step.get("run", ""), name


def test_pages_publishes_the_notebooks_where_colab_links_point(tmp_path) -> None:
    """The Pages workflow pushes the built notebooks to the notebooks branch."""
    # The build job hands its notebooks on as an artifact; the job that may
    # push downloads it and publishes that folder.
    build = jobs("pages.yml")["build"]
    publish = jobs("pages.yml")["publish-notebooks"]
    (uploaded,) = [
        step["with"]
        for step in build["steps"]
        if action(step) == "actions/upload-artifact"
        and step["with"]["name"] == "notebooks"
    ]
    assert uploaded["path"] == "site/*/*/*.ipynb"
    assert uploaded["if-no-files-found"] == "error"
    (downloaded,) = [
        step["with"]
        for step in publish["steps"]
        if action(step) == "actions/download-artifact"
    ]
    assert downloaded["name"] == "notebooks"
    assert f"scripts/publish_notebooks.sh {downloaded['path']}" in runs(publish)
    (published,) = [
        s for s in publish["steps"] if "publish_notebooks" in s.get("run", "")
    ]
    assert published["env"]["BOOK_COMMIT"] == HEAD_SHA

    # The artifact's root is site/ (the glob's folder): <language>/<page>/*.ipynb.
    site = tmp_path / "site"
    for language in ("ja", "zh-Hant"):
        folder = site / language / "softmax"
        folder.mkdir(parents=True)
        (folder / "softmax.ipynb").write_text("{}", encoding="utf-8")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    result = subprocess.run(
        [str(ROOT / "scripts" / "publish_notebooks.sh"), str(site)],
        env={**os.environ, "NOTEBOOKS_REMOTE": str(remote), "BOOK_COMMIT": "abc123"},
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
    message = subprocess.run(
        ["git", "-C", str(remote), "log", "-1", "--format=%s", "notebooks"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "abc123" in message
    # A folder without notebooks is an error, not an empty branch.
    empty = tmp_path / "empty"
    empty.mkdir()
    result = subprocess.run(
        [str(ROOT / "scripts" / "publish_notebooks.sh"), str(empty)],
        env={**os.environ, "NOTEBOOKS_REMOTE": str(remote)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0
    assert "no notebook" in result.stderr
    # The address a chapter's "Open in Colab" link gives for that file.
    url = notebooks.colab_url("https://github.com/o/r", "ja", "softmax.ipynb")
    assert url == (
        "https://colab.research.google.com/github/o/r/blob/notebooks/ja/softmax.ipynb"
    )
    assert notebooks.colab_url("https://gitlab.com/o/r", "ja", "softmax.ipynb") is None


def test_the_readme_describes_the_deployment() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Deployment", 1)[1].split("\n## ", 1)[0]
    for promise in ("workflow_run", "tests/site/test_pdf.py", "BOOK_SITE", "notebooks"):
        assert promise in section, promise
