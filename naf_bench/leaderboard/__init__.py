"""The leaderboard: the board (scores over the shared scoring core), the static site, the live service (store,
ladder, uploads, the Gradio app), hidden sets and the verified track's runner and worker."""
