#!/usr/bin/env bash
# Installs what naf-bench needs on a fresh Debian machine: SWI-Prolog, then the package with its test extra.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v swipl >/dev/null 2>&1; then
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends swi-prolog-nox
fi
python3 -m pip install -q --disable-pip-version-check -e '.[test]'
