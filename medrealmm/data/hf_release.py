"""Loader for the official release on the Hugging Face hub (``jdh-algo/MedRealMM``).

The release's exact schema is not known to us and may change between revisions, so every field
name, role value and sex value is read from config (``conf/data/medrealmm_hf.yaml``): a renamed
column is a config override, not a code change. With ``offline: true`` (the default) nothing
touches the network: a ``local_dir`` snapshot is read as is, otherwise the hub cache is used with
``local_files_only=True``.

Field mappings are dotted paths (``patient.age``) into each record; turn fields are relative to a
turn and criterion fields to a criterion. ``null`` means "the release has no such field".
A list-valued field may also arrive as a JSON string; it is decoded.
"""

from __future__ import annotations

import base64
import fnmatch
import json
import logging
import re
from collections.abc import Iterator, Mapping
from pathlib import Path, PurePosixPath
from typing import Any

import polars as pl
import pyarrow.parquet as pq
from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator

from medrealmm.data.dataset import Dataset, LoadOptions, RawRecord, build_dataset
from medrealmm.data.formats import KNOWN_KEYS, register_format, warn_unknown
from medrealmm.data.images import derived_image_path
from medrealmm.schema import CaseError

log = logging.getLogger(__name__)

CONFIG_FILE = "conf/data/medrealmm_hf.yaml"

DEFAULT_FIELDS: dict[str, str | None] = {
    "id": "id",
    "department": "department",
    "intent": "intent",
    "stage": "stage",
    "age": "age",
    "sex": "sex",
    "turns": "turns",
    "turn_role": "role",
    "turn_text": "text",
    "turn_images": "images",
    "turn_time": "time",
    "y_orig": "y_orig",
    "rubric": "rubric",
    "criterion_id": "id",
    "criterion_text": "text",
    "criterion_weight": "weight",
    "criterion_tags": "tags",
}
# keys that must be mapped: the case cannot be built without them
REQUIRED_FIELDS = ("department", "turns", "turn_role", "rubric", "criterion_text", "criterion_weight")
DEFAULT_ROLE_MAP = {
    "患者": "patient",
    "病人": "patient",
    "医生": "doctor",
    "user": "patient",
    "assistant": "doctor",
    "patient": "patient",
    "doctor": "doctor",
}
DEFAULT_SEX_MAP = {
    "男": "male",
    "女": "female",
    "M": "male",
    "F": "female",
    "male": "male",
    "female": "female",
}
DEFAULT_FILES = ("**/*.parquet", "**/*.jsonl", "**/*.json")
DEFAULT_EXCLUDE = ("*dataset_info*.json", "*dataset_dict.json", "*state.json", "*.lock")

HF_KEYS = {
    "repo_id",
    "revision",
    "local_dir",
    "offline",
    "cache_dir",
    "files",
    "exclude",
    "fields",
    "role_map",
    "sex_map",
    "records_key",
    "keep_unmapped",
    "token",
}

_MISSING = object()


class HFReleaseSettings(BaseModel):
    """The ``data`` settings of ``format=hf_release`` (``conf/data/medrealmm_hf.yaml``), their defaults here
    once; the loader's own keys (:data:`~medrealmm.data.formats.KNOWN_KEYS`) pass through. A null (or empty)
    ``name``, ``repo_id``, ``files``, ``fields``, ``role_map`` or ``sex_map`` means the default, a null ``exclude``
    too."""

    model_config = ConfigDict(extra="allow")

    name: str = "medrealmm_hf"
    repo_id: str = "jdh-algo/MedRealMM"
    revision: str | None = None
    local_dir: str | None = None
    path: str | None = None
    cache_dir: str | None = None
    offline: bool = True          # local_files_only: never a silent network call
    token: str | bool | None = None
    files: list[str] = list(DEFAULT_FILES)
    exclude: list[str] = list(DEFAULT_EXCLUDE)
    records_key: str | None = None
    keep_unmapped: bool = True
    fields: dict[str, Any] = {}
    role_map: dict[Any, Any] = DEFAULT_ROLE_MAP
    sex_map: dict[Any, Any] = DEFAULT_SEX_MAP

    @field_validator("name", "repo_id", "revision", "files", "fields", "role_map", "sex_map", "exclude",
                     mode="before")
    @classmethod
    def _empty_is_default(cls, value: Any, info: ValidationInfo) -> Any:
        name = str(info.field_name)
        empty = value is None if name == "exclude" else not value
        return cls.model_fields[name].get_default(call_default_factory=True) if empty else value


class HFReleaseConfigError(ValueError):
    """The mapping config itself is unusable (not one case's fault)."""


def _get(obj: Any, dotted: str) -> Any:
    """``obj['a']['b']`` for ``'a.b'``; ``_MISSING`` when a key is absent. A literal key with dots wins."""
    if isinstance(obj, Mapping) and dotted in obj:
        return obj[dotted]
    cur = obj
    for part in dotted.split("."):
        if isinstance(cur, str) and cur[:1] in "{[":
            cur = _maybe_json(cur)
        if isinstance(cur, Mapping) and part in cur:
            cur = cur[part]
        elif isinstance(cur, (list, tuple)) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        else:
            return _MISSING
    return cur


def _maybe_json(value: Any) -> Any:
    if isinstance(value, str) and value.strip()[:1] in ("[", "{"):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def _top_key(dotted: str | None) -> str | None:
    return dotted.split(".")[0] if dotted else None


class _Mapper:
    """Turns one release record into the raw dict that ``Case.parse`` validates."""

    def __init__(self, conf: HFReleaseSettings, root: Path):
        fields_cfg = dict(conf.fields)
        unknown = set(fields_cfg) - set(DEFAULT_FIELDS)
        if unknown:
            raise HFReleaseConfigError(
                f"unknown keys under data.fields: {sorted(unknown)} "
                f"(known: {sorted(DEFAULT_FIELDS)}) in {CONFIG_FILE}"
            )
        self.fields = {**DEFAULT_FIELDS, **fields_cfg}
        for key in REQUIRED_FIELDS:
            if not self.fields.get(key):
                raise HFReleaseConfigError(
                    f"data.fields.{key} must name a field of the release ({CONFIG_FILE})"
                )
        self.role_map = {str(k): v for k, v in conf.role_map.items()}
        self.sex_map = {str(k): v for k, v in conf.sex_map.items()}
        self.keep_unmapped = conf.keep_unmapped
        self.root = root
        self._warned: set[tuple[str, str]] = set()
        self._mapped_top = {
            _top_key(v) for k, v in self.fields.items() if v and not k.startswith(("turn_", "criterion_"))
        }

    def _err(self, msg: str, case_id: str | None, field: str, file: str) -> CaseError:
        return CaseError(msg, case_id=case_id, field=field, file=file)

    def _list_field(self, rec: Mapping[str, Any], name: str, what: str, case_id: str, fstr: str) -> list[Any]:
        value = _maybe_json(self._required(rec, name, case_id, fstr))
        if not isinstance(value, (list, tuple)):
            raise self._err(
                f"field {self.fields[name]!r} should be a list of {what}, got {type(value).__name__}; "
                f"check data.fields.{name} in {CONFIG_FILE}",
                case_id,
                name,
                fstr,
            )
        return list(value)

    def _required(
        self, rec: Mapping[str, Any], key: str, case_id: str | None, file: str, field: str | None = None
    ) -> Any:
        """The mapped field's value, or a CaseError naming the field and the config key to change."""
        name = self.fields[key]
        value = _get(rec, name)
        if value is _MISSING or value is None:
            present = (
                ", ".join(sorted(map(str, rec))[:20]) if isinstance(rec, Mapping) else type(rec).__name__
            )
            where = f" at {field.rsplit('.', 1)[0]}" if field and "." in field else ""
            raise self._err(
                f"field {name!r} is missing{where}; change data.fields.{key} in {CONFIG_FILE} "
                f"(the record has: {present})",
                case_id,
                field or key,
                file,
            )
        return value

    def _optional(self, rec: Mapping[str, Any], key: str) -> Any:
        name = self.fields.get(key)
        if not name:
            return None
        value = _get(rec, name)
        return None if value is _MISSING else value

    def _warn_once(self, kind: str, value: str, msg: str) -> None:
        if (kind, value) not in self._warned:
            self._warned.add((kind, value))
            log.warning(msg)

    def map(self, rec: Mapping[str, Any], file: Path, row: int) -> dict[str, Any]:
        rel_file = file.relative_to(self.root).as_posix() if file.is_relative_to(self.root) else str(file)
        fstr = str(file)
        if self.fields.get("id"):
            raw_id = self._required(rec, "id", None, fstr)
            case_id = str(raw_id)
        else:
            case_id = f"{PurePosixPath(rel_file).stem}-{row}"
        raw_turns = self._list_field(rec, "turns", "turns", case_id, fstr)
        turns = [self._turn(t, i, case_id, file) for i, t in enumerate(raw_turns)]
        raw_rubric = self._list_field(rec, "rubric", "criteria", case_id, fstr)
        rubric = [self._criterion(c, j, case_id, fstr) for j, c in enumerate(raw_rubric)]
        y_orig = self._optional(rec, "y_orig") if self.fields.get("y_orig") else ""
        if self.fields.get("y_orig") and y_orig is None:
            raise self._err(
                f"field {self.fields['y_orig']!r} is missing; change data.fields.y_orig in {CONFIG_FILE} "
                "(or set it to null if the release has no physician reply)",
                case_id,
                "y_orig",
                fstr,
            )
        out: dict[str, Any] = {
            "id": case_id,
            "department": str(self._required(rec, "department", case_id, fstr)),
            "intent": _str_or_none(self._optional(rec, "intent")),
            "stage": _str_or_none(self._optional(rec, "stage")),
            "patient": {
                "age": self._age(self._optional(rec, "age"), case_id),
                "sex": self._sex(self._optional(rec, "sex"), case_id),
            },
            "turns": turns,
            "y_orig": y_orig if isinstance(y_orig, str) else str(y_orig),
            "rubric": rubric,
            "meta": self._meta(rec, rel_file, row),
        }
        return out

    def _meta(self, rec: Mapping[str, Any], rel_file: str, row: int) -> dict[str, Any]:
        meta: dict[str, Any] = {"source_file": rel_file, "source_row": row}
        if self.keep_unmapped and isinstance(rec, Mapping):
            for k, v in rec.items():
                if k in self._mapped_top:
                    continue
                try:
                    json.dumps(v, ensure_ascii=False)
                except (TypeError, ValueError):
                    continue  # bytes and the like: not JSON, not kept
                meta[str(k)] = v
        return meta

    def _turn(self, t: Any, i: int, case_id: str, file: Path) -> dict[str, Any]:
        fstr = str(file)
        if not isinstance(t, Mapping):
            raise self._err(
                f"turn {i} should be an object, got {type(t).__name__}; check data.fields.turns in "
                f"{CONFIG_FILE}",
                case_id,
                f"turns.{i}",
                fstr,
            )
        role_raw = self._required(t, "turn_role", case_id, fstr, f"turns.{i}.role")
        role = self.role_map.get(str(role_raw).strip())
        if role not in ("patient", "doctor"):
            raise self._err(
                f"unknown speaker role {role_raw!r}; add it to data.role_map in {CONFIG_FILE}",
                case_id,
                f"turns.{i}.role",
                fstr,
            )
        images_raw = _maybe_json(self._optional(t, "turn_images"))
        images = self._images(images_raw, i, case_id, file)
        text = self._optional(t, "turn_text")
        if text is None and not images:
            raise self._err(
                f"field {self.fields.get('turn_text')!r} is missing at turns.{i} and the turn has no "
                f"images; change data.fields.turn_text in {CONFIG_FILE}",
                case_id,
                f"turns.{i}.text",
                fstr,
            )
        time = self._optional(t, "turn_time")
        return {
            "role": role,
            "text": "" if text is None else str(text),
            "images": images,
            "time": None if time is None else str(time),
        }

    def _images(self, value: Any, t: int, case_id: str, file: Path) -> list[dict[str, Any]]:
        if value is None:
            return []
        items = value if isinstance(value, (list, tuple)) else [value]
        out = []
        for i, item in enumerate(items):
            where = f"turns.{t}.images.{i}"
            data: bytes | None = None
            path: str | None = None
            if isinstance(item, (bytes, bytearray, memoryview)):
                data = bytes(item)
            elif isinstance(item, str):
                path = item
            elif isinstance(item, Mapping):
                b = item.get("bytes")
                path = item.get("path") or None
                if isinstance(b, str):  # JSON cannot hold bytes: base64
                    try:
                        b = base64.b64decode(b, validate=True)
                    except ValueError:
                        raise self._err(
                            "image 'bytes' is a string that is not base64", case_id, where, str(file)
                        ) from None
                data = bytes(b) if b is not None else None
            else:
                raise self._err(
                    f"unsupported image value of type {type(item).__name__} (expected a path, bytes or "
                    "{'bytes': ..., 'path': ...})",
                    case_id,
                    where,
                    str(file),
                )
            if data is not None:
                out.append({"path": derived_image_path(case_id, t, i, data, path), "data": data})
            elif path:
                out.append({"path": self._rel_path(path, file)})
            else:
                raise self._err("image has neither bytes nor a path", case_id, where, str(file))
        return out

    def _rel_path(self, path: str, file: Path) -> str:
        """An image path relative to the snapshot root: tried beside the data file, then at the root.

        Absolute and ``..`` paths are passed through unchanged so that validation rejects them.
        """
        p = PurePosixPath(path.replace("\\", "/"))
        if p.is_absolute() or ".." in p.parts:
            return path
        folder = (
            file.parent.relative_to(self.root) if file.parent.is_relative_to(self.root) else PurePosixPath()
        )
        if str(folder) not in ("", ".") and (file.parent / p).exists():
            return (PurePosixPath(folder.as_posix()) / p).as_posix()
        return p.as_posix()

    def _criterion(self, c: Any, j: int, case_id: str, file: str) -> dict[str, Any]:
        if not isinstance(c, Mapping):
            raise self._err(
                f"criterion {j} should be an object, got {type(c).__name__}; check data.fields.rubric "
                f"in {CONFIG_FILE}",
                case_id,
                f"rubric.{j}",
                file,
            )
        text = self._required(c, "criterion_text", case_id, file, f"rubric.{j}.text")
        weight_raw = self._required(c, "criterion_weight", case_id, file, f"rubric.{j}.weight")
        weight = _as_int(weight_raw)
        if weight is None:
            raise self._err(
                f"criterion weight {weight_raw!r} is not an integer", case_id, f"rubric.{j}.weight", file
            )
        cid = self._optional(c, "criterion_id")
        tags = _maybe_json(self._optional(c, "criterion_tags"))
        if tags is None:
            tags = []
        elif isinstance(tags, str):
            tags = [s.strip() for s in re.split(r"[,，;；]", tags) if s.strip()]
        return {
            "id": f"c{j + 1}" if cid is None or str(cid) == "" else str(cid),
            "text": str(text),
            "weight": weight,
            "tags": [str(x) for x in tags],
        }

    def _age(self, value: Any, case_id: str) -> int | None:
        if value is None or value == "":
            return None
        if isinstance(value, bool):
            return None
        if isinstance(value, (int, float)):
            return int(value)
        s = str(value).strip()
        m = re.fullmatch(r"(\d+)\s*(岁|周岁|years?|yrs?|y)?", s, flags=re.I)
        if m:
            return int(m.group(1))
        if re.fullmatch(r"\d+\s*(个月|月|周|天|months?|weeks?|days?)", s, flags=re.I):
            return 0
        self._warn_once("age", s, f"case {case_id}: age {s!r} not understood; stored as unknown")
        return None

    def _sex(self, value: Any, case_id: str) -> str | None:
        if value is None or value == "":
            return None
        s = str(value).strip()
        if s in self.sex_map:
            return self.sex_map[s]
        self._warn_once(
            "sex",
            s,
            f"case {case_id}: sex value {s!r} is not in data.sex_map ({CONFIG_FILE}); stored as unknown",
        )
        return None


def _str_or_none(v: Any) -> str | None:
    return None if v is None else str(v)


def _as_int(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return int(v) if v.is_integer() else None
    try:
        return int(str(v).strip())
    except ValueError:
        try:
            f = float(str(v).strip())
        except ValueError:
            return None
        return int(f) if f.is_integer() else None


def _data_files(root: Path, patterns: list[str], exclude: list[str]) -> list[Path]:
    """The release's data files matching ``patterns``, skipping hidden folders (``.cache``, ``.git``)."""
    found: set[Path] = set()
    for pattern in patterns:
        pattern = pattern.lstrip("/")
        candidates = list(root.glob(pattern))
        if pattern.startswith("**/"):  # pathlib's **/ already matches zero folders, but be explicit
            candidates += list(root.glob(pattern[3:]))
        for f in candidates:
            rel = f.relative_to(root).as_posix()
            if not f.is_file() or any(part.startswith(".") for part in PurePosixPath(rel).parts):
                continue
            if any(fnmatch.fnmatch(rel, ex) for ex in exclude):
                continue
            found.add(f)
    return sorted(found)


def _iter_file(path: Path, records_key: str | None) -> Iterator[tuple[int, Any] | CaseError]:
    """Records of one data file: (row number, record) or an error for an unreadable row/file."""
    suffix = path.suffix.lower()
    file = str(path)
    if suffix == ".parquet":
        try:
            pf = pq.ParquetFile(path)
        except Exception as e:  # noqa: BLE001
            yield CaseError(f"cannot read Parquet file: {e}", file=file)
            return
        row = 0
        for batch in pf.iter_batches(batch_size=64):
            for rec in pl.from_arrow(batch).to_dicts():
                yield row, rec
                row += 1
    elif suffix == ".jsonl":
        with open(path, encoding="utf-8-sig", errors="replace") as fh:
            for lineno, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    yield lineno, json.loads(line)
                except json.JSONDecodeError as e:
                    yield CaseError(f"line {lineno}: invalid JSON: {e.msg} at column {e.colno}", file=file)
    elif suffix == ".json":
        try:
            doc = json.loads(path.read_text(encoding="utf-8-sig"))
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            yield CaseError(f"invalid JSON file: {e}", file=file)
            return
        if records_key:
            doc = _get(doc, records_key)
            if doc is _MISSING:
                yield CaseError(
                    f"records_key {records_key!r} not found; change data.records_key in {CONFIG_FILE}",
                    file=file,
                )
                return
        elif isinstance(doc, dict):
            lists = [v for v in doc.values() if isinstance(v, list) and v and isinstance(v[0], dict)]
            doc = lists[0] if len(lists) == 1 else [doc]
        for row, rec in enumerate(doc if isinstance(doc, list) else [doc]):
            yield row, rec
    else:
        yield CaseError(
            f"unsupported data file type {suffix!r}; adjust data.files in {CONFIG_FILE}", file=file
        )


def snapshot_root(conf: Mapping[str, Any] | HFReleaseSettings) -> Path:
    """The local folder holding the release: ``local_dir``/``path`` as given, else the hub snapshot.

    ``offline`` (default true) passes ``local_files_only=True``: the hub cache is used, and a
    missing snapshot is an error telling how to download it, never a silent network call.
    """
    s = conf if isinstance(conf, HFReleaseSettings) else HFReleaseSettings.model_validate(dict(conf))
    local = s.local_dir or s.path
    if local:
        root = Path(local).expanduser()
        if not root.is_dir():
            raise FileNotFoundError(f"MedRealMM release folder not found: {root} (data.local_dir)")
        return root
    from huggingface_hub import snapshot_download

    repo_id, revision, offline = s.repo_id, s.revision, s.offline
    try:
        folder = snapshot_download(
            repo_id,
            repo_type="dataset",
            revision=revision,
            cache_dir=s.cache_dir,
            local_files_only=offline,
            token=s.token,
        )
    except Exception as e:  # noqa: BLE001 - hub errors vary by version; all mean "not available"
        if offline:
            raise FileNotFoundError(
                f"the {repo_id} release (revision {revision}) is not in the local Hugging Face cache and "
                f"data.offline is true, so nothing was downloaded ({type(e).__name__}: {e}). "
                f"Download it once with `hf download {repo_id} --repo-type dataset --local-dir DIR` "
                "and set data.local_dir=DIR, or set data.offline=false"
            ) from e
        raise
    return Path(folder)


def read_hf_release(conf: Mapping[str, Any], *, options: LoadOptions | None = None) -> Dataset:
    """Load the official release according to the mapping in ``conf`` (the ``data`` config)."""
    s = HFReleaseSettings.model_validate(dict(conf))
    root = snapshot_root(s)
    mapper = _Mapper(s, root)
    patterns, exclude = list(s.files), list(s.exclude)
    files = _data_files(root, patterns, exclude)
    if not files:
        raise FileNotFoundError(
            f"no data files matching {patterns} under {root}; adjust data.files in {CONFIG_FILE}"
        )
    log.info("MedRealMM release at %s: %d data files", root, len(files))
    records_key = s.records_key

    def records() -> Iterator[RawRecord]:
        for f in files:
            for item in _iter_file(f, records_key):
                if isinstance(item, CaseError):
                    yield RawRecord(None, str(f), item)
                    continue
                row, rec = item
                if not isinstance(rec, Mapping):
                    yield RawRecord(
                        None,
                        str(f),
                        CaseError(f"record {row} is a {type(rec).__name__}, not an object", file=str(f)),
                    )
                    continue
                try:
                    yield RawRecord(mapper.map(rec, f, row), str(f))
                except CaseError as e:
                    yield RawRecord(None, str(f), e)

    return build_dataset(
        records(),
        name=s.name,
        root=root,
        source=str(root),
        options=options or LoadOptions.from_mapping(conf),
    )


@register_format("hf_release", "hf")
def _load_hf_release(conf: Mapping[str, Any], options: LoadOptions) -> Dataset:
    warn_unknown(conf, KNOWN_KEYS | HF_KEYS)
    return read_hf_release(conf, options=options)
