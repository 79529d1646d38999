"""Train the book's model from scratch at a high step size, without and with QK norm.

    .venv/bin/python scripts/train_logit_growth.py          # every edition
    .venv/bin/python scripts/train_logit_growth.py ja --steps 200 --out /tmp/g

Writes ``lm-<edition>-logit-growth.json`` into ``src/attention_docs/data/``
(or ``--out``): every 50 steps of each run, the validation loss, each
layer's largest attention score |S_ij| on the validation text and the
Frobenius norms of its W_Q and W_K, which the
page "Keeping the logits in range" (logit-range.md, ``#in-training``) prints.
Reads the shipped corpus of each edition (``load_corpus``); two runs of a few
minutes an edition on two cores (run it under ``flock /tmp/heavy.lock``
on a shared machine); not part of any build or test run (a test
trains a small model with the same code).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from attention_book import ROOT
from attention_book.language_models import (
    BATCH,
    GROWTH_LR,
    GROWTH_STEPS,
    SMALL,
    logit_growth_edition,
)
from attention_docs.language_model import EDITIONS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("editions", nargs="*", default=list(EDITIONS))
    parser.add_argument("--steps", type=int, default=GROWTH_STEPS)
    parser.add_argument("--batch", type=int, default=BATCH)
    parser.add_argument("--lr", type=float, default=GROWTH_LR)
    parser.add_argument("--out", type=Path, default=ROOT / "src/attention_docs/data")
    parser.add_argument("--small", action="store_true", help="a tiny model")
    args = parser.parse_args()
    for edition in args.editions:
        summary = logit_growth_edition(
            edition,
            args.out,
            steps=args.steps,
            lr=args.lr,
            batch=args.batch,
            config=SMALL if args.small else None,
        )
        for name, run in summary["runs"].items():
            if "diverged" in run:
                print(f"{edition} {name}: {run['diverged']}")
                continue
            print(
                f"{edition} {name}: {run['seconds']} s; max|S| per layer "
                f"{run['max_score'][0]} -> {run['max_score'][-1]}; "
                f"validation loss {run['val_loss'][-1]}"
            )


if __name__ == "__main__":
    main()
