"""One BLAS thread per process, as the tests run: set before numpy is imported.

OpenBLAS splits a matrix product among its threads, and the way it splits it
changes the order of the additions, so the last bits of a result depend on
the number of threads; a few hundred steps of training turn those bits into
a different third decimal of a loss. The test suite runs one BLAS thread per
process (``conftest.py``), so a tool that writes what an example prints
(``refresh``) runs with one too: what it writes is then what the tests read.
A value the caller set is kept. Nothing here imports numpy.
"""

from __future__ import annotations

import os

VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def one_blas_thread() -> None:
    """Ask every BLAS numpy may load for one thread, unless the caller chose."""
    for variable in VARIABLES:
        os.environ.setdefault(variable, "1")
