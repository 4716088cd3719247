"""Content terms and words of a text in English and Chinese, which search and the rules compare."""

import functools
import re

import rjieba

WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
STEM_LENGTH = 5
"""English words are compared by their first five letters, so allergy and allergic match."""
POSSESSIVE = "'s"
"""The English possessive ending, dropped before the stem: John's is John."""

STOPWORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each even ever few
    for from further get got had has have having he her here hers herself him himself his how i
    i'd i'll i'm i've if in into is it it's its itself just let's like little me more most much
    my myself no nor not now of off on once only or other our ours ourselves out over own really
    same she should so some such than that that's the their theirs them themselves then there
    there's these they this those through to too under until up very was we we're were what
    when where which while who whom why will with would you you're your yours yourself today
    yesterday tomorrow thing things something anything one two lot lots make makes made feel
    felt think thought know knew want wanted see saw say said go went going come came take took
    day days time times way well good new old
    """.split()
)
HAN_STOPWORDS = frozenset(
    "我们 你们 他们 她们 这个 那个 一个 什么 怎么 没有 已经 还是 就是 可以 今天 昨天 明天".split()
)


def _singular(word: str) -> str:
    """A lower-cased English word without its possessive and plural endings.

    Harman's S-stemmer (1991): -ies to -y, -es to -e, -s dropped, each but after the letters that
    make it no plural (-eies, -aies; -aes, -ees, -oes; -us, -ss). The first five letters alone
    left short plurals apart: dogs and dog, names and name, John's and John (on LoCoMo's dev
    set Recall@10 81.9 → 82.3, multi-hop 48.9 → 50.1; CHANGELOG.md, 0.1.0).
    """
    word = word.removesuffix(POSSESSIVE)
    if word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if word.endswith("es") and not word.endswith(("aes", "ees", "oes")):
        return word[:-1]
    if word.endswith("s") and not word.endswith(("us", "ss")):
        return word[:-1]
    return word


def _english_words(lowered: str) -> list[str]:
    """The content words of a lower-cased text's English, stemmed, in order."""
    return [
        _singular(word)[:STEM_LENGTH]
        for word in WORD.findall(lowered)
        if word not in STOPWORDS and len(word) > 2 and not word.isdigit()
    ]


def _chinese_words(run: str) -> list[str]:
    """The words of two or more characters of a run of Chinese, as the segmenter cuts them."""
    return [word for word in rjieba.cut(run) if len(word) > 1 and word not in HAN_STOPWORDS]


def term_list(text: str) -> list[str]:
    """Content terms, each as often as it occurs (for term frequencies).

    English words in order; a run of Chinese gives its character bigrams, then its words of two
    or more characters as the segmenter (jieba) cuts them, so that a bigram which is a word
    counts twice and a bigram across two words once (on MADial zh, BM25 Recall@5 51.9 with
    bigrams, 48.2 with words, 53.9 with both).
    """
    lowered = text.lower()
    found = _english_words(lowered)
    for run in HAN.findall(lowered):
        if len(run) == 1:
            found.append(run)
        found += [
            run[start : start + 2]
            for start in range(len(run) - 1)
            if run[start : start + 2] not in HAN_STOPWORDS
        ]
        found += _chinese_words(run)
    return found


@functools.lru_cache(maxsize=65_536)
def terms(text: str) -> frozenset[str]:
    """Content terms: English words (lower case, no stop words, stemmed), Chinese bigrams, words.

    Cached: recall reads the same memory texts again and again.
    """
    return frozenset(term_list(text))


@functools.lru_cache(maxsize=65_536)
def words(text: str) -> frozenset[str]:
    """Content words: English words as in `terms`, Chinese words as the segmenter cuts them.

    Without the bigrams of `terms`, which help search find a word the segmenter cut otherwise
    but, being mostly not words, would make two Chinese texts that share their words look far
    apart: "我喜欢包猪肉韭菜饺子" shares 3 of its 4 words with "奶奶的饺子配方用猪肉、韭菜和姜", but
    only 3 of its 9 terms.
    """
    lowered = text.lower()
    return frozenset(
        _english_words(lowered)
        + [word for run in HAN.findall(lowered) for word in _chinese_words(run)]
    )


@functools.lru_cache(maxsize=65_536)
def written_words(text: str) -> tuple[str, ...]:
    """Content words as written (lower case, not stemmed), each once, in order.

    What the offline cognition compares by meaning word by word (cognition.meaning): a stem
    such as "allerg" is no word an embedder knows.
    """
    lowered = text.lower()
    found = [
        word
        for word in WORD.findall(lowered)
        if word not in STOPWORDS and len(word) > 2 and not word.isdigit()
    ]
    found += [word for run in HAN.findall(lowered) for word in _chinese_words(run)]
    return tuple(dict.fromkeys(found))


def mentions(text: str, cues: tuple[str, ...]) -> bool:
    """Whether a text mentions any cue: Chinese anywhere, English at a word start (short: whole)."""
    return _cue_pattern(cues).search(text.lower()) is not None


@functools.lru_cache(maxsize=1024)
def _cue_pattern(cues: tuple[str, ...]) -> re.Pattern[str]:
    """One expression that finds any of the cues, as `mentions` defines finding one.

    The cues are merged into a prefix tree (work, worked, worry: wor(?:k(?:ed|)|ry)), which
    finds the same cues as their plain alternation, 4x faster: at each position the expression
    reads each character once instead of trying every cue in turn.
    """
    english = {cue: r"\b" if len(cue) <= 3 else "" for cue in cues if not HAN.search(cue)}
    chinese = {cue: "" for cue in cues if HAN.search(cue)}
    parts = ([r"\b" + _prefix_tree(english)] if english else []) + (
        [_prefix_tree(chinese)] if chinese else []
    )
    return re.compile("|".join(parts) or "(?!)")


def _prefix_tree(endings: dict[str, str]) -> str:
    """An expression matching each key followed by its ending, shared prefixes written once."""
    branches: dict[str, dict[str, str]] = {}
    alternatives = []
    for cue, ending in endings.items():
        if cue:
            branches.setdefault(cue[0], {})[cue[1:]] = ending
        else:
            alternatives.append(ending)
    alternatives[:0] = [
        re.escape(first) + _prefix_tree(rest) for first, rest in sorted(branches.items())
    ]
    return alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"
