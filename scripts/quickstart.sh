#!/usr/bin/env bash
# The main job: set up, then certify the example programs under all four readings of negation.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
naf-bench certify examples/*.lp
