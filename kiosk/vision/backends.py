"""Model adapters: run an exported network on a float32 NCHW batch, whatever the format.

Each runner is a callable `runner(batch) -> np.ndarray` (the network's first output).
The reader does its own pre- and post-processing, so every backend reads the same way.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from kiosk.errors import KioskError

BACKENDS = ("openvino", "onnx", "pytorch")


def _threads() -> int:
    return max(1, int(os.environ.get("KIOSK_THREADS", "0")) or (os.cpu_count() or 2))


class TorchRunner:
    name = "pytorch"

    def __init__(self, path: Path):
        os.environ.setdefault("YOLO_OFFLINE", "1")
        import torch
        from ultralytics import YOLO

        torch.set_num_threads(_threads())
        self._torch = torch
        model = YOLO(str(path))
        net = model.model
        net.fuse() if hasattr(net, "fuse") else None
        self.net = net.float().eval()

    def __call__(self, batch: np.ndarray) -> np.ndarray:
        torch = self._torch
        with torch.inference_mode():
            out = self.net(torch.from_numpy(np.ascontiguousarray(batch)))
        if isinstance(out, (list, tuple)):
            out = out[0]
        return out.cpu().numpy()


class OnnxRunner:
    name = "onnx"

    def __init__(self, path: Path):
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = _threads()
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        self.input = self.session.get_inputs()[0].name

    def __call__(self, batch: np.ndarray) -> np.ndarray:
        return self.session.run(None, {self.input: np.ascontiguousarray(batch, dtype=np.float32)})[0]


class OpenVinoRunner:
    name = "openvino"

    def __init__(self, path: Path):
        import openvino as ov

        xml = path if path.suffix == ".xml" else next(Path(path).glob("*.xml"), None)
        if xml is None:
            raise KioskError(f"{path}: no OpenVINO .xml model inside")
        core = ov.Core()
        config = {"INFERENCE_NUM_THREADS": _threads(), "PERFORMANCE_HINT": "LATENCY"}
        self.compiled = core.compile_model(core.read_model(str(xml)), "CPU", config)
        self.output = self.compiled.output(0)

    def __call__(self, batch: np.ndarray) -> np.ndarray:
        result = self.compiled(np.ascontiguousarray(batch, dtype=np.float32))
        return np.asarray(result[self.output])


RUNNERS = {"pytorch": TorchRunner, "onnx": OnnxRunner, "openvino": OpenVinoRunner}


def open_runner(backend: str, path: Path):
    if backend not in RUNNERS:
        raise KioskError(f"unknown backend '{backend}' (choose from {', '.join(BACKENDS)})")
    if not Path(path).exists():
        raise KioskError(f"{path}: model file missing for backend '{backend}'")
    return RUNNERS[backend](Path(path))
