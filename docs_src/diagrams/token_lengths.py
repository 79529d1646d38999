"""Tokens per character of the held-out text: characters, BPE and unigram."""

import functools
import io

import sentencepiece as spm
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from attention_book.diagrams import canvas, palette, text
from attention_docs import CharTokenizer
from attention_docs.language_model import load_corpus, split_corpus

SIZES = (2000, 4000)
LEFT, LENGTH, BAR, STEP, TOP = 174.0, 136.0, 20.0, 32.0, 6.0


def subword(lines: list[str], model_type: str, vocab_size: int):
    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_writer=buf,
        model_type=model_type,
        vocab_size=vocab_size,
        character_coverage=1.0,
        add_dummy_prefix=False,
        max_sentence_length=16384,
        num_threads=1,
        minloglevel=2,
    )
    return spm.SentencePieceProcessor(model_proto=buf.getvalue())


@functools.cache  # the same for both colour schemes
def counts(edition: str) -> tuple[int, list[tuple[str, int, int, str]]]:
    """The held-out text's characters, and per tokenizer: its name ("" for
    characters), vocabulary size, tokens of the held-out text, fill."""
    train, val = split_corpus(load_corpus(edition))
    lines, val_lines = train.splitlines(), val.splitlines()
    n_chars = sum(len(line) for line in val_lines)
    tok = CharTokenizer.from_text(train)
    found = [("", len(tok), sum(len(tok.encode(line)) for line in val_lines), "x")]
    for size in SIZES:
        for model_type, name, fill in (
            ("bpe", "BPE", "q"),
            ("unigram", "unigram", "v"),
        ):
            sp = subword(lines, model_type, size)
            n = sum(len(ids) for ids in sp.encode(val_lines))
            found.append((name, size, n, fill))
    return n_chars, found


def figure(labels: dict) -> Figure:
    n_chars, found = counts(labels["edition"])
    rows = [
        (f"{name or labels['chars']}（{labels['size']} {size}）", n, fill)
        for name, size, n, fill in found
    ]
    colours = palette()
    fig, ax = canvas(370, TOP + (len(rows) - 1) * STEP + BAR + 10)
    for i, (name, n, fill) in enumerate(rows):
        y = TOP + i * STEP
        ratio = n / n_chars
        text(ax, LEFT - 6, y + BAR / 2, name, ha="right")
        ax.add_patch(
            Rectangle(
                (LEFT, y),
                LENGTH * ratio,
                BAR,
                facecolor=colours[fill],
                edgecolor=colours["line"],
                linewidth=0.8,
            )
        )
        text(ax, LEFT + LENGTH * ratio + 5, y + BAR / 2, f"{ratio:.2f}", ha="left")
    return fig


if __name__ == "__main__":
    from attention_docs.plotting import to_svg

    english = {
        "edition": "ja",
        "chars": "characters",
        "size": "vocabulary",
    }
    print(to_svg(figure(english)))
