"""Data: the row schema, the rows of a config (one walk per cell), the dataset builder, the Hub folder, the
process pool and Ray, and the import of the authors' reference data."""
