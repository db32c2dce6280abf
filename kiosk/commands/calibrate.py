"""`kiosk calibrate IMAGE|SOURCE [--out FILE]`: find the felt's corners from four ArUco markers.

Markers DICT_4X4_50 ids 0-3 sit at the felt's corners clockwise from seat 1's left
(0 bottom-left, 1 top-left, 2 top-right, 3 bottom-right, seen from above). The corners
are written into the config file (`geometry.corners`; the file's other settings are
kept) or printed when no --out is given. A USB camera is asked for the frame size of that
config's `camera` section, the size the kiosk will run at (corners are in its pixels).
"""

from __future__ import annotations

from pathlib import Path

from kiosk.commands import command_parser
from kiosk.errors import KioskError


def register(subparsers) -> None:
    parser = command_parser(
        subparsers, "calibrate", "find the felt corners from 4 ArUco markers and write them into the config", __doc__)
    parser.add_argument("source", metavar="IMAGE|SOURCE", help="a photo of the table, a video, a camera index or URL")
    parser.add_argument("--out", metavar="FILE", help="config file to write the corners into (created if missing)")
    parser.add_argument("--frames", type=int, default=30, help="frames of a video/camera to try (default 30)")
    parser.set_defaults(func=run)


def run(args) -> int:
    import yaml

    from kiosk.table.calibration import find_corners, find_markers
    from kiosk.table.config import KioskConfig, load_config
    from kiosk.table.sources import open_source

    # refuses a config that is already broken, and says where
    cfg = load_config(args.out) if args.out and Path(args.out).exists() else KioskConfig()
    source = open_source(args.source, camera=cfg.camera)
    corners = None
    best: dict = {}
    last_error = None
    name = str(args.source)
    try:
        for n, frame in enumerate(source):
            found = find_markers(frame.image)
            if len(found) > len(best):
                best = found
            try:
                corners = find_corners(frame.image, name if n == 0 else f"{name} (frame {frame.index})")
                break
            except KioskError as err:
                last_error = err
            if n + 1 >= args.frames:
                break
    finally:
        source.close()
    if corners is None:
        raise last_error or KioskError(f"no frame could be read from {name}", exit_code=1)
    corner_list = [[float(x), float(y)] for x, y in corners]
    if not args.out:
        print(yaml.safe_dump({"geometry": {"corners": corner_list}}, default_flow_style=None, sort_keys=False), end="")
        return 0
    out = Path(args.out)
    flow = "[" + ", ".join(f"[{x:g}, {y:g}]" for x, y in corner_list) + "]"
    if out.exists():
        text = with_corners(out.read_text(encoding="utf-8"), flow)
    else:
        text = f"geometry:\n  corners: {flow}  # bottom-left, top-left, top-right, bottom-right\n"
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    except OSError as err:
        raise KioskError(f"cannot write {out}: {err.strerror or err}") from None
    load_config(out)
    print(f"corners written to {out}: " + ", ".join(f"({x:.0f}, {y:.0f})" for x, y in corner_list))
    return 0


def with_corners(text: str, flow: str) -> str:
    """The config text with `geometry.corners` set to `flow`, every other line (and comment) kept.

    >>> print(with_corners("# my table\\ntable:\\n  name: t1\\n", "[[1, 2]]"), end="")
    # my table
    table:
      name: t1
    geometry:
      corners: [[1, 2]]
    >>> print(with_corners("geometry:  # felt\\n  aruco: false\\n  corners: null\\n", "[[1, 2]]"), end="")
    geometry:  # felt
      aruco: false
      corners: [[1, 2]]
    """
    import yaml

    root = yaml.compose(text) if text.strip() else None
    lines = text.splitlines(keepends=True)
    if root is None or not isinstance(root, yaml.MappingNode):
        return text + ("" if text.endswith("\n") or not text else "\n") + f"geometry:\n  corners: {flow}\n"
    for key, value in root.value:
        if key.value != "geometry":
            continue
        if isinstance(value, yaml.MappingNode) and value.flow_style:
            data = yaml.safe_load(text)
            data["geometry"]["corners"] = yaml.safe_load(flow)
            return yaml.safe_dump(data, default_flow_style=None, sort_keys=False)
        if isinstance(value, yaml.MappingNode):
            for k2, v2 in value.value:
                if k2.value == "corners":  # replace the key's lines, keep what follows
                    start = _offset(lines, k2.start_mark)
                    end = _offset(lines, v2.end_mark)
                    line_start = sum(len(line) for line in lines[: v2.end_mark.line])
                    tail = "\n" if text[line_start:end].strip() == "" and end > line_start else ""
                    if tail:
                        end = line_start
                    return text[:start] + f"corners: {flow}" + tail + text[end:]
            indent = " " * value.start_mark.column
            at = sum(len(line) for line in lines[: key.start_mark.line + 1])
            return text[:at] + f"{indent}corners: {flow}\n" + text[at:]
        start = _offset(lines, value.start_mark)  # geometry: null or empty
        end = _offset(lines, value.end_mark)
        return text[:start].rstrip(" ") + f"\n  corners: {flow}" + text[end:]
    return text + ("" if text.endswith("\n") else "\n") + f"geometry:\n  corners: {flow}\n"


def _offset(lines: list[str], mark) -> int:
    return sum(len(line) for line in lines[: mark.line]) + mark.column
