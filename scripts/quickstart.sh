#!/usr/bin/env bash
# The main job: set up, certify the example programs under all four readings of negation, then generate,
# certify and export the main benchmark (600 rows) as a Hub-style dataset folder.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1
naf-bench certify examples/*.lp
naf-bench export --out out/naf-bench --configs main
