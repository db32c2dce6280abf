"""A throwaway PostgreSQL server in a temporary folder, for the tests and `kiosk bench floor`.

Debian's PostgreSQL binaries (`initdb`, `pg_ctl`) are run directly; they refuse to run as root,
so as root they run as the `postgres` system user (which the Debian package creates), in a
folder that user owns. The server listens on 127.0.0.1 only, on a free port, with fsync off
(a test server: a crash of the machine loses it anyway). A table PC never uses this.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

from kiosk.errors import KioskError


def postgres_bindir() -> Path:
    """The folder of Debian's PostgreSQL server binaries (newest version installed)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).resolve().parent
    raise KioskError("PostgreSQL is not installed: apt-get install postgresql (or bash scripts/setup --test)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class TempCluster:
    """initdb + pg_ctl in a temporary folder; `dsn(db)` gives a loopback connection string."""

    def __init__(self, port: int | None = None):
        self.bindir = postgres_bindir()
        self.port = port or free_port()
        self.root = Path(tempfile.mkdtemp(prefix="kiosk-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self._as_user: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")
            self._as_user = ["runuser", "-u", "postgres", "--"]

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        cmd = [*self._as_user, str(self.bindir / args[0]), *args[1:]]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if check and done.returncode != 0:
            tail = self.log.read_text()[-2000:] if self.log.exists() else ""
            raise RuntimeError(f"{' '.join(cmd)} failed: {done.stdout}{done.stderr}{tail}")
        return done

    def start(self) -> "TempCluster":
        if not self.data.exists():
            self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync",
                      "-E", "UTF8", "--locale=C.UTF-8")
        options = (f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root} -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "-t", "60", "start")
        return self

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def restart(self, mode: str = "immediate") -> None:
        """Stop (`immediate`: like a crash, no shutdown checkpoint) and start again."""
        self.stop(mode)
        self.start()

    def dsn(self, dbname: str = "postgres", user: str = "postgres") -> str:
        return f"host=127.0.0.1 port={self.port} dbname={dbname} user={user} connect_timeout=5"

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.dsn(name)

    def close(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)
