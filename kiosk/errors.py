"""Errors meant for a person: printed as one clear line, never as a traceback."""


class KioskError(Exception):
    """A user-facing problem (bad input, bad config, unreadable file).

    `exit_code` is what the command exits with: 2 for malformed input or usage,
    1 for input that was read but cannot be processed.
    """

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.exit_code = exit_code
