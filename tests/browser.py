"""A headless Chromium driven over the Chrome DevTools protocol, for tests that look at a page as
a person would: what it logs, what it requests, what it lays out, a screenshot.

The protocol runs over a pipe (``--remote-debugging-pipe``: the browser reads JSON messages on
its fd 3 and writes them on its fd 4, each ended by a NUL byte), so no port, no websocket and no
package beyond the standard library. The flags keep Chromium from reaching the network on its
own (component updates, sync, QUIC probes), which a closed network would otherwise refuse
noisily; each browser gets a fresh profile directory.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

#: Debian's package and the usual other names
EXECUTABLES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)


def find_chromium() -> str | None:
    """The Chromium executable ($CHROMIUM, else the first of :data:`EXECUTABLES` on PATH)."""
    given = os.environ.get("CHROMIUM")
    if given:
        return given
    for name in EXECUTABLES:
        found = shutil.which(name)
        if found:
            return found
    return None


class Browser:
    """One headless Chromium with one page (``with Browser(path) as browser: ...``)."""

    def __init__(self, executable: str, *, width: int = 1366, height: int = 768) -> None:
        self.profile = tempfile.mkdtemp(prefix="divaeval-chromium-")
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()

        def wire_pipes() -> None:  # in the child: its fd 3 reads our commands, fd 4 answers
            read_end = fcntl.fcntl(to_browser_read, fcntl.F_DUPFD, 10)
            write_end = fcntl.fcntl(from_browser_write, fcntl.F_DUPFD, 10)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        self._stderr = open(os.path.join(self.profile, "stderr.log"), "wb")  # noqa: SIM115
        self.process = subprocess.Popen(
            [
                executable,
                *FLAGS,
                f"--user-data-dir={self.profile}",
                f"--window-size={width},{height}",
            ],
            preexec_fn=wire_pipes,
            close_fds=False,  # fds 3 and 4 stay open; every other one of ours closes on exec
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._stderr,
        )
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._messages: queue.Queue = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._next_id = 0
        self.events: list[dict] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable", session=True)
        self.call(
            "Emulation.setDeviceMetricsOverride",
            session=True,
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )

    def _read(self) -> None:
        buffer = b""
        with os.fdopen(self._from_browser, "rb", buffering=0) as stream:
            while True:
                chunk = stream.read(65536)
                if not chunk:
                    self._messages.put(None)
                    return
                buffer += chunk
                *complete, buffer = buffer.split(b"\0")
                for message in complete:
                    self._messages.put(json.loads(message))

    def call(self, method: str, *, session: bool = False, timeout: float = 30.0, **params):
        """Send one command and wait for its result (events meanwhile go to ``events``)."""
        self._next_id += 1
        message: dict = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._messages.get(timeout=max(deadline - time.monotonic(), 0.01))
            if reply is None:
                raise RuntimeError("chromium closed the pipe: " + self.stderr_tail())
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str, timeout: float = 30.0) -> dict:
        """The first event ``method`` (already received or arriving within ``timeout``)."""
        deadline = time.monotonic() + timeout
        seen = 0
        while True:
            for event in self.events[seen:]:
                if event.get("method") == method:
                    return event
            seen = len(self.events)
            reply = self._messages.get(timeout=max(deadline - time.monotonic(), 0.01))
            if reply is None:
                raise RuntimeError("chromium closed the pipe: " + self.stderr_tail())
            self.events.append(reply)

    def open(self, path: Path) -> None:
        """Load a file and wait for its load event."""
        self.call("Page.navigate", session=True, url=path.resolve().as_uri())
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page (JSON-serialisable)."""
        result = self.call(
            "Runtime.evaluate", session=True, expression=expression, returnByValue=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def hover(self, x: float, y: float) -> None:
        self.call("Input.dispatchMouseEvent", session=True, type="mouseMoved", x=x, y=y)

    def screenshot(self, path: Path) -> None:
        """A PNG of the whole page (beyond the window's height)."""
        metrics = self.call("Page.getLayoutMetrics", session=True)
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        clip = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}
        data = self.call(
            "Page.captureScreenshot",
            session=True,
            format="png",
            clip=clip,
            captureBeyondViewport=True,
        )["data"]
        path.write_bytes(base64.b64decode(data))

    def console_errors(self) -> list[str]:
        """Uncaught exceptions, console.error calls and error log entries so far."""
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                found.append(json.dumps(params["exceptionDetails"])[:500])
            elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
                found.append(json.dumps(params.get("args"))[:500])
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                found.append(params["entry"].get("text", ""))
        return found

    def requests(self) -> list[str]:
        """The URLs the page requested."""
        return [
            event["params"]["request"]["url"]
            for event in self.events
            if event.get("method") == "Network.requestWillBeSent"
        ]

    def stderr_tail(self) -> str:
        """The end of what the browser printed on stderr."""
        with open(os.path.join(self.profile, "stderr.log"), "rb") as log:
            return log.read()[-2000:].decode(errors="replace")

    def close(self) -> None:
        with contextlib.suppress(Exception):  # the browser may close the pipe first
            self.call("Browser.close", timeout=5)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._to_browser)
        self._stderr.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
