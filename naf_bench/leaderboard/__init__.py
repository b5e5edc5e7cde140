"""The leaderboard: submission metadata, the board (scores over the shared scoring core), the static site."""
