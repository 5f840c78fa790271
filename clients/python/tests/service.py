"""The real service the tests run against: `spend-auth dev` from the repository root, on a fresh
embedded database (PGlite in a temporary DATA_DIR) and its own Temporal dev server, with two
accounts made by `spend-auth accounts create --json` before it starts."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[3]
BIN = REPO / "bin" / "spend-auth.js"
START_TIMEOUT = float(os.environ.get("SPEND_AUTH_TEST_START_TIMEOUT", "180"))
# Settings of the developer's or CI's environment that must not reach the child: it runs embedded.
_DROPPED = ("DATABASE_URL", "PORT", "DATA_DIR", "TOKEN_SIGNING_KEY", "MANDATE_SIGNING_KEY", "IDEMPOTENCY_ENCRYPTION_KEY",
            "AUDIT_HMAC_KEY", "TEMPORAL_ADDRESS", "NODE_ENV", "LOG_LEVEL", "LOG_FORMAT", "HOST")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Account:
    id: str
    test_key: str
    live_key: str


@dataclass
class Service:
    process: subprocess.Popen[bytes]
    data_dir: Path
    port: int
    main: Account
    limited: Account
    started_in: float
    ids: dict[str, Any] = field(default_factory=dict)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def log(self) -> str:
        try:
            return (self.data_dir / "dev.log").read_text(errors="replace")[-6000:]
        except OSError:
            return ""

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.data_dir, ignore_errors=True)


def _env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED}
    env.update(DATA_DIR=str(data_dir / "data"), NODE_ENV="development", **extra)
    return env


def _create_account(data_dir: Path, name: str, rate_limit: int) -> Account:
    out = subprocess.run(
        ["node", str(BIN), "accounts", "create", "--name", name, "--plan", "enterprise", "--rate-limit", str(rate_limit), "--json"],
        cwd=REPO, env=_env(data_dir, LOG_LEVEL="warn"), capture_output=True, text=True, timeout=120, check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(f"accounts create failed ({out.returncode}):\n{out.stdout}\n{out.stderr}")
    created = json.loads(out.stdout.strip().splitlines()[-1])
    return Account(created["account"]["id"], created["keys"]["test"], created["keys"]["live"])


def start_service() -> Service:
    began = time.monotonic()
    data_dir = Path(tempfile.mkdtemp(prefix="spend-auth-py-"))
    # The accounts first: the embedded database is one process's at a time.
    main = _create_account(data_dir, "Python client tests", 1_000_000)
    limited = _create_account(data_dir, "Python client rate limit", 2)
    port = free_port()
    log = open(data_dir / "dev.log", "wb")  # noqa: SIM115 (the child writes it for its whole life)
    process = subprocess.Popen(
        ["node", str(BIN), "dev"], cwd=REPO, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
        # Webhook deliveries to the tests' receiver on 127.0.0.1.
        env=_env(data_dir, PORT=str(port), LOG_LEVEL="info", WEBHOOK_ALLOW_PRIVATE_URLS="true"),
    )
    service = Service(process, data_dir, port, main, limited, 0.0)
    deadline = time.monotonic() + START_TIMEOUT
    try:
        while "API listening" not in service.log():
            if process.poll() is not None:
                raise RuntimeError(f"spend-auth dev exited ({process.returncode}) before listening:\n{service.log()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"spend-auth dev did not listen within {START_TIMEOUT:.0f} s:\n{service.log()}")
            time.sleep(0.2)
        # Held requests and approvals need the workflow engine: wait until the service reaches it.
        while True:
            ready = httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=5).json()
            if ready.get("workflow_engine") == "up":
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"the workflow engine did not come up within {START_TIMEOUT:.0f} s: {ready}\n{service.log()}")
            time.sleep(0.5)
    except BaseException:
        service.stop()
        raise
    service.started_in = time.monotonic() - began
    return service
