"""``python -m bench``: run the benchmark suite (see ``bench/runner.py``)."""

import sys

from bench.runner import main

sys.exit(main())
