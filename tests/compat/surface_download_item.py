# pyright: basic, reportDeprecated=false
# A program run under upstream and this package to compare what they print; it calls APIs dynamically.
"""`download_item` against a local HTTP server: data formats, type formats, content types, errors."""

import asyncio
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from pydantic_ai.messages import DocumentUrl, ImageUrl
from pydantic_ai.models import download_item

FILES = {
    '/a.png': (b'\x89PNG', 'image/png'),
    '/b.txt': (b'hello', 'text/plain; charset=utf-8'),
    '/c.pdf': (b'%PDF', ''),
}


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path not in FILES:
            self.send_response(404)
            self.end_headers()
            return
        data, content_type = FILES[self.path]
        self.send_response(200)
        if content_type:
            self.send_header('Content-Type', content_type)
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
base = f'http://127.0.0.1:{server.server_address[1]}'


async def main() -> None:
    for item in (ImageUrl(f'{base}/a.png'), DocumentUrl(f'{base}/b.txt'), DocumentUrl(f'{base}/c.pdf')):
        for data_format in ('bytes', 'base64', 'base64_uri', 'text'):
            for type_format in ('mime', 'extension'):
                try:
                    print(data_format, type_format, await download_item(item, data_format, type_format))
                except Exception as e:
                    print(type(e).__name__, str(e).replace(base, 'BASE'))
    try:
        await download_item(ImageUrl(f'{base}/missing.png'))
    except Exception as e:
        print(type(e).__name__, str(e).replace(base, 'BASE').splitlines()[0])


asyncio.run(main())
server.shutdown()
