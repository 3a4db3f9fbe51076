"""Train the character CRF of :mod:`medrealmm.deid.text_learned` from the training generators.

Why a tool and not runtime code: the model is a committed file (``medrealmm/deid/models/text_crf.crfsuite``)
that the stage only loads; this rebuilds it, deterministically, from the synthetic generators that may be
trained on — every development generator: ``ours`` (benchmarks/corpora/ours.py, needs Faker), consult_b, consult_c,
consult_e, consult_g, consult_h and consult_i — on seeds other than 0 (seed 0 is what the benchmarks report). How
well that generalises to a writer it never saw is measured leave-one-generator-out over the same seven
(benchmarks/deid_learned.py --logo); the held-out generators (consult_d, consult_f, consult_j, consult_k,
consult_l) are refused and never loaded.

    python -m tools.deid_crf.train --out medrealmm/deid/models/text_crf.crfsuite [--seeds 1 2] [--per-seed 1500]
        [--c1 0.05] [--c2 0.01] [--iterations 150] [--min-freq 2]

Same arguments, same package versions: same model bytes (L-BFGS over a fixed order of examples). The defaults
(7 generators x 2 seeds x 1,500 messages) take about 5 minutes of one core and give a model of about 1 MB.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from medrealmm.deid.text_learned import train

ROOT = Path(__file__).resolve().parents[2]
TRAINING: tuple[str, ...] = ("ours", "consult_b", "consult_c", "consult_e", "consult_g", "consult_h", "consult_i")
"""The only generators a model may learn from: the development ones (benchmarks/deid_text.py's DEV and ours)."""
HELD_OUT: frozenset[str] = frozenset({"consult_d", "consult_f", "consult_j", "consult_k", "consult_l"})
"""Never imported here, whatever the arguments."""
C1, C2, ITERATIONS, MIN_FREQ = 0.05, 0.01, 150, 2   # c1/c2: chosen last session on ours+consult_b -> consult_e


def generator_examples(name: str, seed: int, n: int) -> list[tuple[str, list[tuple[int, int, str]]]]:
    """``(text, [(start, end, category), ...])`` for ``n`` messages of a training generator."""
    if name in HELD_OUT or name not in TRAINING:
        raise ValueError(f"{name!r} is not a training generator ({', '.join(TRAINING)})")
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        if name == "ours":
            from corpora.ours import generate_corpus

            corpus = generate_corpus(seed, n_identifier=n * 2 // 3, n_clinical=n // 6, n_hard=n // 12,
                                     n_heldout=n // 12)
            return [(s.text, [(g.start, g.end, g.category) for g in s.spans]) for s in corpus]
        module = importlib.import_module(f"corpora.{name}")
        return [(m["text"], [(int(a), int(b), str(c)) for a, b, c in m["spans"]]) for m in module.generate(seed, n)]
    finally:
        sys.path.pop(0)


def training_examples(seeds: Sequence[int], per_seed: int, generators: Sequence[str] = TRAINING
                      ) -> list[tuple[str, list[tuple[int, int, str]]]]:
    """Every generator's messages for every seed, in a fixed order (generator, then seed)."""
    return [x for g in generators for s in seeds for x in generator_examples(g, s, per_seed)]


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True, help="where to write the model")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2], help="generator seeds (0 is the benchmarks')")
    ap.add_argument("--per-seed", type=int, default=1500, help="messages per generator and seed")
    ap.add_argument("--c1", type=float, default=C1, help="L1 regularisation")
    ap.add_argument("--c2", type=float, default=C2, help="L2 regularisation")
    ap.add_argument("--iterations", type=int, default=ITERATIONS)
    ap.add_argument("--min-freq", type=int, default=MIN_FREQ, help="features seen fewer times are dropped")
    args = ap.parse_args(argv)
    if 0 in args.seeds:
        print("warning: seed 0 is the seed the benchmarks report; training on it inflates their figures")
    t0 = time.process_time()
    data = training_examples(args.seeds, args.per_seed)
    out = train(data, args.out, c1=args.c1, c2=args.c2, max_iterations=args.iterations, min_freq=args.min_freq)
    print(f"trained on {len(data)} messages ({', '.join(TRAINING)}; seeds {args.seeds}) in "
          f"{time.process_time() - t0:.0f} s CPU: {out} ({out.stat().st_size / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
