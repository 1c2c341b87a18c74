"""The control of tests/container/test_shm.py, run inside the image: the heavy page in Chromium
launched with flowwalk's arguments but with shared memory left in /dev/shm (no
--disable-dev-shm-usage, neither flowwalk's nor Playwright's default). Prints `crashed` or `rendered`."""

import functools
import http.server
import sys
import threading

from playwright.sync_api import Error, sync_playwright

from flowwalk.settings import CHROMIUM_ARGS, default_executable



class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=sys.argv[1]))
threading.Thread(target=server.serve_forever, daemon=True).start()
with sync_playwright() as pw:
    browser = pw.chromium.launch(executable_path=default_executable(),
                                 args=[a for a in CHROMIUM_ARGS if a != "--disable-dev-shm-usage"],
                                 ignore_default_args=["--disable-dev-shm-usage"])
    page = browser.new_page()
    try:
        page.goto(f"http://127.0.0.1:{server.server_port}/heavy.html")
        page.wait_for_selector("#end", timeout=60_000)
        page.screenshot(full_page=True, timeout=60_000)
        print("rendered")
    except Error as error:
        print("crashed" if "crash" in str(error).lower() else f"error: {error}")
    browser.close()
