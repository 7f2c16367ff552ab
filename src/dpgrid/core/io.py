"""Atomic, deterministic file output.

Every file the pipeline writes goes through :func:`atomic_path`: the content is written to a
temporary file in the destination folder and renamed over the destination only when complete,
so an interrupted or failing job never leaves a partial file that looks finished.

Tables are written with :func:`write_table` in a fixed float format so that the same
computation gives byte-identical files (the determinism tests compare SHA-256 digests).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

#: Float format used for every result table: 12 significant digits is far below any
#: reported tolerance yet hides last-bit noise from BLAS reduction order.
FLOAT_FORMAT = "%.12g"


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


def new_file_mode() -> int:
    """The mode an ordinary ``open(path, "w")`` gives a new file (0666 less the process's umask): every file the
    pipeline writes through a temporary (``tempfile.mkstemp`` creates 0600) gets it before it is renamed."""
    return 0o666 & ~_UMASK


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; rename it onto ``path`` on success.

    On any exception the temporary file is removed and ``path`` is left untouched.
    The temporary name keeps the destination's suffix so that writers which infer the
    format from the extension (matplotlib, pandas) still work.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    prefix, suffix = _temporary_affixes(path)
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=path.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        # mkstemp creates mode 0600; give the result the mode an ordinary open() would.
        os.chmod(tmp_path, new_file_mode())
        os.replace(tmp_path, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp_path.unlink()
        raise
    _remove_stale_temporaries(path)


def _temporary_affixes(path: Path) -> tuple[str, str]:
    """Prefix and suffix of the temporary files :func:`atomic_path` makes for ``path`` (mkstemp puts 8 random
    characters between them): hidden, and ending in the destination's own suffix."""
    return f".{path.stem}.", f".tmp{path.suffix}"


def _remove_stale_temporaries(path: Path) -> None:
    """Remove the temporary files an earlier, killed writer of ``path`` left (SIGKILL, a node lost: no cleanup
    could run), once ``path`` itself is complete. Only names :func:`atomic_path` makes for this very path match
    (:func:`_temporary_affixes` around mkstemp's 8 characters), not those of another output such as
    ``<stem>.x<suffix>``; one job at a time writes a given output (Snakemake's rule), so none of them is in use."""
    prefix, suffix = _temporary_affixes(path)
    own = re.compile(rf"{re.escape(prefix)}[a-z0-9_]{{8}}{re.escape(suffix)}")
    with os.scandir(path.parent) as entries:
        stale = [e.path for e in entries if own.fullmatch(e.name) and e.is_file(follow_symlinks=False)]
    for f in stale:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f)


def write_text(text: str, path: str | os.PathLike) -> None:
    """Write ``text`` atomically (UTF-8, ``\\n`` line endings)."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8", newline="\n")


def write_table(df: pd.DataFrame, path: str | os.PathLike, *, index: bool = False) -> None:
    """Write a result table as CSV atomically, with the project's fixed float format."""
    with atomic_path(path) as tmp:
        df.to_csv(tmp, index=index, float_format=FLOAT_FORMAT, lineterminator="\n")


#: Columns holding identifiers (free text): read verbatim, so a meter called ``NA``, ``nan``, ``None``,
#: ``NULL`` or ``#N/A`` keeps its name; only an empty field is missing. Every other column keeps pandas'
#: default missing-value texts.
ID_COLUMNS = ("meter_id",)


def _pandas_na_texts() -> set[str]:
    """The texts pandas reads as missing by default (its ``STR_NA_VALUES``; the list of pandas 2.x if moved)."""
    try:
        from pandas._libs.parsers import STR_NA_VALUES
    except ImportError:  # pragma: no cover - a pandas that moved the constant
        return {
            "",
            "#N/A",
            "#N/A N/A",
            "#NA",
            "-1.#IND",
            "-1.#QNAN",
            "-NaN",
            "-nan",
            "1.#IND",
            "1.#QNAN",
            "<NA>",
            "N/A",
            "NA",
            "NULL",
            "NaN",
            "None",
            "n/a",
            "nan",
            "null",
        }
    return set(STR_NA_VALUES)


def read_csv_keeping_ids(path: str | os.PathLike, **kwargs: Any) -> pd.DataFrame:
    """``pandas.read_csv`` of a CSV with a header line, except that the :data:`ID_COLUMNS` are read verbatim.

    pandas turns ``NA``, ``nan``, ``None``, ``N/A``, ``NULL``, ``null``, ``#N/A`` (and more) into NaN in every
    column by default; a meter id is a legal string whatever its text, so in the id columns only the empty
    field is missing (as :func:`dpgrid.data.csvfile.read_readings_csv` reads a user's file). Explicit
    ``keep_default_na``/``na_values`` arguments are passed through unchanged.
    """
    if "keep_default_na" in kwargs or "na_values" in kwargs:
        return pd.read_csv(path, **kwargs)
    import csv

    with open(path, encoding=kwargs.get("encoding", "utf-8"), newline="") as fh:
        header = next(csv.reader([fh.readline()]), [])
    if not any(c in ID_COLUMNS for c in header):
        return pd.read_csv(path, **kwargs)
    defaults = sorted(_pandas_na_texts())
    na_values = {c: ([""] if c in ID_COLUMNS else defaults) for c in header}
    return pd.read_csv(path, keep_default_na=False, na_values=na_values, **kwargs)


def read_table(path: str | os.PathLike, **kwargs: Any) -> pd.DataFrame:
    """Read a table written by :func:`write_table` (identifier columns verbatim: :func:`read_csv_keeping_ids`)."""
    return read_csv_keeping_ids(path, **kwargs)


def write_json(obj: Any, path: str | os.PathLike) -> None:
    """Write JSON atomically with sorted keys (deterministic bytes)."""
    write_text(json.dumps(obj, indent=2, sort_keys=True, default=_json_default) + "\n", path)


def read_json(path: str | os.PathLike) -> Any:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def _json_default(obj: Any) -> Any:
    import numpy as np

    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"object of type {type(obj).__name__} is not JSON serialisable")


def save_npz(path: str | os.PathLike, **arrays: Any) -> None:
    """Save numpy arrays atomically (uncompressed ``.npz``)."""
    import numpy as np

    with atomic_path(path) as tmp:
        with open(tmp, "wb") as fh:
            np.savez(fh, **arrays)


def damaged_npz(paths) -> dict[str, str]:
    """The ``.npz`` files among ``paths`` that are not complete archives, each with the reason.

    A job whose input is a truncated or corrupted intermediate (a disk that filled up, a copy that was cut
    short) fails deep in numpy with ``BadZipFile`` or ``EOFError`` and no file name; :func:`dpgrid.core.pipeline.run_script`
    calls this on a failure to name the file. Each archive is opened and every member's CRC is checked.
    """
    import zipfile

    out = {}
    for p in map(str, paths):
        if not p.endswith(".npz") or not os.path.isfile(p):
            continue
        try:
            with zipfile.ZipFile(p) as z:
                bad = z.testzip()
            if bad is not None:
                out[p] = f"member {bad} fails its CRC check"
        except (zipfile.BadZipFile, EOFError, OSError, ValueError) as exc:
            out[p] = f"{type(exc).__name__}: {exc}"
    return out


def damaged_input_message(paths) -> str:
    """One line per damaged ``.npz`` of ``paths`` (:func:`damaged_npz`) with how to remake it; '' if none."""
    return "".join(
        f"\ninput {p} is damaged ({why}, {os.path.getsize(p)} bytes): it is an intermediate result; remake it "
        f"with `snakemake --cores 1 --force {p}` (reruns the job that makes it), then run again"
        for p, why in damaged_npz(paths).items()
    )
