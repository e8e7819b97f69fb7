"""The MCP server (`zettelgraph mcp`): the reader's graph as tools and resources for an
assistant (Claude Desktop, an IDE agent), on the same service floor as the CLI and the web app.

Named `mcp_server`, not `mcp`, so `import mcp` inside it is always the SDK. `server.build_server`
is the factory; `state.open_state` opens what it serves, once per server.
"""
