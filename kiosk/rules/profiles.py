"""Scoring profiles: every number of RULES.md §5-§6 as frozen data (a card room may define its own).

A profile holds the row point, the scoop, the two-four "overall" point, the super
bonus (D-7), the royalties table by row and hand category, the natural points, how
two naturals meet (D-9) and what a false declaration does (D-4).

>>> p = get_profile("mandarin")
>>> p.scoop, p.super_bonus, p.royalty("middle", Category.FULL_HOUSE), p.natural_value("dragon")
(6, 9, 2, 13)
>>> get_profile("two-four").overall_bonus
1
>>> custom = profile_from_dict({"name": "joes", "base": "mandarin", "scoop": 5})
>>> custom.scoop, custom.royalty("back", Category.STRAIGHT_FLUSH)
(5, 5)
>>> profile_from_dict({"name": "bad", "scoop": "six"})  # doctest: +IGNORE_EXCEPTION_DETAIL
Traceback (most recent call last):
...
kiosk.rules.profiles.ProfileError: profile 'bad': scoop: must be a whole number, not 'six'
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any, Mapping

from kiosk.cards import ROWS
from kiosk.errors import KioskError
from kiosk.rules.ranking import Category

NATURAL_KINDS = ("dragon", "six_pairs", "three_flushes", "three_straights")
NATURAL_RANKINGS = ("push", "capsa")
FALSE_NATURAL_SETTINGS = ("foul", "play_as_set")
# Categories a 3-card front can hold (RULES §2: no straights or flushes in the front).
FRONT_CATEGORIES = (Category.HIGH_CARD, Category.PAIR, Category.THREE_OF_A_KIND)
CATEGORY_BY_NAME = {c.name.lower(): c for c in Category}


class ProfileError(KioskError):
    """A profile definition that cannot be used; the message names the profile and the field."""

    def __init__(self, message: str):
        super().__init__(message, exit_code=2)


@dataclass(frozen=True, slots=True)
class ScoringProfile:
    """How one card room scores a showdown. Kinds are the `NaturalKind` values ("dragon", ...)."""

    name: str
    row_point: int = 1
    # two-four: one extra point for winning more rows than losing (the "overall").
    overall_bonus: int = 0
    # Collected instead of the row points (and overall) by a seat that wins all three rows.
    scoop: int = 6
    # D-7: collected instead of `scoop` from each opponent by a seat that scoops every
    # opponent, when it has at least `super_bonus_min_opponents`; None = no super bonus.
    super_bonus: int | None = 9
    super_bonus_min_opponents: int = 3
    # (row, category, bonus) for each bonus hand; D-6: paid to the row winner only.
    royalties: tuple[tuple[str, Category, int], ...] = ()
    natural_points: tuple[tuple[str, int], ...] = ()
    # D-9: "push" = a dragon collects from a non-dragon natural, any other two naturals push;
    # "capsa" = the stronger natural collects its points (kinds by `natural_order`, equal
    # kinds by the natural's own strength), an exact tie pushes.
    natural_ranking: str = "push"
    natural_order: tuple[str, ...] = NATURAL_KINDS  # strongest first
    false_natural: str = "foul"  # D-4: "foul" or "play_as_set"
    _royalty_index: dict = field(default_factory=dict, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        # One canonical order, so equal tables compare equal however they were written.
        ordered = tuple(sorted(self.royalties, key=lambda r: (ROWS.index(r[0]), -r[1])))
        object.__setattr__(self, "royalties", ordered)
        index = {row: [0] * len(Category) for row in ROWS}
        for row, category, points in self.royalties:
            index[row][category] = points
        object.__setattr__(self, "_royalty_index", {row: tuple(table) for row, table in index.items()})

    def royalty(self, row: str, category: Category) -> int:
        """The bonus a row of this category holds (0 when none)."""
        return self.row_royalties(row)[category]

    def row_royalties(self, row: str) -> tuple[int, ...]:
        """The bonus each category holds in this row, indexed by `Category`."""
        return self._royalty_index[row]

    def natural_value(self, kind: str) -> int:
        for name, points in self.natural_points:
            if name == kind:
                return points
        return 0

    def natural_strength(self, kind: str) -> int:
        """Higher is stronger, for `natural_ranking == "capsa"` between different kinds."""
        return len(self.natural_order) - self.natural_order.index(kind)

    def to_dict(self) -> dict:
        """The profile as the dict `profile_from_dict` reads back."""
        data = asdict(self)
        del data["_royalty_index"]
        table: dict[str, dict[str, int]] = {row: {} for row in ROWS}
        for row, category, points in self.royalties:
            table[row][category.name.lower()] = points
        data["royalties"] = table
        data["natural_points"] = dict(self.natural_points)
        data["natural_order"] = list(self.natural_order)
        return data


MANDARIN_ROYALTIES: tuple[tuple[str, Category, int], ...] = (
    ("back", Category.STRAIGHT_FLUSH, 5),
    ("back", Category.FOUR_OF_A_KIND, 4),
    ("middle", Category.STRAIGHT_FLUSH, 10),
    ("middle", Category.FOUR_OF_A_KIND, 8),
    ("middle", Category.FULL_HOUSE, 2),
    ("front", Category.THREE_OF_A_KIND, 3),
)
MANDARIN_NATURALS = (("dragon", 13), ("six_pairs", 4), ("three_flushes", 4), ("three_straights", 4))

BUILT_IN: dict[str, ScoringProfile] = {
    p.name: p
    for p in (
        ScoringProfile(
            "mandarin", royalties=MANDARIN_ROYALTIES, natural_points=MANDARIN_NATURALS
        ),
        ScoringProfile("one-six", super_bonus=None, natural_points=MANDARIN_NATURALS),
        ScoringProfile(
            "two-four",
            overall_bonus=1,
            scoop=4,
            super_bonus=None,
            natural_points=MANDARIN_NATURALS,
        ),
        ScoringProfile(
            "capsa",
            super_bonus=None,
            royalties=MANDARIN_ROYALTIES,
            natural_points=MANDARIN_NATURALS,
            natural_ranking="capsa",
        ),
    )
}
DEFAULT_PROFILE = "mandarin"


def get_profile(name: str, extra: Mapping[str, ScoringProfile] | None = None) -> ScoringProfile:
    """A built-in profile (or one of `extra`, which wins over a built-in of the same name)."""
    if extra and name in extra:
        return extra[name]
    try:
        return BUILT_IN[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted({*BUILT_IN, *(extra or {})}))
        raise ProfileError(f"unknown profile {name!r} (known: {known})") from None


_FIELDS = {
    "name", "base", "row_point", "overall_bonus", "scoop", "super_bonus",
    "super_bonus_min_opponents", "royalties", "natural_points", "natural_ranking",
    "natural_order", "false_natural",
}  # fmt: skip


def profile_from_dict(data: Any, extra: Mapping[str, ScoringProfile] | None = None) -> ScoringProfile:
    """Build a card room's profile from a dict, checking every field.

    `base` names a profile to start from (default: none, i.e. the field defaults, which
    are mandarin's numbers without royalties or naturals); every other field replaces the
    base's value whole, except `natural_points`, which is merged over the base's: a
    `royalties` table replaces the base's table (give `{}` for none).
    `royalties` is {row: {category: points}} with categories such as "full_house";
    `natural_points` is {kind: points}; all four kinds need points in the end.
    """
    if not isinstance(data, dict):
        raise ProfileError(f"a profile must be a JSON object, not {_type_name(data)}")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ProfileError("a profile needs a 'name' (text)")
    where = f"profile {name!r}"
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        raise ProfileError(
            f"{where}: unknown field {unknown[0]!r} (fields: {', '.join(sorted(_FIELDS))})"
        )
    base = _base_profile(where, name, data.get("base"), extra)
    profile = replace(base, **_changes(where, data, dict(base.natural_points)))
    missing = [k for k in NATURAL_KINDS if k not in dict(profile.natural_points)]
    if missing:
        raise ProfileError(f"{where}: natural_points: no points for {', '.join(missing)}")
    return profile


def _base_profile(where: str, name: str, base_name: Any, extra) -> ScoringProfile:
    if base_name is None:
        return ScoringProfile(name, natural_points=())
    if not isinstance(base_name, str):
        raise ProfileError(f"{where}: base: must be a profile name")
    try:
        return replace(get_profile(base_name, extra), name=name)
    except ProfileError as err:
        raise ProfileError(f"{where}: base: {err}") from None


def _changes(where: str, data: dict, natural_points: dict) -> dict[str, Any]:
    """Every field `data` sets, checked, as `replace` arguments; its `natural_points` merged over the base's."""
    changes: dict[str, Any] = {}
    for key in ("row_point", "overall_bonus", "scoop"):
        if key in data:
            changes[key] = _points(where, key, data[key])
    if "super_bonus" in data:
        value = data["super_bonus"]
        changes["super_bonus"] = None if value is None else _points(where, "super_bonus", value)
    if "super_bonus_min_opponents" in data:
        changes["super_bonus_min_opponents"] = _points(
            where, "super_bonus_min_opponents", data["super_bonus_min_opponents"], minimum=1
        )
    if "royalties" in data:
        changes["royalties"] = _royalties(where, data["royalties"])
    if "natural_points" in data:
        natural_points.update(_natural_points(where, data["natural_points"]))
        changes["natural_points"] = tuple((k, natural_points[k]) for k in NATURAL_KINDS if k in natural_points)
    if "natural_ranking" in data:
        changes["natural_ranking"] = _choice(
            where, "natural_ranking", data["natural_ranking"], NATURAL_RANKINGS
        )
    if "natural_order" in data:
        order = data["natural_order"]
        if not isinstance(order, list) or sorted(map(str, order)) != sorted(NATURAL_KINDS):
            raise ProfileError(
                f"{where}: natural_order: must list each of {', '.join(NATURAL_KINDS)} once, "
                "strongest first"
            )
        changes["natural_order"] = tuple(order)
    if "false_natural" in data:
        changes["false_natural"] = _choice(
            where, "false_natural", data["false_natural"], FALSE_NATURAL_SETTINGS
        )
    return changes


def profiles_from_json(data: Any) -> dict[str, ScoringProfile]:
    """One profile object or a list of them (later ones may use earlier ones as `base`)."""
    items = data if isinstance(data, list) else [data]
    found: dict[str, ScoringProfile] = {}
    for item in items:
        profile = profile_from_dict(item, found)
        found[profile.name] = profile
    return found


def _type_name(value: Any) -> str:
    return {
        dict: "an object", list: "a list", str: "text", bool: "true/false", type(None): "null",
        int: "a number", float: "a number",
    }.get(type(value), type(value).__name__)  # fmt: skip


MAX_POINTS = 1000  # keeps points x stake inside what settlement represents exactly


def _points(where: str, key: str, value: Any, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ProfileError(f"{where}: {key}: must be a whole number, not {str(value)[:40]!r}")
    if not minimum <= value <= MAX_POINTS:
        shown = value if abs(value) < 10**12 else f"a number with {len(str(abs(value)))} digits"
        raise ProfileError(f"{where}: {key}: must be from {minimum} to {MAX_POINTS}, not {shown}")
    return value


def _choice(where: str, key: str, value: Any, options: tuple[str, ...]) -> str:
    if value not in options:
        raise ProfileError(f"{where}: {key}: must be one of {', '.join(options)}, not {value!r}")
    return value


def _royalties(where: str, table: Any) -> tuple[tuple[str, Category, int], ...]:
    if not isinstance(table, dict):
        raise ProfileError(f"{where}: royalties: must be {{row: {{category: points}}}}")
    rows: list[tuple[str, Category, int]] = []
    for row, by_category in table.items():
        if row not in ROWS:
            raise ProfileError(f"{where}: royalties: unknown row {row!r} (rows: {', '.join(ROWS)})")
        if not isinstance(by_category, dict):
            raise ProfileError(f"{where}: royalties.{row}: must be {{category: points}}")
        for cat_name, points in by_category.items():
            category = CATEGORY_BY_NAME.get(cat_name)
            if category is None:
                raise ProfileError(
                    f"{where}: royalties.{row}: unknown hand {cat_name!r} "
                    f"(hands: {', '.join(CATEGORY_BY_NAME)})"
                )
            if row == "front" and category not in FRONT_CATEGORIES:
                raise ProfileError(
                    f"{where}: royalties.front: a 3-card front cannot hold a {category.label}"
                )
            rows.append((row, category, _points(where, f"royalties.{row}.{cat_name}", points)))
    return tuple(rows)


def _natural_points(where: str, table: Any) -> tuple[tuple[str, int], ...]:
    if not isinstance(table, dict):
        raise ProfileError(f"{where}: natural_points: must be {{kind: points}}")
    for kind in table:
        if kind not in NATURAL_KINDS:
            raise ProfileError(
                f"{where}: natural_points: unknown natural {kind!r} "
                f"(naturals: {', '.join(NATURAL_KINDS)})"
            )
    return tuple(
        (kind, _points(where, f"natural_points.{kind}", table[kind]))
        for kind in NATURAL_KINDS
        if kind in table
    )
