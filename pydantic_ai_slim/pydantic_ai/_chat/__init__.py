"""Chat front ends for any agent: a terminal chat (`Agent.to_cli()`, `pai-chat`) and a browser chat (`Agent.to_web()`).

Both install the approval toolkit's handler when the agent has none, so tools that need approval are asked about
inline, whatever the agent's output type.
"""
