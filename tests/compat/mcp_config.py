"""`load_mcp_servers`: server kinds, ids and prefixes, environment variables, and errors."""

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from pydantic_ai.mcp import load_mcp_servers

os.environ['MCP_COMPAT_TOKEN'] = 'secret'
config = {
    'mcpServers': {
        'fs': {
            'command': 'npx',
            'args': ['-y', 'x', '${MCP_COMPAT_TOKEN}'],
            'env': {'A': '${MCP_COMPAT_TOKEN}', 'B': '${MCP_COMPAT_MISSING:-fallback}'},
            'cwd': '/tmp',
        },
        'web': {'url': 'http://127.0.0.1:1/mcp', 'headers': {'Authorization': 'Bearer ${MCP_COMPAT_TOKEN}'}},
        'old': {'url': 'http://127.0.0.1:1/sse'},
        'other': {'url': 'http://127.0.0.1:1/x', 'transport': 'sse'},
    }
}
with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / 'mcp.json'
    path.write_text(json.dumps(config))
    for server in load_mcp_servers(path):
        print(type(server).__name__, repr(server), server.id, server.tool_prefix)
        print(' ', {k: v for k, v in vars(server).items() if k in ('command', 'args', 'env', 'cwd', 'url', 'headers')})
    bad_configs: list[dict[str, Any]] = [
        {'x': 1},
        {'mcpServers': {'a': {'command': 1}}},
        {'mcpServers': {'a': {'url': 'u', 'command': 'c'}}},
        {'mcpServers': {'a': {'command': '${MCP_COMPAT_MISSING}', 'args': []}}},
    ]
    for bad in bad_configs:
        path.write_text(json.dumps(bad))
        try:
            print(load_mcp_servers(str(path)))
        except Exception as e:
            print(type(e).__name__, str(e).replace(tmp, 'TMP'))
try:
    load_mcp_servers('/nonexistent/mcp.json')
except Exception as e:
    print(type(e).__name__, e)
