"""Model adapters: run an exported network on a batch of images, whatever the format.

Each runner is a callable `runner(images) -> np.ndarray` (the network's first output), where
`images` is uint8 BGR (n, h, w, 3), as OpenCV gives them. The networks take float RGB NCHW in
[0, 1] (`to_tensor`); OpenVINO does that conversion inside the compiled model, which spares a
1080p frame 30 ms on a 2-core CPU. The reader does the rest of its pre- and post-processing
itself, so every backend reads the same way.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from kiosk.errors import KioskError

# openvino-int8: the OpenVINO models quantized by `kiosk quantize` (kiosk_lab/training/quantize.py).
INT8 = "openvino-int8"
BACKENDS = ("openvino", INT8, "onnx", "pytorch")


def to_tensor(images: np.ndarray) -> np.ndarray:
    """uint8 BGR (n, h, w, 3) -> float32 RGB (n, 3, h, w) in [0, 1], what the networks were trained on."""
    return images[..., ::-1].transpose(0, 3, 1, 2).astype(np.float32) / 255.0


def cpu_threads() -> int:
    """Threads a CPU stage (reading or training) uses: KIOSK_THREADS, else every core."""
    return max(1, int(os.environ.get("KIOSK_THREADS", "0")) or (os.cpu_count() or 2))


class TorchRunner:
    name = "pytorch"

    def __init__(self, path: Path):
        os.environ.setdefault("YOLO_OFFLINE", "1")
        import torch
        from ultralytics import YOLO

        torch.set_num_threads(cpu_threads())
        self._torch = torch
        model = YOLO(str(path))
        net = model.model
        net.fuse() if hasattr(net, "fuse") else None
        self.net = net.float().eval()

    def __call__(self, images: np.ndarray) -> np.ndarray:
        torch = self._torch
        with torch.inference_mode():
            out = self.net(torch.from_numpy(to_tensor(images)))
        if isinstance(out, (list, tuple)):
            out = out[0]
        return out.cpu().numpy()


class OnnxRunner:
    name = "onnx"

    def __init__(self, path: Path):
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = cpu_threads()
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        self.input = self.session.get_inputs()[0].name

    def __call__(self, images: np.ndarray) -> np.ndarray:
        return self.session.run(None, {self.input: to_tensor(images)})[0]


class OpenVinoRunner:
    name = "openvino"

    def __init__(self, path: Path):
        import openvino as ov

        xml = path if path.suffix == ".xml" else next(Path(path).glob("*.xml"), None)
        if xml is None:
            raise KioskError(f"{path}: no OpenVINO .xml model inside")
        from openvino.preprocess import ColorFormat, PrePostProcessor

        core = ov.Core()
        steps = PrePostProcessor(core.read_model(str(xml)))
        steps.input().tensor().set_element_type(ov.Type.u8).set_layout(ov.Layout("NHWC")).set_color_format(ColorFormat.BGR)
        steps.input().model().set_layout(ov.Layout("NCHW"))
        steps.input().preprocess().convert_element_type(ov.Type.f32).convert_color(ColorFormat.RGB).scale(255.0)
        config = {"INFERENCE_NUM_THREADS": cpu_threads(), "PERFORMANCE_HINT": "LATENCY"}
        self.compiled = core.compile_model(steps.build(), "CPU", config)
        self.output = self.compiled.output(0)
        self.any_batch = self.compiled.input(0).get_partial_shape()[0].is_dynamic

    def __call__(self, images: np.ndarray) -> np.ndarray:
        images = np.ascontiguousarray(images, dtype=np.uint8)
        n = len(images)
        if self.any_batch and n > 1:
            # OpenVINO prepares its kernels anew for every batch size it has not run yet (~0.1 s each, most
            # of a single picture's time): batches are padded to a power of two, so a few sizes serve all.
            # Each row's output does not depend on the batch it is in (checked for every size up to 64).
            size = 1 << (n - 1).bit_length()
            if size != n:
                images = np.concatenate([images, np.zeros((size - n, *images.shape[1:]), np.uint8)])
        return np.asarray(self.compiled(images)[self.output])[:n]


RUNNERS = {"pytorch": TorchRunner, "onnx": OnnxRunner, "openvino": OpenVinoRunner, INT8: OpenVinoRunner}


def open_runner(backend: str, path: Path):
    if backend not in RUNNERS:
        raise KioskError(f"unknown backend '{backend}' (choose from {', '.join(BACKENDS)})")
    if not Path(path).exists():
        raise KioskError(f"{path}: model file missing for backend '{backend}'")
    return RUNNERS[backend](Path(path))
