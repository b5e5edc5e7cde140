"""Publish NAF-Bench as a Hugging Face Hub dataset repository that plain ``datasets`` loads.

    python scripts/push_to_hub.py --repo-id ORG/naf-bench [--configs main hard ...] [--out DIR] [--dry-run]
    python scripts/push_to_hub.py --repo-id ORG/naf-bench --folder DIR     # a folder from naf-bench export

Exports the configs (``naf_bench.data.hub.export``: parquet per split, the dataset card, LICENSE) unless
``--folder`` names an export, checks the repository — the card parses with ``huggingface_hub.DatasetCard``,
names this repository, and has a ``dataset_info`` for each config whose ``data_files`` match parquet files,
and every config loads with ``datasets.load_dataset(folder, config)`` — then uploads it. ``--dry-run`` stops
before the upload and sends nothing. Afterwards ``datasets.load_dataset("ORG/naf-bench", config)`` works with
no naf-bench installed, and the lm-eval tasks read it with ``NAF_BENCH_DATASET=ORG/naf-bench``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from naf_bench.generate.config import CONFIGS


def check(folder: Path, repo_id: str) -> list[Path]:
    """The files to upload; SystemExit naming the first problem of the folder."""
    import datasets
    from huggingface_hub import DatasetCard

    card_path = folder / "README.md"
    if not card_path.is_file():
        raise SystemExit(f"{folder} is not an exported dataset: README.md is missing")
    card = DatasetCard.load(card_path)
    if f'load_dataset("{repo_id}"' not in card.text:
        raise SystemExit(f"{card_path} names another repository: export again with --repo-id {repo_id}")
    configs = card.data.get("configs") or []
    infos = {info["config_name"] for info in card.data.get("dataset_info") or []}
    files = [card_path, folder / "LICENSE", *([folder / "eval.yaml"] if (folder / "eval.yaml").is_file() else [])]
    for config in configs:
        name = config["config_name"]
        if name not in infos:
            raise SystemExit(f"{card_path}: config {name!r} has no dataset_info")
        for data in config["data_files"]:
            matched = sorted(folder.glob(data["path"]))
            if not matched:
                raise SystemExit(f"{card_path}: config {name!r}: no file matches {data['path']}")
            files.extend(matched)
        with tempfile.TemporaryDirectory() as cache:
            loaded = datasets.load_dataset(str(folder), name, cache_dir=cache)
        print(f"{name}: " + ", ".join(f"{split} {part.num_rows} rows" for split, part in loaded.items()))
    if not configs:
        raise SystemExit(f"{card_path} has no configs:")
    if not files[1].is_file():
        raise SystemExit(f"{folder} has no LICENSE")
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo-id", required=True, help="e.g. my-org/naf-bench")
    parser.add_argument("--folder", type=Path, help="an existing export to upload (default: export now)")
    parser.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS), metavar="CONFIG")
    parser.add_argument("--out", type=Path, default=Path("out/hub/naf-bench"), help="where to export")
    parser.add_argument("--num-proc", type=int, help="processes that generate configs not yet cached")
    parser.add_argument("--private", action="store_true")
    parser.add_argument("--dry-run", action="store_true", help="export and check, send nothing")
    args = parser.parse_args(argv)
    folder = args.folder
    if folder is None:
        from naf_bench.data.hub import export

        folder = export(args.out, tuple(args.configs), repo_id=args.repo_id, num_proc=args.num_proc)
    files = check(folder, args.repo_id)
    for path in files:
        print(f"{'would upload' if args.dry_run else 'uploading'} {path.relative_to(folder)}")
    if args.dry_run:
        return 0
    from huggingface_hub import HfApi

    api = HfApi()
    api.create_repo(args.repo_id, repo_type="dataset", private=args.private, exist_ok=True)
    api.upload_folder(folder_path=str(folder), repo_id=args.repo_id, repo_type="dataset")
    print(f"uploaded {len(files)} files to https://huggingface.co/datasets/{args.repo_id}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
