"""The one configuration file of a table (YAML, validated by pydantic; frozen).

Every section has defaults, so `load_config(None)` is a working kiosk: the whole
frame is the table, four seats (1 bottom, 2 left, 3 top, 4 right, clockwise), the
built-in demo recording as the camera. Errors name the key and the line:

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "t.yaml")
>>> _ = open(path, "w").write("table:\\n  name: t1\\ngame:\\n  button: 7\\n")
>>> load_config(path)  # doctest: +IGNORE_EXCEPTION_DETAIL
Traceback (most recent call last):
...
kiosk.errors.KioskError: .../t.yaml line 4: game.button: seat 7 is not a seat of this table (seats 1-4)
>>> load_config(None).game.profile
'mandarin'
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from kiosk.errors import KioskError
from kiosk.paigow.houseway import HouseWayError, get_house_way, house_way_from_dict, house_way_to_dict
from kiosk.rules.profiles import get_profile

DEMO_RECORDING = Path(__file__).resolve().parent.parent / "data" / "demo" / "table.mp4"
PAIGOW_DEMO = DEMO_RECORDING.with_name("paigow.mp4")  # its table settings (the bets): paigow.json
FACINGS = ("bottom", "left", "top", "right")
# Default seat of each table edge, seen from above: seat 1 at the bottom, clockwise.
DEFAULT_FACING = {1: "bottom", 2: "left", 3: "top", 4: "right"}

Point = tuple[float, float]


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TableSection(_Section):
    name: str = "table-1"
    seats: int = Field(4, ge=2, le=10)


class SeatZone(_Section):
    """One seat: its zone on the image (polygon, pixels) and the table edge it sits at."""

    seat: int = Field(ge=1)
    zone: tuple[Point, ...]
    facing: Literal["bottom", "left", "top", "right"]
    # Optional fixed row bands: depth from the seat's edge (fraction of the zone's depth) where
    # back ends and where middle ends. Used only when the cards do not form three clear bands.
    bands: tuple[float, float] | None = None

    @field_validator("zone")
    @classmethod
    def _polygon(cls, zone):
        if len(zone) < 3:
            raise ValueError(f"a zone needs at least 3 points, got {len(zone)}")
        return zone

    @field_validator("bands")
    @classmethod
    def _bands(cls, bands):
        if bands is not None and not 0 < bands[0] < bands[1] < 1:
            raise ValueError("bands are two depths 0 < back_end < middle_end < 1")
        return bands


class Geometry(_Section):
    # The felt's four corners in the image, clockwise from seat 1's left (bottom-left seen from
    # above): [bottom-left, top-left, top-right, bottom-right]. None: the whole frame is the felt.
    corners: tuple[Point, ...] | None = None
    # Find the corners from ArUco markers (DICT_4X4_50, ids 0-3) on the first frame.
    aruco: bool = False
    seats: tuple[SeatZone, ...] | None = None
    # "cluster": rows from the card centres' three bands (robust to a shifted layout);
    # "bands": rows from each seat's fixed `bands`.
    rows: Literal["cluster", "bands"] = "cluster"

    @field_validator("corners")
    @classmethod
    def _four_corners(cls, corners):
        if corners is not None and len(corners) != 4:
            raise ValueError(
                f"the felt has 4 corners (bottom-left, top-left, top-right, bottom-right), got {len(corners)}"
            )
        return corners


class PairStake(_Section):
    seats: tuple[int, int]
    stake: float = Field(gt=0)


class Game(_Section):
    # The game this table deals: Chinese Poker, or Pai Gow Poker (its settings: the `paigow` section).
    name: Literal["chinese-poker", "paigow"] = "chinese-poker"
    profile: str = "mandarin"
    button: int | None = None
    dead: tuple[int, ...] = ()
    stake: float = Field(1, gt=0)
    pair_stakes: tuple[PairStake, ...] = ()
    stacks: dict[int, float] = Field(default_factory=dict)

    @field_validator("profile")
    @classmethod
    def _known_profile(cls, name):
        try:
            get_profile(name)
        except KioskError as err:
            raise ValueError(str(err)) from None
        return name


class PaiGowSpot(_Section):
    """One Pai Gow spot: a box in fractions of the felt (x0, y0, x1, y1), its low row's band."""

    spot: int = Field(ge=0, le=7)
    box: tuple[float, float, float, float]
    low_side: Literal["top", "bottom"] = "top"

    @field_validator("box")
    @classmethod
    def _box(cls, box):
        x0, y0, x1, y1 = box
        if not (0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1):
            raise ValueError("a box is [x0, y0, x1, y1], fractions of the felt with 0 <= x0 < x1 <= 1, same for y")
        return box


class PaiGow(_Section):
    """Pai Gow Poker at this table (docs/paigow.md); used when `game.name` is `paigow`."""

    house_way: str = "foxwoods"
    # A casino's own house ways (docs/paigow.md), each {name, base, ...}; `house_way` may name one.
    house_ways: tuple[dict, ...] = ()
    commission: float = Field(0.05, ge=0, lt=1)
    banker: int = Field(0, ge=0, le=7)  # 0: the dealer banks; 1-7: that seat banks (its cards on its spot)
    bets: dict[int, float] = Field(default_factory=dict)  # seat -> bet
    default_bet: float | None = Field(None, gt=0)  # the bet of a seat not in `bets`; null: none
    banker_stack: float | None = Field(None, ge=0)  # a player-banker's chips (the kiosk warns if short)
    spots: tuple[PaiGowSpot, ...] | None = None  # null: the default geometry

    @model_validator(mode="after")
    def _valid(self):
        try:
            get_house_way(self.house_way, self.custom_house_ways())
        except HouseWayError as err:
            raise _LocatedError(("paigow", "house_way"), str(err)) from None
        for seat, bet in self.bets.items():
            if not 1 <= seat <= 7 or bet <= 0:
                raise _LocatedError(("paigow", "bets", seat), f"a bet is seat 1-7: amount above 0, not {seat}: {bet}")
        numbers = [z.spot for z in self.spots or ()]
        for i, n in enumerate(numbers):
            if numbers.count(n) > 1:
                raise _LocatedError(("paigow", "spots", i, "spot"), f"spot {n} has two boxes")
        return self

    def custom_house_ways(self) -> dict:
        """The casino's own house ways by name (a later one may use an earlier one as `base`)."""
        ways: dict = {}
        for i, raw in enumerate(self.house_ways):
            try:
                way = house_way_from_dict(raw, ways)
            except HouseWayError as err:
                raise _LocatedError(("paigow", "house_ways", i), str(err)) from None
            ways[way.name] = way
        return ways

    def house_way_value(self):
        """The house way as the table sends it to `kiosk score`: a built-in's name, or the whole definition."""
        custom = self.custom_house_ways()
        return house_way_to_dict(custom[self.house_way]) if self.house_way in custom else self.house_way


class Stabilizer(_Section):
    # The layout must hold this long (no card appearing, vanishing or changing), and for `min_votes`
    # frames, before a verdict.
    hold_seconds: float = Field(0.5, ge=0)
    # Frames that must agree on a card before it counts as read.
    min_votes: int = Field(3, ge=1)
    # Mean confidence of the frames that read a card, needed for a confident read (and its lead
    # over any other reading of that position, per frame, must be at least half of it).
    min_confidence: float = Field(0.8, gt=0, le=1)
    # The same where the whole deck lies on the table (four live seats): there a card misread
    # is also read where it really lies, a duplicate, unless that card is misread too. Never
    # above min_confidence (the lower of the two counts).
    min_confidence_whole_deck: float = Field(0.7, gt=0, le=1)
    # Share of the frames that saw a card position that must give it the same first reading.
    min_agreement: float = Field(0.7, gt=0, le=1)
    # Detections below this confidence are ignored entirely.
    min_detection_confidence: float = Field(0.25, ge=0, le=1)
    # Observations kept per card position (older ones are forgotten).
    window_frames: int = Field(30, ge=1)
    # A seat counts as opened when this many of its cards are read (a full set hand is 13).
    open_min_cards: int = Field(10, ge=1, le=13)
    # The seats must show bare felt this long before a hand counts as cleared (swept).
    clear_seconds: float = Field(0.8, ge=0)
    # A card position not seen for this long is forgotten (the card was picked up).
    forget_seconds: float = Field(3.0, gt=0)
    # Two readings closer than this fraction of a card index's size are the same card position.
    match_radius: float = Field(1.2, gt=0)


class Motion(_Section):
    # Reuse the card indices found in an earlier frame while the table has not moved since
    # (kiosk/vision/still.py); every frame's cards are still read and vote. false: the
    # detector runs on every frame.
    reuse_indices: bool = True
    # "Not moved": no 8x8-pixel mean of the frame changed by more than this many grey levels.
    still_levels: float = Field(8.0, ge=0, le=255)
    # The detector searches this many frames of a still table; the frames after take turns
    # with their finds.
    still_searches: int = Field(2, ge=1)
    # Run the detector again after this long, however still the table.
    redetect_seconds: float = Field(5.0, ge=0)


def frame_size_problem(size: tuple[int, int]) -> str | None:
    """What is wrong with a camera frame size (width, height), if anything.

    >>> frame_size_problem((3840, 2160)) is None, frame_size_problem((3840, 100))
    (True, 'width 320-8192 and height 240-8192 pixels, got 3840x100')
    """
    if 320 <= size[0] <= 8192 and 240 <= size[1] <= 8192:
        return None
    return f"width 320-8192 and height 240-8192 pixels, got {size[0]}x{size[1]}"


class Camera(_Section):
    # The resolution asked of a USB camera (`source: 0`): OpenCV opens most at 640x480 unless
    # asked, and the reader needs pixels: with cards 110 px tall (1080p over the whole felt) 93-97%
    # of rendered hands of unseen designs read exactly, at 220 px (4K) 398 of 400 (docs/pipeline.md).
    # The camera gives the nearest size it has; the kiosk says which. null: the camera's own.
    # Streams (rtsp://...) are set up in the camera itself. Calibrate at the size the kiosk runs at.
    size: tuple[int, int] | None = (3840, 2160)
    # The pixel format asked with it: uncompressed 4K does not fit through USB at a useful rate.
    fourcc: str = "MJPG"

    @field_validator("size")
    @classmethod
    def _size(cls, size):
        problem = size and frame_size_problem(size)
        if problem:
            raise ValueError(problem)
        return size

    @field_validator("fourcc")
    @classmethod
    def _fourcc(cls, fourcc):
        if len(fourcc) != 4 or not fourcc.isascii():
            raise ValueError(f"a pixel format is four characters (MJPG, YUYV, H264), got {fourcc!r}")
        return fourcc


class Web(_Section):
    host: str = "127.0.0.1"
    port: int = Field(5000, ge=1, le=65535)
    four_colour: bool = False
    floor_pin_hash: str | None = None
    pin_attempts_per_minute: int = Field(5, ge=1)


def state_dir() -> Path:
    """Where the kiosk keeps its records by default: the service's state directory.

    Under systemd (`StateDirectory=kiosk`) that is $STATE_DIRECTORY, /var/lib/kiosk; run by hand,
    $XDG_STATE_HOME/kiosk (~/.local/state/kiosk). Never the folder the kiosk was started in.
    """
    if os.environ.get("STATE_DIRECTORY"):
        return Path(os.environ["STATE_DIRECTORY"].split(":")[0])
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "kiosk"
class Central(_Section):
    """The floor's PostgreSQL: the shipper sends this table's records there (docs/records.md)."""

    # libpq connection string or URL, e.g. "host=10.0.0.5 dbname=floor user=kiosk_table_7"
    # (password in ~/.pgpass or PGPASSFILE, not here).
    dsn: str
    # The floor's folder for key frames and clips (a mount the floor server reads too).
    media_dir: str
    # The name this table has on the floor (default: table.name); one kiosk per name.
    table: str | None = None
    batch: int = Field(200, ge=1, le=5000)  # records per transaction
    interval_seconds: float = Field(0.5, gt=0, le=60)  # how often it looks for new records
    retry_seconds: float = Field(5.0, gt=0, le=600)  # wait after the link or the server failed

    @field_validator("dsn")
    @classmethod
    def _dsn(cls, dsn):
        try:
            from psycopg.conninfo import conninfo_to_dict
        except ImportError:
            raise ValueError("records.central needs psycopg: pip install 'psycopg[binary]'") from None
        try:
            conninfo_to_dict(dsn)
        except Exception as err:  # psycopg.ProgrammingError: the libpq parser's own message
            raise ValueError(f"not a PostgreSQL connection string: {str(err).strip()}") from None
        return dsn


class Records(_Section):
    db: str | None = None  # default: state_dir() / "kiosk.sqlite"
    media_dir: str | None = None  # default: "media" beside the database
    retention_days: int = Field(90, ge=1)
    disk_budget_mb: int = Field(2000, ge=1)
    enabled: bool = True
    # null: this table keeps its records to itself (as every kiosk did before the floor had one place).
    central: Central | None = None

    def db_path(self) -> Path:
        return Path(self.db) if self.db else state_dir() / "kiosk.sqlite"

    def media_path(self, db: Path | None = None) -> Path:
        """Frames and clips: `media_dir` when set, else `media/` beside the database (`db`, else this one)."""
        return Path(self.media_dir) if self.media_dir else (db or self.db_path()).parent / "media"


class KioskConfig(_Section):
    table: TableSection = TableSection()
    source: int | str = str(DEMO_RECORDING)
    camera: Camera = Camera()
    geometry: Geometry = Geometry()
    game: Game = Game()
    paigow: PaiGow = PaiGow()
    stabilizer: Stabilizer = Stabilizer()
    motion: Motion = Motion()
    web: Web = Web()
    records: Records = Records()

    @model_validator(mode="after")
    def _seats_exist(self):
        n = self.table.seats
        seats = range(1, n + 1)

        def check(loc: tuple, seat: int) -> None:
            if seat not in seats:
                raise _LocatedError(loc, f"seat {seat} is not a seat of this table (seats 1-{n})")

        if self.game.button is not None:
            check(("game", "button"), self.game.button)
        for i, seat in enumerate(self.game.dead):
            check(("game", "dead", i), seat)
        for seat in self.game.stacks:
            check(("game", "stacks", seat), seat)
        for i, pair in enumerate(self.game.pair_stakes):
            for j, seat in enumerate(pair.seats):
                check(("game", "pair_stakes", i, "seats", j), seat)
            if pair.seats[0] == pair.seats[1]:
                raise _LocatedError(("game", "pair_stakes", i, "seats"), "a pair needs two different seats")
        zones = self.geometry.seats
        if zones is None:
            if n != 4:
                raise _LocatedError(
                    ("geometry", "seats"),
                    f"the default layout has 4 seats; give a zone for each of the {n} seats",
                )
        else:
            numbers = [z.seat for z in zones]
            for i, seat in enumerate(numbers):
                check(("geometry", "seats", i, "seat"), seat)
                if numbers.count(seat) > 1:
                    raise _LocatedError(("geometry", "seats", i, "seat"), f"seat {seat} has two zones")
            missing = sorted(set(seats) - set(numbers))
            if missing:
                raise _LocatedError(("geometry", "seats"), f"no zone for seat(s) {missing}")
        return self

    def digest(self) -> str:
        """A stable hash of the configuration in force (recorded with each hand)."""
        text = json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def facing(self, seat: int) -> str:
        if self.geometry.seats is None:
            return DEFAULT_FACING[seat]
        return next(z.facing for z in self.geometry.seats if z.seat == seat)


class _LocatedError(ValueError):
    """A cross-field problem that knows which key it is about."""

    def __init__(self, loc: tuple, message: str):
        super().__init__(message)
        self.loc = loc
        self.message = message


def for_game(cfg: KioskConfig, game: str | None, source: str | Path | None = None) -> KioskConfig:
    """The config with `game.name` set (`--game`). A Pai Gow table left on the built-in demo plays
    the Pai Gow demo recording; on that recording (or `source`, when it is that recording) the demo
    table's bets apply where the config gives none."""
    data = cfg.model_dump()
    data["game"]["name"] = game or cfg.game.name
    if data["game"]["name"] == "paigow":
        if source is None and Path(str(cfg.source)).resolve() == DEMO_RECORDING.resolve():
            data["source"] = str(PAIGOW_DEMO)
        playing = Path(str(source if source is not None else data["source"])).resolve()
        if playing == PAIGOW_DEMO.resolve() and not cfg.paigow.bets and cfg.paigow.default_bet is None:
            demo = json.loads(PAIGOW_DEMO.with_suffix(".json").read_text(encoding="utf-8"))
            data["paigow"]["bets"] = {int(k): v for k, v in demo["config"]["paigow"]["bets"].items()}
    return cfg if data == cfg.model_dump() else KioskConfig.model_validate(data)


def load_config(path: str | Path | None) -> KioskConfig:
    """Read and validate a config file; None gives the defaults."""
    if path is None:
        return KioskConfig()
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise KioskError(f"cannot read config {path}: {err.strerror or err}") from None
    try:
        root = yaml.compose(text)
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark else ""
        problem = getattr(err, "problem", None) or str(err)
        raise KioskError(f"{path}{where}: not valid YAML: {problem}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise KioskError(f"{path} line 1: the config must be a mapping of sections (table, source, geometry, ...)")
    data = _resolve_source(data, path)
    try:
        return KioskConfig.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        loc = tuple(first["loc"])
        message = first["msg"]
        ctx_error = (first.get("ctx") or {}).get("error")
        if isinstance(ctx_error, _LocatedError):
            loc, message = ctx_error.loc, ctx_error.message
        elif message.startswith("Value error, "):
            message = message[len("Value error, "):]
        if first["type"] == "extra_forbidden":
            message = "unknown key"
        loc = _clean_loc(data, loc)
        key = ".".join(str(p) for p in loc) or "(top level)"
        line = _line_of(root, loc)
        raise KioskError(f"{path} line {line}: {key}: {message}") from None


def _clean_loc(data: Any, loc: tuple) -> tuple:
    """Drop what pydantic adds to a location that is not a key (union member names)."""
    out = []
    for part in loc:
        if isinstance(data, dict):
            match = next((k for k in data if str(k) == str(part)), None)
            out.append(part)
            data = data.get(match) if match is not None else None
        elif isinstance(data, list) and isinstance(part, int):
            out.append(part)
            data = data[part] if part < len(data) else None
        elif data is None and not out[-1:] == [part]:
            out.append(part)
    return tuple(out)


def _resolve_source(data: dict, path: Path) -> dict:
    """A relative source path is relative to the config file, like a person would expect."""
    source = data.get("source")
    if isinstance(source, str) and "://" not in source and not source.isdigit():
        candidate = (path.parent / source)
        if not Path(source).is_absolute() and candidate.exists():
            data = {**data, "source": str(candidate)}
    return data


def _line_of(node, loc: tuple) -> int:
    """The 1-based line of the YAML node at `loc` (or of its deepest existing parent)."""
    line = (node.start_mark.line + 1) if node is not None else 1
    for part in loc:
        if node is None:
            break
        if isinstance(node, yaml.MappingNode):
            found = None
            for key, value in node.value:
                if str(key.value) == str(part):
                    found = (key, value)
                    break
            if found is None:
                break
            node = found[1]
            line = found[0].start_mark.line + 1
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            break
    return line
