"""Train the book's language models, one per edition, on the edition's own pages.

    .venv/bin/python scripts/train_language_model.py          # every edition
    .venv/bin/python scripts/train_language_model.py ja --steps 200 --out /tmp/lm

Writes ``corpus-<edition>.txt``, ``lm-<edition>.npz`` and ``lm-<edition>.json``
into ``src/attention_docs/data/`` (or ``--out``): see
``attention_book.language_models``. About ten minutes an edition on two
cores; not part of any build or test run (the tests train a small model with
the same code and check that its loss falls).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from attention_book import ROOT
from attention_book.language_models import BATCH, SMALL, STEPS, train_edition
from attention_docs.language_model import EDITIONS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("editions", nargs="*", default=list(EDITIONS))
    parser.add_argument("--steps", type=int, default=STEPS)
    parser.add_argument("--batch", type=int, default=BATCH)
    parser.add_argument("--out", type=Path, default=ROOT / "src/attention_docs/data")
    parser.add_argument("--small", action="store_true", help="a tiny model")
    args = parser.parse_args()
    for edition in args.editions:
        summary = train_edition(
            edition,
            args.out,
            steps=args.steps,
            batch=args.batch,
            config=SMALL if args.small else None,
        )
        print(
            f"{edition}: {summary['parameters']:,} parameters, "
            f"{summary['seconds']} s; validation loss {summary['val_loss'][-1]} "
            f"(bigram {summary['bigram_val_loss']})"
        )


if __name__ == "__main__":
    main()
