#!/usr/bin/env bash
# The main job: set up; certify the example programs under all four readings of negation; generate, certify
# and export the main benchmark (600 rows); score the baselines; evaluate SmolLM2-135M-Instruct on a small
# sample through lm-eval with our tasks; write the report (markdown + plots) to out/main-job; publish its answers
# (out/main-job/submission.jsonl) on a leaderboard of main's test split beside the baselines, in out/board.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1
naf-bench certify examples/*.lp
naf-bench export --out out/naf-bench --configs main
naf-bench baselines main --out out/baselines-main.json
naf-bench run smollm2 --tasks naf_bench naf_bench_mc --limit 2 --max-gen-toks 256 --baselines out/baselines-main.json --out out/main-job --overwrite
naf-bench generate main --split test --out out/main-test-gold.jsonl
naf-bench leaderboard out/main-job --gold out/main-test-gold.jsonl --out out/board --bootstrap 200
echo "report: out/main-job/report.md"
echo "leaderboard: $(pwd)/out/board/index.html"
