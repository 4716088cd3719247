"""The cognition port (every judgement asked of a model), its OpenAI and offline implementations."""
