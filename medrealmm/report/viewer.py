"""``medrealmm view``: a static case viewer over the finished runs of a dataset.

A folder that opens from disk with no server and no network: ``index.html`` (leaderboard → a run's
case list with filters and sorting → a case: the dialogue with its images, the model's reply beside
the physician's ``y_orig``, every criterion with its weight, verdict and the judge's rationale, and a
second run side by side, e.g. another model or another judge with the disagreements marked). The data
are JavaScript files loaded by ``<script>`` tags (browsers refuse ``fetch`` from ``file://``): one
index of every case's scores, then the case details in chunks of :data:`CHUNK` cases, loaded only when
a case is opened — so the page stays light at the full benchmark (5,620 cases × 20 runs). Every piece
of case text is inserted with ``textContent`` by the page, never as HTML.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
from importlib import resources
from pathlib import Path
from typing import Any

import polars as pl

from medrealmm.atomic import write_bytes, write_text
from medrealmm.report.runs import RunSet

log = logging.getLogger(__name__)

CHUNK = 50
ASSETS = ("index.html", "viewer.js", "viewer.css")


def _js(name: str, payload: Any) -> str:
    """A data file: one call that hands the JSON to the page (no ``fetch`` from file://)."""
    return f"MR.receive({json.dumps(name)}, {json.dumps(payload, ensure_ascii=False, separators=(',', ':'))});\n"


def _num(v: Any, digits: int = 4) -> Any:
    return None if v is None or (isinstance(v, float) and v != v) else (round(v, digits) if isinstance(v, float) else v)


def build_view(runs: RunSet, out_dir: Path, *, dataset: Any | None = None, specialty: dict[str, str] | None = None,
               title: str = "", physicians: pl.DataFrame | None = None) -> Path:
    """Write the viewer for ``runs`` into ``out_dir``; ``dataset`` (a loaded Dataset) supplies the dialogue,
    images, ``y_orig`` and rubric texts. Returns the ``index.html`` path."""
    data_dir = _fresh_folders(out_dir)
    run_rows, gens, verdicts = _run_rows(runs)
    by_id = {c.id: c for c in (dataset.cases if dataset is not None else [])}
    case_ids = sorted(set(runs.case_scores["case_id"].to_list()) | set(by_id), key=lambda x: (x not in by_id, x))
    index = {"title": title, "dataset": runs.runs[0].manifest.get("dataset", {}).get("name") if runs.runs else "",
             "runs": run_rows, "cases": _case_rows(runs, case_ids, by_id, specialty or {}),
             "scores": _score_columns(runs, run_rows, case_ids), "chunk": CHUNK}
    write_text(data_dir / "index.js", _js("index", index))
    gen_at, ver_at = _index_rows(run_rows, gens, verdicts)
    labels = _physician_verdicts(physicians)
    images: dict[str, str] = {}
    for start in range(0, len(case_ids), CHUNK):
        chunk = {}
        for cid in case_ids[start:start + CHUNK]:
            chunk[cid] = _case_detail(cid, by_id.get(cid), run_rows, gen_at, ver_at, dataset, out_dir, images)
            if cid in labels:
                chunk[cid]["physicians"] = labels[cid]
        write_text(data_dir / "cases" / f"{start // CHUNK}.js", _js(f"chunk:{start // CHUNK}", chunk))
    log.info("viewer: %d runs, %d cases, %d images in %s", len(run_rows), len(case_ids), len(images), out_dir)
    return out_dir / "index.html"


def _fresh_folders(out_dir: Path) -> Path:
    """``out_dir`` with the page's assets, an empty ``data/cases/`` and ``img/``; returns the data folder."""
    out_dir.mkdir(parents=True, exist_ok=True)
    data_dir = out_dir / "data"
    if data_dir.exists():
        shutil.rmtree(data_dir)
    (data_dir / "cases").mkdir(parents=True)
    (out_dir / "img").mkdir(exist_ok=True)
    for name in ASSETS:
        write_text(out_dir / name, resources.files("medrealmm.report").joinpath("viewer_assets", name)
                   .read_text(encoding="utf-8"))
    return data_dir


def _run_rows(runs: RunSet) -> tuple[list[dict[str, Any]], list[pl.DataFrame | None], list[pl.DataFrame]]:
    """One viewer run per run x mode (its summary row), and per run its generations and verdicts."""
    run_rows, gens, verdicts = [], [], []
    for i, r in enumerate(runs.runs):
        cfg = r.manifest.get("config") or {}
        summary = pl.read_parquet(r.path / "summary.parquet") if (r.path / "summary.parquet").is_file() else None
        for mode in sorted(r.case_scores["mode"].unique().to_list()):
            row = summary.filter(pl.col("mode") == mode).head(1).to_dicts()[0] if summary is not None and \
                summary.filter(pl.col("mode") == mode).height else {}
            run_rows.append({"name": r.name, "run_id": r.run_id, "mode": mode, "selection": r.selection,
                             "model": (cfg.get("model") or {}).get("name") or r.case_scores["model"][0],
                             "judge": (cfg.get("judge") or {}).get("name") or r.case_scores["judge"][0],
                             "score": _num(row.get("score")), "ci_low": _num(row.get("ci_low")),
                             "ci_high": _num(row.get("ci_high")), "n_scored": row.get("n_scored"),
                             "n_excluded": row.get("n_excluded"), "path": i})
        g = r.path / "generations.parquet"
        gens.append(pl.read_parquet(g) if g.is_file() else None)
        verdicts.append(r.verdicts)
    return run_rows, gens, verdicts


def _case_rows(runs: RunSet, case_ids: list[str], by_id: dict[str, Any], specialty: dict[str, str]
               ) -> list[dict[str, Any]]:
    """Every case's attributes for the case list (from the dataset, else as the runs recorded them)."""
    meta = runs.case_scores.unique(subset=["case_id"], keep="first")
    attrs = {r["case_id"]: r for r in meta.iter_rows(named=True)}
    cases = []
    for k, cid in enumerate(case_ids):
        c, a = by_id.get(cid), attrs.get(cid, {})
        dept = c.department if c else a.get("department")
        cases.append({"id": cid, "department": dept, "specialty": specialty.get((dept or "").strip(), ""),
                      "intent": c.intent if c else a.get("intent"), "stage": c.stage if c else a.get("stage"),
                      "n_images": c.n_images if c else a.get("n_images"), "n_turns": c.n_turns if c else a.get("n_turns"),
                      "chunk": k // CHUNK})
    return cases


def _score_columns(runs: RunSet, run_rows: list[dict[str, Any]], case_ids: list[str]) -> list[list[Any]]:
    """Per viewer run (run x mode) a list over cases of [score, status, pos_met, n_pos, neg_trig, n_neg, unscored]."""
    pos = {cid: k for k, cid in enumerate(case_ids)}
    scores = []
    for row in run_rows:
        r = runs.runs[row["path"]]
        cs = r.case_scores.filter((pl.col("mode") == row["mode"]) & (pl.col("sample") == 0))
        col: list[Any] = [None] * len(case_ids)
        for sc in cs.select("case_id", "score", "status", "n_pos_met", "n_pos", "n_neg_triggered", "n_neg",
                            "n_unscored").iter_rows():
            col[pos[sc[0]]] = [_num(sc[1]), *sc[2:]]
        scores.append(col)
    return scores


def _physician_verdicts(physicians: pl.DataFrame | None) -> dict[str, dict[str, list[Any]]]:
    """physician_labels(): the majority verdict per (case, criterion), for any reply, by case id."""
    labels: dict[str, dict[str, list[Any]]] = {}
    for r in physicians.iter_rows(named=True) if physicians is not None else ():
        labels.setdefault(r["case_id"], {})[r["criterion_id"]] = [
            None if r["met"] is None else int(r["met"]), r.get("n_met"), r.get("n_physicians"),
            {k: r.get(k) for k in ("model", "mode", "sample") if r.get(k) is not None}]
    return labels


def _image(ref: Any, dataset: Any, out_dir: Path, images: dict[str, str]) -> str | None:
    """Copy an image into the viewer (named by content) and return its relative path."""
    try:
        data = dataset.image_bytes(ref)
    except (OSError, ValueError):
        return None
    digest = ref.sha256 or hashlib.sha256(data).hexdigest()
    if digest not in images:
        from medrealmm.inference.prompts import image_mime

        try:
            ext = {"image/jpeg": ".jpg", "image/png": ".png", "image/webp": ".webp", "image/gif": ".gif",
                   "image/bmp": ".bmp"}[image_mime(data)]
        except ValueError:
            return None
        name = f"img/{digest[:32]}{ext}"
        write_bytes(out_dir / name, data)
        images[digest] = name
    return images[digest]


def _index_rows(run_rows: list[dict[str, Any]], gens: list[Any], verdicts: list[pl.DataFrame]
                ) -> tuple[list[dict[str, dict[str, Any]]], list[dict[str, list[dict[str, Any]]]]]:
    """Per viewer run, sample 0's reply and verdicts by case id: one pass over each table, so building
    the viewer costs time linear in the runs' size (5,620 cases x 20 runs in seconds)."""
    gen_at, ver_at = [], []
    cols = ["case_id", "text", "reasoning", "finish_reason", "truncated", "error"]
    for row in run_rows:
        i, mode = row["path"], row["mode"]
        g = gens[i]
        if g is not None:
            part = g.filter((pl.col("mode") == mode) & (pl.col("sample") == 0)).select([c for c in cols if c in g.columns])
            gen_at.append({r["case_id"]: r for r in part.iter_rows(named=True)})
        else:
            gen_at.append({})
        v = verdicts[i].filter((pl.col("mode") == mode) & (pl.col("sample") == 0))
        keep = [c for c in ("case_id", "criterion_id", "met", "status", "rationale", "weight", "criterion") if c in v.columns]
        by_case: dict[str, list[dict[str, Any]]] = {}
        for r in v.select(keep).iter_rows(named=True):
            by_case.setdefault(r["case_id"], []).append(r)
        ver_at.append(by_case)
    return gen_at, ver_at


def _case_detail(cid: str, case: Any, run_rows: list[dict[str, Any]], gen_at: list[dict[str, dict[str, Any]]],
                 ver_at: list[dict[str, list[dict[str, Any]]]], dataset: Any, out_dir: Path,
                 images: dict[str, str]) -> dict[str, Any]:
    detail: dict[str, Any] = {"turns": [], "y_orig": None, "rubric": [], "runs": {}}
    if case is not None:
        detail["y_orig"] = case.y_orig
        detail["rubric"] = [{"id": c.id, "text": c.text, "weight": c.weight} for c in case.rubric]
        for t in case.turns:
            detail["turns"].append({"role": t.role, "text": t.text,
                                    "images": [p for im in t.images if (p := _image(im, dataset, out_dir, images))]})
    for k, _row in enumerate(run_rows):
        entry: dict[str, Any] = {}
        h = gen_at[k].get(cid)
        if h is not None:
            entry.update(reply=h.get("text"), reasoning=h.get("reasoning"), finish=h.get("finish_reason"),
                         truncated=h.get("truncated"), error=h.get("error"))
        vs = ver_at[k].get(cid)
        if vs:
            entry["verdicts"] = {r["criterion_id"]: [None if r.get("met") is None else int(r["met"]), r.get("status"),
                                                     r.get("rationale"), r.get("weight"), r.get("criterion")]
                                 for r in vs}
            if not detail["rubric"]:   # no dataset: the criteria as the verdicts recorded them
                detail["rubric"] = [{"id": r["criterion_id"], "text": r.get("criterion") or r["criterion_id"],
                                     "weight": r.get("weight")} for r in vs]
        if entry:
            detail["runs"][str(k)] = entry
    return detail


def write_view(cfg: dict[str, Any]) -> Path:
    """``medrealmm view``: the runs the report would read (``report.runs``/``report.selection``), the
    dataset for the case texts and images when it can be loaded, into ``view.out_dir``."""
    from medrealmm.data.specialty import assign, load_groups
    from medrealmm.report.build import configured_physician_labels, report_settings, run_locations
    from medrealmm.report.runs import load_runs

    rep = report_settings(cfg)
    locations, root = run_locations(cfg, rep)
    runs = load_runs(locations, root=root, selection=rep.selection)
    dataset = None
    try:
        from medrealmm.data import load_dataset

        dataset = load_dataset({**cfg["data"], "check_images": False})
    except (ValueError, OSError) as e:
        log.warning("viewer: the dataset could not be loaded (%s); cases show what the runs recorded, no images", e)
    groups = load_groups(rep.specialty_groups)
    depts = runs.case_scores["department"].drop_nulls().unique().to_list()
    specialty = {d: g for d, (g, _) in assign(depts, groups).items()}
    out = Path((cfg.get("view") or {}).get("out_dir") or Path(cfg["paths"]["outputs"]) / "view" / cfg["data"]["name"])
    index = build_view(runs, out, dataset=dataset, specialty=specialty, physicians=configured_physician_labels(rep),
                       title=rep.title or f"MedRealMM cases: {cfg['data']['name']}")
    log.info("viewer: open %s in a browser (no server needed)", index)
    return index
