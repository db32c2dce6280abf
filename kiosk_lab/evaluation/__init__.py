"""Scoring the card reader on labelled scenes and photos, and the model card's figures (`kiosk eval`)."""
