"""The static leaderboard site: ``leaderboard.json``, ``index.html`` and a Space ``README.md`` from a board.

The page is rendered with Jinja2 with autoescaping on, so every string a submission brings (model name,
version, tools, method URL) reaches the page as text. It works opened from disk: the style and the script
(sorting, the track switch) are inline, the chart is inline SVG, and a Content-Security-Policy forbids
loading anything from anywhere.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import partial
from pathlib import Path

from naf_bench.readings import READINGS, joint_conditions
from naf_bench.scoring.formatting import percent
from naf_bench.scoring.metrics import METRICS

TEMPLATES = Path(__file__).with_name("templates")
TRACK_TITLES = {"standard": "Standard track", "enhanced": "Enhanced track"}
CHART_WIDTH, CHART_LABEL, CHART_ROW = 720, 260, 22


_pct = partial(percent, missing="—")


def _cell(text, sort=None, *, href=None, version=None, baseline=False, strong=False, wrap=False, label=False):
    """A table cell: its text, the value it sorts by ("" sorts last), and how it is shown (``href``: a "method"
    link after the text; ``wrap``: the text may wrap; ``label``: a few words in place of a number, wrapped at
    their spaces)."""
    sort = "" if sort is None else sort
    return {
        "text": text,
        "sort": sort,
        "href": href,
        "version": version,
        "baseline": baseline,
        "strong": strong,
        "wrap": wrap,
        "label": label,
    }


def _metric(name: str) -> str:
    """The column title of a metric the site shows (the metrics table's, :data:`naf_bench.scoring.metrics.METRICS`)."""
    return f"{METRICS[name].title} %"


def _columns() -> list[dict]:
    readings = [READINGS[c].title for c in joint_conditions()]
    names = [
        "#",
        "Model",
        _metric("joint"),
        "95 % interval",
        _metric("per_prompt_accuracy"),
        *(f"{r} %" for r in readings),
        _metric("coverage"),
        _metric("format_valid_rate"),
        "Unknown ids",
        "Sound traces %",
        "Details",
    ]
    text = {"#", "Model", "Details"}
    return [{"title": name, "first": "ascending" if name in text else "descending"} for name in names]


def partial_label(row: Mapping) -> str:
    """What a partial run's row says of it: ``partial: 8 of 480 prompts``."""
    return f"partial: {row['n_given']} of {row['n_prompts']} prompts"


def _details(meta: Mapping) -> str:
    """The less-used metadata in one folded cell: reasoning, tools, open weights, size, date (— when unknown)."""
    tools = {True: f"tools: {meta.get('external_tools_detail') or 'yes'}", False: "no tools"}
    parts = [
        meta.get("reasoning_mode"),
        tools.get(meta.get("external_tools")),
        {True: "open weights", False: "closed weights"}.get(meta.get("open_weights")),
        None if meta.get("params_billions") is None else f"{meta['params_billions']:g} B params",
        meta.get("evaluation_date"),
    ]
    return " · ".join(part for part in parts if part) or "—"


def _table_row(row: Mapping, rank: str | None = None) -> dict:
    """A table row; ``rank`` replaces the rank cell's text (a partial run's label)."""
    meta = row.get("metadata") or {}
    traces = row.get("trace_audit")
    low, high = row["joint_ci95"] or (None, None)
    unknown = row.get("n_unknown_ids")
    unread = f" ({row['n_unread']:,} unread)" if row.get("n_unread") else ""
    cells = [
        _cell(
            "ref" if row["baseline"] else rank or row["rank"],
            10**6 if row["baseline"] else row.get("rank", 10**5),
            label=rank is not None,
        ),
        _cell(row["model"], row["model"].lower(), version=meta.get("model_version"), baseline=row["baseline"]),
        _cell(_pct(row["joint"]), row["joint"], strong=True),
        _cell("—" if low is None else f"{_pct(low)}–{_pct(high)}", low),
        _cell(_pct(row["per_prompt_accuracy"]), row["per_prompt_accuracy"]),
        *(_cell(_pct(row["per_semantics"].get(c)), row["per_semantics"].get(c)) for c in joint_conditions()),
        _cell(_pct(row["coverage"]), row["coverage"]),
        _cell(_pct(row["format_valid_rate"]) + unread, row["format_valid_rate"]),
        _cell("—" if unknown is None else f"{unknown:,}", unknown),
        _cell(
            f"{_pct(traces['reasoned_soundly'])} ({traces['n']} traced)" if traces else "—",
            traces["reasoned_soundly"] if traces else None,
        ),
        _cell(_details(meta), meta.get("reasoning_mode"), href=meta.get("method_url"), wrap=True),
    ]
    return {"baseline": row["baseline"], "cells": cells}


def _family_row(row: Mapping, families: list[str]) -> dict:
    cells = []
    for family in families:
        value = row["joint_per_family"].get(family)
        text = "—" if value is None else f"{_pct(value['joint'])} ({value['solved']}/{value['programs']})"
        cells.append(_cell(text, None if value is None else value["joint"]))
    return {"model": row["model"], "baseline": row["baseline"], "cells": cells}


def _chart(rows: list[Mapping]) -> dict:
    """Inline-SVG geometry: one line per row, a dot at JOINT and a bar over its 95 % interval."""
    scale = (CHART_WIDTH - CHART_LABEL - 20) / 100

    def x(value):
        return round(CHART_LABEL + 100 * value * scale, 1)

    bars = []
    for i, row in enumerate(rows):
        low, high = row["joint_ci95"] or (None, None)
        bars.append(
            {
                "y": 30 + i * CHART_ROW,
                "model": row["model"],
                "baseline": row["baseline"],
                "label": _pct(row["joint"]),
                "x": None if row["joint"] is None else x(row["joint"]),
                "low": None if low is None else x(low),
                "high": None if high is None else x(high),
            }
        )
    ticks = [{"x": x(t / 100), "label": t} for t in range(0, 101, 20)]
    return {
        "width": CHART_WIDTH,
        "height": 40 + len(rows) * CHART_ROW,
        "bars": bars,
        "ticks": ticks,
        "left": CHART_LABEL,
        "right": x(1.0),
    }


def page_context(board: Mapping) -> dict:
    """What the template shows: per track, the ranked rows with the baselines, the family view and the chart."""
    families = board["dataset"]["families"]
    tracks = []
    for track, rows in board["tracks"].items():
        partial = board.get("partial", {}).get(track, [])
        shown = [*rows, *board["baselines"]]
        tracks.append(
            {
                "name": track,
                "title": TRACK_TITLES.get(track, track),
                "n_submissions": len(rows),
                "rows": [_table_row(row) for row in shown],
                "partial_rows": [_table_row(row, rank=partial_label(row)) for row in partial],
                "family_rows": [_family_row(row, families) for row in shown],
                "chart": _chart(shown),
            }
        )
    rows = [row for shown in (*board["tracks"].values(), board["baselines"]) for row in shown]
    extractors = sorted({row["extractor"] for row in rows if row.get("extractor")})
    return {
        "board": board,
        "dataset": board["dataset"],
        "columns": _columns(),
        "families": families,
        "tracks": tracks,
        "extractors": extractors,
    }


def render_page(board: Mapping) -> str:
    """``index.html`` of a board (Jinja2, autoescaped)."""
    from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

    environment = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
    )
    return environment.get_template("index.html.j2").render(page_context(board))


def render_space_readme(board: Mapping) -> str:
    """A README with the Hub's front matter for a static Space, so that the site folder can be pushed as is."""
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    environment = Environment(loader=FileSystemLoader(TEMPLATES), undefined=StrictUndefined, keep_trailing_newline=True)
    return environment.get_template("README.md.j2").render(board=board, dataset=board["dataset"])


def write_site(board: Mapping, out: str | Path) -> list[Path]:
    """Write ``leaderboard.json``, ``index.html`` and ``README.md`` under ``out``; returns their paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "leaderboard.json": json.dumps(board, indent=2, ensure_ascii=False, allow_nan=False) + "\n",
        "index.html": render_page(board),
        "README.md": render_space_readme(board),
    }
    paths = []
    for name, text in files.items():
        path = out / name
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths
