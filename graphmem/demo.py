"""`graphmem demo`: seven months with one user in simulated time, each mechanism shown at work.

The conversation is scripted and goes through the offline cognition and the e5 embedder, so the
demo needs no network and prints the same figures on every run and on both stores. Each step
prints what was stored (attention label and tier), what was recalled and why (the score's
components), and how attention, tiers, events and beliefs moved; the figures are read back from
the graph (`GraphMem.export`), not assumed. A plot of attention over the simulated time ends it
(matplotlib, the extra graphmem[demo]).
"""

import bisect
import textwrap
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, TypeVar

from graphmem.cognition.base import AttentionQuestion
from graphmem.cognition.offline import INHERITED_SHARE, OfflineCognition
from graphmem.config import Settings
from graphmem.errors import ConfigurationError, InvalidInputError
from graphmem.mechanisms.attention import AttentionPolicy, current_attention, decay
from graphmem.mechanisms.beliefs import BeliefPolicy
from graphmem.mechanisms.impressions import decayed_belief
from graphmem.mechanisms.tiers import TierPolicy, tier_for
from graphmem.memory import GraphMem, Recall, SleepReport
from graphmem.model import Attention, Event, Impression, Link, LinkType, Memory, Node, Tier
from graphmem.store.base import OwnerGraph
from graphmem.terms import terms

if TYPE_CHECKING:
    from matplotlib.axes import Axes

DEMO_OWNER = "demo-user"
START = datetime(2026, 3, 2, tzinfo=UTC)
"""Midnight before the first message, a Monday."""
END = START + timedelta(days=215)
"""Where the plot ends: a day after the last sleep job."""

RECALL_BUDGET_SECONDS = 600.0
"""Time each of the demo's recalls may take: enough never to skip a step, so that the figures
do not depend on how busy the machine is."""

ATTENTION = AttentionPolicy()
TIERS = TierPolicy()
BELIEFS = BeliefPolicy()
"""The policies of GraphMem.open, which the demo's own arithmetic and notes follow."""

WIDTH = 100
"""Columns of the terminal the output fits."""
INDENT = " " * 6
"""Where the lines under a timed line start."""
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
SLEEP_COUNTS = (
    "derived",
    "summaries",
    "events started",
    "events continued",
    "facts",
    "SUPPORTS",
    "CONTRADICTS",
    "MERGED_INTO",
    "retiered",
)
"""The counts of a sleep job's report, in the order of its steps."""

NodeType = TypeVar("NodeType", bound=Node)

Cause = Callable[[Memory, Memory], str]
"""What changed a memory's attention, judged from the memory before and after."""
LABELLED = ("recalled", "woken", "sleep job", "contradicted in sleep")
"""The causes of change that the plot names."""


def moment(day: int, clock: str) -> datetime:
    """The simulated time `day` days after START, at `clock` (HH:MM)."""
    hours, minutes = clock.split(":")
    return START + timedelta(days=day, hours=int(hours), minutes=int(minutes))


def stamp(at: datetime) -> str:
    """A simulated time as the demo prints it: weekday, month-day, hour."""
    return f"{WEEKDAYS[at.weekday()]} {at:%m-%d %H:%M}"


def clip(text: str, width: int) -> str:
    """The text cut to `width` characters, an ellipsis marking the cut."""
    return text if len(text) <= width else text[: width - 1].rstrip(" ,.:;") + "…"


def quoted(text: str) -> str:
    """A text in double quotes."""
    return f'"{text}"'


def short(text: str) -> str:
    """A memory's text shortened and quoted, to name it inside a line."""
    return quoted(clip(text, 34))


def attention_at(node: Memory | Event, at: datetime) -> float:
    """A node's current attention at `at`: both stored parts decayed to then."""
    return current_attention(node.attention, at, ATTENTION)


def slept(old: Memory, new: Memory) -> str:
    """What a sleep job did to a memory's attention."""
    return "contradicted in sleep" if (new.belief or 0) < (old.belief or 0) else "sleep job"


def counts(report: SleepReport) -> str:
    """A sleep job's counts as one line, in the order of its steps."""
    done = sorted(
        (name for name, count in report.counts.items() if count),
        key=lambda name: SLEEP_COUNTS.index(name) if name in SLEEP_COUNTS else len(SLEEP_COUNTS),
    )
    return ", ".join(f"{name} {report.counts[name]}" for name in done)


class View:
    """One export of the owner's graph, indexed by id."""

    def __init__(self, graph: OwnerGraph) -> None:
        self.nodes = {node.id: node for node in graph.nodes}
        self.links = [link for _source, _target, link in graph.links]

    def get(self, kind: type[NodeType], node_id: str) -> NodeType:
        """The node of this type and id."""
        node = self.nodes[node_id]
        assert isinstance(node, kind)
        return node

    def all(self, kind: type[NodeType]) -> list[NodeType]:
        """The nodes of one type, oldest first (ids differ by owner, so they order nothing)."""
        found = [node for node in self.nodes.values() if isinstance(node, kind)]
        return sorted(found, key=lambda node: (node.created_at, node.text))

    def edges(self, kind: LinkType) -> list[Link]:
        """The edges of one type, by the time their source was made (not by id)."""
        found = [link for link in self.links if link.type is kind]
        return sorted(found, key=lambda link: (self.nodes[link.source].created_at, link.target))


@dataclass(frozen=True)
class Change:
    """A tracked memory's stored attention from a moment on, and what set it."""

    at: datetime
    attention: Attention
    cause: str


@dataclass
class Trace:
    """A memory's stored attention each time it changed, for the plot."""

    name: str
    changes: list[Change] = field(default_factory=list)
    zoom: tuple[datetime, datetime] | None = None
    """A stretch of time the plot shows enlarged as well."""

    def record(self, change: Change) -> None:
        """Keep the change if the attention changed."""
        if not self.changes or self.changes[-1].attention != change.attention:
            self.changes.append(change)


@dataclass(frozen=True)
class Said:
    """What observing one message did: its memory, impressions moved, conjectures made."""

    at: datetime
    memory: Memory
    impressions: dict[str, tuple[float, float]]
    """The belief of each impression the message moved, before and after, by statement."""
    conjectures: list[Memory]


@dataclass(frozen=True)
class Recalled:
    """A recall at a time, whether it only peeked, and the graph before it."""

    at: datetime
    result: Recall
    peek: bool
    before: View


class Demo:
    """The scripted conversation with one owner; every verb reads the graph again afterwards."""

    def __init__(self, memory: GraphMem, owner: str, out: TextIO) -> None:
        self.memory = memory
        self.owner = owner
        self.out = out
        self.view = View(memory.export(owner))
        self.traces: dict[str, Trace] = {}
        self._messages = 0

    def line(self, text: str = "") -> None:
        """Print one line of output."""
        print(text.rstrip(), file=self.out)

    def wrapped(self, text: str) -> None:
        """Print a text wrapped to the terminal's width, its later lines indented."""
        for line in textwrap.wrap(text, WIDTH, subsequent_indent=INDENT):
            self.line(line)

    def note(self, text: str) -> None:
        """Print an indented note, wrapped to the terminal's width."""
        self.wrapped(INDENT + text)

    def step(self, number: int, title: str) -> None:
        """Print a step's title."""
        self.line()
        self.line(f"{number}. {title}")

    def track(self, memory: Memory) -> None:
        """Follow a memory's attention for the plot, from its creation."""
        self.traces[memory.id] = Trace(memory.text)
        self.traces[memory.id].record(Change(memory.created_at, memory.attention, "stored"))

    def reread(self, at: datetime, cause: Cause) -> View:
        """Export the graph again and record the tracked attention; return the view before."""
        before = self.view
        self.view = View(self.memory.export(self.owner))
        for memory_id, trace in self.traces.items():
            new = self.view.get(Memory, memory_id)
            trace.record(Change(at, new.attention, cause(before.get(Memory, memory_id), new)))
        return before

    def said(self, day: int, clock: str, text: str) -> Said:
        """Observe one message of the user (one session a day)."""
        at = moment(day, clock)
        self._messages += 1
        observed = self.memory.observe(
            self.owner,
            text,
            message_id=f"demo-{self._messages:02d}",
            at=at,
            session=f"{at:%Y-%m-%d}",
        )
        [stored] = observed.memories
        before = self.reread(at, lambda _old, _new: "observed")
        moved = {}
        for impression in self.view.all(Impression):
            if impression.belief_at == at:
                old = before.nodes.get(impression.id)
                belief = decayed_belief(old, at) if isinstance(old, Impression) else 0.0
                moved[impression.text] = (belief, impression.belief)
        return Said(at, stored, moved, observed.conjectures)

    def recall(
        self,
        day: int,
        clock: str,
        query: str,
        *,
        k: int,
        motivation: float | None = None,
        peek: bool = False,
    ) -> Recalled:
        """Recall for a query, waking what it uses unless `peek`."""
        at = moment(day, clock)
        result = self.memory.recall(
            self.owner,
            query,
            k=k,
            motivation=motivation,
            peek=peek,
            at=at,
            budget_seconds=RECALL_BUDGET_SECONDS,
        )
        used = {item.id for item in result.woken if item.used}
        before = self.reread(at, lambda old, _new: "recalled" if old.id in used else "woken")
        return Recalled(at, result, peek, before)

    def sleep(self, day: int, clock: str) -> tuple[datetime, View]:
        """Run the sleep job and print its report; return its time and the view before it."""
        at = moment(day, clock)
        report = self.memory.consolidate(self.owner, at=at)
        self.wrapped(f"   {stamp(at)}  sleep job: {counts(report)}")
        return at, self.reread(at, slept)

    def show_said(self, said: Said) -> None:
        """Print a stored message with its label and tier, and the impressions it moved."""
        label = f"   {stamp(said.at)}  att {said.memory.importance:4.1f} T{said.memory.tier}  "
        self.line(label + clip(said.memory.text, WIDTH - len(label)))
        made = {conjecture.text: conjecture for conjecture in said.conjectures}
        for statement, (before, after) in said.impressions.items():
            outcome = ": a conjecture, returned by observe" if statement in made else ""
            self.line(
                f"{INDENT}impression {quoted(statement)}: belief {before:.2f} → {after:.2f}"
                + outcome
            )

    def show_recall(self, recalled: Recalled) -> None:
        """Print a recall's searches and its memories with their score components."""
        result = recalled.result
        motivations = " → ".join(f"{attempt.motivation:.1f}" for attempt in result.attempts)
        depths = " → ".join(f"0-{attempt.depth}" for attempt in result.attempts)
        verb = "peek" if recalled.peek else "recall"
        self.line(f"   {stamp(recalled.at)}  {verb} {quoted(result.query)}")
        self.line(f"{INDENT}motivation {motivations}: searched tiers {depths}")
        self.line(f"{INDENT}score   rel   lex  imp   att →  now  rec assoc  tier memory")
        for item in result.memories:
            reasons = item.components
            now = attention_at(self.view.get(Memory, item.memory.id), recalled.at)
            numbers = (
                f"{INDENT}{item.score:5.3f} {reasons.relevance:5.3f} {reasons.lexical:5.2f}"
                f" {reasons.importance:4.1f} {reasons.attention:5.1f} → {now:4.1f}"
                f" {reasons.recency:4.2f} {reasons.association:5.2f}  T{item.memory.tier}   "
            )
            self.line(numbers + clip(item.memory.text, WIDTH - len(numbers)))
            if item.via is not None:
                via = recalled.before.get(Memory, item.via).text
                lead = f"{' ' * len(numbers)}↳ via "
                self.line(lead + quoted(clip(via, WIDTH - len(lead) - 2)))

    def show_events(self, events: list[Event]) -> None:
        """Print events with their storylines."""
        for event in events:
            self.line(f"{INDENT}{event.category} event {quoted(clip(event.title, 70))}, storyline:")
            for storyline in event.text.splitlines():
                self.line(f"{INDENT}  {clip(storyline, WIDTH - len(INDENT) - 2)}")


def attention_labelling(demo: Demo) -> Memory:
    """Step 1: a milk allergy in working memory makes milk on the table worth attention.

    Returns grandma's dumpling recipe, which step 4 wakes.
    """
    demo.step(1, "Attention labelling: each new item is judged in the light of related memories")
    allergy = demo.said(0, "09:00", "I'm allergic to milk: even a little gives me hives.")
    demo.track(allergy.memory)
    dumplings = [
        demo.said(0, clock, text)
        for clock, text in [
            ("19:00", "I love making pork dumplings with chives."),
            ("19:05", "I love grandma's ginger dumplings best."),
            ("19:10", "Grandma's dumpling recipe uses pork, chives and ginger."),
        ]
    ]
    recipe = dumplings[-1].memory
    demo.track(recipe)
    milk = demo.said(1, "08:00", "There's half a glass of milk on the table.")
    for said in [allergy, *dumplings, milk]:
        demo.show_said(said)
    for link in demo.view.edges(LinkType.RELATED):
        if link.source == milk.memory.id:
            held = demo.view.get(Memory, link.target)
            level = attention_at(held, milk.at)
            shared = ", ".join(sorted(terms(held.text) & terms(milk.memory.text)))
            demo.line(f"{INDENT}in working memory: {quoted(held.text)} (attention {level:.1f})")
            demo.line(
                f"{INDENT}  shares {quoted(shared)}, so it passes on {INHERITED_SHARE}"
                f" × {level:.1f} = {INHERITED_SHARE * level:.1f}"
            )
    alone = OfflineCognition().label_attention(
        AttentionQuestion(item=milk.memory.text, speaker="user", working_memory=[])
    )
    demo.line(
        f"{INDENT}for a user with no such memory: {alone.score:.1f} ({alone.reason}),"
        f" T{tier_for(alone.score, TIERS)}"
    )
    return recipe


def fever_recall(demo: Demo) -> None:
    """Step 2: "I started having a fever" recalls yesterday's sore throat."""
    demo.step(2, "Recall: a fever the next morning brings back yesterday's sore throat")
    throat = demo.said(1, "15:00", "My throat is sore and I've felt tired all afternoon.")
    demo.track(throat.memory)
    demo.show_said(throat)
    demo.show_recall(demo.recall(2, "08:00", "I started having a fever", k=3))
    demo.note(
        "rel = cosine similarity, lex = BM25 of shared words, imp = importance, att → now ="
        " attention before and after this use woke it, rec = recency, assoc = relevance"
        " gained from neighbours (↳ the one it came through most)"
    )
    demo.show_said(demo.said(2, "08:01", "I started having a fever."))


def major_events(demo: Demo) -> None:
    """Step 3: a trip over three days is one event; months later a new trip follows it."""
    demo.step(3, "Major events: a three-day trip is one event; a trip months later follows it")
    for day, text in enumerate(
        [
            "We arrived at Disneyland today, the kids loved the castle.",
            "Second day at Disneyland: we rode Space Mountain twice.",
            "Last day at Disneyland, we watched the fireworks from the hotel.",
        ]
    ):
        demo.show_said(demo.said(7 + day, "20:00", text))
    demo.sleep(10, "03:00")
    demo.show_events(demo.view.all(Event))
    demo.show_said(
        demo.said(196, "10:00", "We're planning another trip to Disneyland with the kids.")
    )
    _at, before = demo.sleep(197, "03:00")
    new = [event for event in demo.view.all(Event) if event.id not in before.nodes]
    demo.show_events(new)
    for link in demo.view.edges(LinkType.NEXT):
        if link.target in {event.id for event in new} and link.source in before.nodes:
            previous = before.get(Event, link.source)
            follower = demo.view.get(Event, link.target)
            demo.note(
                f"NEXT from {short(previous.title)}: its last news came"
                f" {(follower.first_at - previous.last_at).days} days before,"
                f" past its {previous.timeliness_days:g}-day window"
            )
    tallies = [Counter(memory.tier for memory in view.all(Memory)) for view in (before, demo.view)]
    spread = " → ".join("/".join(str(tally[tier]) for tier in Tier) for tally in tallies)
    demo.line(f"{INDENT}forgetting: six months unused, memories per tier T0/T1/T2/T3 {spread}")


def regional_wake_up(demo: Demo, recipe: Memory) -> None:
    """Step 4: questions about dumplings wake grandma's recipe up to the hot tier."""
    demo.step(4, "Regional wake-up: a run of questions on one topic warms its neighbours")
    question = "What should I cook tonight?"
    before = demo.recall(197, "19:00", question, k=3, motivation=0, peek=True)
    demo.show_recall(before)
    reached(demo, before, recipe)
    topic = [
        demo.view.get(Memory, link.target if link.source == recipe.id else link.source)
        for link in demo.view.edges(LinkType.RELATED)
        if recipe.id in (link.source, link.target)
    ]
    topic = sorted([*topic, demo.view.get(Memory, recipe.id)], key=lambda memory: memory.created_at)
    cells = {
        memory.id: [f"{attention_at(memory, before.at):5.1f} T{memory.tier} "] for memory in topic
    }
    gains: set[float] = set()
    for number, query in enumerate(
        [
            "I love making dumplings",
            "Which dumplings do I love best?",
            "I feel like making dumplings this weekend",
            "Should I make pork dumplings?",
        ],
        start=1,
    ):
        recalled = demo.recall(197, f"19:{5 + 5 * number}", query, k=2)
        demo.line(f"   {stamp(recalled.at)}  Q{number} recall {quoted(query)} (k=2)")
        woken = {item.id: item for item in recalled.result.woken}
        if recipe.id in woken and not woken[recipe.id].used:
            gains.add(round(woken[recipe.id].short_term_gain, 6))
        for memory in topic:
            now = demo.view.get(Memory, memory.id)
            mark = " "
            if memory.id in woken:
                mark = "*" if woken[memory.id].used else "+"
            cells[memory.id].append(f"{attention_at(now, recalled.at):5.1f} T{now.tier}{mark}")
    columns = " ".join(f"{name:>8} " for name in ["before", "Q1", "Q2", "Q3", "Q4"])
    demo.line(f"{INDENT}{'attention, tier (* used, + woken)':38} {columns}")
    for memory in topic:
        demo.line(f"{INDENT}{clip(memory.text, 38):38} {' '.join(cells[memory.id])}")
    weights = [
        link.weight or 0
        for link in demo.view.edges(LinkType.RELATED)
        if recipe.id in (link.source, link.target)
    ]
    for gain in sorted(gains):
        demo.note(
            f"each time, the recipe gained {gain:.2f} short-term as a neighbour of what"
            f" was used: {ATTENTION.use_short_term:g} × {ATTENTION.spread_per_hop:g} per hop ×"
            f" RELATED weight {max(weights):g}"
        )
    after = demo.recall(197, "19:40", question, k=3, motivation=0)
    demo.show_recall(after)
    reached(demo, after, recipe)
    demo.traces[recipe.id].zoom = (before.at, after.at + timedelta(minutes=50))


def impression_impact(demo: Demo) -> None:
    """Step 5: ten weak hints of kindness over ten days make a conjecture."""
    demo.step(5, "Impressions: weak hints of character add up to a conjecture")
    hints = [
        "I helped my neighbour carry her groceries upstairs.",
        "I volunteered at the food bank on Saturday.",
        "I donated blood at the hospital.",
        "I helped a lost kid find his parents at the mall.",
        "I volunteered to read to the kids at the library.",
        "I donated my old coats to the shelter.",
        "I helped an old man cross the busy road.",
        "I volunteered to clean up the park by the river.",
        "I donated our old toys to the children's hospital.",
        "I helped my sister paint her kitchen.",
    ]
    statement = ""
    for day, text in enumerate(hints):
        said = demo.said(198 + day, "18:00", text)
        if not statement:
            [statement] = said.impressions
            impression = next(node for node in demo.view.all(Impression) if node.text == statement)
            demo.line(
                f"{INDENT}belief in {quoted(statement)} after each hint (noisy-OR, half-life"
                f" {impression.half_life_days:g} days)"
            )
        before, after = said.impressions[statement]
        demo.line(f"   {stamp(said.at)}  {clip(text, 52):52}  {before:.2f} → {after:.2f}")
        for conjecture in said.conjectures:
            demo.line(
                f"{INDENT}→ conjecture {quoted(conjecture.text)} (belief {conjecture.belief:.2f}),"
                " returned by observe"
            )


def consolidation(demo: Demo) -> None:
    """Step 6: a happy fact contradicted by later worries loses belief in sleep, and is kept."""
    demo.step(6, "Consolidation: in sleep, a contradicted fact loses belief and is kept")
    facts = [demo.said(209, "19:00", "I got promoted and I'm so happy at work.")]
    demo.track(facts[0].memory)
    for day, text in enumerate(
        [
            "I'm stressed, my new boss keeps changing the deadlines.",
            "I can't sleep, I keep worrying about my job.",
            "I feel anxious every Sunday evening before work.",
        ]
    ):
        facts.append(demo.said(211 + day, "21:00", text))
    for said in facts:
        demo.show_said(said)
    at, before = demo.sleep(214, "03:00")
    demo.line(f"{INDENT}belief       attention    tier      memory")
    for said in facts:
        old = before.get(Memory, said.memory.id)
        new = demo.view.get(Memory, said.memory.id)
        numbers = (
            f"{INDENT}{old.belief or 0:.2f} → {new.belief or 0:.2f}  {attention_at(old, at):4.1f} →"
            f" {attention_at(new, at):4.1f}  T{old.tier} → T{new.tier}  "
        )
        demo.line(numbers + clip(new.text, WIDTH - len(numbers)))
    ids = {said.memory.id for said in facts}
    for link in demo.view.edges(LinkType.CONTRADICTS):
        if link.source in ids and link.target in ids:
            source = demo.view.get(Memory, link.source)
            target = demo.view.get(Memory, link.target)
            demo.line(f"{INDENT}{short(source.text)} CONTRADICTS {short(target.text)}")
    demo.note(
        "Of two contradicting facts, the one of lower belief (the newcomer on a tie) moves"
        f" {BELIEFS.rate:g} of the way to 1 - the other's belief and keeps"
        f" {BELIEFS.kept_attention:.0%} of its attention. Nothing is deleted: the rows above are"
        " read back from the graph after the job."
    )


def reached(demo: Demo, recalled: Recalled, memory: Memory) -> None:
    """Print whether a recall found a memory, and the tier the memory was in."""
    tier = recalled.before.get(Memory, memory.id).tier
    deepest = max(attempt.depth for attempt in recalled.result.attempts)
    found = memory.id in {item.memory.id for item in recalled.result.memories}
    depth = "within" if tier <= deepest else "below"
    outcome = "found" if found else "not found"
    demo.line(
        f"{INDENT}↳ {short(memory.text)} was in T{tier}, {depth} the tiers searched: {outcome}"
    )


def where(settings: Settings) -> str:
    """Which store the demo writes to, as its header names it."""
    if settings.store == "neo4j":
        return f"neo4j at {settings.neo4j_uri}, database {settings.neo4j_database}"
    if settings.path is None:
        return "networkx, in memory only (pass --path FILE to keep it)"
    return f"networkx in {settings.path}"


@dataclass(frozen=True)
class Curve:
    """A trace's attention parts sampled over a stretch of time."""

    times: list[datetime]
    long_term: list[float]
    short_term: list[float]

    @property
    def total(self) -> list[float]:
        """Attention: the sum of both parts."""
        return [a + b for a, b in zip(self.long_term, self.short_term, strict=True)]


def sampled(trace: Trace, start: datetime, end: datetime, every: timedelta) -> Curve:
    """A trace's attention parts from `start` to `end` at steps of `every`, and around changes.

    Each change is sampled a second before it and at it, so a jump is drawn as a jump.
    """
    start = max(start, trace.changes[0].at)
    moments = {start + every * number for number in range(int((end - start) / every) + 1)}
    for change in trace.changes[1:]:
        if start < change.at <= end:
            moments |= {change.at - timedelta(seconds=1), change.at}
    starts = [change.at for change in trace.changes]
    curve = Curve(sorted(moments), [], [])
    for at in curve.times:
        attention = trace.changes[bisect.bisect_right(starts, at) - 1].attention
        curve.long_term.append(
            decay(attention.long_term, attention.long_term_at, at, ATTENTION.long_term_half_life)
        )
        curve.short_term.append(
            decay(attention.short_term, attention.short_term_at, at, ATTENTION.short_term_half_life)
        )
    return curve


@dataclass(frozen=True)
class Label:
    """A change the plot names, and whether the name goes left of it."""

    change: Change
    text: str
    left: bool


def labels(trace: Trace, start: datetime, end: datetime) -> list[Label]:
    """The changes from `start` to `end` the plot names, a run of one cause named once, at its end.

    A run is a sequence of changes of one cause less than a day apart; its name goes on the left
    (above the steps of the run), as does a name in the last fifth of the time.
    """
    runs: list[list[Change]] = []
    for change in trace.changes[1:]:
        if not start < change.at <= end or change.cause not in LABELLED:
            continue
        if (
            runs
            and runs[-1][-1].cause == change.cause
            and (change.at - runs[-1][-1].at < timedelta(days=1))
        ):
            runs[-1].append(change)
        else:
            runs.append([change])
    late = start + 0.8 * (end - start)
    return [
        Label(
            run[-1],
            run[0].cause + (f" ×{len(run)}" if len(run) > 1 else ""),
            len(run) > 1 or run[-1].at > late,
        )
        for run in runs
    ]


def days(at: datetime) -> float:
    """A simulated time as the plot's x: days since START."""
    return (at - START) / timedelta(days=1)


def ticks(axes: "Axes", moments: list[datetime], style: str) -> None:
    """Mark these times on the x axis, labelled in a strftime style."""
    axes.set_xticks([days(at) for at in moments], labels=[f"{at:{style}}" for at in moments])


def draw(axes: "Axes", curve: Curve, named: list[Label]) -> None:
    """Draw a curve's two parts stacked, their sum, the tier floors and the named changes."""
    total = curve.total
    x = [days(at) for at in curve.times]
    axes.fill_between(x, 0, curve.long_term, color="tab:blue", alpha=0.3, linewidth=0)
    axes.fill_between(x, curve.long_term, total, color="tab:orange", alpha=0.7, linewidth=0)
    axes.plot(x, total, color="black", linewidth=0.8)
    for floor in TIERS.floors:
        axes.axhline(floor, color="grey", linestyle=":", linewidth=0.8)
    for label in named:
        index = curve.times.index(label.change.at)
        axes.annotate(
            label.text,
            (days(label.change.at), max(total[index], total[index - 1])),
            xytext=(-3 if label.left else 3, 3),
            textcoords="offset points",
            horizontalalignment="right" if label.left else "left",
            fontsize=7,
        )


def enlarge(axes: "Axes", trace: Trace, start: datetime, end: datetime, top: float) -> None:
    """Draw a stretch of a trace enlarged, in an inset of its axes that names every change."""
    inset = axes.inset_axes((0.4, 0.22, 0.34, 0.72))
    draw(inset, sampled(trace, start, end, timedelta(minutes=1)), labels(trace, start, end))
    inset.set_xlim(days(start), days(end))
    inset.set_ylim(0, top)
    inset.tick_params(labelsize=6)
    half_hours = int((end - start) / timedelta(minutes=30)) + 1
    ticks(inset, [start + timedelta(minutes=30 * number) for number in range(half_hours)], "%H:%M")
    inset.set_title(f"{start:%b %d}, enlarged", fontsize=7)
    axes.indicate_inset_zoom(inset, edgecolor="grey")


def write_plot(traces: list[Trace], path: Path) -> bool:
    """Plot each trace's attention over the simulated time to a PNG; False without matplotlib."""
    try:
        import matplotlib  # noqa: PLC0415 (an optional extra: graphmem[demo])
    except ImportError:
        return False
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    curves = [sampled(trace, START, END, timedelta(hours=2)) for trace in traces]
    top = 1.15 * max(max(curve.total) for curve in curves)
    figure, rows = plt.subplots(
        len(traces), 1, figsize=(10, 1.9 * len(traces) + 0.8), sharex=True, sharey=True
    )
    for axes, trace, curve in zip(rows, traces, curves, strict=True):
        named = labels(trace, START, END)
        if trace.zoom is not None:
            start, end = trace.zoom
            enlarge(axes, trace, start, end, top)
            named = [label for label in named if not start < label.change.at <= end]
        draw(axes, curve, named)
        for tier, floor in enumerate(TIERS.floors):
            axes.text(
                1.005,
                floor,
                f"T{tier} ≥ {floor:g}",
                transform=axes.get_yaxis_transform(),
                fontsize=7,
                color="grey",
                va="center",
            )
        axes.set_title(trace.name, fontsize=9, loc="left")
        axes.set_ylim(0, top)
        axes.set_ylabel("attention", fontsize=8)
    rows[0].legend(
        ["long-term part (half-life 30 days)", "short-term part (half-life 12 hours)", "attention"],
        fontsize=7,
        loc="upper right",
    )
    months = range(START.month, END.month + 1)
    ticks(rows[-1], [datetime(START.year, month, 1, tzinfo=UTC) for month in months], "%b %Y")
    figure.suptitle(f"graphmem demo: attention of {len(traces)} memories over simulated months")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return True


def run_demo(settings: Settings, out: TextIO, plot: Path, *, owner: str = DEMO_OWNER) -> None:
    """Play the demo conversation as `owner`, step by step, then plot attention over time.

    The store must hold nothing of `owner` yet. The cognition and the embedder are the offline
    ones whatever the settings say, so that every run prints the same figures.
    """
    started = time.perf_counter()
    offline = settings.model_copy(update={"cognition": "offline", "embedder": "e5"})
    with GraphMem.open(offline) as memory:
        if owner in memory.owners():
            raise ConfigurationError(
                f"the store already holds memories of {owner}, and the demo starts from"
                " nothing: use a fresh --path (or none), another Neo4j database, or first"
                f" graphmem forget-owner --owner {owner} --yes"
            )
        demo = Demo(memory, owner, out)
        demo.line("graphmem demo: seven months with one user, played in simulated time")
        demo.line(f"store: {where(settings)}; owner {owner}")
        demo.line(
            "cognition: offline rules; embeddings: e5 on the CPU; no network, same figures each run"
        )
        demo.line("att = attention label 0-10 (the memory's importance); T0-T3 = tier, hot to deep")
        recipe = attention_labelling(demo)
        fever_recall(demo)
        major_events(demo)
        regional_wake_up(demo, recipe)
        impression_impact(demo)
        consolidation(demo)
    demo.line()
    try:
        written = write_plot(list(demo.traces.values()), plot)
    except OSError as error:
        raise InvalidInputError(f"cannot write the plot to {plot}: {error.strerror}") from None
    except ValueError as error:  # matplotlib knows no such image format
        raise InvalidInputError(f"cannot write the plot to {plot}: {error}") from None
    if written:
        demo.line(f"plot of attention over time: {plot}")
    else:
        demo.line("the plot of attention over time needs matplotlib: pip install 'graphmem[demo]'")
    demo.line(f"done in {time.perf_counter() - started:.1f} s")
