"""What the command line prints of a result: observations, a recall, counts, a health report."""

import json
import sys
from datetime import datetime
from typing import TextIO

from graphmem.contract import (
    NOTHING_RELEVANT,
    EvokedImpression,
    GraphCounts,
    Health,
    Observation,
    Recall,
    RecalledMemory,
)
from graphmem.model import LinkType

BELIEF_BAR = 50
"""The length of the longest bar of the belief histogram (`stats`); the others are in proportion."""
SHOWN_CHARS = 40
"""How much of a memory's text `recall` shows where it names one memory from another's lines."""


def counted(count: int, thing: str, things: str | None = None) -> str:
    """A count with its noun, singular for one ("1 turn", "2 turns")."""
    return f"{count} {thing if count == 1 else things or thing + 's'}"


def unknown_owner_message(owner: str) -> str:
    """What the command line says of an owner that has nothing stored (a typo, most likely)."""
    return f"unknown owner {owner!r}: nothing is stored for it; `graphmem owners` lists the owners"


def say_unknown_owner(owner: str, out: TextIO) -> None:
    """Say on stderr, after what `out` shows, that the owner has nothing stored."""
    out.flush()
    print(f"graphmem: {unknown_owner_message(owner)}", file=sys.stderr)


def print_observations(observations: list[Observation], as_json: bool, out: TextIO) -> None:
    """Print what was observed: a JSON object a turn, or its id and attention or state."""
    for observed in observations:
        if as_json:
            print(json.dumps(observed.as_json(), ensure_ascii=False), file=out)
            continue
        labels = ", ".join(f"attention {m.importance:.1f}" for m in observed.memories)
        state = "pending" if observed.pending else labels or "already stored"
        if observed.forgotten:
            state = "forgotten earlier, not stored (--readmit-forgotten stores it)"
        print(f"{observed.turn.id}: {state}", file=out)
        for conjecture in observed.conjectures:
            belief = conjecture.belief or 0.0
            print(f"  conjecture (belief {belief:.2f}): {conjecture.text}", file=out)
    out.flush()


def recall_status(recall: Recall) -> list[str]:
    """How a recall went: its searches and memories found, what it skipped, the tokens it took."""
    searches = " -> ".join(
        f"motivation {attempt.motivation:.1f} (tiers 0-{attempt.depth})"
        for attempt in recall.attempts
    )
    lines = [f"searched {searches}; {counted(len(recall.memories), 'memory', 'memories')}"]
    if recall.cut_short:
        lines.append(f"out of time: skipped {', '.join(recall.cut_short)}")
    if recall.max_tokens is not None:
        lines.append(f"rendered in {recall.tokens} tokens of {recall.max_tokens}")
    return lines


def print_rendered(recall: Recall, out: TextIO) -> None:
    """Print the recall's text for a prompt (`rendered`) alone; how it went on stderr, after."""
    print(recall.rendered, file=out)
    out.flush()
    for line in recall_status(recall):
        print(line, file=sys.stderr)


def print_recall(recall: Recall, out: TextIO) -> None:
    """Print how it went, each memory (numbered) with its score, provenance, reasons, the links.

    A recall that found nothing relevant says so (NOTHING_RELEVANT) in place of its memories.
    """
    for line in recall_status(recall):
        print(line, file=out)
    if recall.nothing_relevant:
        print(NOTHING_RELEVANT, file=out)
    number = {item.memory.id: index for index, item in enumerate(recall.memories, start=1)}
    for item in recall.memories:
        reasons = item.components
        label = f"[{number[item.memory.id]}]"
        print(f"{label:<5}{item.score:6.3f}  {item.memory.text}", file=out)
        print(f"             {provenance_text(item)}", file=out)
        print(
            f"             relevance {reasons.relevance:.3f}, lexical {reasons.lexical:.2f},"
            f" time match {reasons.time_match:.2f}, speaker match {reasons.speaker_match:.2f},"
            f" asker match {reasons.asker_match:.2f}, statement {reasons.statement:.0f},"
            f" importance {reasons.importance:.1f},"
            f" attention {reasons.attention:.1f}, recency {reasons.recency:.2f},"
            f" association {reasons.association:.3f}",
            file=out,
        )
        if item.via is not None:
            print(f"             via {association_text(item, recall, number)}", file=out)
        for impression in recall.impressions:
            if impression.id == item.evoked_by:
                print(f"             {evocation_text(impression)}", file=out)
    for link in recall.links:
        print(f"link: [{number[link.source]}] -{link.type}-> [{number[link.target]}]", file=out)


def moment_text(moment: datetime) -> str:
    """A stored time (UTC) as `recall` shows it: 2026-03-09 20:00:00 UTC."""
    return f"{moment:%Y-%m-%d %H:%M:%S} UTC"


def provenance_text(item: RecalledMemory) -> str:
    """When a recalled memory was said, by whom and in which messages (ids), from its turns."""
    turns = sorted(item.turns, key=lambda turn: turn.created_at)
    if not turns:
        return f"{moment_text(item.memory.created_at)}, {item.memory.kind} (no message of its own)"
    if len(turns) == 1:
        [turn] = turns
        return f"{moment_text(turn.created_at)}, {turn.speaker}, message {turn.id}"
    speakers = " and ".join(dict.fromkeys(turn.speaker for turn in turns))
    ids = [turn.id for turn in turns]
    named = ", ".join(ids) if len(ids) <= 3 else f"{ids[0]}, {ids[1]} … {ids[-1]}"
    return (
        f"{moment_text(turns[0].created_at)} to {moment_text(turns[-1].created_at)},"
        f" {speakers}, {len(ids)} messages {named}"
    )


def shortened(text: str) -> str:
    """A text cut to SHOWN_CHARS at most, at a space if it has one there, with "…" if cut."""
    if len(text) <= SHOWN_CHARS:
        return text
    cut = text[: SHOWN_CHARS - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut) + "…"


def association_text(item: RecalledMemory, recall: Recall, number: dict[str, int]) -> str:
    """What a recalled memory gained association through, and how the two are related.

    The other memory is named by its number and the start of its text when it is among those
    recalled; the relation is the turn before or after, the same session, or the edges.
    """
    if item.via not in number:
        return "a memory not among these (a larger -k may show it)"
    [other] = [candidate for candidate in recall.memories if candidate.memory.id == item.via]
    named = f"[{number[item.via]}] {json.dumps(shortened(other.memory.text), ensure_ascii=False)}"
    relations = [named]
    if item.turns and other.turns and item.turns[0].session == other.turns[0].session:
        own, theirs = item.turns[0].position, other.turns[0].position
        if own is not None and theirs is not None and abs(own - theirs) == 1:
            relations.append(f"the turn {'before' if theirs < own else 'after'}")
        else:
            relations.append("in the same session")
    edges = [
        link.type.value
        for link in recall.links
        if {link.source, link.target} == {item.memory.id, other.memory.id}
    ]
    if edges:
        relations.append(f"linked by {' and '.join(edges)}")
    return ", ".join(relations)


def evocation_text(impression: EvokedImpression) -> str:
    """The impression a recalled memory was evoked through, with both beliefs in it."""
    return (
        f"evoked by the impression {json.dumps(impression.text, ensure_ascii=False)}"
        f" (the owner's belief {impression.belief:.2f}, the query's {impression.implied:.2f})"
    )


def print_counts(counts: GraphCounts, out: TextIO) -> None:
    """Print nodes per label, edges per type, memories per tier and belief."""
    print("nodes:", ", ".join(f"{k} {v}" for k, v in sorted(counts.nodes.items())), file=out)
    links = ", ".join(f"{k} {v}" for k, v in sorted(counts.links.items()))
    print("edges:", links or "none", file=out)
    print("memories per tier:", ", ".join(f"{k}: {v}" for k, v in counts.tiers.items()), file=out)
    print("memories per belief:", file=out)
    most = max(counts.beliefs.values(), default=0)
    for name, count in sorted(counts.beliefs.items()):
        print(f"  {name:>5}  {count:6d}  {belief_bar(count, most)}", file=out)


def belief_bar(count: int, most: int) -> str:
    """A bar of the belief histogram: BELIEF_BAR long for `most`, in proportion for the others."""
    if count == 0:
        return ""
    return "#" * max(1, round(BELIEF_BAR * count / most))


def print_health(health: Health, out: TextIO) -> None:
    """Print a health report, one row per check, each named as its Browser query is."""
    checks, counts = health.checks, health.counts
    kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(checks.kinds.items()))
    tiers = ", ".join(f"T{tier} {count}" for tier, count in counts.tiers.items())
    conjectures = counted(checks.kinds.get("conjecture", 0), "conjecture")
    if health.oldest_conjecture_days is not None and health.newest_conjecture_days is not None:
        conjectures += (
            f", made {health.oldest_conjecture_days:.1f} to"
            f" {health.newest_conjecture_days:.1f} days ago"
        )
    rows = {
        "nodes": ", ".join(f"{label} {count}" for label, count in sorted(counts.nodes.items())),
        "memories": f"{kinds or 'none'}; per tier {tiers}",
        "pending work": (
            f"{counted(checks.pending_turns, 'turn')} pending, {checks.awaiting_summary} awaiting"
            f" a summary, {counted(checks.awaiting_consolidation, 'fact')} awaiting consolidation"
        ),
        "duplicates merged": str(counts.links.get(LinkType.MERGED_INTO.value, 0)),
        "open contradictions": str(checks.open_contradictions),
        "superseded": f"{counted(checks.superseded, 'fact')} a newer one updated",
        "conjectures": conjectures,
        "never used": f"{counted(checks.never_used, 'memory', 'memories')} that no recall returned",
        "isolated": f"{counted(checks.isolated, 'node')} without any edge",
    }
    print(
        f"health of {health.owner} at {health.at.isoformat()}: embeddings {health.embedder},"
        f" cognition {health.cognition}",
        file=out,
    )
    for name, row in rows.items():
        print(f"  {name:<20} {row}", file=out)
