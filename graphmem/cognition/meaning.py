"""What the offline cognition understands by meaning: sentences near prototypes, words alike.

An embedder's cosines sit in a narrow band that moves with the language and the kind of text
(multilingual-e5-small: unrelated English sentences ~0.75, unrelated Chinese ~0.85, a milk
allergy and "an open carton of dairy" 0.82), so no fixed cosine can say "related". The tests
here are relative to everyday language instead (prototypes.EVERYDAY), which makes them hold in
either language, across the two, and for any embedder:
- A text is near a prototype when the two are nearer to each other than each is to every
  everyday sentence of the other's language: "Dairy makes me break out in hives" is nearer to
  "Eating even a little of it makes my skin break out" than that sentence is to any small talk
  in English, and nearer to it than to any small talk itself.
- Two words are alike when they are nearer to each other, by WORD_MARGIN, than each is to every
  content word of the everyday sentences of the other's language: milk and dairy, milk and
  牛奶, 乳制品 and 牛奶; words of small talk (great, awesome) are nearest to small talk and
  never alike. Words of one stem (graphmem.terms.words) are left to the word rules.
- A text is small talk when each of its sentences is nearer to an everyday sentence of small
  talk (prototypes.SMALL_TALK) than to any plain one, and it holds at most one word of its own
  (Meaning.small_talk).
Texts are embedded as passages and words as queries, through the embedder the cognition was
given: a cached embedder (embedding.CachedEmbedder) returns a stored text's vector without
computing it again. The bundled embedder's vectors of the prototypes, the everyday sentences
and their words ship in REFERENCE_VECTORS, so that no process spends its first seconds (about
1,100 texts: 10 s on two cores) embedding them.
"""

import functools
import re
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from graphmem.cognition.prototypes import EVERYDAY, PLAIN, SENTENCES, SMALL_TALK
from graphmem.embedding import Embedder, Purpose
from graphmem.similarity import Vectors, inner_products
from graphmem.terms import HAN, words, written_words

Language = Literal["en", "zh"]
LANGUAGES: tuple[Language, Language] = ("en", "zh")
WORD_MARGIN = 0.01
"""How much nearer to each other than to everyday words two words must be to be alike. On 500
random pairs of turns of two LoCoMo dev conversations, 13% hold a pair of alike words at 0.01
(8% at 0.02, 27% at 0), where 40-47% share a content word. Milk and dairy are alike by 0.049,
milk and 牛奶 by 0.093, 鲜奶 and 乳制品 by 0.013; cream and milk only by 0.002, and words of
one register can be as alike as words of one meaning (hurts and feels, 0.022): e5 is no word
model, and a pair alone never decides a cause (Meaning.says)."""

READABLE_CHARS = 2_000
"""The longest text judged by meaning; a longer one is judged by its words alone. Its embedding
would say little of any one thing in it, and e5 takes time by the length it is given (46 s for
96,000 characters, on two cores), not by the 512 tokens it reads."""
SAYING_MARGIN = 0.01
"""How much nearer to each other than to small talk a text and a prototype must be for the text
to say what the prototype says (Meaning.says); being of its kind takes only nearer."""
REFERENCE_VECTORS = Path(__file__).with_name("reference-vectors.npz")
"""The bundled embedder's vectors of `reference_texts()`, written by scripts/reference-vectors:
arrays `model` (the embedder's name), `purposes`, `texts` and `vectors` (float16)."""
MEMO_TEXTS = 8_192
"""How many texts' and words' vectors a Meaning keeps at hand (about 3 KB each)."""
MEMO_WORD_TABLES = 512
"""How many texts' word tables (Meaning._word_table, ~3 KB a word) a Meaning keeps: the hot
memories that recur in one working memory after another, and the items just judged."""
MEMO_PROTOTYPE_SETS = 64
"""How many sets of prototypes a Meaning keeps as arrays: the cognition's few (salience, events,
moods, causes by language) and the causal rules of the owners judged lately."""
SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s*")
"""Where a sentence ends, in English and Chinese."""
SMALL_TALK_SUBSTANCE = 1
"""The most words of substance that small talk holds (Meaning.small_talk): "Noted." has one."""
Nearest = list[list[tuple[str, float]]]
"""For each language (LANGUAGES' order), a word's two nearest everyday words and how near."""
Prototypes = Mapping[str, Sequence[str]]
"""Sentences by the name of what they say."""


SMALL_TALK_WORDS: dict[Language, frozenset[str]] = {
    lang: frozenset(
        word
        for sentence in SMALL_TALK[lang]
        for word in written_words(sentence)
        if words(word) and not any(word in written_words(plain) for plain in PLAIN[lang])
    )
    for lang in LANGUAGES
}
"""The words of small talk in each language: SMALL_TALK's content words that no plain sentence
uses (thanks, awesome, bye; 谢谢, 恭喜)."""


@dataclass(frozen=True)
class WordTable:
    """A text's content words as alike_words compares them, one row a word."""

    words: list[str]
    vectors: Vectors
    nearest: list[Nearest]
    """Each word's two nearest everyday words, in each language."""
    second: Vectors
    """How near each word is to its second nearest everyday word, in each language."""
    places: list[int]
    """Each word's language, as its place in LANGUAGES."""


@dataclass(frozen=True)
class Said:
    """What a text says: the name of its prototypes, and the words it has in common with one."""

    name: str
    evidence: tuple[str, ...]


def reference_texts() -> list[tuple[Purpose, str]]:
    """What Meaning compares texts with: prototypes and everyday sentences, and their words."""
    sentences = sorted(set(SENTENCES))
    vocabulary = sorted({word for sentence in sentences for word in written_words(sentence)})
    return [("passage", sentence) for sentence in sentences] + [
        ("query", word) for word in vocabulary
    ]


def write_reference_vectors(embedder: Embedder, path: Path = REFERENCE_VECTORS) -> None:
    """Embed `reference_texts()` and write them where Meaning finds them for this embedder."""
    texts = reference_texts()
    vectors = [
        vector
        for purpose in ("passage", "query")
        for vector in embedder.embed([text for kind, text in texts if kind == purpose], purpose)
    ]
    np.savez_compressed(
        path,
        model=np.array(embedder.name),
        purposes=np.array([purpose for purpose, _text in texts]),
        texts=np.array([text for _purpose, text in texts]),
        vectors=np.array(vectors, dtype=np.float16),
    )


@functools.lru_cache(maxsize=2)
def reference_vectors(model: str, path: Path = REFERENCE_VECTORS) -> dict[tuple[str, str], Vectors]:
    """The shipped vectors by (purpose, text), if they are the named embedder's; else none."""
    with np.load(path) as shipped:
        if str(shipped["model"]) != model:
            return {}
        return {
            (str(purpose), str(text)): vector.astype(np.float64)
            for purpose, text, vector in zip(
                shipped["purposes"], shipped["texts"], shipped["vectors"], strict=True
            )
        }


def readable(text: str) -> bool:
    """Whether a text is short enough to be judged by meaning (READABLE_CHARS)."""
    return len(text) <= READABLE_CHARS


def language(text: str) -> Language:
    """Chinese if the text holds a Han character, else English."""
    return "zh" if HAN.search(text) else "en"


class Meaning:
    """Sentences near prototypes and words alike, judged against everyday language."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._everyday: dict[Language, Vectors] = {}
        self._everyday_vocabulary: dict[Language, tuple[list[str], Vectors]] = {}
        self._passage_memo: dict[str, tuple[Vectors, Vectors]] = {}
        self._word_memo: dict[str, tuple[Vectors, Nearest, Vectors]] = {}
        self._word_table_memo: dict[str, WordTable] = {}
        self._prototype_memo: dict[tuple[str, ...], tuple[Vectors, Vectors, Vectors]] = {}
        self._reference = reference_vectors(embedder.name)

    def read(self, texts: Sequence[str]) -> None:
        """Embed texts in one batch and keep them at hand, for the judgements that follow.

        Judging items one by one would call the embedder once an item, each call's own cost
        (~40 ms for e5 on two cores) many times over.
        """
        self._passages([text for text in texts if readable(text)])

    def nearest(self, texts: Sequence[str], prototypes: Prototypes) -> list[str | None]:
        """For each text, the name of the prototype it is nearest to of those it is near, if any.

        Near against small talk (see the module docstring): the kind of thing a text is (a
        complaint of health, a plan, a mood, a trip).
        """
        read = [text for text in texts if readable(text)]
        if not read:
            return [None] * len(texts)
        names = [name for name, group in prototypes.items() for _ in group]
        sentences = tuple(sentence for group in prototypes.values() for sentence in group)
        kinds = {
            text: names[int(np.argmax(row))] if row.max() > 0 else None
            for text, row in zip(read, self._margins(read, sentences), strict=True)
        }
        return [kinds.get(text) for text in texts]

    def small_talk(self, text: str, echoed: Set[str] = frozenset()) -> bool:
        """Whether a text is small talk: nearest to small talk, and with next to no substance.

        Each of its sentences is nearest, of the everyday sentences of its language, to one of
        prototypes.SMALL_TALK (a greeting, thanks, agreement, praise, a goodbye) rather than to
        a plain statement or question; and at most SMALL_TALK_SUBSTANCE of its content words say
        something: a word of substance is neither a word of small talk (one of SMALL_TALK's words
        that no plain sentence uses, or a word whose nearest everyday word is one) nor one of
        the `echoed` words (those of what it answers: "Nice, enjoy the visit!" after a visit is
        announced). "Thanks! My sister arrives on Monday" is not small talk, nor is "Yeah, I
        play the clarinet, since I was young". A text too long to read by meaning is none.
        """
        if not readable(text) or not all(self._nearest_small_talk([text])):
            return False
        table = self._word_table(text)
        substance = [
            word
            for word, nearest, place in zip(table.words, table.nearest, table.places, strict=True)
            if not words(word) <= echoed
            and word not in SMALL_TALK_WORDS[LANGUAGES[place]]
            and nearest[place][0][0] not in SMALL_TALK_WORDS[LANGUAGES[place]]
        ]
        sentences = [part for part in SENTENCE_END.split(text.strip()) if part]
        return len(substance) <= SMALL_TALK_SUBSTANCE and (
            len(sentences) == 1 or all(self._nearest_small_talk(sentences))
        )

    def everyday_nearness(self, vector: Sequence[float], text: str) -> float:
        """How near a vector is (cosine) to the nearest everyday sentence of the text's language."""
        rows = np.array([vector], dtype=np.float64)
        return float(inner_products(_unit(rows), self._everyday_sentences(language(text))).max())

    def _nearest_small_talk(self, texts: Sequence[str]) -> list[bool]:
        """For each text, whether its nearest everyday sentence, in its language, is small talk.

        The texts are embedded in one batch (a text's sentences, each its own embedding).
        """
        vectors, _bars = self._passages(texts)
        found = []
        for text, vector in zip(texts, vectors, strict=True):
            lang = language(text)
            everyday = self._everyday_sentences(lang)
            nearest = int(np.argmax(inner_products(vector[None, :], everyday)))
            found.append(EVERYDAY[lang][nearest] in SMALL_TALK[lang])
        return found

    def says(self, text: str, prototypes: Prototypes, against: Sequence[str] = ()) -> Said | None:
        """What a text says of the prototypes' names, with the words that show it; None if none.

        The name of the nearest prototype that the text has words in common with (shared or
        alike), of those it is near by SAYING_MARGIN at least, unless a sentence `against` it
        (what says none of the names) is nearer still. Nearness alone does not tell things of
        one kind apart (complaints of health are all near each other, "I'm running hot and
        shaking" a shade nearer a sore throat than a fever), and words tell a sore throat from
        an allergy; "my knee hurts after the run" is nearest to sore legs, against the causes.
        """
        if not readable(text):
            return None
        names = {sentence: name for name, group in prototypes.items() for sentence in group}
        sentences = (*names, *against)
        [row] = self._margins([text], sentences)
        for index in np.argsort(-row, kind="stable").tolist():
            if row[index] <= SAYING_MARGIN or index >= len(names):
                return None
            evidence = self.common_words(text, sentences[index])
            if evidence:
                return Said(name=names[sentences[index]], evidence=evidence)
        return None

    def common_words(self, text: str, other: str) -> tuple[str, ...]:
        """The words two texts have in common: shared by stem, then alike ("mouth ~ swallow")."""
        shared = [word for word in written_words(text) if words(word) & words(other)]
        alike = [f"{word} ~ {partner}" for word, partner in self.alike_words(text, other)]
        return (*shared, *alike)

    def alike_words(self, left: str, right: str) -> list[tuple[str, str]]:
        """Pairs of alike words of two texts (see the module docstring), each left word once."""
        if not (readable(left) and readable(right)):
            return []
        left_table, right_table = self._word_table(left), self._word_table(right)
        if not left_table.words or not right_table.words:
            return []
        similarities = inner_products(left_table.vectors, right_table.vectors)
        # A bar is at least a word's second nearest everyday word (a partner can only be one
        # of the two nearest): only the pairs above that need the exact bar.
        lowest = np.maximum(
            left_table.second[:, right_table.places], right_table.second[:, left_table.places].T
        )
        pairs: dict[str, str] = {}
        for i, j in np.argwhere(similarities - lowest > WORD_MARGIN).tolist():
            word, other = left_table.words[i], right_table.words[j]
            if word in pairs or words(word) & words(other) or _spelt_alike(word, other):
                continue
            bar = max(
                _bar(left_table.nearest[i][right_table.places[j]], other),
                _bar(right_table.nearest[j][left_table.places[i]], word),
            )
            if similarities[i, j] - bar > WORD_MARGIN:
                pairs[word] = other
        return list(pairs.items())

    def _margins(self, texts: Sequence[str], sentences: tuple[str, ...]) -> Vectors:
        """How near each text is to each sentence, over what puts either nearer to small talk.

        For a text and a sentence: their cosine less the larger of the sentence's cosine with
        the nearest everyday sentence of the text's language and the text's with the nearest
        everyday sentence of the sentence's language; above 0, the two are near.
        """
        vectors, bars, languages = self._prototypes(sentences)
        text_vectors, text_bars = self._passages(texts)
        similarities = inner_products(text_vectors, vectors)
        said = np.array([LANGUAGES.index(language(text)) for text in texts])
        margins: Vectors = np.minimum(
            similarities - bars[:, said].T, similarities - text_bars[:, languages]
        )
        return margins

    def _vectors(self, texts: Sequence[str], purpose: Purpose) -> Vectors:
        """The texts' embeddings as unit rows: shipped ones as shipped, the others embedded."""
        missing = [text for text in texts if (purpose, text) not in self._reference]
        embedded = (
            dict(zip(missing, self._embedder.embed(missing, purpose), strict=True))
            if missing
            else {}
        )
        return _unit(
            np.array(
                [
                    self._reference[purpose, text] if text not in embedded else embedded[text]
                    for text in texts
                ],
                dtype=np.float64,
            )
        )

    def _passages(self, texts: Sequence[str]) -> tuple[Vectors, Vectors]:
        """Texts' vectors (as passages) and their bars in each language (LANGUAGES' order).

        A bar is how near a text is to the nearest everyday sentence of a language. Both are
        kept for the last MEMO_TEXTS texts (prototypes among them), so that the several
        judgements of one item read them once.
        """
        new = [text for text in dict.fromkeys(texts) if text not in self._passage_memo]
        if new:
            vectors = self._vectors(new, "passage")
            for text, vector, bars in zip(new, vectors, self._bars(vectors), strict=True):
                self._passage_memo[text] = (vector, bars)
        rows = [self._passage_memo[text] for text in texts]
        _forget_oldest(self._passage_memo)
        return np.array([vector for vector, _bars in rows]), np.array([bars for _v, bars in rows])

    def _prototypes(self, sentences: tuple[str, ...]) -> tuple[Vectors, Vectors, Vectors]:
        """A set of prototypes as arrays: vectors, bars and languages (LANGUAGES' places).

        Kept for MEMO_PROTOTYPE_SETS sets: every item is judged against the same few, and
        assembling their rows for each item took longer than comparing the item with them.
        """
        arrays = self._prototype_memo.get(sentences)
        if arrays is None:
            vectors, bars = self._passages(sentences)
            languages = np.array([LANGUAGES.index(language(sentence)) for sentence in sentences])
            arrays = self._prototype_memo[sentences] = (vectors, bars, languages)
            _forget_oldest(self._prototype_memo, MEMO_PROTOTYPE_SETS)
        return arrays

    def _bars(self, vectors: Vectors) -> Vectors:
        """For each vector, how near it is to the nearest everyday sentence of each language."""
        return np.column_stack(
            [
                inner_products(vectors, self._everyday_sentences(lang)).max(axis=1)
                for lang in LANGUAGES
            ]
        )

    def _everyday_sentences(self, lang: Language) -> Vectors:
        """The everyday sentences of a language, embedded once."""
        if lang not in self._everyday:
            self._everyday[lang] = self._vectors(EVERYDAY[lang], "passage")
        return self._everyday[lang]

    def _word_table(self, text: str) -> WordTable:
        """A text's content words with their vectors (as queries) and nearest everyday words.

        Each word's vector and nearest everyday words are kept for MEMO_TEXTS words, each
        text's table for MEMO_WORD_TABLES texts: the hot memories of a working memory are
        compared with one item after another.
        """
        table = self._word_table_memo.get(text)
        if table is not None:
            return table
        said = [word for word in written_words(text) if words(word)]
        new = [word for word in dict.fromkeys(said) if word not in self._word_memo]
        if new:
            vectors = self._vectors(new, "query")
            nearest = self._nearest_everyday_words(new, vectors)
            for word, vector, near in zip(new, vectors, nearest, strict=True):
                second = np.array([near[place][1][1] for place in range(len(LANGUAGES))])
                self._word_memo[word] = (vector, near, second)
        rows = [self._word_memo[word] for word in said]
        _forget_oldest(self._word_memo)
        table = self._word_table_memo[text] = WordTable(
            words=said,
            vectors=np.array([vector for vector, _near, _second in rows]),
            nearest=[near for _vector, near, _second in rows],
            second=np.array([second for _vector, _near, second in rows]),
            places=[LANGUAGES.index(language(word)) for word in said],
        )
        _forget_oldest(self._word_table_memo, MEMO_WORD_TABLES)
        return table

    def _nearest_everyday_words(self, said: Sequence[str], vectors: Vectors) -> list[Nearest]:
        """For each word, in each language (LANGUAGES' order), its two nearest everyday words.

        Itself left out; nearest first.
        """
        found: list[Nearest] = [[] for _ in said]
        for lang in LANGUAGES:
            vocabulary, everyday = self._everyday_words(lang)
            similarities = inner_products(vectors, everyday)
            ranked = np.argsort(-similarities, axis=1)[:, :3].tolist()
            for row, word in enumerate(said):
                found[row].append(
                    [
                        (vocabulary[index], float(similarities[row, index]))
                        for index in ranked[row]
                        if vocabulary[index] != word
                    ][:2]
                )
        return found

    def _everyday_words(self, lang: Language) -> tuple[list[str], Vectors]:
        """The content words of a language's everyday sentences and their vectors, made once."""
        if lang not in self._everyday_vocabulary:
            vocabulary = sorted({word for text in EVERYDAY[lang] for word in written_words(text)})
            self._everyday_vocabulary[lang] = (vocabulary, self._vectors(vocabulary, "query"))
        return self._everyday_vocabulary[lang]


def _forget_oldest(memo: dict[Any, Any], kept: int = MEMO_TEXTS) -> None:
    """Drop a memo's oldest entries beyond `kept`."""
    while len(memo) > kept:
        del memo[next(iter(memo))]


def _bar(nearest: list[tuple[str, float]], partner: str) -> float:
    """How near a word is to everyday language: its nearest everyday word but its partner."""
    return next(similarity for word, similarity in nearest if word != partner)


def _spelt_alike(word: str, other: str) -> bool:
    """Whether one English word is spelt inside the other (hives, chives).

    An embedder that reads words by their pieces finds such words alike whatever they mean.
    """
    if HAN.search(word) or HAN.search(other):
        return False
    shorter, longer = sorted((word, other), key=len)
    return shorter in longer


def _unit(matrix: Vectors) -> Vectors:
    """The rows scaled to length 1 (a zero row stays zero)."""
    norms = np.linalg.norm(matrix, axis=1)
    unit: Vectors = matrix / np.where(norms == 0.0, 1.0, norms)[:, None]
    return unit
