"""Chat exports read as they stream: ChatGPT's and Claude's `conversations.json`.

Both exports are one JSON list of conversations, which can be a gigabyte: `json_list_items`
reads it a conversation at a time, so memory holds one conversation, never the file. Each
conversation becomes one session of turns (the session is the conversation's id), each turn a
message with its own time and a message id made of the conversation's id and the message's
(`CONVERSATION:MESSAGE`), so importing an export again stores nothing new and a message
forgotten since stays forgotten.

ChatGPT keeps a conversation as a tree of messages (each regenerated answer or edited question
starts a branch): the turns are the branch that ends at the conversation's `current_node`, the
one the user last saw, root first. Only user and assistant messages with text become turns;
system and tool messages, messages hidden from the conversation (custom instructions), and
content with no text (images, code runs, browsing, reasoning) are left out and counted by kind.
Claude's export lists each conversation's `chat_messages` in order, `human` and `assistant`.
"""

import json
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TextIO

from graphmem.errors import InvalidInputError
from graphmem.file_formats import json_kind, parse_moment
from graphmem.model import check_identifier, check_session, check_text

CHUNK = 1 << 20
"""Characters read from the file at a time (more while one conversation is longer)."""
WHITESPACE = " \t\n\r"
SPEAKERS = {"user": "user", "assistant": "assistant", "human": "user"}
"""The roles that become turns, and the speaker each is stored as."""


@dataclass
class ExportTally:
    """What an export held: its conversations, messages kept, and those left out by kind."""

    conversations: int = 0
    messages: int = 0
    skipped: Counter[str] = field(default_factory=Counter)

    def summary(self) -> str:
        """One line: the conversations read, the messages kept, what was left out."""
        left = ", ".join(f"{kind} {count}" for kind, count in sorted(self.skipped.items()))
        read = f"conversations read {self.conversations}, messages kept {self.messages}"
        return read + (f"; left out: {left}" if left else "")


def json_list_items(stream: TextIO, source: str) -> Iterator[Any]:
    """Each item of the JSON list a text stream holds, parsed one at a time as it is read."""
    decoder = json.JSONDecoder()
    buffer, start, number = "", 0, 0
    ended = False

    def more(wanted: int) -> bool:
        """Read at least `wanted` more characters into the buffer, if the stream has them."""
        nonlocal buffer, start, ended
        try:
            read = stream.read(max(wanted, CHUNK))
        except UnicodeDecodeError as error:
            raise InvalidInputError(f"{source}: not UTF-8 text: {error}") from None
        buffer, start, ended = buffer[start:] + read, 0, not read
        return bool(read)

    def next_character() -> str:
        """The next character that is not whitespace (not consumed); '' at the stream's end."""
        nonlocal start
        while True:
            while start < len(buffer) and buffer[start] in WHITESPACE:
                start += 1
            if start < len(buffer) or not more(CHUNK):
                return buffer[start] if start < len(buffer) else ""

    if next_character() != "[":
        raise InvalidInputError(f"{source}: not a JSON list of conversations")
    start += 1
    while True:
        character = next_character()
        if character == "]":
            return
        if number and character != ",":
            raise InvalidInputError(f"{source}: conversation {number}: no ',' or ']' after it")
        if number:
            start += 1
            character = next_character()
        number += 1
        if character not in ("{", "["):
            found = "nothing" if not character else repr(character)
            raise InvalidInputError(f"{source}: conversation {number} starts with {found}")
        while True:
            try:
                item, start = decoder.raw_decode(buffer, start)
                break
            except json.JSONDecodeError as error:
                if ended or not more(len(buffer)):  # twice the text at each retry
                    raise InvalidInputError(
                        f"{source}: conversation {number}: not JSON: {error.msg}"
                    ) from None
            except RecursionError:
                raise InvalidInputError(
                    f"{source}: conversation {number}: nested too deep"
                ) from None
        yield item


def _moment(seconds: object) -> datetime | None:
    """A time given as Unix seconds (ChatGPT's), or None; ValueError if it is no time."""
    if isinstance(seconds, int | float) and not isinstance(seconds, bool):
        try:
            return datetime.fromtimestamp(seconds, UTC)
        except (OverflowError, OSError, ValueError):
            raise ValueError(f"create_time {seconds!r} is not a time") from None
    return None


def _object(value: object, what: str) -> dict[str, Any]:
    """A JSON object, or InvalidInputError naming `what` and what it is instead."""
    if not isinstance(value, dict):
        raise InvalidInputError(f"{what} is {json_kind(value)}, not an object")
    return value


def _turn(key: str, message_id: object, text: str, at: datetime, role: str) -> dict[str, Any]:
    """An `observe_many` item of one message of a conversation."""
    return {
        "text": check_text(text),
        "message_id": check_identifier(f"{key}:{message_id}"),
        "at": at,
        "speaker": SPEAKERS[role],
        "session": key,
    }


def chatgpt_turns(conversation: object, number: int, tally: ExportTally) -> list[dict[str, Any]]:
    """The turns of one ChatGPT conversation: its current branch, root first (see the module)."""
    what = f"conversation {number}"
    found = _object(conversation, what)
    try:
        key = check_session(found.get("conversation_id") or found.get("id"))
        what = f"conversation {number} ({key})"
        mapping = _object(found.get("mapping"), f"{what}: mapping")
        branch, node_id, seen = [], found.get("current_node"), set()
        while node_id is not None:
            if node_id in seen or node_id not in mapping:
                raise InvalidInputError(f"{what}: node {str(node_id)[:60]!r} is not in its tree")
            seen.add(node_id)
            node = _object(mapping[node_id], f"{what}: node {str(node_id)[:60]!r}")
            branch.append(node)
            node_id = node.get("parent")
        at = _moment(found.get("create_time")) or datetime.now(UTC)
        turns = []
        for node in reversed(branch):
            if node.get("message") is None:
                continue  # the tree's root
            message = _object(node["message"], f"{what}: a message")
            at = _moment(message.get("create_time")) or at
            role = str(_object(message.get("author"), f"{what}: an author").get("role"))
            content = _object(message.get("content") or {}, f"{what}: a content")
            kind = str(content.get("content_type"))
            text = "\n".join(part for part in content.get("parts") or [] if isinstance(part, str))
            if role not in SPEAKERS:
                tally.skipped[f"{role} messages"] += 1
            elif (message.get("metadata") or {}).get("is_visually_hidden_from_conversation"):
                tally.skipped["hidden messages"] += 1
            elif kind not in ("text", "multimodal_text"):
                tally.skipped[f"{kind} content"] += 1
            elif not text.strip():
                tally.skipped["messages without text"] += 1
            else:
                turns.append(_turn(key, message.get("id") or node.get("id"), text, at, role))
    except InvalidInputError:
        raise
    except ValueError as error:  # the model's checks of a text, an id, a time
        raise InvalidInputError(f"{what}: {error}") from None
    return turns


def claude_turns(conversation: object, number: int, tally: ExportTally) -> list[dict[str, Any]]:
    """The turns of one Claude conversation: its human and assistant messages, in order."""
    what = f"conversation {number}"
    found = _object(conversation, what)
    try:
        key = check_session(found.get("uuid"))
        what = f"conversation {number} ({key})"
        messages = found.get("chat_messages")
        if not isinstance(messages, list):
            raise InvalidInputError(f"{what}: chat_messages is {json_kind(messages)}, not a list")
        turns = []
        for place, given in enumerate(messages, start=1):
            message = _object(given, f"{what} message {place}")
            sender = str(message.get("sender"))
            parts = [
                part.get("text", "")
                for part in message.get("content") or []
                if isinstance(part, dict) and part.get("type") == "text"
            ]
            text = message.get("text") or "\n".join(parts)
            if sender not in SPEAKERS:
                tally.skipped[f"{sender} messages"] += 1
            elif not isinstance(text, str) or not text.strip():
                tally.skipped["messages without text"] += 1
            else:
                at = parse_moment(message.get("created_at"))
                turns.append(_turn(key, message.get("uuid") or place, text, at, sender))
    except InvalidInputError:
        raise
    except ValueError as error:  # the model's checks of a text, an id, a time
        raise InvalidInputError(f"{what}: {error}") from None
    return turns


READERS: dict[str, Callable[[object, int, ExportTally], list[dict[str, Any]]]] = {
    "chatgpt": chatgpt_turns,
    "claude": claude_turns,
}
"""Each export format `graphmem import-history --format` reads, and how a conversation reads."""


def export_turns(
    stream: TextIO, source: str, format_name: str, tally: ExportTally
) -> Iterator[dict[str, Any]]:
    """The `observe_many` items of an export, a conversation at a time, counted in `tally`."""
    read = READERS[format_name]
    for number, conversation in enumerate(json_list_items(stream, source), start=1):
        turns = read(conversation, number, tally)
        tally.conversations += 1
        tally.messages += len(turns)
        yield from turns
