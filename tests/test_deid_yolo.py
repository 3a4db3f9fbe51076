"""The YOLO code detector's plumbing, offline: synthetic data, training, loading, batched detection.

Training here is a 1-epoch run on a tiny synthetic set (a few seconds on 2 cores): it checks that the
pieces connect, not that the model is good (benchmarks/yolo_qr.py measures that).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from medrealmm.deid.image import synth_codes as sc

cv2 = pytest.importorskip("cv2")
pytest.importorskip("segno")

QR_FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "images" / "qr"


def _crop(bgr: np.ndarray, box, pad: int = 16) -> np.ndarray:
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    h, w = bgr.shape[:2]
    c = bgr[max(0, y0):min(h, y1), max(0, x0):min(w, x1)]
    return cv2.copyMakeBorder(c, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=(255, 255, 255))


def _read_qr(bgr: np.ndarray) -> str:
    """OpenCV's classic QR reader, then its Aruco-based one (each misses clean codes the other reads)."""
    for det in (cv2.QRCodeDetector(), cv2.QRCodeDetectorAruco()):
        try:
            text = det.detectAndDecode(bgr)[0]
        except UnicodeDecodeError:
            text = ""
        if text:
            return text
    return ""


def _module_px(o: sc.SynthObject) -> float:
    return float(np.linalg.norm(np.subtract(o.corners[1], o.corners[0]))) / o.modules


# --------------------------------------------------------------------------------------------------
# imports stay light


def test_import_does_not_load_torch_or_ultralytics():
    code = textwrap.dedent("""
        import sys
        import medrealmm.deid.image.yolo, medrealmm.deid.image.synth_codes, medrealmm.deid.train_qr
        print(sorted(m for m in ("torch", "ultralytics") if m in sys.modules))
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert r.stdout.strip().splitlines()[-1] == "[]", r.stdout + r.stderr


# --------------------------------------------------------------------------------------------------
# 1-D symbologies


def _decode_code128_row(row_dark: np.ndarray) -> str:
    """A minimal Code 128 reader (sets B and C) for one scan line of a clean, upright barcode."""
    idx = np.flatnonzero(row_dark)
    bits = row_dark[idx[0]:idx[-1] + 1].astype(int)
    runs = np.diff(np.flatnonzero(np.diff(np.r_[-1, bits, -1]) != 0))
    n_sym = (len(runs) - 7) // 6
    assert len(runs) == 6 * n_sym + 7, len(runs)
    module = runs.sum() / (11 * n_sym + 13)
    widths = "".join(str(int(round(r / module))) for r in runs)
    table = {p: v for v, p in enumerate(sc._C128)}
    values = [table[widths[i:i + 6]] for i in range(0, 6 * n_sym, 6)]
    assert widths[6 * n_sym:] == sc._C128_STOP
    start, data, check = values[0], values[1:-1], values[-1]
    assert check == (start + sum(i * v for i, v in enumerate(data, start=1))) % 103, "bad checksum"
    if start == 105:
        return "".join(f"{v:02d}" for v in data)
    assert start == 104
    return "".join(chr(v + 32) for v in data)


# EAN-13 digit codes typed from the specification (not computed like the encoder's), and the
# first digit's parity patterns.
_EAN_L = ("0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111",
          "0001011")
_EAN_G = ("0100111", "0110011", "0011011", "0100001", "0011101", "0111001", "0000101", "0010001", "0001001",
          "0010111")
_EAN_R = ("1110010", "1100110", "1101100", "1000010", "1011100", "1001110", "1010000", "1000100", "1001000",
          "1110100")
_EAN_FIRST = {"LLLLLL": 0, "LLGLGG": 1, "LLGGLG": 2, "LLGGGL": 3, "LGLLGG": 4, "LGGLLG": 5, "LGGGLL": 6,
              "GLLLGG": 7, "GLGLGL": 8, "GGLLLG": 9}


def _decode_ean13_row(row_dark: np.ndarray) -> str:
    """A minimal EAN-13 reader for one scan line of a clean, upright barcode."""
    idx = np.flatnonzero(row_dark)
    bits = row_dark[idx[0]:idx[-1] + 1].astype(int)
    runs = np.diff(np.flatnonzero(np.diff(np.r_[-1, bits, -1]) != 0))
    module = runs.sum() / 95
    s = "".join(str((i + 1) % 2) * int(round(r / module)) for i, r in enumerate(runs))  # starts with a bar
    assert len(s) == 95 and s[:3] == "101" and s[45:50] == "01010" and s[92:] == "101", s
    left, parity = "", ""
    for i in range(6):
        code = s[3 + 7 * i:10 + 7 * i]
        side = "L" if code in _EAN_L else "G"
        left += str((_EAN_L if side == "L" else _EAN_G).index(code))
        parity += side
    right = "".join(str(_EAN_R.index(s[50 + 7 * i:57 + 7 * i])) for i in range(6))
    digits = str(_EAN_FIRST[parity]) + left + right
    total = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(digits[:12]))
    assert (10 - total % 10) % 10 == int(digits[12]), "bad check digit"
    return digits


def test_code128_table_is_well_formed():
    assert len(sc._C128) == 106 and len(set(sc._C128)) == 106
    for p in sc._C128:  # 11 modules, an even number of them dark (Code 128's parity rule)
        assert sum(map(int, p)) == 11 and (int(p[0]) + int(p[2]) + int(p[4])) % 2 == 0
    # a few patterns straight from the specification
    assert (sc._C128[0], sc._C128[33], sc._C128[104], sc._C128[105], sc._C128_STOP) == (
        "212222", "111323", "211214", "211232", "2331112")
    values = [104, 48, 42, 42, 17, 18, 19, 35]   # start B, then "PJJ123C"
    check = (104 + sum(i * v for i, v in enumerate(values[1:], start=1))) % 103
    assert sc.code128_values("PJJ123C") == values + [check]
    assert sc.code128_values("123456") == [105, 12, 34, 56, (105 + 12 + 2 * 34 + 3 * 56) % 103]


@pytest.mark.parametrize("data", ["HELLO-123", "Ab 9/xz", "12345678", "0042"])
def test_code128_round_trip(data):
    mods = sc.code128_modules(data)
    assert mods[0] == 1 and mods[-1] == 1 and len(mods) == 11 * (len(sc.code128_values(data))) + 13
    assert _decode_code128_row(np.repeat(mods, 3).astype(bool)) == data


def test_ean13_round_trip():
    for digits in ("400638133393", "978020137962", "000000000000", "999999999999"):
        mods = sc.ean13_modules(digits)
        assert _decode_ean13_row(np.repeat(mods, 2).astype(bool)) == digits + sc.ean13_check_digit(digits)


def test_ean13_decodes_with_opencv():
    digits = "400638133393"
    assert sc.ean13_check_digit(digits) == "1"
    mods = sc.ean13_modules(digits)
    assert len(mods) == 95
    row = np.concatenate([np.zeros(12, np.uint8), mods, np.zeros(12, np.uint8)])
    dark = np.pad(np.repeat(row, 2)[None].repeat(150, 0), 100)
    img = cv2.cvtColor(((1 - dark) * 255).astype(np.uint8), cv2.COLOR_GRAY2BGR)
    h, w = dark.shape
    pts = np.array([[[100, h - 100], [100, 100], [w - 100, 100], [w - 100, h - 100]]], np.float32)
    ok, texts, kinds = cv2.barcode.BarcodeDetector().decodeWithType(img, pts)
    assert ok and texts[0] == digits + "1" and kinds[0] == "EAN_13"
    with pytest.raises(ValueError):
        sc.ean13_modules("4006381333932")


# --------------------------------------------------------------------------------------------------
# synthetic pages and their labels


def test_clean_labels_decode_inside_their_boxes(tmp_path):
    cfg = replace(sc.SynthConfig.clean(), p_negative=0.0, p_barcode=0.5)
    sc.write_split(tmp_path, "val", 40, seed=3, cfg=cfg)
    qr_ok = qr_n = ean_ok = c128_ok = bar_n = 0
    for line in (tmp_path / "annotations_val.jsonl").read_text().splitlines():
        rec = json.loads(line)
        bgr = cv2.imread(str(tmp_path / rec["image"]))
        assert bgr.shape[:2] == (rec["height"], rec["width"])
        objs = [sc.SynthObject(o["cls"], o["symbology"], o["payload"], o["modules"], o["module_px"],
                               tuple(map(tuple, o["corners"])), tuple(o["box"])) for o in rec["objects"]]
        # the label file says the same as the annotation
        label = (tmp_path / "labels" / "val" / (Path(rec["image"]).stem + ".txt")).read_text()
        want = sc.yolo_label_lines(objs, rec["width"], rec["height"])  # from the rounded annotation
        got_rows = [list(map(float, x.split())) for x in label.splitlines()]
        assert len(got_rows) == len(want) == len(objs)
        assert np.allclose(got_rows, [list(map(float, x.split())) for x in want], atol=1e-4)
        for o in objs:
            if _module_px(o) < (3 if o.symbology == "qr" else 2):  # too fine to read back; label still right
                continue
            crop = _crop(bgr, o.box)
            if o.symbology == "qr":
                qr_n += 1
                qr_ok += _read_qr(crop) == o.payload
            else:
                bar_n += 1
                row = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)[crop.shape[0] // 2] < 128
                if o.symbology == "ean13":
                    ean_ok += _decode_ean13_row(row) == o.payload
                else:
                    c128_ok += _decode_code128_row(row) == o.payload
    assert qr_n >= 10 and bar_n >= 5, (qr_n, bar_n)
    assert qr_ok == qr_n
    assert ean_ok + c128_ok == bar_n, (ean_ok, c128_ok, bar_n)
    assert ean_ok and c128_ok


def test_warped_labels_follow_the_code():
    """Rotated and perspective-warped codes on a blank page: all ink lies in the label boxes, and the
    boxes are tight around it."""
    cfg = replace(sc.SynthConfig.clean(), p_negative=0.0, p_text=0.0, p_table=0.0, p_rotate=1.0,
                  p_perspective=1.0)
    n = 0
    for i in range(12):
        s = sc.render_sample(np.random.default_rng([7, i]), cfg)
        ink = cv2.cvtColor(s.image, cv2.COLOR_RGB2GRAY) < 128
        inside = np.zeros_like(ink)
        for o in s.objects:
            x0, y0, x1, y1 = o.box
            inside[max(0, int(y0) - 2):int(np.ceil(y1)) + 2, max(0, int(x0) - 2):int(np.ceil(x1)) + 2] = True
            sub = ink[int(y0):int(np.ceil(y1)), int(x0):int(np.ceil(x1))]
            ys, xs = np.nonzero(sub)
            ink_area = (xs.max() - xs.min() + 1) * (ys.max() - ys.min() + 1)
            assert ink_area >= 0.85 * (x1 - x0) * (y1 - y0), (i, o.symbology)
            n += 1
        assert not (ink & ~inside).any(), f"ink outside the labels in sample {i}"
    assert n >= 12


def test_warped_pages_decode_inside_their_boxes():
    cfg = replace(sc.SynthConfig.clean(), p_negative=0.0, p_rotate=1.0, p_perspective=1.0, p_page_warp=1.0)
    ok = n = 0
    for i in range(60):
        s = sc.render_sample(np.random.default_rng([1, i]), cfg)
        bgr = cv2.cvtColor(s.image, cv2.COLOR_RGB2BGR)
        for o in s.objects:
            if o.symbology == "qr" and _module_px(o) >= 3:
                n += 1
                ok += _read_qr(_crop(bgr, o.box)) == o.payload
    assert n >= 30 and ok >= 0.8 * n, (ok, n)   # strong perspective defeats OpenCV now and then


def test_negatives_have_empty_label_files(tmp_path):
    sc.write_split(tmp_path, "train", 6, seed=1, cfg=replace(sc.SynthConfig(), p_negative=1.0))
    labels = sorted((tmp_path / "labels" / "train").glob("*.txt"))
    assert len(labels) == 6 and all(p.read_text() == "" for p in labels)
    assert len(list((tmp_path / "images" / "train").iterdir())) == 6


def test_dataset_is_deterministic(tmp_path):
    a = sc.generate_dataset(tmp_path / "a", 5, 3, seed=11).parent
    b = sc.generate_dataset(tmp_path / "b", 5, 3, seed=11).parent
    c = sc.generate_dataset(tmp_path / "c", 5, 3, seed=12).parent
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file() and p.name != "data.yaml")
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file() and p.name != "data.yaml")
    assert all((a / f).read_bytes() == (b / f).read_bytes() for f in files)
    assert (a / "annotations_train.jsonl").read_text() != (c / "annotations_train.jsonl").read_text()
    data = (a / "data.yaml").read_text()
    assert "train: images/train" in data and "0: qr" in data and "1: barcode" in data


# --------------------------------------------------------------------------------------------------
# detector config and errors (no torch needed)


def test_missing_weights_fail_clearly(tmp_path):
    from medrealmm.deid.image.base import make_detector
    from medrealmm.deid.image.yolo import WeightsNotFound

    missing = tmp_path / "nowhere" / "best.pt"
    with pytest.raises(WeightsNotFound) as e:
        make_detector({"kind": "yolo", "weights": str(missing)})
    assert str(missing) in str(e.value) and "medrealmm.deid.train_qr" in str(e.value)
    with pytest.raises(FileNotFoundError, match="hub cache .*: nobody-xyz/no-such-repo"):
        make_detector({"kind": "yolo", "weights": "nobody-xyz/no-such-repo/face.pt"})
    with pytest.raises(WeightsNotFound, match="no YOLO weights configured"):
        make_detector({"kind": "yolo"})


def test_hub_ids_resolve_from_the_local_cache_only(tmp_path, monkeypatch):
    from medrealmm.deid.image.yolo import resolve_weights

    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    snap = tmp_path / "models--someone--yolo-face" / "snapshots" / "abc123"
    (snap / "weights").mkdir(parents=True)
    (snap / "weights" / "face.pt").write_bytes(b"x")
    (tmp_path / "models--someone--yolo-face" / "refs").mkdir()
    (tmp_path / "models--someone--yolo-face" / "refs" / "main").write_text("abc123")
    want = (snap / "weights" / "face.pt").resolve()
    assert resolve_weights("someone/yolo-face/weights/face.pt") == want
    assert resolve_weights("hf://someone/yolo-face/weights/face.pt") == want


def test_bad_config_is_rejected(tmp_path):
    from medrealmm.deid.image.base import make_detector

    w = tmp_path / "w.pt"
    w.write_bytes(b"")
    with pytest.raises(ValueError, match="yolo detector: unknown keys"):
        make_detector({"kind": "yolo", "weights": str(w), "treshold": 0.3})
    with pytest.raises(ValueError, match="unknown categories"):
        make_detector({"kind": "yolo", "weights": str(w), "classes": {"qr": "QRCODE"}})
    with pytest.raises(ValueError, match="bad yolo settings"):
        make_detector({"kind": "yolo", "weights": str(w), "conf": 2})


def test_rgb_is_handed_to_ultralytics_as_bgr():
    from medrealmm.deid.image.yolo import _to_bgr

    rgb = np.zeros((4, 5, 3), np.uint8)
    rgb[..., 0] = 200  # red
    bgr = _to_bgr(rgb)
    assert bgr[0, 0].tolist() == [0, 0, 200] and bgr.flags.c_contiguous
    assert _to_bgr(np.zeros((4, 5), np.uint8)).shape == (4, 5, 3)
    assert _to_bgr(np.zeros((4, 5, 4), np.uint8)).shape == (4, 5, 3)
    with pytest.raises(ValueError):
        _to_bgr(np.zeros((4, 5, 3), np.float32))


def test_command_line_overrides():
    from medrealmm.deid.train_qr import TrainQRConfig, main, parse_overrides

    cfg = parse_overrides(["epochs=3", "imgsz=160", "real_dir=null", "model=yolo11n.yaml", "++seed=5",
                           "amp=true"])
    assert cfg == TrainQRConfig(epochs=3, imgsz=160, real_dir=None, model="yolo11n.yaml", seed=5, amp=True)
    with pytest.raises(ValueError, match="bad override"):
        parse_overrides(["epoch=3"])
    with pytest.raises(ValueError, match="bad value for epochs"):
        parse_overrides(["epochs=many"])
    assert main(["nonsense=1"]) == 2


def test_recall_rule():
    from medrealmm.deid.train_qr import covers

    ref = (10.0, 10.0, 110.0, 110.0)
    assert covers((12, 12, 112, 112), ref)             # IoU ~0.92
    assert covers((0, 0, 300, 300), ref)               # IoU 0.11, but contains all of it
    assert covers((10, 10, 110, 60), ref)              # IoU exactly 0.5
    assert not covers((10, 10, 110, 55), ref)          # under half of it
    assert not covers((200, 200, 300, 300), ref)


def test_real_photo_recall_with_a_stub_detector():
    """The real-photo evaluation itself (no YOLO): a detector boxing every whole photo recalls every QR."""
    from medrealmm.deid.image.base import Box
    from medrealmm.deid.train_qr import real_photo_recall

    if not QR_FIXTURES.is_dir():
        pytest.skip(f"real QR photos not found at {QR_FIXTURES} (../shared fixtures)")

    class Whole:
        name = "whole"

        def detect(self, images):
            return [[Box(0, 0, im.shape[1], im.shape[0], "QR", "whole")] for im in images]

    r = real_photo_recall(Whole(), QR_FIXTURES)
    assert r["photos"] == len(list(QR_FIXTURES.glob("*.txt"))) >= 1
    assert r["yolo"]["recall"] == 1.0 and r["yolo"]["references"] >= 1
    assert 0 <= r["opencv_aruco"]["found_rate"] <= 1 and len(r["per_photo"]) == r["photos"]


# --------------------------------------------------------------------------------------------------
# train -> load -> detect (the plumbing end to end)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory, monkeypatch_module):
    # not importorskip: importing ultralytics now would fix its config dir before we set it
    if importlib.util.find_spec("ultralytics") is None:
        pytest.skip("ultralytics is not installed (pip install medrealmm[deid])")
    from medrealmm.deid.train_qr import TrainQRConfig, train

    out = tmp_path_factory.mktemp("yolo-qr")
    cfg_dir = out / "ultralytics-config"
    # keep ultralytics' environment to this module (import_ultralytics sets these)
    monkeypatch_module.setenv("YOLO_OFFLINE", "1")
    monkeypatch_module.setenv("YOLO_CONFIG_DIR", str(cfg_dir))
    cfg = TrainQRConfig(out_dir=str(out / "run"), n_train=16, n_val=8, epochs=1, imgsz=160, batch=8,
                        device="cpu", config_dir=str(cfg_dir),
                        real_dir=str(QR_FIXTURES) if QR_FIXTURES.is_dir() else None)
    return cfg, train(cfg)


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


def test_training_writes_weights_metrics_and_progress(tiny_run):
    cfg, metrics = tiny_run
    out = Path(cfg.out_dir)
    assert (out / "best.pt").is_file() and metrics["weights"] == str((out / "best.pt").resolve())
    saved = json.loads((out / "metrics.json").read_text())
    assert saved["val"].keys() >= {"mAP50", "mAP50-95", "precision", "recall", "per_class"}
    assert 0 <= saved["val"]["mAP50"] <= 1
    assert set(saved["val"]["per_class"]) <= {"qr", "barcode"}
    rows = [json.loads(x) for x in (out / "progress.jsonl").read_text().splitlines()]
    assert [r["epoch"] for r in rows] == [1] and "train/box_loss" in rows[0]
    assert (out / "dataset" / "data.yaml").is_file()
    assert (Path(cfg.config_dir) / "Ultralytics" / "Arial.ttf").is_file()
    if cfg.real_dir:
        assert saved["real"]["photos"] >= 1 and "opencv_aruco" in saved["real"]


def test_trained_weights_detect_in_batches(tiny_run):
    import torch

    from medrealmm.deid.image.base import IMAGE_CATEGORIES, make_detector

    cfg, metrics = tiny_run
    det = make_detector({"kind": "yolo", "weights": metrics["weights"],
                         "classes": {"qr": "QR", "barcode": "BARCODE"}, "conf": 0.001, "imgsz": 160,
                         "batch": 2, "device": "cpu", "config_dir": cfg.config_dir, "name": "yolo-qr"})
    images = [sc.render_sample(np.random.default_rng([99, i])).image for i in range(3)]
    images.append(np.full((50, 70, 3), 255, np.uint8))
    threads = torch.get_num_threads()
    result = det.detect(images)
    assert torch.get_num_threads() == threads       # ultralytics did not resize torch's thread pool
    assert isinstance(result, list) and len(result) == len(images)
    for im, boxes in zip(images, result, strict=True):
        assert isinstance(boxes, list)
        h, w = im.shape[:2]
        for b in boxes:                              # an untrained model may find nothing: that's fine
            assert 0 <= b.x0 < b.x1 <= w and 0 <= b.y0 < b.y1 <= h
            assert b.category in {"QR", "BARCODE"} and b.category in IMAGE_CATEGORIES
            assert b.detector == "yolo-qr" and 0 <= b.score <= 1
    assert det.detect([]) == []


def test_classes_the_model_lacks_are_an_error(tiny_run):
    from medrealmm.deid.image.base import make_detector

    cfg, metrics = tiny_run
    det = make_detector({"kind": "yolo", "weights": metrics["weights"], "classes": {"face": "FACE"},
                         "device": "cpu", "config_dir": cfg.config_dir})
    with pytest.raises(ValueError, match="none of the model's classes"):
        det.detect([np.zeros((32, 32, 3), np.uint8)])
