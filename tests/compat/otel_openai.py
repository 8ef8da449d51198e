"""An instrumented run of the OpenAI chat model against a local stand-in server: server, response id, cost."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from _otel_probe import meter_provider, print_metrics, print_spans, tracer_provider
from pydantic_ai import Agent
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

COMPLETION = {
    'id': 'chatcmpl-1',
    'object': 'chat.completion',
    'created': 1700000000,
    'model': 'gpt-4o-2024-08-06',
    'choices': [{'index': 0, 'message': {'role': 'assistant', 'content': 'Hello!'}, 'finish_reason': 'stop'}],
    'usage': {'prompt_tokens': 1000, 'completion_tokens': 200, 'total_tokens': 1200},
}


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers['Content-Length']))
        body = json.dumps(COMPLETION).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
provider = OpenAIProvider(base_url=f'http://127.0.0.1:{server.server_address[1]}/v1', api_key='test-key')
settings = InstrumentationSettings(tracer_provider=tracer_provider, meter_provider=meter_provider)
agent = Agent(OpenAIChatModel('gpt-4o', provider=provider), instrument=settings)
print(agent.run_sync('Hi', model_settings={'temperature': 0.2, 'seed': 7}).output)
server.shutdown()
server.server_close()
# The port is the server's own, chosen by the OS.
print_spans(skip={'server.port'})
print_metrics()
