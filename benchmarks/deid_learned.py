"""Does a tagger LEARNED from several generators generalise to one it never saw better than the rules?

A linear-chain CRF over characters (:mod:`medrealmm.deid.text_learned`, BIO labels for NAME, ADDRESS,
HOSPITAL) is trained on the training generators only — ``ours`` (benchmarks/corpora/ours.py), consult_b,
consult_e, on seeds other than the reported seed 0 — and measured on consult_g (seed 0), a generator it
never saw, side by side:

- ``crf``: the CRF alone at its operating point (names checked by :func:`~medrealmm.deid.text_learned.plausible_name`,
  spans kept at a least marginal confidence); ``crf-raw``: every span it tags;
- ``rules+stat``: :func:`medrealmm.deid.detect_text` alone (the stage's default);
- ``union`` / ``union-raw``: the spans of rules+stat and the CRF merged (:func:`medrealmm.deid.spans.merge_spans`);
- ``+consult``: with the consultation pass, as the stage runs on consultations.

Also: c1/c2 chosen on a split of the training generators (train on ours + consult_b, score on consult_e;
never on consult_g), a leave-one-generator-out check among the training generators that also sweeps the
operating point and picks it (``--logo``; otherwise the module's defaults), CLUENER2020 dev
(NAME/ADDRESS recall, non-personal entities masked) and masks per 1,000 real dialogue sentences
(CMtMedQA) for rules+stat and the union, and messages per second of process CPU time (one core).

    .venv/bin/python benchmarks/deid_learned.py [--model PATH] [--save PATH] [--train-seeds 1 2]
        [--per-seed 3000] [--grid] [--logo] [--consult-g 3000]

The held-out generators (consult_c, consult_d, consult_f) are never loaded here.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from corpora.ours import LabelledSentence, generate_corpus, score_corpus  # benchmarks/ is sys.path[0]
from deid_text import (CLUENER, DIALOGUES, cluener_corpus, cluener_report, flagged_share, held_out_corpus, leak_share,
                       real_dialogue_sentences, side_by_side, timed)
from medrealmm.deid.spans import CATEGORIES, Span, merge_spans
from medrealmm.deid.text_consistency import spread_by_consultation
from medrealmm.deid.text_detect import default_text_detector
from medrealmm.deid.text_learned import LABELLED, MIN_CONFIDENCE, LearnedDetector, plausible_name, train
from medrealmm.deid.text_rules import normalize

TRAINING = ("ours", "consult_b", "consult_e")
GRID = ((0.05, 0.01), (0.2, 0.05), (0.5, 0.1), (1.0, 0.5))
DEFAULT_C = (0.05, 0.01)
SWEEP = tuple((check, conf) for check in (False, True) for conf in (0.0, 0.5, 0.7, 0.8, 0.9))
"""Operating points tried on the leave-one-out folds: plausible_name on names or not, and the least
marginal probability a span needs."""
FOLD_PRECISION = 0.99
"""The operating point is the loosest one whose union with the rules keeps this precision on every fold."""

Scored = list[list[tuple[Span, float, bool]]]


def scored(model: str | Path, texts: Sequence[str]) -> Scored:
    """The model's raw spans per text with their confidence and whether a name looks like one."""
    det = LearnedDetector(model, min_confidence=0.0, check_names=False)
    out = []
    for text in texts:
        t = normalize(text)
        out.append([(s, c, s.category != "NAME" or plausible_name(t, s.start, s.end)) for s, c in det.find_scored(text)])
    return out


def at(found: Scored, check: bool, conf: float) -> list[list[Span]]:
    return [[s for s, c, ok in p if c >= conf and (ok or not check)] for p in found]


def load(name: str, seed: int, n: int) -> list[LabelledSentence]:
    """A training generator's messages (``ours``: every kind of sentence, n split as the benchmark does)."""
    if name == "ours":
        return generate_corpus(seed, n_identifier=n * 2 // 3, n_clinical=n // 6, n_hard=n // 12, n_heldout=n // 12)
    if name not in TRAINING:
        raise ValueError(f"{name} is not a training generator")
    loaded = held_out_corpus(name, seed, n)
    assert loaded is not None
    return loaded[0]


def examples(corpus: Sequence[LabelledSentence]) -> list[tuple[str, list[tuple[int, int, str]]]]:
    return [(s.text, [(g.start, g.end, g.category) for g in s.spans]) for s in corpus]


def _fit(args: tuple[list[tuple[str, list[tuple[int, int, str]]]], str, float, float, int]) -> tuple[str, float]:
    data, out, c1, c2, iters = args
    t0 = time.process_time()
    train(data, out, c1=c1, c2=c2, max_iterations=iters)
    return out, time.process_time() - t0


def learned_scores(corpus: Sequence[LabelledSentence], preds: Sequence[Sequence[Span]]) -> str:
    """Recall of the learned categories, precision of the spans, for one line of a table."""
    sc = score_corpus(corpus, preds)
    parts = [f"{c} {100 * sc.categories[c].recall:.1f}" for c in LABELLED if sc.categories[c].gold]
    n_pred = sum(len(p) for p in preds)
    correct = sum(sc.categories[c].correct for c in CATEGORIES)
    return "recall " + ", ".join(parts) + f"; precision {100 * correct / max(1, n_pred):.2f}% of {n_pred}"


def union_detector(crf: LearnedDetector):
    default = default_text_detector()

    def detect(texts: Sequence[str]) -> list[list[Span]]:
        return [merge_spans([*a, *b]) for a, b in zip(default.detect(texts), crf.detect(texts), strict=True)]
    return detect


def dialogue_masks(detect, sents: list[str], dialogue: list[int]) -> tuple[str, float, list[tuple[str, Span]]]:
    preds, rate = timed(detect, sents, 1)
    out = []
    for label, found in (("", preds), ("+consult", spread_by_consultation(sents, preds, dialogue))):
        counts = Counter(s.category for p in found for s in p)
        out.append(f"{label or 'alone'}: " + ", ".join(f"{c} {1000 * counts[c] / len(sents):.2f}" for c in CATEGORIES
                                                        if counts[c]) + f" | total {1000 * sum(counts.values()) / len(sents):.2f}")
    return "; ".join(out), rate, [(s, sp) for s, p in zip(sents, preds, strict=True) for sp in p]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", type=Path, help="a saved CRF model: skip training the final model")
    ap.add_argument("--save", type=Path, help="where to keep the final model trained here")
    ap.add_argument("--train-seeds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--per-seed", type=int, default=3000, help="messages per training generator and seed")
    ap.add_argument("--c1", type=float, default=None)
    ap.add_argument("--c2", type=float, default=None)
    ap.add_argument("--iterations", type=int, default=150)
    ap.add_argument("--grid", action="store_true", help="choose c1/c2 on ours+consult_b -> consult_e (seed 1)")
    ap.add_argument("--logo", action="store_true", help="leave-one-generator-out among the training generators")
    ap.add_argument("--consult-g", type=int, default=3000)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="deid_crf_"))
    c1, c2 = DEFAULT_C
    seed0 = args.train_seeds[0]

    if args.grid:
        train_set = examples(load("ours", seed0, args.per_seed) + load("consult_b", seed0, args.per_seed))
        val = load("consult_e", seed0, args.per_seed)
        jobs = [(train_set, str(tmp / f"grid_{a}_{b}.crfsuite"), a, b, args.iterations) for a, b in GRID]
        print(f"\nc1/c2 on a split of the training generators: train ours+consult_b (seed {seed0}), "
              f"score consult_e (seed {seed0}, {len(val)} messages)")
        best = (-1.0, DEFAULT_C)
        with ProcessPoolExecutor(args.workers) as pool:
            for (a, b), (path, cpu) in zip(GRID, pool.map(_fit, jobs), strict=True):
                preds = LearnedDetector(path, min_confidence=0.0, check_names=False).detect([s.text for s in val])
                sc = score_corpus(val, preds)
                gold = sum(sc.categories[c].gold for c in LABELLED)
                rec = sum(sc.categories[c].masked for c in LABELLED) / gold
                n_pred = sum(len(p) for p in preds)
                prec = sum(sc.categories[c].correct for c in CATEGORIES) / max(1, n_pred)
                f1 = 2 * rec * prec / (rec + prec)
                print(f"  c1 {a:<5} c2 {b:<5} {learned_scores(val, preds)}; F1 {100 * f1:.2f} "
                      f"(trained in {cpu:.0f} s CPU)")
                best = max(best, (f1, (a, b)))
        c1, c2 = best[1]
        print(f"  chosen: c1 {c1}, c2 {c2}")
    if args.c1 is not None:
        c1 = args.c1
    if args.c2 is not None:
        c2 = args.c2

    check, min_conf = True, MIN_CONFIDENCE
    if args.logo:
        print(f"\nleave one generator out (train on the other two, seeds {args.train_seeds}; test on seed 0 of the "
              f"third, {args.per_seed} messages; c1 {c1}, c2 {c2}); the rules were tuned on all three")
        data = {g: [examples(load(g, s, args.per_seed)) for s in args.train_seeds] for g in TRAINING}
        jobs = [([x for o in TRAINING if o != g for part in data[o] for x in part], str(tmp / f"logo_{g}.crfsuite"),
                 c1, c2, args.iterations) for g in TRAINING]
        default = default_text_detector()
        folds = {}
        with ProcessPoolExecutor(args.workers) as pool:
            for g, (path, _cpu) in zip(TRAINING, pool.map(_fit, jobs), strict=True):
                test = load(g, 0, args.per_seed)
                texts = [s.text for s in test]
                folds[g] = (test, default.detect(texts), scored(path, texts))
        print("  " + " " * 26 + "".join(f"{g + ' leak%/prec%':>26s}" for g in TRAINING))
        row = ["rules+stat"]
        for g, (test, base, _found) in folds.items():
            sc = score_corpus(test, base)
            row.append(f"{100 * leak_share(test, sc):.2f} / {100 * sc.overall().precision:.2f}")
        print(f"  {row[0]:26s}" + "".join(f"{v:>26s}" for v in row[1:]))
        for g, (test, _base, found) in folds.items():
            crf = at(found, False, 0.0)
            print(f"  {'crf alone (raw), ' + g:26s} {learned_scores(test, crf)}")
        chosen = None
        for ck, cf in SWEEP:
            row, ok = [], True
            for _g, (test, base, found) in folds.items():
                sc = score_corpus(test, [merge_spans([*a, *b]) for a, b in zip(base, at(found, ck, cf), strict=True)])
                ok &= sc.overall().precision >= FOLD_PRECISION
                row.append(f"{100 * leak_share(test, sc):.2f} / {100 * sc.overall().precision:.2f}")
            label = f"union, names {'checked' if ck else 'raw'} conf>={cf}"
            print(f"  {label:26s}" + "".join(f"{v:>26s}" for v in row))
            if ok and chosen is None:
                chosen = (ck, cf)
        if chosen is not None:
            check, min_conf = chosen
            print(f"  operating point (loosest with union precision >= {100 * FOLD_PRECISION:.0f}% on every fold): "
                  f"names {'checked' if check else 'raw'}, confidence >= {min_conf}")
        else:
            check, min_conf = SWEEP[-1]
            print(f"  no operating point keeps union precision >= {100 * FOLD_PRECISION:.0f}% on every fold: the "
                  f"strictest tried (names checked, confidence >= {min_conf})")

    # the final model: every training generator, every training seed
    if args.model:
        model = args.model
        print(f"\nmodel: {model} ({model.stat().st_size / 1e6:.2f} MB)")
    else:
        data = [x for g in TRAINING for s in args.train_seeds for x in examples(load(g, s, args.per_seed))]
        model = args.save or tmp / "final.crfsuite"
        path, cpu = _fit((data, str(model), c1, c2, args.iterations))
        print(f"\nmodel: trained on {len(data)} messages of {', '.join(TRAINING)} (seeds {args.train_seeds}), "
              f"c1 {c1}, c2 {c2}, {args.iterations} iterations, {cpu:.0f} s CPU; "
              f"{Path(path).stat().st_size / 1e6:.2f} MB at {path}")

    crf = LearnedDetector(model, min_confidence=min_conf, check_names=check)
    raw = LearnedDetector(model, min_confidence=0.0, check_names=False)
    default = default_text_detector()
    default.detect(["预热：刘平，杭州"])
    crf.detect(["预热：刘平，杭州"])
    loaded = held_out_corpus("consult_g", 0, args.consult_g)
    assert loaded is not None
    g, consultations = loaded
    print(f"\nconsult_g (seed 0, {len(g)} messages, never trained on): a generator the model never saw "
          f"(crf: names {'checked' if check else 'raw'}, confidence >= {min_conf}; -raw: every tagged span)")
    detectors = {"crf": crf.detect, "crf-raw": raw.detect, "rules+stat": default.detect, "union": union_detector(crf),
                 "union-raw": union_detector(raw)}
    if consultations is not None:
        for name in ("rules+stat", "union"):
            base = detectors[name]
            detectors[name + "+consult"] = (lambda b: lambda texts: spread_by_consultation(texts, b(texts),
                                                                                          consultations))(base)
    results = {}
    texts = [s.text for s in g]
    for name, detect in detectors.items():
        preds, rate = timed(detect, texts, args.repeat)
        sc = score_corpus(g, preds)
        results[f"g/{name}"] = {"score": sc, "leak": leak_share(g, sc), "flagged": flagged_share(sc, None),
                                "rate": rate}
    side_by_side(results)

    clue = cluener_corpus(CLUENER)
    clue_results = {}
    for name in ("rules+stat", "union", "union-raw", "crf"):
        r = cluener_report(detectors[name], name, clue, 1)
        if r is not None:
            clue_results[f"cluener/{name}"] = r
    if DIALOGUES.is_file():
        sents, dialogue = real_dialogue_sentences(DIALOGUES)
        print(f"\nreal dialogues ({DIALOGUES.name}, {len(sents)} sentences): masks per 1,000 sentences")
        shown: list[tuple[str, Span]] = []
        for name in ("rules+stat", "union", "union-raw"):
            line, rate, masked = dialogue_masks(detectors[name], sents, dialogue)
            print(f"  {name:10s} {line} ({rate:,.0f} sentences/s)")
            if name == "union":
                shown = [(s, sp) for s, sp in masked if "crf" in sp.detector.split("+")]
        print(f"  spans the CRF added or widened there ({len(shown)}; public dialogues, almost no identifiers):")
        for s, sp in shown[:25]:
            print(f"    {sp.category:8s} {s[max(0, sp.start - 10):sp.start]}【{s[sp.start:sp.end]}】"
                  f"{s[sp.end:sp.end + 6]}".replace("\n", " "))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
