"""syncCards' request, apart from parsing/requests.py as token_requests.py is: each field checked
once, InvalidArgument naming it (`files[3].path: ...`), before anything is read or written.

{"source": "my-vault", "files": [{"path", "sha256", "markdown"?}], "delete_missing": false, "run"?: "<id>",
 "dry_run"?: false}

`run` (optional) names one sync run of the client over the folder: every request of the run
carries it, and the last one's delete_missing deletes the cards of the files no request of the run
listed (without `run`: those this request does not list), so a folder of any size can delete.
`dry_run` (optional): the same answer, nothing written; it names no run (a run's requests write
what they listed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from cardchat.errors import InvalidArgument
from cardchat.parsing.requests import _utf8_bytes

MAX_FILES = 500
#: A request's body at most: the client splits a larger folder's texts over several requests.
MAX_REQUEST_BYTES = 10 * 1024 * 1024
MAX_PATH_CHARS = 512
_SOURCE = re.compile(r"[A-Za-z0-9._-]{1,64}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_RUN = re.compile(r"[A-Za-z0-9_-]{8,64}")


@dataclass(frozen=True)
class SyncFile:
    path: str
    sha256: str
    #: None: not sent (the server answers `need` when it has not got this version).
    markdown: str | None = None


@dataclass(frozen=True)
class SyncRequest:
    source: str
    files: list[SyncFile]
    delete_missing: bool = False
    #: The client's sync run this request is part of (None: the request stands alone).
    run: str | None = None
    #: Answer what the request would change, writing nothing.
    dry_run: bool = False


def sync_request(data: Any) -> SyncRequest:
    if not isinstance(data, dict):
        raise InvalidArgument('body: a JSON object {"source", "files", "delete_missing"} is required')
    source = data.get("source")
    if not isinstance(source, str) or not _SOURCE.fullmatch(source):
        raise InvalidArgument("source: 1-64 characters of A-Z, a-z, 0-9, '.', '_' or '-'")
    files = data.get("files")
    if not isinstance(files, list):
        raise InvalidArgument("files: a list of {path, sha256, markdown?} is required")
    if len(files) > MAX_FILES:
        raise InvalidArgument(f"files: at most {MAX_FILES} files per request (send the rest in another)")
    delete_missing = data.get("delete_missing", False)
    if not isinstance(delete_missing, bool):
        raise InvalidArgument("delete_missing: true or false")
    run = data.get("run")
    if run is not None and (not isinstance(run, str) or not _RUN.fullmatch(run)):
        raise InvalidArgument("run: 8-64 characters of A-Z, a-z, 0-9, '_' or '-', the same in every request of one run")
    dry_run = data.get("dry_run", False)
    if not isinstance(dry_run, bool):
        raise InvalidArgument("dry_run: true or false")
    if dry_run and run is not None:
        raise InvalidArgument("dry_run: a dry run names no run (a run's requests record what they listed)")
    parsed = [_file(f, i) for i, f in enumerate(files)]
    seen: set[str] = set()
    for i, f in enumerate(parsed):
        if f.path in seen:
            raise InvalidArgument(f"files[{i}].path: repeats an earlier file's path")
        seen.add(f.path)
    return SyncRequest(source, parsed, delete_missing, run, dry_run)


def _file(raw: Any, i: int) -> SyncFile:
    where = f"files[{i}]"
    if not isinstance(raw, dict):
        raise InvalidArgument(f"{where}: an object {{path, sha256, markdown?}} is required")
    path = raw.get("path")
    if not isinstance(path, str) or not path or len(path) > MAX_PATH_CHARS or _utf8_bytes(path) is None:
        raise InvalidArgument(f"{where}.path: 1-{MAX_PATH_CHARS} characters of text")
    segments = path.split("/")
    if path.startswith("/") or any(s in ("", ".", "..") for s in segments) or "\\" in path or "\n" in path:
        raise InvalidArgument(f"{where}.path: a relative path with '/' between names, no '..' or empty segment")
    sha256 = raw.get("sha256")
    if not isinstance(sha256, str) or not _SHA256.fullmatch(sha256):
        raise InvalidArgument(f"{where}.sha256: the hex SHA-256 of the file's bytes (64 lowercase hex digits)")
    markdown = raw.get("markdown")
    if markdown is not None and (not isinstance(markdown, str) or _utf8_bytes(markdown) is None):
        raise InvalidArgument(f"{where}.markdown: the file's text")
    return SyncFile(path, sha256, markdown)
