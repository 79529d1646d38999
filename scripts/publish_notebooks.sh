#!/usr/bin/env bash
# Publish the built chapters' notebooks to the repository's `notebooks` branch,
# where Colab opens them: a page's "Open in Colab" link points to
# https://colab.research.google.com/github/OWNER/REPO/blob/notebooks/<language>/<page>.ipynb
# (stages/notebooks.py). Colab opens notebooks from GitHub, not from the site.
#
# Usage: scripts/publish_notebooks.sh SITE_DIR   (on GitHub Actions, after the build)
# SITE_DIR is the built site, or any folder laid out like it:
# SITE_DIR/<language>/<page>/<page>.ipynb (the Pages workflow's notebooks artifact).
# It needs nothing but bash, git and the core utilities.
# The branch holds only the latest notebooks: one commit, pushed with --force.
# NOTEBOOKS_REMOTE names another remote to push to (tests/test_workflows.py);
# BOOK_COMMIT names the commit the notebooks were built from (default GITHUB_SHA).
set -euo pipefail
shopt -s nullglob

site="${1:?usage: $0 SITE_DIR}"
remote="${NOTEBOOKS_REMOTE:-}"
if [ -z "$remote" ]; then
  : "${GITHUB_REPOSITORY:?run on GitHub Actions}" "${GITHUB_TOKEN:?needs the job token}"
  server="${GITHUB_SERVER_URL:-https://github.com}"
  remote="https://x-access-token:${GITHUB_TOKEN}@${server#https://}/${GITHUB_REPOSITORY}.git"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
count=0
for notebook in "$site"/*/*/*.ipynb; do
  language="$(basename "$(dirname "$(dirname "$notebook")")")"
  mkdir -p "$work/$language"
  cp "$notebook" "$work/$language/"
  count=$((count + 1))
done
if [ "$count" -eq 0 ]; then
  echo "no notebook under $site" >&2
  exit 1
fi

cd "$work"
git init -q -b notebooks
git add .
git -c user.name="github-actions[bot]" \
  -c user.email="41898282+github-actions[bot]@users.noreply.github.com" \
  commit -q -m "The chapters' notebooks, built from ${BOOK_COMMIT:-${GITHUB_SHA:-the book}}"
git push -q --force "$remote" notebooks
echo "published $count notebooks to the notebooks branch"
