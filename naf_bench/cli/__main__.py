"""``python -m naf_bench.cli``: the ``naf-bench`` command."""

import sys

from naf_bench.cli import main

sys.exit(main())
