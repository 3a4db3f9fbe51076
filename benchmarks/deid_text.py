"""Text de-identification: recall, precision, kept clinical values and throughput, against the targets.

Generates the seeded synthetic corpus (medrealmm/deid/synthetic_text.py), runs the rules alone — and
rules + LLM agent when ``--agent-model PATH`` names a local model folder (``tiny`` builds the tiny
random test model: a plumbing check, not a quality figure) — and prints, per category, recall
(gold identifiers fully masked), precision (masks that touch a gold identifier) and F1, the share of
clinical "keep" spans that survive, and sentences per second. Baselines in the same run: a naive
single-regex-per-category pass, and jionlp's extractors when jionlp is installed. Then the false
positive rate on real dialogues (../shared/fixtures/dialogues/CMtMedQA_test.json, which hold almost
no identifiers): masks per 1,000 sentences by category and a sample of what was masked.

    .venv/bin/python benchmarks/deid_text.py [--seed 0] [--identifier 2000] [--clinical 500]
        [--agent-model PATH [--agent-backend vllm|transformers]] [--samples 30]
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from medrealmm.deid.spans import CATEGORIES, Span, merge_spans
from medrealmm.deid.synthetic_text import LabelledSentence, generate_corpus, score_corpus
from medrealmm.deid.text_rules import RuleDetector

ROOT = Path(__file__).resolve().parents[1]
DIALOGUES = ROOT.parent / "shared" / "fixtures" / "dialogues" / "CMtMedQA_test.json"

RECALL_99 = ("ID", "PHONE", "EMAIL", "URL", "DATE")
RECALL_95 = ("NAME", "HOSPITAL", "ADDRESS")
PRECISION = 0.90
KEEP_KINDS = ("age", "duration", "dose", "lab")
KEEP = 0.98
SPEED = 5000.0

Detector = Callable[[Sequence[str]], list[list[Span]]]

# --- baselines ----------------------------------------------------------------------------------

_NAIVE = {
    "ID": re.compile(r"\d{17}[\dXx]"),
    "PHONE": re.compile(r"1[3-9]\d{9}|0\d{2,3}-\d{7,8}"),
    "EMAIL": re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
    "URL": re.compile(r"https?://[^\s\u4e00-\u9fff，。]+|www\.[^\s\u4e00-\u9fff，。]+"),
    "ORDER_ID": re.compile(r"(?<=订单号)\w+"),
    "MRN": re.compile(r"(?<=病历号|住院号|门诊号)\W?\w+"),
    "DATE": re.compile(r"\d{4}年\d{1,2}月\d{1,2}日|\d{4}-\d{1,2}-\d{1,2}|\d{1,2}月\d{1,2}日"),
    "NAME": re.compile(r"(?<=我叫|姓名)[:：]?[\u4e00-\u9fff]{2,3}"),
    "HOSPITAL": re.compile(r"[\u4e00-\u9fff]{2,10}医院"),
    "ADDRESS": re.compile(r"[\u4e00-\u9fff]{2,8}[路街]\d+号"),
}


def naive_detect(texts: Sequence[str]) -> list[list[Span]]:
    """One regex per category, no validation, no context: what a first attempt looks like."""
    return [merge_spans(Span(*m.span(), cat, "naive") for cat, rx in _NAIVE.items() for m in rx.finditer(t)
                        if m.end() > m.start()) for t in texts]


def jionlp_detector() -> Detector | None:
    """jionlp's extractors (ID, phone, e-mail, URL, WeChat, time points) when jionlp is installed."""
    try:
        import jionlp as jio
    except ImportError:
        return None
    extractors = ((jio.extract_id_card, "ID"), (jio.extract_phone_number, "PHONE"), (jio.extract_email, "EMAIL"),
                  (jio.extract_url, "URL"), (jio.extract_wechat_id, "URL"))
    full_date = re.compile(r"月.*[日号]|\d{4}[-/.]\d")

    def detect(texts: Sequence[str]) -> list[list[Span]]:
        logging.disable(logging.ERROR)  # jionlp's time parser logs a traceback for every 两次 it cannot read
        try:
            return [_one(t) for t in texts]
        finally:
            logging.disable(logging.NOTSET)

    def _one(t: str) -> list[Span]:
        spans = [Span(*e["offset"], cat, "jionlp") for fn, cat in extractors for e in fn(t, detail=True)]
        spans += [Span(*e["offset"], "DATE", "jionlp") for e in jio.ner.extract_time(t)
                  if e["type"] == "time_point" and full_date.search(e["text"])]
        return merge_spans(s for s in spans if s.end > s.start)
    return detect


# --- running and printing ------------------------------------------------------------------------

def timed(detect: Detector, texts: Sequence[str], repeat: int) -> tuple[list[list[Span]], float]:
    best = float("inf")
    preds: list[list[Span]] = []
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        preds = detect(texts)
        best = min(best, time.perf_counter() - t0)
    return preds, len(texts) / best


def fmt(x: float) -> str:
    return "   -  " if x != x else f"{100 * x:6.2f}"


def table(title: str, corpus: Sequence[LabelledSentence], preds: Sequence[Sequence[Span]]):
    score = score_corpus(corpus, preds)
    print(f"\n{title}")
    print(f"  {'category':9s} {'gold':>6s} {'recall%':>8s} {'typed%':>7s} {'masks':>6s} {'prec%':>7s} {'F1%':>7s}")
    for cat in (*CATEGORIES, "overall"):
        c = score.overall() if cat == "overall" else score.categories[cat]
        typed = c.typed / c.gold if c.gold else float("nan")
        print(f"  {cat:9s} {c.gold:6d} {fmt(c.recall):>8s} {fmt(typed):>7s} {c.predicted:6d} {fmt(c.precision):>7s} "
              f"{fmt(c.f1):>7s}")
    kept = {k: score.keep_kept.get(k, 0) / n for k, n in sorted(score.keep_total.items())}
    print("  kept clinical spans: " + ", ".join(f"{k} {100 * v:.1f}%" for k, v in kept.items())
          + f" | all {100 * score.keep_rate():.2f}%")
    return score


def targets(score, rate: float) -> bool:
    ok = True

    def line(name: str, value: float, target: float, unit: str = "%") -> None:
        nonlocal ok
        passed = value >= target
        ok &= passed
        shown = f"{100 * value:.2f}%" if unit == "%" else f"{value:,.0f}/s"
        goal = f"{100 * target:.0f}%" if unit == "%" else f"{target:,.0f}/s"
        print(f"  {'PASS' if passed else 'FAIL'}  {name:38s} {shown:>12s}  (target >= {goal})")

    print("\ntargets (rules alone, identifier + clinical sentences)")
    for cat in RECALL_99:
        line(f"recall {cat}", score.categories[cat].recall, 0.99)
    for cat in RECALL_95:
        line(f"recall {cat}", score.categories[cat].recall, 0.95)
    for cat in CATEGORIES:
        if score.categories[cat].predicted:
            line(f"precision {cat}", score.categories[cat].precision, PRECISION)
    line("precision overall", score.overall().precision, PRECISION)
    for kind in KEEP_KINDS:
        line(f"kept {kind}", score.keep_rate([kind]), KEEP)
    line("throughput", rate, SPEED, unit="/s")
    return ok


def real_dialogue_sentences(path: Path) -> list[str]:
    data = json.loads(path.read_text(encoding="utf-8"))
    turns: list[str] = []
    for d in data:
        for pair in d.get("history") or []:
            turns.extend(pair)
        turns.append(d.get("instruction") or d.get("instruct") or "")
        turns.append(d.get("output") or "")
    return [s for t in turns for s in re.split(r"(?<=[。！？!?\n])", t) if s.strip()]


def real_data(detect: Detector, samples: int, repeat: int, path: Path) -> None:
    print(f"\nfalse positives on real dialogues ({path.name})")
    if not path.is_file():
        print(f"  skipped: {path} not found (../shared is not next to the repository)")
        return
    sents = real_dialogue_sentences(path)
    preds, rate = timed(detect, sents, repeat)
    counts = Counter(s.category for p in preds for s in p)
    n = len(sents)
    print(f"  {n} sentences, {rate:,.0f} sentences/s; masks per 1,000 sentences: "
          + (", ".join(f"{c} {1000 * counts[c] / n:.2f}" for c in CATEGORIES if counts[c]) or "none")
          + f" | total {1000 * sum(counts.values()) / n:.2f}")
    shown = [(s, sp) for s, p in zip(sents, preds, strict=True) for sp in p][:samples]
    if shown:
        print(f"  what was masked (first {len(shown)}; these dialogues are public, with almost no identifiers):")
    for s, sp in shown:
        context = (s[max(0, sp.start - 12):sp.start] + "【" + s[sp.start:sp.end] + "】" + s[sp.end:sp.end + 8])
        print(f"    {sp.category:8s} {context.replace(chr(10), ' ')}")


def agent_detector(args) -> tuple[Detector, object, object] | None:
    if not args.agent_model:
        return None
    import yaml

    from medrealmm.deid.agent import AgentDetector
    from medrealmm.inference.base import Sampling
    from medrealmm.inference.engines import make_backend

    backend_cfg = yaml.safe_load((ROOT / "conf" / "backend" / f"{args.agent_backend}.yaml").read_text())
    if args.agent_model == "tiny":
        role = yaml.safe_load((ROOT / "conf" / "model" / "tiny_text.yaml").read_text())
        role["engine"] = {"max_model_len": 4096, "max_num_seqs": 64}
    else:
        role = {"name": Path(args.agent_model).name, "path": args.agent_model,
                "engine": {"max_model_len": args.agent_max_model_len}}
    backend = make_backend(role, backend_cfg, cache_dir=args.cache, seed=args.seed)
    agent = AgentDetector(backend, chunk_size=args.agent_chunk_size, max_retries=args.agent_max_retries,
                          sampling=Sampling(temperature=0.0, max_tokens=args.agent_max_tokens, seed=args.seed),
                          structured=not args.agent_unstructured, seed=args.seed)
    rules = RuleDetector()

    def detect(texts: Sequence[str]) -> list[list[Span]]:
        return [merge_spans([*r, *a]) for r, a in zip(rules.detect(texts), agent.detect(texts), strict=True)]
    return detect, agent, backend


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--identifier", type=int, default=2000, help="sentences with identifiers")
    ap.add_argument("--clinical", type=int, default=500, help="sentences with clinical values only")
    ap.add_argument("--hard", type=int, default=200, help="identifiers without a cue (reported apart)")
    ap.add_argument("--heldout", type=int, default=200, help="templates never used to tune the rules")
    ap.add_argument("--repeat", type=int, default=5, help="timing runs; the best is reported")
    ap.add_argument("--samples", type=int, default=30, help="masked spans shown from the real dialogues")
    ap.add_argument("--dialogues", type=Path, default=DIALOGUES)
    ap.add_argument("--agent-model", help="local model folder for the agent pass ('tiny': the tiny random model)")
    ap.add_argument("--agent-backend", default="vllm", choices=("vllm", "transformers"))
    ap.add_argument("--agent-chunk-size", type=int, default=256)
    ap.add_argument("--agent-max-retries", type=int, default=2)
    ap.add_argument("--agent-max-tokens", type=int, default=512)
    ap.add_argument("--agent-max-model-len", type=int, default=8192)
    ap.add_argument("--agent-unstructured", action="store_true", help="no JSON-schema constrained decoding")
    ap.add_argument("--cache", default=str(Path("~/.cache/medrealmm").expanduser()),
                    help="where the tiny model is built (paths.cache)")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)

    t0 = time.perf_counter()
    corpus = generate_corpus(args.seed, n_identifier=args.identifier, n_clinical=args.clinical, n_hard=args.hard,
                             n_heldout=args.heldout)
    main_set = [s for s in corpus if s.kind in ("identifier", "clinical")]
    print(f"corpus: seed {args.seed}, {len(corpus)} sentences ({args.identifier} with identifiers, {args.clinical} "
          f"clinical only, {args.hard} hard, {args.heldout} held-out), "
          f"{sum(len(s.spans) for s in corpus)} gold identifiers, {sum(len(s.keep) for s in corpus)} keep spans, "
          f"generated in {time.perf_counter() - t0:.2f} s")
    texts = [s.text for s in main_set]

    rules = RuleDetector()
    preds, rate = timed(rules.detect, texts, args.repeat)
    score = table(f"rules: {rate:,.0f} sentences/s", main_set, preds)

    naive_preds, naive_rate = timed(naive_detect, texts, args.repeat)
    naive = table(f"baseline, one naive regex per category: {naive_rate:,.0f} sentences/s", main_set, naive_preds)
    print(f"  ratio rules/naive: throughput {rate / naive_rate:.2f}x, F1 {score.overall().f1 / naive.overall().f1:.2f}x,"
          f" recall {score.overall().recall / naive.overall().recall:.2f}x, "
          f"precision {score.overall().precision / naive.overall().precision:.2f}x")

    jio = jionlp_detector()
    if jio is None:
        print("\nbaseline jionlp: skipped (jionlp is not installed; pip install --no-deps jionlp jiojio to compare)")
    else:
        jio_preds, jio_rate = timed(jio, texts, 1)
        table(f"baseline jionlp extractors (ID, phone, e-mail, URL, WeChat, time points): {jio_rate:,.0f} sentences/s",
              main_set, jio_preds)
        print(f"  ratio rules/jionlp: throughput {rate / jio_rate:.2f}x")

    for kind in ("hard", "heldout"):
        subset = [s for s in corpus if s.kind == kind]
        if subset:
            sub = score_corpus(subset, rules.detect([s.text for s in subset]))
            print(f"\nrules on {kind} sentences ({len(subset)}): "
                  + ", ".join(f"{c} recall {100 * v.recall:.1f}% ({v.gold})" for c, v in sub.categories.items()
                              if v.gold)
                  + f"; precision {fmt(sub.overall().precision).strip()}%; kept {100 * sub.keep_rate():.1f}%")

    passed = targets(score, rate)

    built = agent_detector(args)
    if built is None:
        print("\nrules + agent: skipped (give --agent-model PATH, a local model folder, to run the agent pass)")
    else:
        detect, agent, backend = built
        everything = [s for s in corpus]
        t0 = time.perf_counter()
        agent_preds = detect([s.text for s in everything])
        agent_rate = len(everything) / (time.perf_counter() - t0)
        kinds = [s.kind for s in everything]
        for kind in ("identifier+clinical", "hard", "heldout"):
            idx = [i for i, k in enumerate(kinds) if k in kind.split("+")]
            table(f"rules + agent ({args.agent_model}) on {kind}: {agent_rate:,.1f} sentences/s overall",
                  [everything[i] for i in idx], [agent_preds[i] for i in idx])
        print(f"  agent: {dict(agent.stats)}")  # counts only
        backend.close()

    real_data(rules.detect, args.samples, args.repeat, args.dialogues)
    print(f"\n{'ALL TARGETS PASS' if passed else 'SOME TARGETS FAIL'} (rules alone, synthetic corpus)")


if __name__ == "__main__":
    main()
