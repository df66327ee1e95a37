"""MCP servers as a tool source: a team's servers, their tools imported as team tools, and calls through the SDK.

``models`` the server row; ``policy`` where a server may be reached (the endpoints' allow-list) and which stdio
servers exist (the administrator's settings); ``connect`` opens the SDK transport; ``traffic`` records the JSON-RPC
messages of one exchange; ``client`` lists and calls tools; ``results`` maps a tool result to the internal format;
``sync`` imports the listed tools; ``answer`` answers one call of an imported tool.
"""
