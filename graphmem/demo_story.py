"""The demo's story: seven months with one user in simulated time, each mechanism shown at work.

The conversation is scripted and goes through the offline cognition and the e5 embedder, so the
demo needs no network and prints the same figures on every run and on both stores. It is told in
English or in Chinese (the seed's own examples, graphmem.demo_zh): the script and every line the
demo prints are written in English here and translated through `Phrases`. Each step
prints what was stored (attention label and tier), what was recalled and why (the score's
components), and how attention, tiers, events and beliefs moved; the figures are read back from
the graph (`GraphMem.export`), not assumed. `Demo` also keeps each tracked memory's attention
as it changed (`Trace`), which graphmem.demo plots.
"""

import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TextIO, TypeVar

from graphmem.cognition.base import AttentionQuestion
from graphmem.cognition.lexicon import IMPRESSION_HALF_LIVES
from graphmem.cognition.offline import INHERITED_SHARE, offline_cognition
from graphmem.contract import OwnerGraph, Recall, SleepReport
from graphmem.demo_zh import CHINESE
from graphmem.embedding import E5Embedder
from graphmem.mechanisms.attention import AttentionPolicy, current_attention
from graphmem.mechanisms.beliefs import BeliefPolicy
from graphmem.mechanisms.impressions import decayed_belief
from graphmem.mechanisms.profile import ProfilePolicy
from graphmem.mechanisms.tiers import TierPolicy, tier_for
from graphmem.memory import GraphMem
from graphmem.model import Attention, Event, Impression, Link, LinkType, Memory, Node, Tier
from graphmem.terms import words

START = datetime(2026, 3, 2, tzinfo=UTC)
"""Midnight before the first message, a Monday."""

RECALL_BUDGET_SECONDS = 600.0
"""Time each of the demo's recalls may take: enough never to skip a step, so that the figures
do not depend on how busy the machine is."""

ATTENTION = AttentionPolicy()
TIERS = TierPolicy()
BELIEFS = BeliefPolicy()
"""The policies of GraphMem.open, which the demo's own arithmetic and notes follow."""

WIDTH = 100
"""Columns of the terminal the output fits (a Chinese character takes two)."""
INDENT = " " * 6
"""Where the lines under a timed line start."""
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
LANGUAGES: dict[str, Mapping[str, str]] = {"en": {}, "zh": CHINESE}
"""The demo's languages, each with its translation of the English script and phrases."""
WIDE = "[\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60]"
"""A character a terminal shows two columns wide: Chinese, Japanese and Korean ones."""
PIECE = re.compile(rf"\s*(?:{WIDE}|(?:(?!{WIDE})\S)+)")
"""What a line break may not cut: a run of other characters than spaces or wide ones, or one
wide character; each with the spaces before it."""
SLEEP_COUNTS = (
    "derived",
    "summaries",
    "events started",
    "events continued",
    "profile facts",
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


def moment(day: int, clock: str) -> datetime:
    """The simulated time `day` days after START, at `clock` (HH:MM)."""
    hours, minutes = clock.split(":")
    return START + timedelta(days=day, hours=int(hours), minutes=int(minutes))


def columns(text: str) -> int:
    """How many columns a text takes in a terminal."""
    return len(text) + len(re.findall(WIDE, text))


def clip(text: str, width: int) -> str:
    """The text cut to `width` columns, an ellipsis marking the cut."""
    if columns(text) <= width:
        return text
    text = text[:width]  # at least `width` columns already: the loop below trims a few more
    while columns(text) > width - 1:
        text = text[:-1]
    return text.rstrip(" ,.:;，。：；、") + "…"


def pad(text: str, width: int) -> str:
    """The text followed by spaces up to `width` columns."""
    return text + " " * (width - columns(text))


def wrap(text: str, width: int, indent: str) -> list[str]:
    """The text in lines of at most `width` columns where it can be, the later ones indented.

    A line breaks at a space, or next to a Chinese character: Chinese has no spaces.
    """
    lines = [""]
    for piece in PIECE.findall(text):
        if lines[-1].strip() and columns(lines[-1] + piece) > width:
            lines.append(indent + piece.lstrip())
        else:
            lines[-1] += piece
    return lines


@dataclass(frozen=True)
class Phrases:
    """The demo's script and lines in one language: as written in English, or translated."""

    language: str

    def __call__(self, english: str, **fields: object) -> str:
        """The text in this language, its {fields} filled in."""
        template = english if self.language == "en" else LANGUAGES[self.language][english]
        return template.format(**fields)

    def stamp(self, at: datetime) -> str:
        """A simulated time as the demo prints it: weekday, month-day, hour."""
        return f"{self(WEEKDAYS[at.weekday()])} {at:%m-%d %H:%M}"


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


def counts(report: SleepReport, say: Phrases) -> str:
    """A sleep job's counts as one line, in the order of its steps."""
    done = sorted(
        (name for name, count in report.counts.items() if count),
        key=lambda name: SLEEP_COUNTS.index(name) if name in SLEEP_COUNTS else len(SLEEP_COUNTS),
    )
    return say(", ").join(f"{say(name)} {report.counts[name]}" for name in done)


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
    """The memory's line of the script, in English (the plot says it in its own language)."""
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
    line: str
    """The script's line, in English; the memory holds it in the demo's language."""
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

    def __init__(self, memory: GraphMem, owner: str, out: TextIO, say: Phrases) -> None:
        self.memory = memory
        self.owner = owner
        self.out = out
        self.say = say
        self.view = View(memory.export(owner))
        self.traces: dict[str, Trace] = {}
        self._messages = 0

    def line(self, text: str = "") -> None:
        """Print one line of output."""
        print(text.rstrip(), file=self.out)

    def wrapped(self, text: str) -> None:
        """Print a text wrapped to the terminal's width, its later lines indented."""
        for line in wrap(text, WIDTH, INDENT):
            self.line(line)

    def note(self, text: str) -> None:
        """Print an indented note, wrapped to the terminal's width."""
        self.wrapped(INDENT + text)

    def step(self, number: int, title: str) -> None:
        """Print a step's title."""
        self.line()
        self.line(f"{number}. {self.say(title)}")

    def track(self, said: Said) -> None:
        """Follow a stored message's attention for the plot, from its creation."""
        memory = said.memory
        self.traces[memory.id] = Trace(said.line)
        self.traces[memory.id].record(Change(memory.created_at, memory.attention, "stored"))

    def reread(self, at: datetime, cause: Cause) -> View:
        """Export the graph again and record the tracked attention; return the view before."""
        before = self.view
        self.view = View(self.memory.export(self.owner))
        for memory_id, trace in self.traces.items():
            new = self.view.get(Memory, memory_id)
            trace.record(Change(at, new.attention, cause(before.get(Memory, memory_id), new)))
        return before

    def said(self, day: int, clock: str, line: str) -> Said:
        """Observe one message of the user, a line of the script (one session a day)."""
        at = moment(day, clock)
        self._messages += 1
        observed = self.memory.observe(
            self.owner,
            self.say(line),
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
        return Said(at, line, stored, moved, observed.conjectures)

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
        """Recall for a query (a line of the script), waking what it uses unless `peek`."""
        at = moment(day, clock)
        result = self.memory.recall(
            self.owner,
            self.say(query),
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
        self.wrapped(
            f"   {self.say.stamp(at)}  "
            + self.say("sleep job: {counts}", counts=counts(report, self.say))
        )
        return at, self.reread(at, slept)

    def show_said(self, said: Said) -> None:
        """Print a stored message with its label and tier, and the impressions it moved."""
        label = (
            f"   {self.say.stamp(said.at)}  {self.say('att')} {said.memory.importance:4.1f}"
            f" T{said.memory.tier}  "
        )
        self.line(label + clip(said.memory.text, WIDTH - columns(label)))
        made = {conjecture.text: conjecture for conjecture in said.conjectures}
        for statement, (before, after) in said.impressions.items():
            outcome = self.say(": a conjecture, returned by observe") if statement in made else ""
            self.line(
                INDENT
                + self.say(
                    "impression {statement}: belief {before:.2f} → {after:.2f}",
                    statement=quoted(statement),
                    before=before,
                    after=after,
                )
                + outcome
            )

    def show_recall(self, recalled: Recalled) -> None:
        """Print a recall's searches and its memories with their score components."""
        result = recalled.result
        motivations = " → ".join(f"{attempt.motivation:.1f}" for attempt in result.attempts)
        depths = " → ".join(f"0-{attempt.depth}" for attempt in result.attempts)
        verb = self.say("peek" if recalled.peek else "recall")
        self.line(f"   {self.say.stamp(recalled.at)}  {verb} {quoted(result.query)}")
        self.line(
            INDENT
            + self.say(
                "motivation {motivations}: searched tiers {depths}",
                motivations=motivations,
                depths=depths,
            )
        )
        self.line(INDENT + self.say("score   rel   lex  imp   att →  now  rec assoc  tier memory"))
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
                lead = f"{' ' * len(numbers)}↳ {self.say('via')} "
                self.line(lead + quoted(clip(via, WIDTH - columns(lead) - 2)))
            evoked = [found for found in result.impressions if found.id == item.evoked_by]
            for impression in evoked:
                lead = f"{' ' * len(numbers)}↳ {self.say('impression')} "
                self.line(lead + quoted(clip(impression.text, WIDTH - columns(lead) - 2)))

    def show_events(self, events: list[Event]) -> None:
        """Print events with their storylines."""
        for event in events:
            self.line(
                INDENT
                + self.say(
                    "{category} event {title}, storyline:",
                    category=self.say(event.category),
                    title=quoted(clip(event.title, 70)),
                )
            )
            for storyline in event.text.splitlines():
                self.line(f"{INDENT}  {clip(storyline, WIDTH - len(INDENT) - 2)}")


def attention_labelling(demo: Demo) -> Memory:
    """Step 1: a milk allergy in working memory makes milk on the table worth attention.

    Returns grandma's dumpling recipe, which step 4 wakes.
    """
    demo.step(1, "Attention labelling: each new item is judged in the light of related memories")
    allergy = demo.said(0, "09:00", "I'm allergic to milk: even a little gives me hives.")
    demo.track(allergy)
    dumplings = [
        demo.said(0, clock, text)
        for clock, text in [
            ("19:00", "I love making pork dumplings with chives."),
            ("19:05", "I love grandma's ginger dumplings best."),
            ("19:10", "Grandma's dumpling recipe uses pork, chives and ginger."),
        ]
    ]
    recipe = dumplings[-1]
    demo.track(recipe)
    milk = demo.said(1, "08:00", "There's half a glass of milk on the table.")
    for said in [allergy, *dumplings, milk]:
        demo.show_said(said)
    for link in demo.view.edges(LinkType.RELATED):
        if link.source == milk.memory.id:
            held = demo.view.get(Memory, link.target)
            level = attention_at(held, milk.at)
            shared = demo.say(", ").join(sorted(words(held.text) & words(milk.memory.text)))
            demo.line(
                INDENT
                + demo.say(
                    "in working memory: {text} (attention {level:.1f})",
                    text=quoted(held.text),
                    level=level,
                )
            )
            demo.line(
                INDENT
                + demo.say(
                    "  shares {shared}, so it passes on {share} × {level:.1f} = {passed:.1f}",
                    shared=quoted(shared),
                    share=INHERITED_SHARE,
                    level=level,
                    passed=INHERITED_SHARE * level,
                )
            )
    alone = offline_cognition(E5Embedder()).label_attention(
        AttentionQuestion(item=milk.memory.text, speaker="user", working_memory=[])
    )
    demo.line(
        INDENT
        + demo.say(
            "for a user with no such memory: {score:.1f} ({reason}), T{tier}",
            score=alone.score,
            reason=demo.say(alone.reason),
            tier=tier_for(alone.score, TIERS),
        )
    )
    return recipe.memory


def fever_recall(demo: Demo) -> None:
    """Step 2: "I started having a fever" recalls yesterday's sore throat."""
    demo.step(2, "Recall: a fever the next morning brings back yesterday's sore throat")
    throat = demo.said(1, "15:00", "My throat is sore and I've felt tired all afternoon.")
    demo.track(throat)
    demo.show_said(throat)
    demo.show_recall(demo.recall(2, "08:00", "I started having a fever", k=3))
    demo.note(
        demo.say(
            "rel = cosine similarity, lex = shared words (BM25, 0-1 over those found),"
            " imp = importance, att → now = attention before and after this use woke it,"
            " rec = recency, assoc = relevance gained from neighbours"
            " (↳ the one it came through most) and from an impression the query implies too"
        )
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
                demo.say(
                    "NEXT from {title}: its last news came {days} days before, past its"
                    " {window:g}-day window",
                    title=short(previous.title),
                    days=(follower.first_at - previous.last_at).days,
                    window=previous.timeliness_days,
                )
            )
    tallies = [Counter(memory.tier for memory in view.all(Memory)) for view in (before, demo.view)]
    spread = " → ".join("/".join(str(tally[tier]) for tier in Tier) for tally in tallies)
    demo.line(
        INDENT
        + demo.say(
            "forgetting: six months unused, memories per tier T0/T1/T2/T3 {spread}", spread=spread
        )
    )


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
        demo.line(
            f"   {demo.say.stamp(recalled.at)}  "
            + demo.say("Q{number}", number=number)
            + demo.say(" recall {query} (k=2)", query=quoted(recalled.result.query))
        )
        woken = {item.id: item for item in recalled.result.woken}
        if recipe.id in woken and not woken[recipe.id].used:
            gains.add(round(woken[recipe.id].short_term_gain, 6))
        for memory in topic:
            now = demo.view.get(Memory, memory.id)
            mark = " "
            if memory.id in woken:
                mark = "*" if woken[memory.id].used else "+"
            cells[memory.id].append(f"{attention_at(now, recalled.at):5.1f} T{now.tier}{mark}")
    heads = " ".join(
        " " * (8 - columns(name)) + name + " "
        for name in [demo.say("before")] + [demo.say("Q{number}", number=n) for n in range(1, 5)]
    )
    demo.line(f"{INDENT}{pad(demo.say('attention, tier (* used, + woken)'), 38)} {heads}")
    for memory in topic:
        demo.line(f"{INDENT}{pad(clip(memory.text, 38), 38)} {' '.join(cells[memory.id])}")
    weights = [
        link.weight or 0
        for link in demo.view.edges(LinkType.RELATED)
        if recipe.id in (link.source, link.target)
    ]
    for gain in sorted(gains):
        demo.note(
            demo.say(
                "each time, the recipe gained {gain:.2f} short-term as a neighbour of what was"
                " used: {use:g} × {per_hop:g} per hop × RELATED weight {weight:g}",
                gain=gain,
                use=ATTENTION.use_short_term,
                per_hop=ATTENTION.spread_per_hop,
                weight=max(weights),
            )
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
                INDENT
                + demo.say(
                    "belief in {statement} after each hint (noisy-OR, half-life {days:g} days)",
                    statement=quoted(statement),
                    days=impression.half_life_days,
                )
            )
        before, after = said.impressions[statement]
        demo.line(
            f"   {demo.say.stamp(said.at)}  {pad(clip(said.memory.text, 52), 52)}"
            f"  {before:.2f} → {after:.2f}"
        )
        for conjecture in said.conjectures:
            demo.line(
                INDENT
                + demo.say(
                    "→ conjecture {statement} (belief {belief:.2f}), returned by observe",
                    statement=quoted(conjecture.text),
                    belief=conjecture.belief,
                )
            )


def consolidation(demo: Demo) -> None:
    """Step 6: a happy fact contradicted by later worries loses belief in sleep, and is kept."""
    demo.step(6, "Consolidation: in sleep, a contradicted fact loses belief and is kept")
    facts = [demo.said(209, "19:00", "I got promoted and I'm so happy at work.")]
    demo.track(facts[0])
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
    demo.line(INDENT + demo.say("belief       attention    tier      memory"))
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
        demo.say(
            "Of two contradicting facts, the one of lower belief (the newcomer on a tie) moves"
            " {rate:g} of the way to 1 - the other's belief and keeps {kept:.0%} of its"
            " attention. Nothing is deleted: the rows above are read back from the graph after"
            " the job.",
            rate=BELIEFS.rate,
            kept=BELIEFS.kept_attention,
        )
    )


def slot_name(slot: str, say: Phrases) -> str:
    """A fact's slot in the demo's language: its kind translated, its subject as said."""
    kind, _, subject = slot.partition(": ")
    return say("{kind}: {subject}", kind=say(kind), subject=subject) if subject else say(kind)


def profile(demo: Demo) -> None:
    """Step 7: the profile after the months: the allergy, kindness, the mood at work, no cold."""
    demo.step(7, "Profile: who the user is now, read from the graph without a model")
    for day, clock in [(2, "09:00"), (214, "09:00")]:
        held = demo.memory.profile(demo.owner, at=moment(day, clock))
        demo.line(f"   {demo.say.stamp(held.at)}  " + demo.say("profile"))
        lines = [
            demo.say(
                "{slot}: {text} (belief {belief:.2f}, since {since})",
                slot=slot_name(fact.slot, demo.say),
                text=quoted(fact.text),
                belief=fact.belief,
                since=f"{fact.since:%Y-%m-%d}",
            )
            for fact in held.facts
        ]
        lines += [
            demo.say(
                "conjecture {text} (belief {belief:.2f}, fades {fades})",
                text=quoted(item.text),
                belief=item.belief,
                fades=f"{item.fades_at:%Y-%m-%d}",
            )
            for item in held.conjectures
        ]
        lines += [
            demo.say(
                "ongoing {category} event {title}: {latest}",
                category=demo.say(item.category),
                title=quoted(clip(item.title, 40)),
                latest=item.latest,
            )
            for item in held.events
        ]
        for line in lines:
            demo.wrapped(f"{INDENT}{line}")
    demo.note(
        demo.say(
            "Facts are read in the dialogues by the sleep job, one value a slot (the latest);"
            " a conjecture shows until its belief fades below {faded:g}: the cold of day 1"
            " (half-life {days:g} days) is gone by day 214, kindness (a year) is not.",
            faded=ProfilePolicy().faded_below,
            days=IMPRESSION_HALF_LIVES[0].value,
        )
    )


def reached(demo: Demo, recalled: Recalled, memory: Memory) -> None:
    """Print whether a recall found a memory, and the tier the memory was in."""
    tier = recalled.before.get(Memory, memory.id).tier
    deepest = max(attempt.depth for attempt in recalled.result.attempts)
    found = memory.id in {item.memory.id for item in recalled.result.memories}
    depth = demo.say("within" if tier <= deepest else "below")
    outcome = demo.say("found" if found else "not found")
    demo.line(
        f"{INDENT}↳ "
        + demo.say(
            "{memory} was in T{tier}, {depth} the tiers searched: {outcome}",
            memory=short(memory.text),
            tier=tier,
            depth=depth,
            outcome=outcome,
        )
    )


def tell(demo: Demo) -> None:
    """Tell the story's seven steps, in order."""
    recipe = attention_labelling(demo)
    fever_recall(demo)
    major_events(demo)
    regional_wake_up(demo, recipe)
    impression_impact(demo)
    consolidation(demo)
    profile(demo)
