"""The commands, one typed function each: a request in, a result out, for the CLI and the MCP server.

`cli.py` fills a request from its options and prints the result; `mcp/` fills the same request
from a tool's arguments and answers with the same result, so a command cannot behave differently
behind the two. One module per family of commands, so that each imports what it needs at its top
and a command imports only its own: `run` (validate, plan, run), `heal`, `publish`, `reports`
(merge, report, schema). A run prints its progress to the console it is given; nothing else here
prints, except the warnings a run or a publish gives on stderr.
"""
