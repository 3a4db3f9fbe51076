"""Dataset formats: JSONL/Parquet round trips, subsets, config-driven loading, the offline HF loader."""

from __future__ import annotations

import hashlib
import io
import json
import logging
import socket
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from omegaconf import OmegaConf
from PIL import Image

from medrealmm.data import (
    Dataset,
    load_dataset,
    read_hf_release,
    read_jsonl,
    read_parquet,
    sample_dir,
    write_jsonl,
    write_parquet,
)
from medrealmm.schema import Case, CaseError, ImageRef

REPO = Path(__file__).resolve().parents[1]
CONF = REPO / "conf" / "data"


def image_bytes(fmt: str = "PNG", color=(10, 120, 200), size=(12, 9)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, fmt)
    return buf.getvalue()


def raw_case(cid: str, images: tuple[str, ...] = (), **over: Any) -> dict[str, Any]:
    case = {
        "id": cid,
        "department": "儿科",
        "intent": "medication",
        "stage": "follow-up",
        "patient": {"age": 4, "sex": "male"},
        "turns": [
            {
                "role": "patient",
                "text": f"孩子发烧两天了（{cid}）",
                "images": [{"path": p} for p in images],
                "time": "2025-01-01 10:00",
            },
            {"role": "doctor", "text": "最高体温多少？"},
            {"role": "patient", "text": "39度，这是化验单。"},
        ],
        "y_orig": "血常规提示病毒感染可能大，对症退热。",
        "rubric": [
            {"id": "c1", "text": "解读血常规", "weight": 6, "tags": ["multimodal"]},
            {"id": "c2", "text": "建议使用抗生素", "weight": -4},
        ],
        "meta": {"nested": {"k": [1, 2]}, "中文": "值"},
    }
    case.update(over)
    return case


def make_jsonl(root: Path, n: int = 4) -> Path:
    """``n`` cases with PNG, JPEG and WEBP images in nested folders, one image shared by two cases."""
    (root / "images" / "sub").mkdir(parents=True, exist_ok=True)
    (root / "images" / "shared.png").write_bytes(image_bytes("PNG", (1, 2, 3)))
    lines = []
    for i in range(n):
        own = f"images/sub/{i}.jpg" if i % 2 else f"images/{i}.webp"
        (root / own).write_bytes(image_bytes("JPEG" if i % 2 else "WEBP", (i * 40 % 256, 50, 90)))
        lines.append(json.dumps(raw_case(f"case-{i}", images=(own, "images/shared.png")), ensure_ascii=False))
    (root / "cases.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def strip_bytes(cases: list[Case]) -> list[Case]:
    return [
        c.model_copy(
            update={
                "turns": tuple(
                    t.model_copy(
                        update={"images": tuple(im.model_copy(update={"data": None}) for im in t.images)}
                    )
                    for t in c.turns
                )
            }
        )
        for c in cases
    ]


def all_image_bytes(ds: Dataset) -> list[bytes]:
    return [ds.image_bytes(im) for c in ds.cases for im in c.images]


# ---------------------------------------------------------------- JSONL


def test_read_jsonl_fills_hashes_and_case_frame(tmp_path: Path) -> None:
    ds = read_jsonl(make_jsonl(tmp_path / "ds"), strict=True)
    assert len(ds) == 4 and ds.errors == [] and ds.root == tmp_path / "ds"
    assert ds.source == str(tmp_path / "ds" / "cases.jsonl")
    for case in ds.cases:
        for im in case.images:
            assert im.sha256 == hashlib.sha256((ds.root / im.path).read_bytes()).hexdigest()
    frame = ds.case_frame()
    assert frame.columns == [
        "case_id",
        "department",
        "intent",
        "stage",
        "n_images",
        "n_turns",
        "n_criteria",
        "age",
        "sex",
    ]
    assert frame["case_id"].to_list() == [f"case-{i}" for i in range(4)]
    assert frame["n_images"].to_list() == [2] * 4 and frame["n_turns"].to_list() == [3] * 4
    assert frame["n_criteria"].to_list() == [2] * 4 and frame["age"].to_list() == [4] * 4
    assert frame.schema["age"] == pl.Int64 and frame["sex"].to_list() == ["male"] * 4
    empty = Dataset(name="e", root=None, cases=[]).case_frame()
    assert empty.height == 0 and empty.schema["n_images"] == pl.Int64


def test_jsonl_writer_output_is_readable_and_plain(tmp_path: Path) -> None:
    ds = read_jsonl(make_jsonl(tmp_path / "ds"), strict=True)
    target = write_jsonl(ds, tmp_path / "out")
    text = target.read_text(encoding="utf-8")
    assert "孩子发烧" in text  # ensure_ascii=False
    first = json.loads(text.splitlines()[0])
    assert "data" not in first["turns"][0]["images"][0]
    assert "time" not in first["turns"][1]  # None values are dropped
    again = read_jsonl(tmp_path / "out", strict=True)
    assert again.cases == ds.cases


def test_round_trip_jsonl_parquet_embedded_jsonl(tmp_path: Path) -> None:
    original = read_jsonl(make_jsonl(tmp_path / "ds"), strict=True)
    pq_path = write_parquet(original, tmp_path / "pq" / "cases.parquet", embed_images=True)
    assert list((tmp_path / "pq").iterdir()) == [pq_path]  # no image files beside it: all embedded
    embedded = read_parquet(pq_path, strict=True)
    assert all(im.data is not None for c in embedded.cases for im in c.images)
    assert strip_bytes(embedded.cases) == original.cases
    assert all_image_bytes(embedded) == all_image_bytes(original)
    # the Parquet file really has nested columns and a JSON meta column
    df = pl.read_parquet(pq_path)
    assert df.schema["turns"].inner.fields[2].name == "images"  # type: ignore[union-attr]
    assert df.schema["meta"] == pl.String and json.loads(df["meta"][0]) == {
        "nested": {"k": [1, 2]},
        "中文": "值",
    }

    write_jsonl(embedded, tmp_path / "back")
    back = read_jsonl(tmp_path / "back", strict=True)
    assert back.cases == original.cases
    assert all_image_bytes(back) == all_image_bytes(original)


def test_content_hash_same_for_embedded_and_file_images(tmp_path: Path) -> None:
    original = read_jsonl(make_jsonl(tmp_path / "ds", n=2), strict=True)
    embedded = read_parquet(write_parquet(original, tmp_path / "c.parquet", embed_images=True), strict=True)
    assert [c.content_hash() for c in embedded.cases] == [c.content_hash() for c in original.cases]


def test_content_hash_follows_image_content_not_path(tmp_path: Path) -> None:
    case = read_jsonl(make_jsonl(tmp_path / "ds", n=1), strict=True).cases[0]
    turns = list(case.turns)
    first = next(i for i, t in enumerate(turns) if t.images)
    moved = turns[first].images[0].model_copy(update={"path": "elsewhere/renamed.png"})
    turns[first] = turns[first].model_copy(update={"images": (moved, *turns[first].images[1:])})
    assert case.model_copy(update={"turns": tuple(turns)}).content_hash() == case.content_hash()
    changed = moved.model_copy(update={"sha256": "0" * 64})
    turns[first] = turns[first].model_copy(update={"images": (changed, *turns[first].images[1:])})
    assert case.model_copy(update={"turns": tuple(turns)}).content_hash() != case.content_hash()


def test_round_trip_jsonl_parquet_paths(tmp_path: Path) -> None:
    original = read_jsonl(make_jsonl(tmp_path / "ds"), strict=True)
    pq_path = write_parquet(original, tmp_path / "elsewhere" / "index.parquet", embed_images=False)
    assert (tmp_path / "elsewhere" / "images" / "shared.png").is_file()  # images copied beside the file
    loaded = read_parquet(pq_path, strict=True)
    assert loaded.root == tmp_path / "elsewhere"
    assert all(im.data is None for c in loaded.cases for im in c.images)
    assert loaded.cases == original.cases
    assert all_image_bytes(loaded) == all_image_bytes(original)


def test_embedded_images_with_colliding_names_get_derived_paths(tmp_path: Path) -> None:
    red, blue = image_bytes("JPEG", (255, 0, 0)), image_bytes("JPEG", (0, 0, 255))
    cases = []
    for cid, data in (("病例/1", red), ("病例/2", blue)):
        raw = raw_case(cid)
        raw["turns"][0]["images"] = [{"path": "image.jpg", "data": data}]
        cases.append(Case.parse(raw))
    ds = Dataset(name="hf-like", root=None, cases=cases)
    write_jsonl(ds, tmp_path / "out")
    back = read_jsonl(tmp_path / "out", strict=True)
    paths = [c.images[0].path for c in back.cases]
    assert paths[0] == "image.jpg" and paths[1] != "image.jpg" and paths[1].startswith("images/")
    assert paths[1].endswith(".jpg") and ".." not in paths[1]
    assert all_image_bytes(back) == [red, blue]


def test_unsafe_embedded_path_is_not_written_outside(tmp_path: Path) -> None:
    raw = raw_case("x")
    raw["turns"][0]["images"] = [{"path": "../../evil.png", "data": image_bytes()}]
    ds = Dataset(name="x", root=None, cases=[Case.parse(raw)])
    write_jsonl(ds, tmp_path / "out")
    assert not (tmp_path / "evil.png").exists()
    back = read_jsonl(tmp_path / "out", strict=True)
    assert back.cases[0].images[0].path.startswith("images/x/")


def test_image_bytes_refuses_paths_outside_root(tmp_path: Path) -> None:
    ds = read_jsonl(make_jsonl(tmp_path / "ds"), strict=True)
    with pytest.raises(ValueError, match="outside the dataset root"):
        ds.image_bytes(ImageRef(path="../../etc/passwd"))


def test_parquet_row_with_bad_meta_is_named(tmp_path: Path) -> None:
    original = read_jsonl(make_jsonl(tmp_path / "ds", n=2), strict=True)
    pq_path = write_parquet(original, tmp_path / "c.parquet", embed_images=True)
    df = pl.read_parquet(pq_path).with_columns(
        pl.when(pl.col("id") == "case-1").then(pl.lit("{oops")).otherwise(pl.col("meta")).alias("meta")
    )
    df.write_parquet(pq_path)
    ds = read_parquet(pq_path)
    assert [c.id for c in ds.cases] == ["case-0"]
    err = ds.errors[0]
    assert err.case_id == "case-1" and err.field == "meta" and err.file == str(pq_path)


# ---------------------------------------------------------------- subsets


def test_limit_and_case_ids(tmp_path: Path) -> None:
    root = make_jsonl(tmp_path / "ds", n=6)
    assert [c.id for c in read_jsonl(root, limit=2).cases] == ["case-0", "case-1"]
    assert read_jsonl(root, limit=0).cases == []
    ds = read_jsonl(root, case_ids=["case-4", "case-1"])
    assert [c.id for c in ds.cases] == ["case-1", "case-4"]  # file order
    ds = read_jsonl(root, case_ids=["case-2", "nope"])
    assert [c.id for c in ds.cases] == ["case-2"]
    assert ds.errors[0].case_id == "nope" and "case_ids" in str(ds.errors[0])
    with pytest.raises(CaseError, match="nope"):
        read_jsonl(root, case_ids=["nope"], strict=True)


def test_many_cases_across_chunks_keep_file_order(tmp_path: Path) -> None:
    root = make_jsonl(tmp_path / "ds", n=150)
    ds = read_jsonl(root, workers=4)
    assert [c.id for c in ds.cases] == [f"case-{i}" for i in range(150)]
    assert [c.id for c in read_jsonl(root, limit=70, workers=4).cases] == [f"case-{i}" for i in range(70)]
    assert [c.id for c in read_jsonl(root, case_ids=["case-149", "case-3"]).cases] == ["case-3", "case-149"]


def test_limit_counts_valid_cases(tmp_path: Path) -> None:
    root = make_jsonl(tmp_path / "ds", n=3)
    lines = (root / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    (root / "cases.jsonl").write_text(
        "\n".join([lines[0], "{bad", lines[1], lines[2]]) + "\n", encoding="utf-8"
    )
    ds = read_jsonl(root, limit=2)
    assert [c.id for c in ds.cases] == ["case-0", "case-1"] and len(ds.errors) == 1


# ---------------------------------------------------------------- Hydra config files


def test_config_files_load_each_format(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    root = make_jsonl(tmp_path / "ds", n=3)
    original = read_jsonl(root, strict=True)
    write_parquet(original, tmp_path / "p.parquet", embed_images=True)

    cfg = OmegaConf.load(CONF / "jsonl.yaml")
    with pytest.raises(ValueError, match="data.path"):
        load_dataset(cfg)  # path is ??? until set
    cfg.path = str(root)
    cfg.limit = 2
    ds = load_dataset(cfg)
    assert [c.id for c in ds.cases] == ["case-0", "case-1"] and ds.name == "jsonl"

    cfg = OmegaConf.load(CONF / "parquet.yaml")
    cfg.path = str(tmp_path / "p.parquet")
    cfg.case_ids = ["case-2"]
    assert [c.id for c in load_dataset(cfg).cases] == ["case-2"]

    plain = {"format": "jsonl", "path": str(root), "strict": True, "name": "mine"}
    assert load_dataset(plain).name == "mine"
    with caplog.at_level(logging.WARNING, logger="medrealmm.data"):
        load_dataset({**plain, "limt": 1})
    assert any("limt" in r.getMessage() for r in caplog.records)
    with pytest.raises(ValueError, match="unknown data.format"):
        load_dataset({"format": "csv", "path": str(root)})

    sample = OmegaConf.load(CONF / "sample.yaml")
    assert sample.format == "sample" and sample.strict is False and sample.limit is None
    hf = OmegaConf.load(CONF / "medrealmm_hf.yaml")
    assert hf.repo_id == "jdh-algo/MedRealMM" and hf.offline is True and hf.local_dir is None
    assert set(hf.fields) >= {"id", "turns", "turn_role", "rubric", "criterion_weight", "criterion_tags"}


def test_bundled_sample_loads() -> None:
    if not (sample_dir() / "cases.jsonl").is_file():
        pytest.skip(f"bundled sample not built yet ({sample_dir() / 'cases.jsonl'} missing)")
    ds = load_dataset(OmegaConf.load(CONF / "sample.yaml"))
    assert len(ds.cases) > 0
    assert ds.errors == [], [str(e) for e in ds.errors]
    assert all(im.sha256 for c in ds.cases for im in c.images)


# ---------------------------------------------------------------- official HF release (offline)


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Any attempt to open a connection fails the test (and is recorded)."""
    attempts: list[str] = []

    def refuse(self: Any, address: Any, *a: Any, **k: Any) -> None:
        attempts.append(str(address))
        raise AssertionError(f"network call to {address!r} while offline")

    def refuse_dns(host: Any, *a: Any, **k: Any) -> None:
        attempts.append(str(host))
        raise AssertionError(f"DNS lookup of {host!r} while offline")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse_dns)
    return attempts


# the release's (hypothetical) own names, different from ours on purpose
HF_FIELDS = {
    "id": "case_id",
    "department": "科室",
    "intent": "labels.intent",
    "stage": "labels.stage",
    "age": "patient_info.age",
    "sex": "patient_info.gender",
    "turns": "dialogue",
    "turn_role": "speaker",
    "turn_text": "content",
    "turn_images": "images",
    "turn_time": "timestamp",
    "y_orig": "doctor_reply",
    "rubric": "rubrics",
    "criterion_id": "cid",
    "criterion_text": "criterion",
    "criterion_weight": "points",
    "criterion_tags": "axis",
}


def make_release(root: Path, department_column: str = "科室") -> dict[str, bytes]:
    """A folder laid out like an HF dataset repo: a Parquet split with HF Image structs, a JSONL split
    with relative image paths (and rubric as a JSON string), and files that are not data."""
    (root / "data").mkdir(parents=True)
    (root / "images").mkdir()
    (root / ".cache" / "huggingface").mkdir(parents=True)
    (root / ".cache" / "huggingface" / "junk.json").write_text("{not data", encoding="utf-8")
    (root / "README.md").write_text("---\nlicense: cc-by-nc-4.0\n---\n", encoding="utf-8")
    (root / "dataset_infos.json").write_text('{"default": {}}', encoding="utf-8")
    imgs = {
        "a": image_bytes("JPEG", (200, 10, 10)),
        "b": image_bytes("PNG", (10, 200, 10)),
        "c": image_bytes("PNG", (10, 10, 200)),
    }
    rows = [
        {
            "case_id": "hf-1",
            department_column: "皮肤科",
            "labels": {"intent": "诊断", "stage": "初诊"},
            "patient_info": {"age": "35岁", "gender": "女"},
            "dialogue": [
                {
                    "speaker": "患者",
                    "content": "手上起疹子",
                    "timestamp": "10:01",
                    "images": [{"bytes": imgs["a"], "path": "IMG_0001.jpg"}],
                },
                {"speaker": "医生", "content": "多久了？", "timestamp": "10:02", "images": []},
                {
                    "speaker": "患者",
                    "content": None,
                    "timestamp": "10:03",
                    "images": [{"bytes": imgs["b"], "path": None}],
                },
            ],
            "doctor_reply": "考虑湿疹。",
            "rubrics": [
                {"cid": None, "criterion": "询问病程", "points": 5, "axis": ["history"]},
                {"cid": None, "criterion": "直接开激素", "points": -2, "axis": []},
            ],
            "source": "platform-x",
        }
    ]
    schema = {
        "case_id": pl.String,
        department_column: pl.String,
        "labels": pl.Struct({"intent": pl.String, "stage": pl.String}),
        "patient_info": pl.Struct({"age": pl.String, "gender": pl.String}),
        "dialogue": pl.List(
            pl.Struct(
                {
                    "speaker": pl.String,
                    "content": pl.String,
                    "timestamp": pl.String,
                    "images": pl.List(pl.Struct({"bytes": pl.Binary, "path": pl.String})),
                }
            )
        ),
        "doctor_reply": pl.String,
        "rubrics": pl.List(
            pl.Struct(
                {"cid": pl.String, "criterion": pl.String, "points": pl.Int64, "axis": pl.List(pl.String)}
            )
        ),
        "source": pl.String,
    }
    pl.DataFrame(rows, schema=schema, orient="row").write_parquet(
        root / "data" / "test-00000-of-00001.parquet"
    )
    (root / "images" / "c.png").write_bytes(imgs["c"])
    jsonl_row = {
        "case_id": "hf-2",
        department_column: "检验科",
        "labels": {"intent": "报告解读"},
        "patient_info": {"age": 61, "gender": "M"},
        "dialogue": [
            {"speaker": "user", "content": "帮我看看报告", "images": ["images/c.png"]},
            {"speaker": "assistant", "content": "好的"},
        ],
        "doctor_reply": "血糖偏高。",
        "rubrics": json.dumps(
            [{"cid": "k1", "criterion": "指出血糖异常", "points": "8", "axis": "lab, 解读"}],
            ensure_ascii=False,
        ),
    }
    (root / "data" / "test-extra.jsonl").write_text(
        json.dumps(jsonl_row, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return imgs


def hf_cfg(**over: Any) -> dict[str, Any]:
    cfg = OmegaConf.to_container(OmegaConf.load(CONF / "medrealmm_hf.yaml"))
    assert isinstance(cfg, dict)
    cfg["fields"] = dict(HF_FIELDS)
    cfg["strict"] = True
    for k, v in over.items():
        cfg[k] = v
    return cfg


def test_hf_release_local_folder_maps_fields_offline(tmp_path: Path, no_network: list[str]) -> None:
    imgs = make_release(tmp_path / "snap")
    ds = load_dataset(hf_cfg(local_dir=str(tmp_path / "snap")))
    assert no_network == []
    assert [c.id for c in ds.cases] == ["hf-1", "hf-2"] and ds.root == tmp_path / "snap"
    one, two = ds.cases
    assert (one.department, one.intent, one.stage) == ("皮肤科", "诊断", "初诊")
    assert (one.patient.age, one.patient.sex) == (35, "female")
    assert [t.role for t in one.turns] == ["patient", "doctor", "patient"]
    assert one.turns[0].time == "10:01" and one.turns[2].text == ""
    assert [c.id for c in one.rubric] == ["c1", "c2"] and [c.weight for c in one.rubric] == [5, -2]
    assert one.rubric[0].tags == ("history",) and one.y_orig == "考虑湿疹。"
    assert ds.image_bytes(one.turns[0].images[0]) == imgs["a"]
    assert one.turns[0].images[0].path.endswith(".jpg")  # original extension kept
    assert ds.image_bytes(one.turns[2].images[0]) == imgs["b"]
    assert one.turns[2].images[0].path.endswith(".png")  # no name: extension from the content
    assert (
        one.meta["source"] == "platform-x" and one.meta["source_file"] == "data/test-00000-of-00001.parquet"
    )
    assert (two.patient.age, two.patient.sex, two.stage) == (61, "male", None)
    assert [t.role for t in two.turns] == ["patient", "doctor"]
    assert (
        two.turns[0].images[0].path == "images/c.png" and ds.image_bytes(two.turns[0].images[0]) == imgs["c"]
    )
    assert two.rubric[0].id == "k1" and two.rubric[0].weight == 8 and two.rubric[0].tags == ("lab", "解读")

    # what the release gives can be exported to our own layout and read back identically
    write_jsonl(ds, tmp_path / "exported")
    assert read_jsonl(tmp_path / "exported", strict=True).cases == strip_bytes(ds.cases)


def test_hf_release_from_hub_cache_offline(tmp_path: Path, no_network: list[str]) -> None:
    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = tmp_path / "hub" / "datasets--jdh-algo--MedRealMM"
    make_release(repo / "snapshots" / commit)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    ds = read_hf_release(hf_cfg(cache_dir=str(tmp_path / "hub")))
    assert [c.id for c in ds.cases] == ["hf-1", "hf-2"]
    assert no_network == []
    with pytest.raises(FileNotFoundError, match="data.local_dir"):
        read_hf_release(hf_cfg(cache_dir=str(tmp_path / "empty-cache")))
    assert no_network == []


def test_network_guard_is_effective(tmp_path: Path, no_network: list[str]) -> None:
    """Without offline the loader does try the hub, so the guard above is what proves offline is offline."""
    with pytest.raises(Exception):  # noqa: B017 - whatever the hub client wraps our AssertionError in
        read_hf_release(hf_cfg(cache_dir=str(tmp_path / "empty-cache"), offline=False))
    assert no_network, "the loader made no connection attempt, so the offline tests prove nothing"


def test_hf_release_renamed_field_needs_only_config(tmp_path: Path, no_network: list[str]) -> None:
    make_release(tmp_path / "snap", department_column="dept_name")
    with pytest.raises(CaseError) as info:
        load_dataset(hf_cfg(local_dir=str(tmp_path / "snap")))
    err = info.value
    assert err.case_id == "hf-1" and err.field == "department"
    assert "科室" in str(err) and "data.fields.department" in str(err) and "dept_name" in str(err)
    assert err.file == str(tmp_path / "snap" / "data" / "test-00000-of-00001.parquet")

    lenient = load_dataset(hf_cfg(local_dir=str(tmp_path / "snap"), strict=False))
    assert lenient.cases == [] and len(lenient.errors) == 2

    cfg = hf_cfg(local_dir=str(tmp_path / "snap"))
    cfg["fields"]["department"] = "dept_name"
    ds = load_dataset(cfg)
    assert [c.department for c in ds.cases] == ["皮肤科", "检验科"]
    assert no_network == []


def test_hf_release_field_override_from_the_command_line(tmp_path: Path, no_network: list[str]) -> None:
    """The user-facing path: a renamed column is one Hydra override, e.g. data.fields.department=dept_name."""
    from hydra import compose, initialize_config_dir

    make_release(tmp_path / "snap", department_column="dept_name")
    overrides = [f"data.fields.{k}={v}" for k, v in HF_FIELDS.items() if k != "department"]
    overrides += ["+data=medrealmm_hf", f"data.local_dir={tmp_path / 'snap'}", "data.strict=true"]
    overrides.insert(0, overrides.pop(overrides.index("+data=medrealmm_hf")))
    with initialize_config_dir(config_dir=str(CONF.parent), version_base=None):
        cfg = compose(overrides=overrides)
        with pytest.raises(CaseError, match="data.fields.department"):
            load_dataset(cfg.data)
        cfg = compose(overrides=[*overrides, "data.fields.department=dept_name"])
    ds = load_dataset(cfg.data)
    assert [c.department for c in ds.cases] == ["皮肤科", "检验科"]
    assert no_network == []


def test_hf_release_unknown_role_names_role_map(tmp_path: Path) -> None:
    make_release(tmp_path / "snap")
    cfg = hf_cfg(local_dir=str(tmp_path / "snap"), strict=False)
    cfg["role_map"] = {"患者": "patient", "医生": "doctor"}  # user/assistant no longer mapped
    ds = load_dataset(cfg)
    assert [c.id for c in ds.cases] == ["hf-1"]
    err = ds.errors[0]
    assert err.case_id == "hf-2" and err.field == "turns.0.role" and "data.role_map" in str(err)


def test_hf_release_bad_mapping_config(tmp_path: Path) -> None:
    make_release(tmp_path / "snap")
    cfg = hf_cfg(local_dir=str(tmp_path / "snap"))
    cfg["fields"]["deparment"] = "x"
    with pytest.raises(ValueError, match="deparment"):
        load_dataset(cfg)
    with pytest.raises(FileNotFoundError, match="data.files"):
        load_dataset(hf_cfg(local_dir=str(tmp_path / "snap"), files=["**/*.arrow"]))
