"""The paper's figures from the authors' imported files: ``naf-bench analyze --authors REF --out OUT``.

Each subset that ``import-authors`` wrote (``REF/<subset>/gold.jsonl`` and ``REF/<subset>/runs/*.jsonl``) is
analyzed with the extractor its figure used (:data:`naf_bench.data.authors.SUBSETS`; ``--extractor`` overrides)
into ``OUT/<subset>/`` (:func:`naf_bench.analysis.tables.analyze`). ``OUT/paper.json`` and ``OUT/paper.md`` put side
by side what one subset alone cannot show: Tables 6 and 14 (direct, verify-before-answer and
translate-then-solve per model) and the pilot's English against Chinese (WFS prompts, null = wrong).
"""

from __future__ import annotations

import json
from pathlib import Path

from naf_bench.analysis.outputs import write_analysis
from naf_bench.analysis.tables import analyze
from naf_bench.data.authors import SUBSETS
from naf_bench.errors import DataError
from naf_bench.readings import READINGS
from naf_bench.scoring.formatting import percent, table_header
from naf_bench.scoring.intake import AUTHORS, SUBMISSION_KIND, describe


def analyze_authors(folder, out, n_bootstrap: int = 1000, extractor: str | None = None) -> tuple[dict, list[Path]]:
    """Every imported subset's analysis and the cross-subset tables; the content of paper.json and the files."""
    folder, out = Path(folder), Path(out)
    if not folder.is_dir():
        kind = describe(folder) if folder.is_file() else None
        how = f"; to analyze it: naf-bench analyze {folder} --gold GOLD --out DIR" if kind == SUBMISSION_KIND else ""
        raise DataError(folder, f"{kind or 'no such folder'}, where {AUTHORS} was expected{how}")
    results, errors, written = {}, {}, []
    for subset in SUBSETS:
        gold = folder / subset.name / "gold.jsonl"
        runs = sorted((folder / subset.name / "runs").glob("*.jsonl"))
        if gold.exists() and runs:
            try:
                results[subset.name] = analyze(runs, gold, extractor or subset.extractor, n_bootstrap)
            except DataError as exc:  # one unreadable subset does not hide the others; it is reported
                errors[subset.name] = str(exc)
                continue
            written += write_analysis(results[subset.name], out / subset.name)
    if not results and not errors:
        raise DataError(folder, f"no imported subset here, where {AUTHORS} was expected")
    paper = {
        "extractors": {name: result["extractor"] for name, result in results.items()},
        "errors": errors,
        "mitigation": mitigation_table(results),
        "language": language_table(results),
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "paper.json").write_text(json.dumps(paper, indent=1), encoding="utf-8")
    (out / "paper.md").write_text(render_paper(paper), encoding="utf-8")
    return paper, [*written, out / "paper.json", out / "paper.md"]


def mitigation_table(results: dict[str, dict]) -> dict[str, dict[str, dict]]:
    """``{model: {mitigation: the run's mitigation table}}`` over the subsets that name a mitigation."""
    table: dict[str, dict[str, dict]] = {}
    for subset in SUBSETS:
        if subset.mitigation and subset.name in results:
            for model, run in results[subset.name]["runs"].items():
                if run.get("mitigation"):
                    table.setdefault(model, {})[subset.mitigation] = run["mitigation"]
    return table


def language_table(results: dict[str, dict]) -> dict[str, dict[str, dict]]:
    """``{model: {language: WFS correct, n, parsed, accuracy over parsed}}`` over the subsets varying language."""
    table: dict[str, dict[str, dict]] = {}
    for subset in SUBSETS:
        if "language" in subset.varies and subset.name in results:
            for model, run in results[subset.name]["runs"].items():
                cell = run["per_semantics"].get(READINGS.undefined)
                if cell:
                    table.setdefault(model, {})[subset.language] = {
                        key: cell[key] for key in ("correct", "n", "n_parsed", "accuracy", "strict_accuracy")
                    }
    return table


def render_paper(paper: dict) -> str:
    """paper.md: which extractor each subset used, Tables 6 and 14 side by side, English against Chinese."""
    lines = ["# NAF-Bench: the paper's cross-subset tables", "", "| subset | extractor |", "|---|---|"]
    lines += [f"| {name} | {extractor} |" for name, extractor in paper["extractors"].items()]
    lines += [f"| {name} | not analyzed: {error} |" for name, error in paper["errors"].items()]
    present = {m for cells in paper["mitigation"].values() for m in cells}
    mitigations = [m for m in ("direct", "verify", "t2s") if m in present] + sorted(
        present - {"direct", "verify", "t2s"}
    )
    if mitigations:
        lines += [
            "",
            "## Tables 6 and 14: direct, verify, translate-then-solve (accuracy over parsed; strict: nulls wrong)",
            "",
            *table_header(["model", *mitigations, "translated (authors)", "our reader's outcomes"]),
        ]
        for model, cells in paper["mitigation"].items():
            row = [
                f"{percent(c['accuracy'])} ({c['correct']}/{c['n_parsed']}; strict {percent(c['strict_accuracy'])}, "
                f"{c['nulls']} nulls)"
                if (c := cells.get(m))
                else "–"
                for m in mitigations
            ]
            t = cells.get("t2s", {}).get("translations")
            authors = f"{t['stored_ok']}/{t['stored_ok_known']}" if t else "–"
            ours = ", ".join(f"{k} {v}" for k, v in t["outcomes"].items()) if t else "–"
            lines.append(f"| {model} | " + " | ".join(row) + f" | {authors} | {ours} |")
    if paper["language"]:
        languages = sorted({lang for cells in paper["language"].values() for lang in cells})
        lines += [
            "",
            "## The pilot: English against Chinese (WFS prompts; correct of n, null = wrong)",
            "",
            *table_header(["model", *languages]),
        ]
        for model, cells in paper["language"].items():
            row = [
                f"{c['correct']}/{c['n']} ({percent(c['strict_accuracy'])}; {c['n_parsed']} parsed)"
                if (c := cells.get(lang))
                else "–"
                for lang in languages
            ]
            lines.append(f"| {model} | " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"
