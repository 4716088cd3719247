"""How sure a recall is that it found something relevant to its query.

Three signals, each relative, so that they hold for any owner's memory and in either language:
- nearness: how much nearer to the query the most similar memory found is than the nearest
  everyday sentence of the query's language (cognition.prototypes.EVERYDAY) is
  (Meaning.everyday_nearness). An embedder puts every short text near any query (e5:
  0.75-0.85), so no cosine alone says "relevant"; everyday language sets the bar, as it does for
  the offline cognition (cognition.meaning).
- coverage: the share of the query's content terms (of its focus: graphmem.terms) that the
  memories found hold, in their text or as a speaker's name. A question about what memory does
  not hold names what no memory says: a person, a thing, a place.
- first coverage: the share of them that the first memory returned holds on its own. A large
  memory holds most words of any question somewhere (a LongMemEval haystack, of another
  question's asking); what answers a question says them together.
The confidence is the logistic function of a weighted sum of the three (ConfidencePolicy), its
weights fitted by benchmarks/confidence.py on half of the dev questions and reported on the rest.
"""

import math
from collections.abc import Sequence
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from graphmem.model import Memory, Turn
from graphmem.terms import terms


class ConfidencePolicy(BaseModel):
    """The weights of a recall's confidence: logistic(nearness, coverage, first coverage)."""

    model_config = ConfigDict(frozen=True)

    nearness: float = Field(50.02, description="weight of nearness (a cosine difference)")
    coverage: float = Field(6.22, description="weight of coverage (0-1)")
    first_coverage: float = Field(6.27, description="weight of the first memory's coverage (0-1)")
    intercept: float = Field(-10.56, description="the sum's constant")


class Found(Protocol):
    """A memory found, with the turns it came from."""

    @property
    def memory(self) -> Memory:
        """The memory."""

    @property
    def turns(self) -> list[Turn]:
        """Its turns."""


def coverage(focus: str, found: Sequence[Found]) -> float:
    """The share of the focus's content terms that the memories found hold (1 if it has none)."""
    wanted = terms(focus)
    if not wanted:
        return 1.0
    held: set[str] = set()
    for item in found:
        held |= terms(item.memory.text)
        held |= {term for turn in item.turns for term in terms(turn.speaker)}
    return len(wanted & held) / len(wanted)


class Signals(BaseModel):
    """What a recall's confidence is read from (this module's docstring says each)."""

    model_config = ConfigDict(frozen=True)

    nearness: float
    coverage: float
    first_coverage: float

    def confidence(self, policy: ConfidencePolicy) -> float:
        """The logistic function of the weighted signals: 0-1."""
        total = (
            policy.nearness * self.nearness
            + policy.coverage * self.coverage
            + policy.first_coverage * self.first_coverage
            + policy.intercept
        )
        return 1 / (1 + math.exp(-max(-50.0, min(50.0, total))))
