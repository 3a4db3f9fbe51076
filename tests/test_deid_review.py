"""Stage 5 under the paper's scheme: every case reviewed in two passes (residual PII, clinical utility),
then a second annotator audits 10% of the approved cases plus every approved case of the sensitive slice."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from medrealmm.deid.review import ReviewError, Sampling, apply_decisions, read_decisions, write_sheets

try:
    from tests.conftest import cli
except ImportError:  # pytest run with tests/ (not the repo root) on sys.path
    from conftest import cli  # type: ignore[no-redef]

DEPTS = ["皮肤科", "儿童皮肤科", "心理咨询科", "内分泌科", "肿瘤内科", "消化内科"]


def stage_output(folder: Path, n: int = 60) -> Path:
    """What `medrealmm deid` leaves: masked cases and their audit trail (no images needed here)."""
    folder.mkdir(parents=True, exist_ok=True)
    cases = [{"id": f"c{i:03d}", "department": DEPTS[i % len(DEPTS)],
              "turns": [{"role": "patient", "text": f"[NAME]，皮疹{i}天"}, {"role": "doctor", "text": "建议复查"}]}
             for i in range(n)]
    (folder / "cases.jsonl").write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases),
                                        encoding="utf-8")
    (folder / "audit.jsonl").write_text("".join(json.dumps({"id": c["id"], "texts": []}) + "\n" for c in cases),
                                        encoding="utf-8")
    return folder


def template_ids(path: Path) -> list[str]:
    with open(path, encoding="utf-8") as fh:
        return [r["case_id"] for r in csv.DictReader(fh)]


def test_paper_scheme_reviews_every_case_with_both_passes_on_the_sheet(tmp_path: Path) -> None:
    out = stage_output(tmp_path / "deid")
    sheets = write_sheets(out, Sampling(scheme="paper", share=0.0), batch_size=25)
    assert len(sheets) == 3                                      # 60 cases, every one of them
    assert len(template_ids(out / "review" / "decisions_template.csv")) == 60
    page = sheets[0].read_text(encoding="utf-8")
    assert "residual PII" in page and "clinical utility" in page
    write_sheets(out, Sampling(scheme="sample", share=0.0), batch_size=25)   # the sensitive groups only
    assert len(template_ids(out / "review" / "decisions_template.csv")) == 30


def test_audit_is_ten_percent_of_approved_plus_every_sensitive_approved_case(tmp_path: Path) -> None:
    out = stage_output(tmp_path / "deid", n=600)
    sampling = Sampling(scheme="paper", audit_share=0.1, seed=3)
    with pytest.raises(ReviewError, match="first-review decision"):
        write_sheets(out, sampling, audit=True)                  # nothing approved yet
    write_sheets(out, sampling)
    rows = ["case_id,decision,field,start,end,category,image,x0,y0,x1,y1,pass"]
    rows += [f"c{i:03d},accept,,,,,,,,,," for i in range(600) if i % 50]
    rows += [f"c{i:03d},reject,,,,,,,,,,utility" for i in range(0, 600, 50)]
    first = tmp_path / "first.csv"
    first.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert apply_decisions(out, first) == {"accept": 588, "reject": 12, "remask": 0}
    write_sheets(out, sampling, audit=True)
    audited = template_ids(out / "review" / "audit_decisions_template.csv")
    groups = dict(zip((f"c{i:03d}" for i in range(600)), (DEPTS[i % len(DEPTS)] for i in range(600)), strict=True))
    sensitive = {"儿童皮肤科", "心理咨询科", "肿瘤内科"}
    approved_sensitive = [c for c, d in groups.items() if d in sensitive and int(c[1:]) % 50]
    assert set(approved_sensitive) <= set(audited)              # 100% of the sensitive slice
    others = [c for c in audited if groups[c] not in sensitive]
    approved_others = sum(1 for c, d in groups.items() if d not in sensitive and int(c[1:]) % 50)
    assert 0.05 < len(others) / approved_others < 0.15          # ~10% of the rest
    assert not {f"c{i:03d}" for i in range(0, 600, 50)} & set(audited)   # rejected cases are gone
    assert sorted(p.name for p in (out / "review").glob("audit-batch-*.html"))
    # the auditor's decisions come back through the same command, marked as the audit pass
    second = tmp_path / "audit.csv"
    second.write_text("case_id,decision,field,start,end,category,image,x0,y0,x1,y1,pass\n"
                      f"{audited[0]},reject,,,,,,,,,,audit\n", encoding="utf-8")
    apply_decisions(out, second)
    trail = {json.loads(line)["id"]: json.loads(line) for line in (out / "audit.jsonl").read_text().splitlines()}
    assert audited[0] not in trail
    assert [r.get("pass") for r in trail[audited[1]]["review"]] == [None]
    assert [r["decision"] for r in trail[audited[1]]["review"]] == ["accept"]
    rejected = [json.loads(line) for line in (out / "removed.jsonl").read_text().splitlines()]
    assert {"id": audited[0], "reason": "rejected by reviewer"} in rejected


def test_unknown_pass_and_scheme_are_named(tmp_path: Path) -> None:
    bad = tmp_path / "d.csv"
    bad.write_text("case_id,decision,pass\nc1,accept,second\n", encoding="utf-8")
    with pytest.raises(ReviewError, match=r"row 1: pass 'second'"):
        read_decisions(bad)
    with pytest.raises(ValueError, match="deid.review.scheme"):
        Sampling(scheme="full")
    with pytest.raises(ValueError, match="deid.review.audit_share"):
        Sampling(audit_share=1.5)


def test_preset_paper_sets_the_paper_review_from_the_command_line(tmp_path: Path) -> None:
    out = stage_output(tmp_path / "deid", n=12)
    cli(["deid-review", "preset=paper", f"deid.out_dir={out}"], cwd=tmp_path)
    assert len(template_ids(out / "review" / "decisions_template.csv")) == 12
    r = cli(["deid-review", "preset=paper", f"deid.out_dir={out}", "deid.review.audit=true"], cwd=tmp_path,
            check=False)
    assert r.returncode == 2 and "first-review decision" in r.stderr and "Traceback" not in r.stderr
