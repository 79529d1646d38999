"""Train a two-layer model on repeated letters: its layer 2 head is an induction head.

    .venv/bin/python scripts/train_induction_model.py
    .venv/bin/python scripts/train_induction_model.py --steps 100 --out /tmp/ind

Writes ``lm-induction.npz`` and ``lm-induction.json`` into
``src/attention_docs/data/`` (or ``--out``): see
``attention_book.language_models.train_induction``. The seed fixes the
weights; about a minute or two on two cores. No build or test runs it at full
size (a test trains a shorter run and checks that its loss falls).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from attention_book import ROOT
from attention_book.language_models import (
    INDUCTION_BATCH,
    INDUCTION_STEPS,
    SEED,
    train_induction,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=INDUCTION_STEPS)
    parser.add_argument("--batch", type=int, default=INDUCTION_BATCH)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--out", type=Path, default=ROOT / "src/attention_docs/data")
    args = parser.parse_args()
    summary = train_induction(
        args.out, steps=args.steps, batch=args.batch, seed=args.seed
    )
    print(
        f"{summary['parameters']:,} parameters, {summary['seconds']} s; "
        f"loss on the first copy {summary['first_copy_loss']}, on the second "
        f"{summary['second_copy_loss']}; induction score per layer and head "
        f"{summary['induction_score']}, previous-token score "
        f"{summary['previous_token_score']}"
    )


if __name__ == "__main__":
    main()
