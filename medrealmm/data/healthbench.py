"""HealthBench-format JSONL (OpenAI's rubric benchmark) read into our data model.

One HealthBench example per line::

    {"prompt_id": "...", "prompt": [{"role": "user", "content": "..."}, ...],
     "rubrics": [{"criterion": "...", "points": 5, "tags": ["level:example", "axis:accuracy"]}, ...],
     "example_tags": ["theme:emergency_referrals", ...],
     "ideal_completions_data": null | {"ideal_completion": "...", "ideal_completions_group": "...", ...},
     "canary": "..."}

The mapping, field by field:

- case ``id`` = ``prompt_id``.
- ``turns`` from ``prompt``: ``user`` → patient, ``assistant`` → doctor, in order. A conversation may
  start with the assistant (the prompt builder then opens with a neutral user line); HealthBench
  conversations end with a user turn, and a conversation that does not is loaded as is (the
  prompt builder asks the model to continue). ``system`` messages are not turns: their contents
  (joined by a blank line when there are several) go to ``meta["system"]``. The ``healthbench``
  prompt style (``run.prompt.style``, which ``auto`` picks for this format) sends the conversation
  as is, ``meta["system"]`` as its system message and no opening or continue line (those are the
  ``medrealmm`` style's), and shows ``meta["system"]`` to the judge; ``meta`` is not part of a
  case's content hash, but result keys hash the rendered prompt.
- ``department`` = the theme: the first ``theme:`` tag of ``example_tags`` without its prefix
  (``theme:emergency_referrals`` → ``emergency_referrals``), ``"healthbench"`` when there is none.
  The department breakdown then is HealthBench's theme breakdown. ``intent``/``stage`` are None.
- ``y_orig`` = ``ideal_completions_data.ideal_completion`` when present, else ``""``. HealthBench
  has no real physician reply; the ideal completion (physician-written, a subset of examples only)
  is the closest thing, so ``model=online`` scores that text where it exists and an empty reply
  everywhere else — meaningless as an "Online" row on HealthBench.
- ``rubric``: item ``j`` (0-based) becomes criterion ``c{j+1}`` with ``text`` = ``criterion``,
  ``weight`` = ``points`` (integers, negative for penalties), ``tags`` = the item's tags
  (``level:``, ``axis:``, ``cluster:``) unchanged.
- ``meta`` = ``{"source": "healthbench", "example_tags": [...]}`` plus ``system``,
  ``ideal_completions_group`` and ``canary`` when the example has them (the canary string marks
  benchmark data so that it can be kept out of training corpora; re-exports keep it).

An example that cannot be mapped is recorded as a bad case (or raised under ``strict``) with its
HealthBench field path, e.g. ``rubrics.3.points``: a 0-point item (our schema forbids weight 0,
and a 0-point item cannot change a HealthBench score either), non-integer points, an unknown
role, a message that is not text. Case-level rules stay in the schema, so an example whose rubric
has no positive points is rejected there (field ``rubric``), exactly like a MedRealMM case.
Everything after the mapping — subsets, limits, duplicate ids, strict/lenient — is
:func:`medrealmm.data.dataset.build_dataset`, as for every other format.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from medrealmm.data.dataset import Dataset, LoadOptions, RawRecord, build_dataset
from medrealmm.data.formats import register_format, required_path
from medrealmm.data.jsonl_io import iter_jsonl_records
from medrealmm.schema import CaseError

log = logging.getLogger(__name__)

SOURCE = "healthbench"
DEFAULT_DEPARTMENT = "healthbench"
THEME_PREFIX = "theme:"
ROLE_MAP: dict[str, str] = {"user": "patient", "assistant": "doctor"}
SYSTEM_ROLE = "system"


def _as_points(value: Any) -> int | None:
    """HealthBench declares points as numbers; only whole numbers fit our integer weights."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _str_list(value: Any, what: str, case_id: str, field: str, file: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise CaseError(f"{what} should be a list of strings, got {value!r:.80}",
                        case_id=case_id, field=field, file=file)
    return list(value)


def theme_of(example_tags: list[str]) -> str:
    """The example's theme (first ``theme:`` tag, prefix removed), or ``"healthbench"``."""
    for tag in example_tags:
        if tag.startswith(THEME_PREFIX) and tag[len(THEME_PREFIX):]:
            return tag[len(THEME_PREFIX):]
    return DEFAULT_DEPARTMENT


def _ideal_completion(data: Any) -> str:
    """The physician-written ideal completion when the example has one (a dict in HealthBench;
    a list of completions or dicts is read as its first item)."""
    if isinstance(data, list):
        data = data[0] if data else None
    if isinstance(data, str):
        return data
    if isinstance(data, Mapping) and isinstance(data.get("ideal_completion"), str):
        return data["ideal_completion"]
    return ""


def healthbench_to_raw(rec: Mapping[str, Any], *, file: str, index: int = 0) -> dict[str, Any]:
    """Map one HealthBench example to the raw dict that :class:`~medrealmm.schema.Case` validates.

    Raises :class:`CaseError` naming the case and the HealthBench field (``prompt.2.role``,
    ``rubrics.0.points``…). ``index`` (1-based record number in ``file``) locates an example
    without a ``prompt_id``.
    """
    pid = rec.get("prompt_id")
    if pid is None or str(pid) == "":
        raise CaseError(f"record {index}: prompt_id is missing", field="prompt_id", file=file)
    case_id = str(pid)

    def err(msg: str, field: str) -> CaseError:
        return CaseError(msg, case_id=case_id, field=field, file=file)

    turns, system = _turns(rec.get("prompt"), err)
    rubric = _rubric(rec.get("rubrics"), err, case_id, file)
    example_tags = _str_list(rec.get("example_tags"), "example_tags", case_id, "example_tags", file)
    meta: dict[str, Any] = {"source": SOURCE, "example_tags": example_tags}
    if system:
        meta["system"] = "\n\n".join(system)
    ideal = rec.get("ideal_completions_data")
    if isinstance(ideal, Mapping) and ideal.get("ideal_completions_group") is not None:
        meta["ideal_completions_group"] = ideal["ideal_completions_group"]
    if rec.get("canary"):
        meta["canary"] = rec["canary"]
    return {
        "id": case_id,
        "department": theme_of(example_tags),
        "intent": None,
        "stage": None,
        "turns": turns,
        "y_orig": _ideal_completion(ideal),
        "rubric": rubric,
        "meta": meta,
    }


def _turns(messages: Any, err: Callable[[str, str], CaseError]) -> tuple[list[dict[str, Any]], list[str]]:
    """The conversation's turns (patient/doctor) and its system messages, from ``prompt``."""
    if not isinstance(messages, list):
        raise err(f"prompt should be a list of messages, got {type(messages).__name__}", "prompt")
    turns: list[dict[str, Any]] = []
    system: list[str] = []
    for i, m in enumerate(messages):
        if not isinstance(m, Mapping):
            raise err(f"message {i} should be an object, got {type(m).__name__}", f"prompt.{i}")
        role, content = m.get("role"), m.get("content")
        if not isinstance(content, str):
            raise err(f"message content should be text, got {type(content).__name__}", f"prompt.{i}.content")
        if role == SYSTEM_ROLE:
            system.append(content)
        elif role in ROLE_MAP:
            if not content.strip():
                raise err("message content is empty", f"prompt.{i}.content")
            turns.append({"role": ROLE_MAP[role], "text": content})
        else:
            raise err(f"unknown role {role!r}; expected one of user, assistant, system", f"prompt.{i}.role")
    return turns, system


def _rubric(items: Any, err: Callable[[str, str], CaseError], case_id: str, file: str) -> list[dict[str, Any]]:
    """The criteria (``c1``, ``c2``…), from ``rubrics``: non-empty text, whole non-zero points, tags."""
    if not isinstance(items, list):
        raise err(f"rubrics should be a list of rubric items, got {type(items).__name__}", "rubrics")
    rubric: list[dict[str, Any]] = []
    for j, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise err(f"rubric item should be an object, got {type(item).__name__}", f"rubrics.{j}")
        text = item.get("criterion")
        if not isinstance(text, str) or not text.strip():
            raise err("criterion text is missing or empty", f"rubrics.{j}.criterion")
        points = _as_points(item.get("points"))
        if points is None:
            raise err(f"points {item.get('points')!r} is not a whole number", f"rubrics.{j}.points")
        if points == 0:
            raise err("0 points: a rubric item must reward or penalise (weights are non-zero)",
                      f"rubrics.{j}.points")
        tags = _str_list(item.get("tags"), "rubric item tags", case_id, f"rubrics.{j}.tags", file)
        rubric.append({"id": f"c{j + 1}", "text": text, "weight": points, "tags": tags})
    return rubric


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted(p for p in path.glob("*.jsonl") if p.is_file())
        if not files:
            raise FileNotFoundError(f"no *.jsonl files in HealthBench folder {path}")
        return files
    if not path.is_file():
        raise FileNotFoundError(f"HealthBench file not found: {path}")
    return [path]


def iter_healthbench_records(path: Path) -> Iterator[RawRecord]:
    """One :class:`RawRecord` per example; unreadable lines and unmappable examples carry their error."""
    for f in _files(path):
        for n, rec in enumerate(iter_jsonl_records(f), start=1):
            if rec.raw is None:
                yield rec
                continue
            try:
                yield RawRecord(healthbench_to_raw(rec.raw, file=rec.file, index=n), rec.file)
            except CaseError as e:
                yield RawRecord(None, rec.file, e)


def read_healthbench(path: Path | str, *, name: str = "healthbench",
                     options: LoadOptions | None = None) -> Dataset:
    """Read a HealthBench JSONL file (or every ``*.jsonl`` of a folder, in name order) as a Dataset.

    Loading options (``strict``, ``limit``, ``case_ids``…) behave as for every other format.
    """
    path = Path(path)
    files = _files(path)
    root = path if path.is_dir() else path.parent
    log.info("HealthBench at %s: %d file(s)", path, len(files))
    return build_dataset(iter_healthbench_records(path), name=name, root=root, source=str(path),
                         options=options or LoadOptions())


@register_format("healthbench")
def _load_healthbench(conf: Mapping[str, Any], options: LoadOptions) -> Dataset:
    path = required_path(conf, "healthbench")
    return read_healthbench(path, name=conf.get("name") or "healthbench", options=options)
