"""graphmem as the memory of the agent frameworks its users already run, one module each.

`openai_agents` (the OpenAI Agents SDK), `langchain` (LangChain 1.x agents, on LangGraph) and
`pydantic_ai`; each imports its framework only there and is installed with its extra. What they
share (whose memory a run uses, the faces they take, the texts their tools answer) is
graphmem.integrations.base.
"""
