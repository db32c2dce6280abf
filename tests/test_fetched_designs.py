"""`datasets/sources.py`: how fetched designs are measured and when a cached one is written again."""

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "datasets"))

import sources  # noqa: E402


def test_konqi_modern_is_measured_at_several_ink_lines_and_no_other_kde_design_is():
    """kde-konqi-modern's pip touches its rank: at the one line of 25 six faces measured nothing and its showdowns
    held 46 cards (model card, "kde-konqi-modern"); the other KDE designs keep the boxes their recipes were made with."""
    assert sources.KDE_INK_LINES == {"svg-konqi-modern": (25, 40, 60, 80)}


def test_a_konqi_cache_measured_at_one_line_is_written_again_and_others_are_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "CACHED_ART", tmp_path)

    def cached(deck_id: str, meta: dict) -> None:
        (tmp_path / deck_id).mkdir()
        (tmp_path / deck_id / "deck.json").write_text(json.dumps(meta))

    assert not sources._kde_cached("kde-konqi-modern", "svg-konqi-modern")  # not there: fetched
    cached("kde-konqi-modern", {"id": "kde-konqi-modern", "cards": {}})  # as fetched before: 46 faces at 25
    cached("kde-nicu-white", {"id": "kde-nicu-white", "cards": {}})
    assert not sources._kde_cached("kde-konqi-modern", "svg-konqi-modern")
    assert sources._kde_cached("kde-nicu-white", "svg-nicu-white")
    (tmp_path / "kde-konqi-modern" / "deck.json").write_text(json.dumps({"id": "kde-konqi-modern", "ink_line": 60}))
    assert sources._kde_cached("kde-konqi-modern", "svg-konqi-modern")
