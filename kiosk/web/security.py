"""Floor PIN hashing, PIN attempt rate limiting and CSRF tokens for the dealer display.

The floor PIN is never stored: only a PBKDF2-SHA256 hash with its salt and iteration
count, as one string `pbkdf2_sha256$<iterations>$<salt hex>$<hash hex>` in the config
key `web.floor_pin_hash` (`kiosk pin` writes it).

>>> stored = hash_pin("864213", iterations=1000)
>>> verify_pin("864213", stored), verify_pin("123456", stored)
(True, False)
>>> verify_pin("864213", "not a hash")
False
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from dataclasses import dataclass

from kiosk.errors import KioskError

SCHEME = "pbkdf2_sha256"
DEFAULT_ITERATIONS = 200_000
MIN_PIN_LENGTH = 6
CHECK_GRACE_S = 30.0  # longest a PIN check may take before its wait starts anyway


def check_pin_text(pin: str) -> str:
    """A floor PIN is 6 to 12 digits (typed on the touch screen's number pad)."""
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


@dataclass
class _Attempts:
    count: int = 0  # attempts since the last right PIN (the one in flight included)
    last: float = 0.0
    not_before: float = 0.0


class AttemptLimiter:
    """Wrong floor PINs slow guessing down without shutting the floor out.

    `begin(client)` counts the attempt under the lock *before* the slow hash is computed, so
    requests sent in parallel cannot slip past the count. The first `free` attempts cost nothing;
    from then on each attempt makes the next one wait twice as long as the one before (1 s, 2 s,
    4 s, ... up to `max_delay`). A right PIN clears the client's count (`succeeded`), and so does
    `forget` seconds without an attempt. Everyone behind one address shares a count, so a
    delay, never a lockout: the floor is at most `max_delay` away from its PIN.
    """

    def __init__(self, free: int = 5, base_delay: float = 1.0, max_delay: float = 300.0,
                 forget: float = 900.0, clock=time.monotonic) -> None:
        self.free, self.base_delay, self.max_delay, self.forget = free, base_delay, max_delay, forget
        self._clock = clock
        self._clients: dict[str, _Attempts] = {}
        self._lock = threading.Lock()

    def delay_after(self, count: int) -> float:
        """The wait imposed after the `count`-th attempt since the last right PIN.

        >>> [AttemptLimiter(free=3).delay_after(n) for n in range(1, 7)]
        [0.0, 0.0, 1.0, 2.0, 4.0, 8.0]
        """
        if count < self.free:
            return 0.0
        return min(self.max_delay, self.base_delay * 2 ** min(count - self.free, 30))

    def begin(self, client: str) -> float:
        """Count an attempt and return 0 (go ahead and check it), or the seconds to wait (not counted)."""
        with self._lock:
            now = self._clock()
            state = self._clients.get(client)
            if state is None or now - state.last >= self.forget:
                state = self._clients[client] = _Attempts()
            if now < state.not_before:
                return state.not_before - now
            state.count += 1
            state.last = now
            delay = self.delay_after(state.count)
            # While this attempt's hash is being checked nobody else may try; `failed` then starts
            # the wait from the answer (the grace only matters if the check never reports back).
            state.not_before = now + delay + (CHECK_GRACE_S if delay else 0.0)
            return 0.0

    def failed(self, client: str) -> None:
        """The attempt `begin` let through had a wrong PIN: the wait starts now."""
        with self._lock:
            state = self._clients.get(client)
            if state is not None:
                now = self._clock()
                state.last = now
                state.not_before = now + self.delay_after(state.count)

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._clients.pop(client, None)

    def attempts_left(self, client: str) -> int:
        """Attempts this client has before each one starts to cost a wait."""
        with self._lock:
            state = self._clients.get(client)
            return max(0, self.free - (state.count if state else 0))


def check_floor_pin(limiter: AttemptLimiter | None, client: str, pin: object, stored: str) -> float | bool:
    """The one floor-PIN check: a wait in seconds (> 0: refused unchecked), else True / False."""
    if limiter is not None:
        wait = limiter.begin(client)  # counted before the slow hash: parallel guesses cannot slip past
        if wait > 0:
            return wait
    right = verify_pin(str(pin or ""), stored)
    if limiter is not None:
        (limiter.succeeded if right else limiter.failed)(client)
    return right


def new_csrf_token() -> str:
    return secrets.token_urlsafe(32)


def same_token(given: str | None, expected: str | None) -> bool:
    return bool(given and expected) and hmac.compare_digest(str(given), str(expected))
