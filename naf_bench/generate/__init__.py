"""Generation: the family registry (:mod:`.registry`: every divergence bin and leaderboard family, one entry each;
the programs themselves in :mod:`.bins` and :mod:`.families`), configs and their cells (:mod:`.config`), hashed
per-item seeds (:mod:`.seeds`), the one walk of a cell's attempts (:mod:`.algorithm`: ``Cell``, ``CellWalk``,
exclusions where cells meet), and how many distinct programs a unit can reach (:mod:`.bound`)."""
