"""Floor PIN hashing, PIN attempt rate limiting and CSRF tokens for the dealer display.

The floor PIN is never stored: only a PBKDF2-SHA256 hash with its salt and iteration
count, as one string `pbkdf2_sha256$<iterations>$<salt hex>$<hash hex>` in the config
key `web.floor_pin_hash` (`kiosk pin` writes it).

>>> stored = hash_pin("4321", iterations=1000)
>>> verify_pin("4321", stored), verify_pin("1234", stored)
(True, False)
>>> verify_pin("4321", "not a hash")
False
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import defaultdict, deque

from kiosk.errors import KioskError

SCHEME = "pbkdf2_sha256"
DEFAULT_ITERATIONS = 200_000
MIN_PIN_LENGTH = 4


def check_pin_text(pin: str) -> str:
    """A floor PIN is 4 to 12 digits (typed on the touch screen's number pad)."""
    pin = pin.strip()
    if not (pin.isdigit() and MIN_PIN_LENGTH <= len(pin) <= 12):
        raise KioskError(f"a floor PIN is {MIN_PIN_LENGTH} to 12 digits, got {len(pin)} characters")
    return pin


def hash_pin(pin: str, iterations: int = DEFAULT_ITERATIONS, salt: bytes | None = None) -> str:
    salt = salt if salt is not None else secrets.token_bytes(16)
    digest = hashlib.pbkdf2_hmac("sha256", pin.encode(), salt, iterations)
    return f"{SCHEME}${iterations}${salt.hex()}${digest.hex()}"


def verify_pin(pin: str, stored: str | None) -> bool:
    """True only when `stored` is a well-formed hash of exactly this PIN."""
    if not stored or not isinstance(pin, str):
        return False
    try:
        scheme, iterations, salt_hex, digest_hex = stored.split("$")
        if scheme != SCHEME:
            return False
        digest = hashlib.pbkdf2_hmac("sha256", pin.encode(), bytes.fromhex(salt_hex), int(iterations))
    except ValueError:
        return False
    return hmac.compare_digest(digest.hex(), digest_hex)


def is_pin_hash(text: str | None) -> bool:
    parts = (text or "").split("$")
    return len(parts) == 4 and parts[0] == SCHEME and parts[1].isdigit()


class AttemptLimiter:
    """At most `limit` failed PIN attempts per client in any `window` seconds.

    Once a client has used them up, every attempt (right PIN or wrong) is refused
    until the oldest failure leaves the window, so guessing stays slow.
    """

    def __init__(self, limit: int = 5, window: float = 60.0, clock=time.monotonic) -> None:
        self.limit = limit
        self.window = window
        self._clock = clock
        self._failures: dict[str, deque[float]] = defaultdict(deque)
        self._lock = threading.Lock()

    def _trim(self, client: str) -> deque[float]:
        now = self._clock()
        failures = self._failures[client]
        while failures and now - failures[0] >= self.window:
            failures.popleft()
        return failures

    def retry_after(self, client: str) -> float:
        """Seconds until this client may try again; 0 when it may try now."""
        with self._lock:
            failures = self._trim(client)
            if len(failures) < self.limit:
                return 0.0
            return max(0.0, self.window - (self._clock() - failures[0]))

    def failed(self, client: str) -> int:
        """Record a failed attempt; returns the attempts this client has left."""
        with self._lock:
            failures = self._trim(client)
            failures.append(self._clock())
            return max(0, self.limit - len(failures))


def new_csrf_token() -> str:
    return secrets.token_urlsafe(32)


def same_token(given: str | None, expected: str | None) -> bool:
    return bool(given and expected) and hmac.compare_digest(str(given), str(expected))
