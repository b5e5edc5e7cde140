"""Upload an exported NAF-Bench folder (``naf-bench export --out DIR``) to the Hugging Face Hub.

    python scripts/push_to_hub.py DIR --repo-id ORG/naf-bench [--dry-run]

``--dry-run`` checks the folder (dataset card with ``configs:``, parquet files it names) and prints what
would be uploaded, without touching the network.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def planned_files(folder: Path) -> list[Path]:
    card = folder / "README.md"
    if not card.is_file() or "configs:" not in card.read_text(encoding="utf-8"):
        raise SystemExit(f"{folder} is not an exported dataset: README.md with 'configs:' is missing")
    parquet = sorted(folder.glob("data/*/*.parquet"))
    if not parquet:
        raise SystemExit(f"{folder} has no data/<config>/*.parquet files")
    return [card, *parquet]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--repo-id", required=True, help="e.g. my-org/naf-bench")
    parser.add_argument("--private", action="store_true")
    parser.add_argument("--dry-run", action="store_true", help="list the upload, send nothing")
    args = parser.parse_args(argv)
    files = planned_files(args.folder)
    for path in files:
        print(f"{'would upload' if args.dry_run else 'uploading'} {path.relative_to(args.folder)}")
    if args.dry_run:
        return 0
    from huggingface_hub import HfApi

    api = HfApi()
    api.create_repo(args.repo_id, repo_type="dataset", private=args.private, exist_ok=True)
    api.upload_folder(folder_path=str(args.folder), repo_id=args.repo_id, repo_type="dataset")
    print(f"uploaded {len(files)} files to https://huggingface.co/datasets/{args.repo_id}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
