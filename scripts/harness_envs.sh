#!/usr/bin/env bash
# Creates .venv-harness: inspect-ai and lighteval beside the test extra. Their pins clash with it (lighteval pins
# termcolor, nltk and aenum; inspect-ai caps fsspec), so they live in a virtual environment of their own that sees
# the machine's packages (torch, transformers, datasets, lm-eval) and shadows only what they pin. Then runs the
# harness tests with that interpreter (elsewhere tests/integrations skips them, saying why).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-harness
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv --system-site-packages "$venv"
fi
# litellm: lighteval's OpenAI-compatible client (`endpoint litellm`); lighteval 0.13.0 opens its disk cache (diskcache), which 1.110 no longer has and 1.79 has
"$venv/bin/python" -m pip install -q --disable-pip-version-check 'inspect-ai==0.3.285' 'lighteval==0.13.0' 'litellm<1.80' diskcache
# the package itself, editable, so the interpreter finds this checkout's entry points (inspect_ai's task registry)
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps -e .
if [ "${1:-}" = "--test" ]; then
    HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 LITELLM_LOCAL_MODEL_COST_MAP=True "$venv/bin/python" -m pytest -q -m harness tests/integrations
fi
