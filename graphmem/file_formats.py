"""The files of the command line: messages as JSON lines, chat histories, and the export file.

A chat history (`graphmem import-history`) comes in either of two formats, told apart by the
file's first character that is not whitespace. `{` starts JSON lines of messages, read as
`observe` reads them. Anything else is read as one JSON document: a list of OpenAI-style chat
sessions (as LongMemEval's haystacks are), each a list of `{"role": ..., "content": ...}`
messages or an object `{"session": ID, "at": ISO-TIME, "messages": [...]}` (only messages
required). A message becomes a turn with text = content, speaker = role, session = the
session's id (else its number in the file, from 1) and message id "SESSION:N" for its Nth
message, so importing a file again stores nothing new; its time is the session's `at` plus one
second a message. Sessions without `at` follow one another a minute apart, the last message at
the start given (`--at`, default now).

The export file (`graphmem export` and `import`) is JSON lines: a header naming the format, its
version and the owner, then the owner's graph as `OwnerGraph.records()` writes it.
"""

import json
from collections.abc import Iterable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from graphmem.contract import json_line
from graphmem.errors import InvalidInputError
from graphmem.model import check_identifier, check_session, check_speaker, check_text, keepable

MESSAGE_FIELDS = {"text", "message_id", "at", "speaker", "session"}
"""The keys of one observed message (a JSON object per line), as the Python API and MCP name
them; only text is required."""
SESSION_FIELDS = {"session", "at", "messages"}
"""The keys of one chat session given as an object; only messages is required."""
MESSAGE_GAP = timedelta(seconds=1)
"""The time between the messages of an imported chat session."""
SESSION_GAP = timedelta(minutes=1)
"""The time between imported chat sessions that come without their own time."""


def json_kind(value: object) -> str:
    """What a parsed JSON value is, in JSON's words ("a number", "a list", "null"...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def field_kind(fields: dict[str, Any], key: str) -> str:
    """What the value of a key of a JSON object is, or "missing"."""
    return json_kind(fields[key]) if key in fields else "missing"


def parse_moment(at: object) -> datetime:
    """An ISO 8601 time with a UTC offset that a store keeps, else ValueError naming the problem."""
    if not isinstance(at, str):
        raise ValueError(f"at must be an ISO 8601 string, not {json_kind(at)}")
    try:
        moment = datetime.fromisoformat(at)
    except ValueError:
        raise ValueError(f"at must be a time in ISO 8601, not {at[:40]!r}") from None
    if moment.utcoffset() is None:
        raise ValueError(f"at {at[:40]!r} has no timezone")
    return keepable(moment)


def read_message(line: str, number: int) -> dict[str, Any]:
    """One observed message of a JSON line as an `observe_many` item, or InvalidInputError."""
    message = json_line(line, number)
    if not isinstance(message, dict) or not isinstance(message.get("text"), str):
        raise InvalidInputError(f"line {number}: not an object with a text string")
    if "id" in message and "message_id" not in message:
        raise InvalidInputError(
            f"line {number}: the message id's key is message_id, not id: rename id to message_id"
        )
    unknown = sorted(set(message) - MESSAGE_FIELDS)
    if unknown:
        raise InvalidInputError(
            f"line {number}: unknown keys {unknown}; known: {sorted(MESSAGE_FIELDS)}"
        )
    message_id = message.get("message_id")
    try:
        return {
            "text": check_text(message["text"]),
            "message_id": None if message_id is None else checked_message_id(message_id),
            "at": None if message.get("at") is None else parse_moment(message["at"]),
            "speaker": check_speaker(message.get("speaker", "user")),
            "session": check_session(message.get("session", "")),
        }
    except (TypeError, ValueError) as error:
        raise InvalidInputError(f"line {number}: {error}") from None


def checked_message_id(value: object) -> str:
    """A message's `message_id` if it is a storable id, else ValueError naming that key."""
    try:
        return check_identifier(value)
    except ValueError as error:  # the model's check calls it "id"
        raise ValueError(f"message_id {str(error).removeprefix('id ')}") from None


def read_messages(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """The `observe_many` items of JSON lines of messages, blank lines skipped, as they are read."""
    for number, line in enumerate(lines, start=1):
        if line.strip():
            yield read_message(line, number)


def read_session(session: object, number: int) -> tuple[str, datetime | None, list[Any]]:
    """The id, time (None if not given) and messages of the `number`th chat session of a file."""
    if isinstance(session, list):
        return str(number), None, session
    if not isinstance(session, dict):
        raise InvalidInputError(
            f"session {number}: {json_kind(session)}, neither a list of messages"
            " nor an object with messages"
        )
    unknown = sorted(set(session) - SESSION_FIELDS)
    if unknown:
        raise InvalidInputError(
            f"session {number}: unknown keys {unknown}; known: {sorted(SESSION_FIELDS)}"
        )
    if not isinstance(session.get("messages"), list):
        kind = field_kind(session, "messages")
        raise InvalidInputError(f"session {number}: messages must be a list, not {kind}")
    try:
        key = str(number) if session.get("session") is None else check_session(session["session"])
        at = None if session.get("at") is None else parse_moment(session["at"])
    except ValueError as error:
        raise InvalidInputError(f"session {number}: {error}") from None
    return key, at, session["messages"]


def read_chat_message(message: object, where: str) -> tuple[str, str]:
    """The role and content of one OpenAI-style chat message, or InvalidInputError at `where`."""
    if not isinstance(message, dict):
        raise InvalidInputError(
            f"{where}: {json_kind(message)}, not an object with role and content"
        )
    if not isinstance(message.get("content"), str):
        kind = field_kind(message, "content")
        raise InvalidInputError(f"{where}: content must be a string, not {kind}")
    if not isinstance(message.get("role"), str):
        raise InvalidInputError(
            f"{where}: role must be a string, not {field_kind(message, 'role')}"
        )
    return message["role"], message["content"]


def read_sessions(sessions: list[Any], start: datetime) -> list[dict[str, Any]]:
    """The `observe_many` items of a JSON list of chat sessions, in order, all checked first.

    Sessions without their own time follow one another SESSION_GAP apart, the last of their
    messages at `start` (so none is in the future of `start`); a session's messages are
    MESSAGE_GAP apart. A bad session or message raises InvalidInputError
    naming it by its place in the file (session 2 message 3).
    """
    items = []
    numbers: dict[str, int] = {}
    """The place in the file of each session id seen, to refuse one id given twice."""
    read = [read_session(session, number) for number, session in enumerate(sessions, start=1)]
    untimed = [len(messages) for _key, at, messages in read if at is None and messages]
    span = sum(untimed) * MESSAGE_GAP + len(untimed) * SESSION_GAP - MESSAGE_GAP - SESSION_GAP
    untimed_start = start - span if untimed else start
    for number, (key, at, messages) in enumerate(read, start=1):
        if key in numbers:
            raise InvalidInputError(
                f"session {number}: id {key!r} is also session {numbers[key]}'s;"
                " each session needs its own (it makes the message ids)"
            )
        numbers[key] = number
        first = untimed_start if at is None else at
        for place, message in enumerate(messages, start=1):
            where = f"session {number} message {place}"
            role, content = read_chat_message(message, where)
            try:
                items.append(
                    {
                        "text": check_text(content),
                        "message_id": check_identifier(f"{key}:{place}"),
                        "at": first + (place - 1) * MESSAGE_GAP,
                        "speaker": check_speaker(role),
                        "session": key,
                    }
                )
            except ValueError as error:
                raise InvalidInputError(f"{where}: {error}") from None
        if at is None:
            untimed_start = first + len(messages) * MESSAGE_GAP + SESSION_GAP
    return items


def read_history(text: str, source: Path, start: datetime) -> tuple[Iterator[dict[str, Any]], int]:
    """The `observe_many` items of a chat history (see the module docstring), and how many.

    JSON lines of messages are checked as the items are taken, so a bad line stops the reader
    there; a list of sessions is checked whole first. `source` names the file in errors.
    """
    if text.lstrip().startswith("{"):
        lines = text.split("\n")
        return read_messages(lines), sum(1 for line in lines if line.strip())
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise InvalidInputError(
            f"{source}: not JSON: {error} (a file that starts with '{{' is read as JSON lines"
            " of messages, any other as one JSON list of chat sessions)"
        ) from None
    if not isinstance(document, list):
        raise InvalidInputError(
            f"{source} holds {json_kind(document)}: neither a JSON list of chat sessions"
            " nor JSON lines of messages (a JSON object a line)"
        )
    messages = read_sessions(document, start)
    if not messages:
        raise InvalidInputError(f"nothing to import: {source} holds no messages")
    return iter(messages), len(messages)
