"""Dealer-assist computer-vision kiosk for Chinese Poker tables."""

__version__ = "0.1.0"
