"""The live board as a Gradio Blocks app: a thin view over ``service.Service`` (which calls the scoring core).

Named endpoints for ``gradio_client``: ``/submit`` (submission file, metadata file, team token) -> the
acknowledgement or the refusal with every reason; ``/board`` (track, split) -> the board as shown;
``/history`` (team token) -> the team's own uploads and model jobs; ``/submit_model`` (kind, model, base URL,
key, team token) -> the queued job or the refusal (the verified track, ``worker.py``). The page: the upload
form, the model form, the board per track and the worker's boards (sortable; the baselines as marked rows where
they are published) and the team's history. Uploaded files are removed from Gradio's upload folder once
handled (the store keeps its own copy of an accepted one) and kept within bounds until then (``uploads.py``),
and ``max_file_size`` is the service's size limit, so Gradio refuses a bigger file before it is written whole.
No other endpoint is offered (``API_NAMES``).
"""

from __future__ import annotations

import os
from functools import partial

from naf_bench.leaderboard.service import DEV, HIDDEN, Service, refused
from naf_bench.leaderboard.uploads import Claimed, Door, UploadFolder
from naf_bench.scoring.formatting import percent

TITLE = "naf-bench leaderboard"


def hub_identity(profile) -> tuple[str, str] | None:
    """A signed-in Hugging Face user as ``(stable id, user name)`` from Gradio's ``gr.OAuthProfile``: the id
    (the OpenID ``sub`` claim) is the team; the name only finds the maintainer's approval at the first sign-in."""
    if profile is None:
        return None
    sub, username = profile.get("sub"), profile.get("preferred_username")
    if not sub or not username:
        return None
    return f"hf:{sub}", username


_pct = partial(percent, missing="")


def board_table(board: dict, baselines: list[dict]):
    """The board as the page's table (a pandas Styler over the frame): teams in rank order, then the baselines,
    marked; with every column (the dev set, the frozen hidden set), each row's unknown ids and a partial upload
    marked as one (it is ranked by the Ladder like any other)."""
    import pandas as pd

    from naf_bench.leaderboard.site import partial_label
    from naf_bench.readings import joint_conditions

    full = board["full_scores"]
    records = []
    for row in [*board["rows"], *baselines]:
        low_high = row["joint_ci95"]
        record = {
            "rank": "ref" if row["baseline"] else row["rank"],
            "team": row["name"],
            "model": "" if row["baseline"] else row["model"],
            "kind": "baseline" if row["baseline"] else partial_label(row) if row.get("partial") else "submission",
            "JOINT %": _percent(row["joint"]),
            "95% interval": "" if low_high is None else f"{_pct(low_high[0])}–{_pct(low_high[1])}",
            "programs solved": f"{row['joint_solved']}/{row['n_programs']}",
        }
        if full:
            for condition in joint_conditions():
                record[f"{condition} %"] = _percent(row["per_semantics"].get(condition))
            record["coverage %"] = _percent(row["coverage"])
            record["unknown ids"] = row.get("n_unknown_ids")
        record["submitted"] = row.get("time", "")
        records.append(record)
    columns = ["rank", "team", "model", "kind", "JOINT %", "95% interval", "programs solved"]
    if full:
        columns += [f"{c} %" for c in joint_conditions()] + ["coverage %", "unknown ids"]
    frame = pd.DataFrame(records, columns=[*columns, "submitted"])
    # numbers (so that the page sorts them as numbers) shown with one decimal each: "39.0", never "39"
    style = frame.style.format("{:.1f}", subset=[c for c in columns if c.endswith(" %")], na_rep="")
    return style.format("{:.0f}", subset=["unknown ids"], na_rep="") if full else style


def verified_table(board: dict):
    """A board of the worker's runs (``Service.verified_board``) as the page's table: per set, teams in rank order,
    each row marked with its kind (verified: run by the maintainer; endpoint: a team's server)."""
    import pandas as pd

    records = []
    for row in board["rows"]:
        low_high = row["joint_ci95"]
        records.append(
            {
                "set": row["set"],
                "rank": row["rank"],
                "team": row["name"],
                "model": row["model"],
                "kind": row["kind"],
                "JOINT %": _percent(row["joint"]),
                "95% interval": "" if low_high is None else f"{_pct(low_high[0])}–{_pct(low_high[1])}",
                "programs solved": f"{row['joint_solved']}/{row['n_programs']}",
                "tokens": row.get("completion_tokens"),
                "run s": row.get("run_seconds"),
                "submitted": row.get("time", ""),
            }
        )
    frame = pd.DataFrame(records, columns=list(_VERIFIED_COLUMNS))
    return frame.style.format("{:.1f}", subset=["JOINT %"], na_rep="")


_VERIFIED_COLUMNS = ("set", "rank", "team", "model", "kind", "JOINT %", "95% interval", "programs solved", "tokens",
                     "run s", "submitted")  # fmt: skip
_JOB_COLUMNS = ("id", "kind", "model", "base_url", "state", "reason", "attempts", "submitted_at", "ended_at",
                "submission_id")  # fmt: skip
KINDS = ("verified", "endpoint")  # the worker's boards, beside the upload tracks


def _percent(value) -> float | None:
    return None if value is None else round(100 * value, 1)


def changed_tables(service: Service, splits: list[str], answer: dict) -> list:
    """After an upload (``answer``), only the tables it changed: its split's, where its team's shown row changed
    (the row may have left the other track's table); every other table as it is (``gr.skip()``)."""
    import gradio as gr

    from naf_bench.scoring.metadata import TRACKS

    changed = answer.get("status") == "accepted" and answer["board_changed"]
    uploads = [
        board_table(service.board(t, s), service.baseline_rows(s)) if changed and s == answer["split"] else gr.skip()
        for s in splits
        for t in TRACKS
    ]
    return [*uploads, *(gr.skip() for _ in KINDS)]


def build_app(service: Service, hub_sign_in: bool = False, upload_grace: float = 30.0):
    """The Blocks app of ``service``; ``hub_sign_in`` adds "Sign in with Hugging Face" for approved Hub users;
    handled uploads leave Gradio's cache ``upload_grace`` seconds after their request (see ``uploads.Claimed``)."""
    import gradio as gr

    from naf_bench.scoring.metadata import TRACKS

    splits = [HIDDEN, *([DEV] if DEV in service.golds else [])]

    def identify(token, profile):
        return service.team_for(token, hub_identity(profile) if hub_sign_in else None)

    def submit(submission, metadata, token, profile: gr.OAuthProfile | None = None) -> dict:
        claim = Claimed(submission, metadata, grace=upload_grace)
        try:
            with claim as (submission, metadata):
                if not submission or not metadata:
                    return refused(["both files are needed: the submission and its metadata"])
                return service.submit(submission, metadata, identify(token, profile))
        except FileNotFoundError:
            return refused(["the upload left the server's upload cache before it was read; please send it again"])

    def board(track: str = "standard", split: str = HIDDEN) -> dict:
        if track in KINDS:  # the worker's runs: scored on the worker's own sets, whatever the split
            return service.verified_board(track)
        if track not in TRACKS or split not in splits:
            return {
                "status": "refused",
                "reasons": [f"tracks: {', '.join([*TRACKS, *KINDS])}; splits: {', '.join(splits)}"],
            }
        return {**service.board(track, split), "self_reported": True}

    def submit_model(
        kind: str, model: str, base_url: str, key: str, token: str, profile: gr.OAuthProfile | None = None
    ) -> dict:
        return service.submit_model(identify(token, profile), kind, model, base_url or None, key or None)

    def history(token: str) -> dict:
        return service.history(identify(token, None))  # the API takes tokens only

    def tables():
        uploads = [board_table(service.board(t, s), service.baseline_rows(s)) for s in splits for t in TRACKS]
        return [*uploads, *(verified_table(service.verified_board(kind)) for kind in KINDS)]

    def history_table(token, profile: gr.OAuthProfile | None = None):
        import pandas as pd

        answer = service.history(identify(token, profile))
        return (
            pd.DataFrame(answer.get("uploads", []), columns=list(_HISTORY_COLUMNS)),
            pd.DataFrame(answer.get("jobs", []), columns=list(_JOB_COLUMNS)),
        )

    with gr.Blocks(title=TITLE, analytics_enabled=False) as demo:
        gr.Markdown(
            f"# {TITLE}\n"
            "While the board is live, the hidden test set shows JOINT only, as the Ladder releases it: a team's "
            "shown JOINT changes only when a new submission beats it by more than its standard error, program by "
            "program. The interval is Wilson's, from the shown JOINT and the number of programs alone."
        )
        with gr.Tabs():
            boards = _board_tabs(gr, splits)
            with gr.Tab("Submit", elem_id="tab-submit"):
                if hub_sign_in:
                    gr.LoginButton()
                submission = gr.File(label="submission (.jsonl)", file_types=[".jsonl"], elem_id="submission")
                metadata = gr.File(label="metadata (.json)", file_types=[".json"], elem_id="metadata")
                token = gr.Textbox(label="team token", type="password", elem_id="token")
                send = gr.Button("Submit", variant="primary", elem_id="send")
                answer = gr.JSON(label="answer", elem_id="answer")
                with gr.Accordion("Submit a model (the maintainer runs it on prompts never published)", open=False):
                    kind = gr.Radio(list(KINDS), value="verified", label="kind", elem_id="job-kind")
                    model = gr.Textbox(label="model: an approved one, or the endpoint's served model", elem_id="model")
                    base_url = gr.Textbox(label="endpoint base URL (endpoint runs)", elem_id="base-url")
                    key = gr.Textbox(
                        label="endpoint key (kept until the job ends, never shown)",
                        type="password",
                        elem_id="endpoint-key",
                    )
                    queue = gr.Button("Submit the model", elem_id="send-model")
                    queued = gr.JSON(label="answer", elem_id="model-answer")
                show = gr.Button("Show my history", elem_id="show-history")
                own = gr.Dataframe(label="your uploads", interactive=False, elem_id="history")
                jobs = gr.Dataframe(label="your model jobs", interactive=False, elem_id="jobs")
        refresh = gr.Button("Refresh the boards", elem_id="refresh")
        send.click(submit, [submission, metadata, token], answer, api_name="submit", concurrency_limit=4).then(
            lambda answer: changed_tables(service, splits, answer), answer, boards, api_visibility="private"
        ).then(history_table, token, [own, jobs], api_visibility="private")
        queue.click(
            submit_model, [kind, model, base_url, key, token], queued, api_name="submit_model", concurrency_limit=4
        ).then(history_table, token, [own, jobs], api_visibility="private")
        show.click(history_table, token, [own, jobs], api_visibility="private")
        refresh.click(tables, None, boards, api_visibility="private")
        demo.load(tables, None, boards, api_visibility="private")
        gr.api(board, api_name="board")
        gr.api(history, api_name="history")
    return demo


def _board_tabs(gr, splits: list[str]) -> list:
    """A tab per board, in the open Tabs: each split's tracks (self-reported), then the worker's runs; their
    tables in that order (as ``tables`` fills them)."""
    from naf_bench.scoring.metadata import TRACKS

    boards = []
    for split in splits:
        for track in TRACKS:
            name = f"{'hidden test' if split == HIDDEN else 'public dev'} · {track}"
            with gr.Tab(name, elem_id=f"tab-{split}-{track}"):
                boards.append(
                    gr.Dataframe(
                        label=f"{name} (self-reported: the team ran its model)",
                        interactive=False,
                        elem_id=f"board-{split}-{track}",
                    )
                )
    for kind, name in (("verified", "verified (run by the maintainer)"), ("endpoint", "endpoint runs")):
        with gr.Tab(name, elem_id=f"tab-{kind}"):
            boards.append(gr.Dataframe(label=name, interactive=False, elem_id=f"board-{kind}"))
    return boards


_HISTORY_COLUMNS = ("submission", "time", "split", "track", "board_changed", "shown_now", "withdrawn")


def serve(
    service: Service,
    host: str = "127.0.0.1",
    port: int = 7860,
    hub_sign_in: bool = False,
    upload_grace: float = 30.0,
    upload_space: int = 200_000_000,
    upload_max_age: float = 300.0,
    upload_idle: float = 30.0,
    block: bool = True,
):
    """Start the app and block (the ``serve`` command; ``block=False`` returns the running app, for a benchmark
    that drives it in its own process). Gradio's uploads go to ``DIR/uploads``, emptied now and
    kept within ``upload_space`` bytes and ``upload_max_age`` seconds for uploads no submit has claimed
    (``uploads.py``), and an upload that sends no byte for ``upload_idle`` seconds is ended; the browser keeps no
    run history (it would hold the token) and ``/monitoring`` is off."""
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    folder = UploadFolder(service.store.root / "uploads", space=upload_space, max_age=upload_max_age)
    os.environ["GRADIO_TEMP_DIR"] = str(folder.root)  # read by Gradio when the app is built
    folder.start_cleaner(every=max(1.0, min(30.0, upload_max_age / 4)))
    demo = build_app(service, hub_sign_in=hub_sign_in, upload_grace=upload_grace)
    from starlette.middleware import Middleware

    door = Middleware(
        Door, folder=folder, api_names=API_NAMES, max_upload=2 * service.limits.max_bytes, idle=upload_idle
    )
    demo.queue(default_concurrency_limit=4).launch(
        server_name=host,
        server_port=port,
        max_file_size=service.limits.max_bytes,
        footer_links=["api"],
        quiet=True,
        run_history=False,
        enable_monitoring=False,
        app_kwargs={"middleware": [door]},
        prevent_thread_lock=not block,
    )
    return demo


API_NAMES = frozenset({"submit", "submit_model", "board", "history"})  # the named endpoints of ``build_app``
