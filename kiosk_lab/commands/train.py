"""`kiosk train`: train the card reader (index detector + index classifier) with ultralytics.

    kiosk train --data datasets/generated/<set> [--out models] [--seed 0]
    kiosk train --stage context --data <set> [--out models]    # the context check, added to a reader folder

Reproducible from the seed (same set + seed + command = same tiles, crops and training
order). Writes weights, ONNX and OpenVINO exports, `reader.json` and figures into --out;
ultralytics' own runs (progress, plots) go to runs/. See docs/detector.md.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from kiosk.errors import KioskError

# ultralytics builds these from its own .yaml files, offline. With the reader's 213 classes: n 1.8 M parameters,
# s 5.7 M (about 4x n's work a crop), m 10.6 M (12x): the reader's 150 ms budget was measured with n.
CLS_MODELS = ("yolo11n-cls.yaml", "yolo11s-cls.yaml", "yolo11m-cls.yaml")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "train",
        help="train the card reader (index detector + classifier) from a generated data set",
        description=__doc__,
    )
    p.add_argument("--data", type=Path, help="generated data set folder (datasets/generated/<set>)")
    p.add_argument("--crops", type=Path, default=None,
                   help="train the classifier on crops already cut (train/ and val/ folders of class folders, as "
                        "runs/prep/<name>/cls holds them) instead of --data")
    p.add_argument("--device", default="cpu",
                   help="where ultralytics trains: cpu (default) or a GPU index such as 0")
    p.add_argument("--out", type=Path, default=Path("models"), help="where the weights go (default: models)")
    p.add_argument("--runs", type=Path, default=Path("runs"), help="ultralytics run folder (default: runs)")
    p.add_argument("--stage", choices=("both", "detector", "classifier", "context"), default="both",
                   help="context: the context check (kiosk_lab/training/context.py), cut from the finds of --out's "
                        "reader on --data's training scenes (or --crops) and added to --out")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--det-epochs", type=int, default=30)
    p.add_argument("--det-hours", type=float, default=0.0, help="fit the detector's epochs into this many hours")
    p.add_argument("--det-imgsz", type=int, default=416)
    p.add_argument("--det-batch", type=int, default=16)
    p.add_argument("--det-tiles", type=int, default=6000, help="detector training tiles to cut")
    p.add_argument("--det-model", default="yolo11p-index", help="detector .yaml (default: yolo11p-index, a narrow yolo11)")
    p.add_argument("--cls-model", choices=CLS_MODELS, default=None,
                   help="classifier to start from nothing (default: yolo11n-cls.yaml; s and m are wider and deeper, "
                        "for a GPU); --resume-from continues a trained one instead")
    p.add_argument("--cls-epochs", type=int, default=10)
    p.add_argument("--cls-hours", type=float, default=0.0)
    p.add_argument("--cls-imgsz", type=int, default=64)
    p.add_argument("--cls-batch", type=int, default=256)
    p.add_argument("--cls-crops", type=int, default=150_000, help="classifier training crops to cut")
    p.add_argument("--det-lr0", type=float, default=0.002, help="detector AdamW learning rate")
    p.add_argument("--cls-lr0", type=float, default=0.002, help="classifier AdamW learning rate (lower to fine-tune)")
    p.add_argument("--copies", type=int, default=1, help="jittered crops per labelled index")
    p.add_argument("--recolour", type=float, default=0.0, metavar="SHARE",
                   help="repaint the ink of this share of training crops in one random colour "
                        "(teaches suits by shape, for decks with unusual suit colours)")
    p.add_argument("--bilinear-crops", action="store_true",
                   help="resample every classifier crop bilinearly, as phases 1-8 did (default: a cut larger "
                        "than --cls-imgsz is shrunk with an area filter, as the reader shrinks it)")
    p.add_argument("--teacher", type=Path, action="append", default=[], metavar="DIR",
                   help="also learn from this reader folder's classifier: its readings of each training batch, "
                        "averaged over every --teacher given (distillation: a pair's readings at one classifier's cost)")
    p.add_argument("--teacher-weight", type=float, default=0.5,
                   help="share of the loss that follows the teachers rather than the labels (0..1, default 0.5)")
    p.add_argument("--teacher-temperature", type=float, default=2.0,
                   help="softens the teachers' readings so their runners-up teach too (default 2)")
    p.add_argument("--real", type=Path, default=None, metavar="DIR",
                   help="also train on the train split of these corner-labelled real photos (e.g. "
                        "datasets/real/real-photos-corners): detector images and classifier crops")
    p.add_argument("--resume-from", type=Path, default=None, help="start from the weights in this folder (e.g. models)")
    p.add_argument("--name", default="reader", help="name of the runs/ sub-folders")
    p.add_argument("--mine", type=int, default=0, metavar="N",
                   help="add the detector's own boxes on N training scenes to the classifier crops "
                        "(its finds on labelled indices, and its false finds as background)")
    p.add_argument("--cut-only", action="store_true",
                   help="cut the classifier crops into runs/prep/<name>/cls and stop (to train them elsewhere "
                        "with --crops, e.g. on a GPU)")
    p.add_argument("--context-scenes", type=int, default=600, metavar="N",
                   help="--stage context: training scenes whose finds are cut (default 600)")
    p.add_argument("--context-pad", type=float, default=None, metavar="SIDES",
                   help="--stage context: the cut's side in index long sides (default: the reader's 3.5)")
    p.add_argument("--context-drop", type=float, default=None, metavar="SHARE",
                   help="--stage context: the drop line (default: the one in --out's reader.json, else 0.9)")
    p.add_argument("--no-export", action="store_true", help="skip ONNX/OpenVINO exports")
    p.add_argument("--no-eval", action="store_true", help="skip the evaluation on the validation scenes")
    p.set_defaults(func=run)


def run(args) -> int:
    if args.stage == "context":
        from kiosk_lab.training.context import train_context

        return train_context(args)
    from kiosk_lab.training import prepare, prepare_real, train as training

    data = args.data
    if args.cut_only and (args.stage != "classifier" or args.crops is not None):
        raise KioskError("--cut-only cuts the classifier's crops from --data: add --stage classifier, without --crops")
    if args.cls_model and args.resume_from is not None:
        raise KioskError(f"--cls-model {args.cls_model} starts the classifier from nothing; --resume-from {args.resume_from} "
                         "continues its weights: give one of them")
    _check_teachers(args)
    if args.crops is not None:
        _check_crops(args)
        data = args.crops
    elif data is None:
        raise KioskError("give --data (a generated data set) or --crops (classifier crops already cut)")
    elif not (data / "scenes").is_dir() or not (data / "images").is_dir():
        raise KioskError(f"--data {data}: not a generated data set (needs images/ and scenes/; see datasets/build.py)")
    _check_device(args.device)
    # ultralytics rounds a classifier's imgsz up to its stride (32); crops must be cut at
    # the size the network really trains at, or reading sees other pixels than training.
    cls_imgsz = max(32, -(-args.cls_imgsz // 32) * 32)
    if cls_imgsz != args.cls_imgsz:
        print(f"[train] --cls-imgsz {args.cls_imgsz} -> {cls_imgsz} (a multiple of the classifier's stride 32)")
    args.cls_imgsz = cls_imgsz
    cfg = training.TrainConfig(
        data=data,
        out=args.out,
        runs=args.runs,
        stages=("detector", "classifier") if args.stage == "both" else (args.stage,),
        det_epochs=args.det_epochs,
        det_hours=args.det_hours,
        det_imgsz=args.det_imgsz,
        det_batch=args.det_batch,
        det_model=args.det_model,
        cls_model=args.cls_model or training.TrainConfig.cls_model,
        cls_epochs=args.cls_epochs,
        cls_hours=args.cls_hours,
        cls_imgsz=args.cls_imgsz,
        cls_batch=args.cls_batch,
        resume_from=args.resume_from,
        seed=args.seed,
        workers=args.workers,
        device=args.device,
        max_det_train=args.det_tiles,
        max_cls_train=args.cls_crops,
        copies=args.copies,
        name=args.name,
        exports=() if args.no_export else ("onnx", "openvino"),
        teachers=tuple(str(t) for t in args.teacher),
        teacher_weight=args.teacher_weight,
        teacher_temperature=args.teacher_temperature,
        extra={"det": {"lr0": args.det_lr0}, "cls": {"lr0": args.cls_lr0}},
    )
    pcfg = prepare.PrepareConfig(
        max_det_train=cfg.max_det_train,
        max_cls_train=cfg.max_cls_train,
        cls_size=cfg.cls_imgsz,
        copies=cfg.copies,
        recolour=args.recolour,
        shrink_area=not args.bilinear_crops,
        seed=cfg.seed,
        tile=cfg.det_imgsz,
    )
    prep_root = cfg.runs / "prep" / f"{cfg.name}"
    out = cfg.out
    out.mkdir(parents=True, exist_ok=True)
    old_meta_path = out / training.READER_JSON
    old_meta = json.loads(old_meta_path.read_text()) if old_meta_path.is_file() else {}
    t0 = time.time()

    det_files = old_meta.get("detector", {}).get("files") or _files_in(out, training.DETECTOR)
    cls_files = old_meta.get("classifier", {}).get("files") or _files_in(out, training.CLASSIFIER)
    cls_names = old_meta.get("classifier", {}).get("names")
    if "detector" in cfg.stages:
        print(f"[train] cutting detector tiles from {data} ...", flush=True)
        data_yaml = prepare.prepare_detector(data, prep_root / "det", pcfg)
        if args.real:
            prepare_real.add_detector_photos(args.real, prep_root / "det", pcfg)
        print(f"[train] training the index detector ({time.time() - t0:.0f} s)", flush=True)
        best = training.train_detector(cfg, data_yaml)
        exported = training.export_model(best, out, training.DETECTOR, "detector", cfg.exports)
        det_files = detector_files_kept(det_files, exported)
    if "classifier" in cfg.stages:
        mined = None
        if args.crops is None:
            print(f"[train] cutting classifier crops from {data} ...", flush=True)
        if args.mine:  # never with --crops (_check_crops)
            from kiosk.vision.finder import load_index_finder

            det_dir = out if "detector" in cfg.stages else (cfg.resume_from or out)
            det_pt = det_dir / f"{training.DETECTOR}.pt"
            print(f"[train] mining detector boxes on {args.mine} training scenes with {det_pt} ...", flush=True)
            finder = load_index_finder(det_pt, "pytorch", training.DET_INPUT)
            finder.conf_threshold = 0.1  # the reader's own threshold: everything the classifier must judge
            mined = prepare.mine_detector_boxes(finder, data, "train", args.mine, cfg.seed)
            print(f"[train] mined {sum(len(v) for v in mined.values())} boxes "
                  f"({sum(1 for v in mined.values() for b in v if b[1] == prepare.BG)} background)", flush=True)
        crops = args.crops or prepare.prepare_classifier(data, prep_root / "cls", pcfg, mined=mined)
        if args.real and args.crops is None:
            orient = _orienter(cfg.resume_from or out)
            prepare_real.add_classifier_crops(args.real, crops, pcfg, orient)
        if args.cut_only:
            print(f"[train] crops cut into {crops} ({time.time() - t0:.0f} s); train them with --crops {crops}", flush=True)
            return 0
        print(f"[train] training the index classifier ({time.time() - t0:.0f} s)", flush=True)
        best = training.train_classifier(cfg, crops)
        cls_files = training.export_model(best, out, training.CLASSIFIER, "classifier", cfg.exports, cfg.cls_imgsz)
        from ultralytics import YOLO

        names = YOLO(str(out / f"{training.CLASSIFIER}.pt"), task="classify").names
        cls_names = [names[i] for i in range(len(names))]
    if not cls_names and cls_files:
        from ultralytics import YOLO

        names = YOLO(str(out / cls_files["pytorch"]), task="classify").names
        cls_names = [names[i] for i in range(len(names))]
    if not det_files or not cls_files:
        raise KioskError(f"{out}: the reader needs both stages; train the missing one (--stage both)")
    training.write_reader_json(out, det_files, cls_files, cls_names, cfg)
    print(f"[train] weights written to {out} ({time.time() - t0:.0f} s)", flush=True)
    if args.crops is not None and not args.no_eval:
        print(f"[train] no scenes to evaluate on with --crops: kiosk eval SET --models {out}", flush=True)
    elif not args.no_eval:
        from kiosk_lab.evaluation import figures

        figures.training_figures(cfg, out, prep_root)
    return 0


def _orienter(model_dir: Path):
    """orient(image, box, card): the quarter turn of `card`'s index in `box`, as the classifier in
    `model_dir` reads it (a real photo's labels name the card, not its turn)."""
    from kiosk.vision.reader import load_reader

    reader = load_reader(model_dir)
    names = list(reader.settings.classifier.names)

    def orient(image, box, card: str) -> int:
        probs = reader.classify(image, [box])[0]
        return max(range(4), key=lambda k: probs[names.index(f"{card}.{k}")])

    return orient


def _check_teachers(args) -> None:
    if not args.teacher:
        return
    if args.stage != "classifier":
        raise KioskError("--teacher teaches the classifier: add --stage classifier")
    for folder in args.teacher:
        if not (folder / "index-classifier.pt").is_file():
            raise KioskError(f"--teacher {folder}: no index-classifier.pt there (give a reader folder such as models)")
    if not 0.0 <= args.teacher_weight <= 1.0:
        raise KioskError(f"--teacher-weight {args.teacher_weight}: give a share between 0 and 1")
    if args.teacher_temperature <= 0:
        raise KioskError(f"--teacher-temperature {args.teacher_temperature}: give a temperature above 0")


def _check_crops(args) -> None:
    if args.data is not None:
        raise KioskError("--crops and --data exclude each other: crops already cut need no scenes")
    if args.stage != "classifier":
        raise KioskError("--crops trains the classifier only: add --stage classifier")
    if args.mine:
        raise KioskError("--mine cuts crops from scenes: crops given by --crops are used as they are")
    for split in ("train", "val"):
        folder = args.crops / split
        if not folder.is_dir() or not any(p.is_dir() for p in folder.iterdir()):
            raise KioskError(f"--crops {args.crops}: no {split}/ folder of class folders")


def _check_device(device: str) -> None:
    if device == "cpu":
        return
    if not all(part.strip().isdigit() for part in device.split(",")):
        raise KioskError(f"--device {device}: give cpu, or GPU numbers such as 0 or 0,1")
    import torch

    if torch.cuda.device_count() <= max(int(part) for part in device.split(",")):
        raise KioskError(f"--device {device}: torch {torch.__version__} sees {torch.cuda.device_count()} GPU(s) here; "
                         "train with --device cpu")


def detector_files_kept(old: dict | None, new: dict) -> dict:
    """A retrained detector's files, with the backends that read the old detector's FP32 OpenVINO export kept.

    `kiosk quantize` makes only the classifier INT8, so the `openvino-int8` backend reads the detector's
    OpenVINO export; dropping that key would leave a resumed reader without its default backend.

    >>> old = {"pytorch": "d.pt", "openvino": "d_ov", "openvino-int8": "d_ov"}
    >>> detector_files_kept(old, {"pytorch": "d.pt", "onnx": "d.onnx", "openvino": "d_ov"})["openvino-int8"]
    'd_ov'
    >>> "openvino-int8" in detector_files_kept(old, {"pytorch": "d.pt"})  # no OpenVINO export made: nothing to point at
    False
    """
    old, kept = old or {}, dict(new)
    for backend, path in old.items():
        if backend not in kept and "openvino" in new and path == old.get("openvino"):
            kept[backend] = new["openvino"]
    return kept


def _files_in(out: Path, stem: str) -> dict | None:
    """The weights and exports of one stage already in `out` (from an earlier, interrupted run)."""
    if not (out / f"{stem}.pt").is_file():
        return None
    files = {"pytorch": f"{stem}.pt"}
    if (out / f"{stem}.onnx").is_file():
        files["onnx"] = f"{stem}.onnx"
    if (out / f"{stem}_openvino_model").is_dir():
        files["openvino"] = f"{stem}_openvino_model"
    return files
