"""Data: the row schema, the rows of a config (one walk per cell), the dataset builder, the Hub folder, the
process pool and Ray, the import of the authors' published files (their runs and their leaderboard files),
and finding the gold a submission belongs to (:mod:`.gold`)."""
