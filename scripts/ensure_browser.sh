#!/usr/bin/env bash
# The PDFs and the benchmarks need a Chromium, the browser tests its headless
# shell (the same version, without the browser around it), and both fonts that
# draw Japanese and Chinese; the PDF tests read the PDFs' text with Poppler's
# pdftotext. Install what is missing from the distribution's packages (Debian:
# chromium, chromium-headless-shell, fonts-noto-cjk, poppler-utils); never
# download a browser of another origin. CHROMIUM names an existing Chromium or
# Chrome to use instead of both.
set -euo pipefail

chromium="${CHROMIUM:-/usr/bin/chromium}"
packages=()
if [ ! -x "$chromium" ]; then
  if [ "$chromium" != /usr/bin/chromium ]; then
    echo "CHROMIUM=$chromium is not an executable" >&2
    exit 1
  fi
  packages+=(chromium)
fi
if [ -z "${CHROMIUM:-}" ] && [ ! -x /usr/bin/chromium-headless-shell ]; then
  packages+=(chromium-headless-shell)
fi
if ! fc-list :lang=ja 2>/dev/null | grep -q . || ! fc-list :lang=zh-tw 2>/dev/null | grep -q .; then
  packages+=(fonts-noto-cjk)
fi
command -v pdftotext >/dev/null || packages+=(poppler-utils)
[ "${#packages[@]}" -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing ${packages[*]} for the browser and PDF tests"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
