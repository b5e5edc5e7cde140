"""The paper's analyses: the tables (:mod:`.tables`), what they read (:mod:`.inputs`), how they render
(:mod:`.outputs`), and the paper's figures from the authors' imported files (:mod:`.paper`)."""
