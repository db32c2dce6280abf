"""Synthetic card-table scenes for training and testing the card reader.

`art` loads deck designs (committed CC0 art in `datasets/art/`, fetched decks in
`datasets/cache/art/`) and measures each card's corner indices; `table` lays out and
renders a table (`render_table`); `scenes` draws random layouts; `camera`,
`backgrounds` and `distractors` make the pictures look like a camera's;
`dataset` writes YOLO data sets; `demo` renders the demo recording.
"""
