"""The cognition port answered by documented rules: deterministic, no network, no model.

Two signals decide, each where it is the right tool. Words (graphmem.terms, the cue lexicon of
cognition.lexicon) decide what words name: a cue, a fact's slot and value, negation, a time, a
cause named in its terms. Meaning (cognition.meaning, the bundled e5 given to the constructor:
`offline_cognition`) decides what is said in other words, in either language and across the
two: sentences near prototypes (cognition.prototypes) against small talk, and words alike in
meaning. Without an embedder, words decide alone. A text over meaning.READABLE_CHARS is read by
its words alone.

The rules (each number is a module constant):
- Attention: an item scores the value of its strongest salience cue (lexicon.SALIENCE: health 8,
  life events and strong feelings 7, plans 5, preferences 4) or, if higher, of the kind of
  salient thing it is nearest to by meaning (prototypes.SALIENCE), one point more when it speaks
  of the speaker themself, and BASE_SALIENCE when it has neither; small talk (a greeting, thanks,
  agreement, a goodbye, or a reply that only echoes what it answers: Meaning.small_talk) gets
  SMALL_TALK_SALIENCE and inherits nothing. A recalled memory that shares
  a content word (graphmem.terms.words: English stems, Chinese words as jieba cuts them) with
  the item or, when it would pass on more than the item has of its own, a word alike in meaning
  (milk and dairy, milk and 牛奶) passes on INHERITED_SHARE of its current attention, if that is
  more: so "an open carton of dairy" scores high only for a user whose milk allergy is in
  memory. The item relates to each recalled memory it shares words with so, with strength the
  share of the smaller text's words that are common.
- Summary: the SUMMARY_LINES most salient lines, in their order, as they were said (extractive,
  so it keeps the user's language).
- Events: a category of lexicon.EVENT_CATEGORIES is tagged when a line of a speaker other than
  the agent (model.AGENT_SPEAKERS: an event is the user's) mentions one of its cues or, when its
  words name no category, fact or cause, is nearest by meaning to the category's prototypes
  (prototypes.EVENTS; complaints no illness explains and moods compete, NOT_EVENTS). Those lines
  are the event's, and its detail, cut to DETAIL_CHARACTERS; its timeliness is the category's
  default; the title is the first such line.
- Facts read in a dialogue: a sentence that gives a value of a slot of lexicon.UPDATE_SLOTS
  (home, work, a name or a number, of a subject: "name: cat"), states an allergy
  (lexicon.ALLERGY: "allergy: milk") or speaks of the speaker's mood (lexicon.MOOD) at work (the
  work event's cues: "mood at work") states a fact of that slot, worded as it was said (cut to
  FACT_CHARACTERS; a line's first sentence of a slot counts); lines of the agent
  (model.AGENT_SPEAKERS) state none, and a speaker other than "user" heads the slot
  ("caroline: home": slots are kept in lower case). Words decide: a value is read as said.
- Storyline merge: the development is appended as a dated line (cut to DETAIL_CHARACTERS); a
  storyline of more than STORYLINE_LINES lines keeps its first line, "…", and the latest ones.
- Facts: a new value of what an older statement gave one of (lexicon.UPDATE_SLOTS: where one
  lives, one's job, a name, a number) updates it; otherwise opposite moods (by the mood words
  or, for a statement without any, the mood it is nearest to by meaning, prototypes.MOOD, every
  other kind of prototype competing), or close statements (content-word overlap of
  CONTRADICTION_OVERLAP or more) of opposite negation, contradict (the new statement's belief: 1
  - the old one's); an overlap of DUPLICATE_OVERLAP or more duplicates, RELATED_OVERLAP or more,
  or the same mood, supports (belief: halfway from the old one's to 1); anything else is
  unrelated (0.5).
- Impressions: a causal rule (the question's, from the owner's CAUSES edges, and the
  cognition's own knowledge, lexicon.CAUSAL_KNOWLEDGE by default) applies when the statement
  holds at least CAUSE_MATCH (all) of the cause's content terms (graphmem.terms.terms, Chinese
  bigrams included), so "my throat swells" is not a "sore throat", nor 嗓子痒 a 嗓子疼. A
  statement that names no cause so may say one in other words (`_cause_said`): the cause whose
  prototypes it is nearest to, against complaints no cause explains, sharing words with them
  ("it's raw and scratchy when I swallow" is a sore throat; "I'm allergic to milk" none). The
  impression's belief is sufficiency times the statement's belief, its half-life from
  lexicon.IMPRESSION_HALF_LIVES; its reason says "by meaning" and the words in common. An
  impression is worded in its cause's language (a recall evokes it in the other language too:
  lexicon.IMPRESSION_WORDINGS).
- Perception of a chunk of items: each item in order, by the attention and impression rules;
  an earlier item of the chunk in an item's working memory counts with the score it got.
What it cannot do that a model can: understand what neither its words nor its prototypes come
near (world knowledge: "anything from a cow" is milk), read sarcasm or context, name events or
summarise abstractively, use knowledge that is not in the graph.
"""

import functools
import re
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet

from graphmem.cognition import prototypes
from graphmem.cognition.base import (
    QUERY_SPEAKER,
    AttentionLabel,
    AttentionQuestion,
    CausalRule,
    Dialogue,
    DialogueDigest,
    EventTag,
    EventUpdate,
    FactComparisons,
    FactJudgement,
    FactJudgements,
    Impression,
    Impressions,
    InferenceQuestion,
    JudgedFact,
    Perception,
    PerceptionQuestion,
    Perceptions,
    RelatedMemory,
    Relation,
    StatedFact,
    Storyline,
)
from graphmem.cognition.lexicon import (
    ALLERGY,
    CAUSAL_KNOWLEDGE,
    DEFAULT_IMPRESSION_HALF_LIFE_DAYS,
    EVENT_CATEGORIES,
    IMPRESSION_HALF_LIVES,
    MOOD,
    NEGATION,
    NOT_NEGATING,
    SALIENCE,
    UPDATE_SLOTS,
    Cues,
)
from graphmem.cognition.meaning import Meaning, Said, language
from graphmem.embedding import CachedEmbedder, E5Embedder, Embedder
from graphmem.model import is_agent
from graphmem.terms import mentions, terms, words

BASE_SALIENCE = 2.0
SMALL_TALK_SALIENCE = 0.0
"""Attention for small talk (Meaning.small_talk): a greeting, thanks or a reply that only echoes
what it answers deserves none, and passes on none of what it bears on."""
FIRST_PERSON_BONUS = 1.0
INHERITED_SHARE = 0.85
SUMMARY_LINES = 3
CONTRADICTION_OVERLAP = 0.3
DUPLICATE_OVERLAP = 0.75
RELATED_OVERLAP = 0.25
CAUSE_MATCH = 1.0
TITLE_CHARACTERS = 80
DETAIL_CHARACTERS = 240
FACT_CHARACTERS = 200
STORYLINE_LINES = 12

FIRST_PERSON = re.compile(r"\b(i|i'm|i've|i'd|i'll|my|me|mine|we|we're|our|us)\b|我")


def first_match(text: str, sets: Iterable[Cues]) -> Cues | None:
    """The first cue set that the text mentions."""
    return next((cues for cues in sets if mentions(text, cues.words)), None)


SALIENCE_VALUES = {cues.name: cues.value for cues in SALIENCE}
NO_EVENT = "no event"
NOT_EVENTS = (
    *prototypes.OTHER_COMPLAINTS,
    *(line for lines in prototypes.MOOD.values() for line in lines),
)
"""What tells of no event, though near events: a complaint no illness explains, a mood."""
NO_MOOD = "no mood"
NOT_MOODS = tuple(
    sentence
    for group in (
        *(
            lines
            for name, lines in prototypes.SALIENCE.items()
            if name != "life event or strong feeling"
        ),
        *prototypes.EVENTS.values(),
        *prototypes.CAUSES.values(),
        prototypes.OTHER_COMPLAINTS,
    )
    for sentence in group
)
"""What states no mood, though near moods: every other kind of prototype but feelings."""
MOOD_VALUES = {cues.name: cues.value for cues in MOOD}


def speaker_salience(value: float, text: str) -> float:
    """A salience cue's value, one point more when the text speaks of the speaker themself."""
    bonus = FIRST_PERSON_BONUS if FIRST_PERSON.search(text.lower()) else 0.0
    return min(value + bonus, 10.0)


@functools.lru_cache(maxsize=4096)
def salience(text: str) -> tuple[float, str]:
    """An item's own salience by its words, and the reason for it."""
    ranked = sorted(SALIENCE, key=lambda cues: -cues.value)
    found = first_match(text, ranked)
    if found is None:
        return BASE_SALIENCE, "no salience cue"
    return speaker_salience(found.value, text), f"{found.name} cue"


@functools.lru_cache(maxsize=4096)
def mood(text: str) -> float:
    """+1 for a good mood, -1 for a bad one, 0 when no mood is stated (bad is checked first)."""
    found = first_match(text, sorted(MOOD, key=lambda cues: cues.value))
    return 0.0 if found is None else found.value


def overlap(left: str, right: str) -> float:
    """Jaccard overlap of two texts' content words."""
    a, b = words(left), words(right)
    return len(a & b) / len(a | b) if a | b else 0.0


def negated(text: str) -> bool:
    """Whether a statement is negated (a cue inside a word of NOT_NEGATING does not count)."""
    for word in NOT_NEGATING:
        text = text.replace(word, " ")
    return first_match(text, [NEGATION]) is not None


SLOTS = tuple((name, re.compile(pattern)) for name, pattern in UPDATE_SLOTS)


def slot_values(text: str) -> dict[tuple[str, str], str]:
    """What a statement gives a value of, as (slot, subject) -> value (lexicon.UPDATE_SLOTS)."""
    lowered = text.lower()
    found: dict[tuple[str, str], str] = {}
    for name, pattern in SLOTS:
        for match in pattern.finditer(lowered):
            found.setdefault((name, match.groupdict().get("subject") or ""), match["value"])
    return found


ALLERGIES = tuple(re.compile(pattern) for pattern in ALLERGY)
WORK = next(category for category in EVENT_CATEGORIES if category.name == "work")


def fact_slots(text: str) -> list[str]:
    """The slots a first-person statement gives a value of (see the module docstring)."""
    lowered = text.lower()
    found = [name if not subject else f"{name}: {subject}" for name, subject in slot_values(text)]
    found += [
        f"allergy: {match['subject']}"
        for pattern in ALLERGIES
        for match in pattern.finditer(lowered)
    ]
    if mood(text) and mentions(text, WORK.words) and FIRST_PERSON.search(lowered):
        found.append("mood at work")
    return list(dict.fromkeys(found))


SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s*|\n+")


def stated_facts(dialogue: Dialogue) -> list[StatedFact]:
    """The facts a dialogue's lines state, each the sentence that states it, as it was said."""
    found: dict[tuple[int, str], StatedFact] = {}
    for position, line in enumerate(dialogue.lines):
        if is_agent(line.speaker):
            continue
        for sentence in filter(str.strip, SENTENCE_END.split(line.text)):
            for slot in fact_slots(sentence):
                key = slot if line.speaker.lower() == "user" else f"{line.speaker}: {slot}"
                found.setdefault(
                    (position, key),
                    StatedFact(
                        slot=key,
                        statement=shorten(sentence.strip(), FACT_CHARACTERS),
                        line=position,
                    ),
                )
    return list(found.values())


def names_cause(text: str, cause: str) -> bool:
    """Whether a text holds CAUSE_MATCH of a cause's content terms (a cause without any: no)."""
    cause_terms = terms(cause)
    return bool(cause_terms) and len(cause_terms & terms(text)) / len(cause_terms) >= CAUSE_MATCH


def shorten(text: str, limit: int) -> str:
    """The text cut at a word boundary to at most `limit` characters."""
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def judge_fact(new: str, old: str, old_belief: float, moods: tuple[float, float]) -> FactJudgement:
    """An update by slot, contradiction by mood or negation, duplicate or support by words.

    `moods` are the new and the old statement's moods (+1, -1 or 0, as `mood` gives them).
    """
    old_values = slot_values(old)
    for slot, value in slot_values(new).items():
        if slot in old_values and old_values[slot] != value:
            return FactJudgement(
                relation="updates",
                belief=old_belief,
                reason=f"a new {slot[0]}: {old_values[slot]} -> {value}",
            )
    shared = overlap(new, old)
    new_mood, old_mood = moods
    if new_mood * old_mood < 0:
        return FactJudgement(relation="contradicts", belief=1 - old_belief, reason="opposite moods")
    if shared >= CONTRADICTION_OVERLAP and negated(new) != negated(old):
        return FactJudgement(
            relation="contradicts",
            belief=1 - old_belief,
            reason=f"the same content ({shared:.0%} shared) with opposite negation",
        )
    if shared >= DUPLICATE_OVERLAP:
        return FactJudgement(
            relation="duplicate",
            belief=(1 + old_belief) / 2,
            reason=f"{shared:.0%} of the content words are shared",
        )
    if shared >= RELATED_OVERLAP or (new_mood != 0 and new_mood == old_mood):
        return FactJudgement(
            relation="supports",
            belief=(1 + old_belief) / 2,
            reason=f"related content ({shared:.0%} shared) or the same mood",
        )
    return FactJudgement(relation="unrelated", belief=0.5, reason="nothing in common")


COMMON_KNOWLEDGE = tuple(
    CausalRule(cause=cause, effect=effect, sufficiency=sufficiency)
    for cause, effect, sufficiency in CAUSAL_KNOWLEDGE
)


def salient_lines(dialogue: Dialogue, saliences: Sequence[float]) -> str:
    """The most salient lines of a dialogue (each line's salience given), in order, as said."""
    ranked = sorted(range(len(dialogue.lines)), key=lambda index: -saliences[index])
    chosen = sorted(ranked[:SUMMARY_LINES])
    return " ".join(
        f"{dialogue.lines[index].speaker}: {dialogue.lines[index].text}" for index in chosen
    )


def event_tags(dialogue: Dialogue, told: Sequence[str | None]) -> list[EventTag]:
    """One tag per event category whose cues the dialogue mentions or whose events it tells.

    `told` is, for each line, the category of event it tells of by meaning, if any.
    """
    events = []
    for category in EVENT_CATEGORIES:
        positions = [
            position
            for position, line in enumerate(dialogue.lines)
            if not is_agent(line.speaker)
            and (mentions(line.text, category.words) or told[position] == category.name)
        ]
        if positions:
            texts = [dialogue.lines[position].text for position in positions]
            events.append(
                EventTag(
                    category=category.name,
                    title=shorten(texts[0], TITLE_CHARACTERS),
                    detail=shorten(" ".join(texts), DETAIL_CHARACTERS),
                    timeliness_days=category.value,
                    lines=positions,
                )
            )
    return events


class OfflineCognition:
    """Deterministic rules over cue words, content words, terms and meaning; see the docstring.

    `knowledge` is the causal knowledge it brings to inferences beside the question's rules.
    Given an `embedder`, it also understands by meaning (cognition.meaning); without one, by
    words alone.
    """

    def __init__(
        self, knowledge: Sequence[CausalRule] = COMMON_KNOWLEDGE, embedder: Embedder | None = None
    ) -> None:
        self._knowledge = tuple(knowledge)
        self._meaning = None if embedder is None else Meaning(embedder)

    def label_attention(self, question: AttentionQuestion) -> AttentionLabel:
        """Own salience, or the attention a related recalled memory passes on, if higher.

        Small talk (Meaning.small_talk; by words alone, a text with no content word) gets
        SMALL_TALK_SALIENCE and passes nothing on; the words it shares with its working memory
        count as echoed when it says nothing of its speaker (no first-person word). What speaks
        of its speaker and holds a salience cue ("I got promoted and I'm so happy") is never
        small talk, nor is a recall's query (QUERY_SPEAKER); a cue in a wish to someone else
        ("enjoy the visit!") does not keep it from being so.

        The item relates to a memory it shares a content word with or, when the memory would
        pass on more attention than the item has of its own, a word alike in meaning
        (Meaning.alike_words: milk and dairy): only there do such words change the label, and
        each new word costs an embedding.
        """
        [(own, reason)] = self._salience([question.item])
        score = own
        item_words = words(question.item)
        of_self = FIRST_PERSON.search(question.item.lower()) is not None
        echoed = (  # what a reply that says nothing of its speaker repeats of what it answers
            set()
            if of_self
            else item_words
            & {word for memory in question.working_memory for word in words(memory.text)}
        )
        chat = (
            question.speaker != QUERY_SPEAKER
            and (own <= BASE_SALIENCE or not of_self)
            and self._small_talk(question.item, echoed)
        )
        if chat:
            score, reason = SMALL_TALK_SALIENCE, "small talk"
        related = []
        for index, memory in enumerate(question.working_memory):
            memory_words = words(memory.text)
            inherited = INHERITED_SHARE * min(memory.attention, 10.0)
            alike = (
                self._meaning.alike_words(question.item, memory.text)
                if self._meaning is not None and inherited > own
                else []
            )
            through = sorted(item_words & memory_words) + [f"{a} ~ {b}" for a, b in alike]
            if through:
                smaller = max(1, min(len(item_words), len(memory_words)))
                strength = min(1.0, len(through) / smaller)
                related.append(Relation(index=index, strength=round(strength, 3)))
            if through and inherited > score and not chat:
                score = inherited
                reason = (
                    f"bears on a memory of attention {memory.attention:.1f}"
                    f" ({shorten(memory.text, 60)}) through {', '.join(through)}"
                )
        return AttentionLabel(score=round(score, 3), related=related, reason=reason)

    def digest_dialogue(self, dialogue: Dialogue) -> DialogueDigest:
        """Salient lines (`salient_lines`), events (`event_tags`) and facts (`stated_facts`)."""
        texts = [line.text for line in dialogue.lines]
        if self._meaning is not None:
            self._meaning.read(texts)
        told = self._events_told(texts)
        return DialogueDigest(
            summary=salient_lines(dialogue, [score for score, _reason in self._salience(texts)]),
            events=event_tags(dialogue, told),
            facts=stated_facts(dialogue),
        )

    def merge_event(self, update: EventUpdate) -> Storyline:
        """The storyline with the development appended as a dated line, the middle cut if long."""
        line = f"{update.at:%Y-%m-%d}: {shorten(update.development.detail, DETAIL_CHARACTERS)}"
        lines = [*update.storyline.strip().splitlines(), line]
        if len(lines) > STORYLINE_LINES:
            lines = [lines[0], "…", *lines[-(STORYLINE_LINES - 2) :]]
        return Storyline(title=update.title, storyline="\n".join(lines))

    def judge_facts(self, question: FactComparisons) -> FactJudgements:
        """Each new statement against each of its older ones judged on its own by `judge_fact`."""
        statements = [comparison.new for comparison in question.comparisons] + [
            old.text for comparison in question.comparisons for old in comparison.older
        ]
        moods = dict(zip(statements, self._moods(statements), strict=True))
        return FactJudgements(
            facts=[
                JudgedFact(
                    judgements=[
                        judge_fact(
                            comparison.new,
                            old.text,
                            old.belief,
                            (moods[comparison.new], moods[old.text]),
                        )
                        for old in comparison.older
                    ]
                )
                for comparison in question.comparisons
            ]
        )

    def perceive(self, question: PerceptionQuestion) -> Perceptions:
        """Each item labelled by `label_attention` and inferred from by `infer_impressions`.

        An earlier item of the batch in an item's working memory counts with the score it got.
        """
        if self._meaning is not None:
            self._meaning.read(
                [item.item for item in question.items]
                + [entry.text for item in question.items for entry in item.working_memory]
            )
        scores: list[float] = []
        perceptions = []
        for item in question.items:
            working_memory = [
                RelatedMemory(
                    text=entry.text,
                    attention=scores[entry.earlier]
                    if entry.earlier is not None
                    else (entry.attention or 0.0),
                )
                for entry in item.working_memory
            ]
            label = self.label_attention(
                AttentionQuestion(
                    item=item.item, speaker=item.speaker, working_memory=working_memory
                )
            )
            inferred = self.infer_impressions(
                InferenceQuestion(statement=item.item, belief=question.belief, rules=question.rules)
            )
            scores.append(label.score)
            perceptions.append(
                Perception(
                    score=label.score,
                    related=label.related,
                    reason=label.reason,
                    impressions=inferred.impressions,
                )
            )
        return Perceptions(items=perceptions)

    def infer_impressions(self, question: InferenceQuestion) -> Impressions:
        """Apply the rules whose causes' terms the statement holds, else the cause it says.

        What words name, words decide; a statement that names no cause in its terms may say one
        in other words (`_cause_said`).
        """
        rules = [*question.rules, *self._knowledge]
        named = [rule for rule in rules if names_cause(question.statement, rule.cause)]
        reasons = {rule.cause: "" for rule in named}
        if not named:
            said = self._cause_said(question.statement, rules)
            if said is not None:
                named = [rule for rule in rules if rule.cause == said.name]
                reasons = {said.name: f", by meaning: {', '.join(said.evidence)}"}
        found: dict[str, Impression] = {}
        for rule in named:
            belief = rule.sufficiency * question.belief
            earlier = found.get(rule.effect)
            if earlier is not None and earlier.belief >= belief:
                continue
            subject = first_match(rule.effect, IMPRESSION_HALF_LIVES)
            found[rule.effect] = Impression(
                statement=rule.effect,
                belief=round(belief, 6),
                half_life_days=DEFAULT_IMPRESSION_HALF_LIFE_DAYS
                if subject is None
                else subject.value,
                reason=f"{rule.cause} -> {rule.effect}"
                f" (sufficiency {rule.sufficiency:g}{reasons[rule.cause]})",
            )
        return Impressions(impressions=list(found.values()))

    def _salience(self, texts: Sequence[str]) -> list[tuple[float, str]]:
        """Each text's salience by its words or, if higher, by the kind of thing it says."""
        found = [salience(text) for text in texts]
        if self._meaning is None:
            return found
        for index, kind in enumerate(self._meaning.nearest(texts, prototypes.SALIENCE)):
            if kind is not None:
                value = speaker_salience(SALIENCE_VALUES[kind], texts[index])
                if value > found[index][0]:
                    found[index] = (value, f"{kind}, by meaning")
        return found

    def _small_talk(self, text: str, echoed: AbstractSet[str]) -> bool:
        """Whether a text is small talk (Meaning.small_talk); by words alone, one with no word."""
        if self._meaning is None:
            return not words(text)
        return self._meaning.small_talk(text, echoed)

    def _moods(self, texts: Sequence[str]) -> list[float]:
        """Each text's mood by its words or, when they state none, by meaning.

        By meaning, a text states a mood when the prototype it is nearest to, of every kind
        but feelings (NOT_MOODS: complaints, plans, events, causes), is a mood's: a sore throat
        or a favourite dish is near moods too, and no mood of its own.
        """
        found = [mood(text) for text in texts]
        if self._meaning is None:
            return found
        unstated = [index for index, value in enumerate(found) if value == 0.0]
        meant = self._meaning.nearest(
            [texts[index] for index in unstated], {**prototypes.MOOD, NO_MOOD: NOT_MOODS}
        )
        for index, kind in zip(unstated, meant, strict=True):
            if kind is not None and kind != NO_MOOD:
                found[index] = MOOD_VALUES[kind]
        return found

    def _events_told(self, texts: Sequence[str]) -> list[str | None]:
        """For each line, the category of event it tells of by meaning, if any.

        A line whose words name an event category, state a fact (`fact_slots`) or name a cause
        of the cognition's knowledge is read by its words ("I'm allergic to milk" states an
        allergy, not an illness); another is of the category of event it is nearest to
        (Meaning.nearest), unless it is nearer to complaints no illness explains or to moods
        (NOT_EVENTS): near events, they tell of none. A line too long to read by meaning
        (meaning.READABLE_CHARS) tells of none by it. Words are read only for the lines near
        an event: most lines are not.
        """
        if self._meaning is None:
            return [None] * len(texts)
        kinds = self._meaning.nearest(texts, {**prototypes.EVENTS, NO_EVENT: NOT_EVENTS})
        return [
            None if kind is None or kind == NO_EVENT or self._worded(text) else kind
            for text, kind in zip(texts, kinds, strict=True)
        ]

    def _worded(self, text: str) -> bool:
        """Whether a line's words name an event category, a fact or a cause of the knowledge."""
        return (
            first_match(text, EVENT_CATEGORIES) is not None
            or bool(fact_slots(text))
            or any(names_cause(text, rule.cause) for rule in self._knowledge)
        )

    def _cause_said(self, statement: str, rules: Sequence[CausalRule]) -> Said | None:
        """The cause of a rule in the statement's language that it says in other words.

        A cause's prototypes are, for the cognition's own knowledge, its ways of saying it
        (prototypes.CAUSES; a cause without any is matched by its terms alone) and, for a rule
        of the owner's, the cause itself. Complaints that no cause explains stand against them
        (prototypes.OTHER_COMPLAINTS: an allergy, an injury): a statement nearer to one of them
        than to a cause it has words in common with says no cause. A rule's effect is worded in
        its cause's language, so a statement in another language is left to rules of its own.
        """
        if self._meaning is None:
            return None
        said = language(statement)
        known = {rule.cause for rule in self._knowledge}
        causes = {
            rule.cause: prototypes.CAUSES[rule.cause] if rule.cause in known else (rule.cause,)
            for rule in rules
            if language(rule.cause) == said
            and (rule.cause in prototypes.CAUSES or rule.cause not in known)
        }
        if not causes:
            return None
        return self._meaning.says(statement, causes, against=prototypes.OTHER_COMPLAINTS)


def offline_cognition(embedder: Embedder) -> OfflineCognition:
    """The offline cognition, reading meaning with the bundled e5, so that it calls no network.

    With `embedder` if it is e5 (its cached vectors reused), else with an e5 of its own (cached
    in memory for as long as the cognition lives).
    """
    own = embedder if embedder.name == E5Embedder.name else CachedEmbedder(E5Embedder())
    return OfflineCognition(embedder=own)
