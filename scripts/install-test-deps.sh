#!/usr/bin/env bash
# What the tests need beyond the build (make test runs it): Debian's chromium (the search page in a real browser),
# xdg-utils (xdg-open of tracker:// links), curl and jq (the API examples of docs/service.md), doctest (the engine's
# C++ tests, Tests/EngineTests), iproute2 (the network namespaces of make test-cluster), and from PyPI Playwright, which drives that chromium (no browser of its own is
# downloaded), and axe-playwright-python, which ships axe-core's rules for the page's accessibility check.
# Installs only what is missing.
set -euo pipefail
"$(dirname "$0")/install-deps.sh" chromium xdg-utils curl jq doctest-dev iproute2
if ! python3 -c "import playwright.sync_api" 2>/dev/null; then
    echo "installing: playwright (PyPI)" >&2
    python3 -m pip install -q --disable-pip-version-check "playwright==1.65.2"
fi
if ! python3 -c "import axe_playwright_python.sync_playwright" 2>/dev/null; then
    echo "installing: axe-playwright-python (PyPI)" >&2
    python3 -m pip install -q --disable-pip-version-check "axe-playwright-python==0.1.8"
fi
