"""Train the book's language models, one per edition, on the edition's own pages.

    .venv/bin/python scripts/train_language_model.py          # every edition
    .venv/bin/python scripts/train_language_model.py ja --steps 200 --out /tmp/lm
    .venv/bin/python scripts/train_language_model.py ja --long-context
    .venv/bin/python scripts/train_language_model.py ja --long-context --scaling yarn
    .venv/bin/python scripts/train_language_model.py ja --long-context --scaling rope

Writes ``corpus-<edition>.txt``, ``lm-<edition>.npz`` and ``lm-<edition>.json``
into ``src/attention_docs/data/`` (or ``--out``): see
``attention_book.language_models``. About ten minutes an edition on two
cores; not part of any build or test run (the tests train a small model with
the same code and check that its loss falls).

With ``--long-context``, fine-tunes the shipped model of each edition
briefly on windows of 4L, once with position interpolation and once with
YaRN, and once with the trained angles as a control (``rope``), and writes
``lm-<edition>-linear.npz``, ``lm-<edition>-yarn.npz``, ``lm-<edition>-rope.npz``
(float16) and their logs (``fine_tune_edition``); a few minutes a run.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from attention_book import ROOT
from attention_book.language_models import (
    BATCH,
    LONG_BATCH,
    LONG_SCALINGS,
    LONG_STEPS,
    SMALL,
    STEPS,
    fine_tune_edition,
    train_edition,
)
from attention_docs.language_model import EDITIONS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("editions", nargs="*", default=list(EDITIONS))
    parser.add_argument("--steps", type=int)
    parser.add_argument("--batch", type=int)
    parser.add_argument("--out", type=Path, default=ROOT / "src/attention_docs/data")
    parser.add_argument("--small", action="store_true", help="a tiny model")
    parser.add_argument(
        "--long-context",
        action="store_true",
        help="fine-tune the shipped models at 4L with PI, YaRN and the trained angles",
    )
    parser.add_argument(
        "--scaling",
        choices=LONG_SCALINGS,
        action="append",
        help="with --long-context: only this method (repeatable)",
    )
    args = parser.parse_args()
    for edition in args.editions:
        if args.long_context:
            for scaling in args.scaling or LONG_SCALINGS:
                summary = fine_tune_edition(
                    edition,
                    args.out,
                    scaling,
                    steps=args.steps or LONG_STEPS,
                    batch=args.batch or LONG_BATCH,
                )
                print(
                    f"{edition} {scaling}: {summary['steps']} steps, "
                    f"{summary['seconds']} s; held-out loss per range "
                    f"{summary['loss_after']} (before {summary['loss_before']}, "
                    f"pieces {summary['loss_pieces']})"
                )
            continue
        summary = train_edition(
            edition,
            args.out,
            steps=args.steps or STEPS,
            batch=args.batch or BATCH,
            config=SMALL if args.small else None,
        )
        print(
            f"{edition}: {summary['parameters']:,} parameters, "
            f"{summary['seconds']} s; validation loss {summary['val_loss'][-1]} "
            f"(bigram {summary['bigram_val_loss']})"
        )


if __name__ == "__main__":
    main()
