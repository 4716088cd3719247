"""The cognition port answered by a language model behind an OpenAI-compatible endpoint."""

from pydantic import BaseModel

from graphmem.cognition.base import (
    DIGEST_DIALOGUE,
    JUDGE_FACTS,
    LABEL_ATTENTION,
    MERGE_EVENT,
    PERCEIVE,
    SYSTEM_RULES,
    AttentionLabel,
    AttentionQuestion,
    Dialogue,
    DialogueDigest,
    EventUpdate,
    FactComparisons,
    FactJudgements,
    Output,
    PerceptionQuestion,
    Perceptions,
    Storyline,
    Task,
)
from graphmem.errors import ModelOutputError
from graphmem.openai_endpoint import OpenAIEndpoint


class OpenAICognition:
    """Each task becomes one structured completion: the rules, the task, the input as JSON."""

    def __init__(self, endpoint: OpenAIEndpoint, model: str) -> None:
        self._endpoint = endpoint
        self.model = model
        """The chat model it asks."""

    def label_attention(self, question: AttentionQuestion) -> AttentionLabel:
        """Score the attention a new item deserves, in the light of its working memory."""
        return self._ask(LABEL_ATTENTION, question)

    def digest_dialogue(self, dialogue: Dialogue) -> DialogueDigest:
        """Summarise the substance of a dialogue and tag the major events it mentions."""
        return self._ask(DIGEST_DIALOGUE, dialogue)

    def merge_event(self, update: EventUpdate) -> Storyline:
        """Merge a new development into an event's storyline."""
        return self._ask(MERGE_EVENT, update)

    def judge_facts(self, question: FactComparisons) -> FactJudgements:
        """Judge how each new statement relates to each of its older ones, in their order."""
        answer = self._ask(JUDGE_FACTS, question)
        if len(answer.facts) != len(question.comparisons):
            raise ModelOutputError(
                f"the model judged {len(answer.facts)} new statements of"
                f" {len(question.comparisons)}"
            )
        for number, (judged, comparison) in enumerate(
            zip(answer.facts, question.comparisons, strict=True), start=1
        ):
            if len(judged.judgements) != len(comparison.older):
                raise ModelOutputError(
                    f"the model judged new statement {number} against"
                    f" {len(judged.judgements)} older statements of {len(comparison.older)}"
                )
        return answer

    def perceive(self, question: PerceptionQuestion) -> Perceptions:
        """Label each new item's attention and infer its impressions, in one judgement."""
        answer = self._ask(PERCEIVE, question)
        if len(answer.items) != len(question.items):
            raise ModelOutputError(
                f"the model perceived {len(answer.items)} items of {len(question.items)}"
            )
        return answer

    def _ask(self, task: Task[Output], question: BaseModel) -> Output:
        """Send one task to the model and return its validated answer."""
        return self._endpoint.complete(
            task.name,
            self.model,
            [
                {"role": "system", "content": f"{SYSTEM_RULES}\n\n{task.instructions}"},
                {"role": "user", "content": question.model_dump_json()},
            ],
            task.output,
        )
