"""Train the classifier on what other classifiers read as well as on the labels (`kiosk train --teacher`).

A pair of classifiers read the crops better than either alone but costs twice the reading time; a student learns
the pair's averaged readings of every training batch (softened by a temperature) together with the label, and
reads at the cost of one. The teachers see the very batch the student sees, augmentations and all.
"""

from __future__ import annotations

from pathlib import Path

from kiosk.errors import KioskError


class DistillLoss:
    """Cross-entropy on the labels, blended with the KL divergence from the teachers' softened readings.

    A plain object, not a torch module: the teachers must not join the student's state dict (its EMA, its checkpoints).
    """

    def __init__(self, teachers: list, weight: float, temperature: float):
        self.teachers = teachers
        self.weight = weight
        self.temperature = temperature

    def __call__(self, preds, batch: dict):
        import torch
        import torch.nn.functional as F

        logits = preds[1] if isinstance(preds, (list, tuple)) else preds
        hard = F.cross_entropy(logits, batch["cls"], reduction="mean")
        t = self.temperature
        with torch.no_grad():
            target = torch.stack([F.softmax(teacher(batch["img"])[1] / t, dim=1) for teacher in self.teachers]).mean(0)
        soft = F.kl_div(F.log_softmax(logits / t, dim=1), target, reduction="batchmean") * t * t
        loss = (1 - self.weight) * hard + self.weight * soft
        return loss, {"loss": loss.detach()}


def load_teachers(folders: tuple[Path, ...], names: dict) -> list:
    """Each folder's index-classifier.pt, in eval mode, checked to read the student's classes in its order."""
    from ultralytics import YOLO

    teachers = []
    for folder in folders:
        pt = Path(folder) / "index-classifier.pt"
        if not pt.is_file():
            raise KioskError(f"--teacher {folder}: no index-classifier.pt there")
        model = YOLO(str(pt), task="classify").model.float().eval()
        if dict(model.names) != dict(names):
            raise KioskError(f"--teacher {folder}: its classifier reads {len(model.names)} classes, not the {len(names)} "
                             "class folders of the crops in their order")
        for p in model.parameters():
            p.requires_grad_(False)
        teachers.append(model)
    return teachers


def teacher_callback(teachers: list, weight: float, temperature: float):
    """An ultralytics `on_train_start` callback that gives the student the teachers' loss (`load_teachers`).

    It runs after the trainer copied the student into its EMA, so only the model that is trained learns from them.
    """

    def on_train_start(trainer) -> None:
        import torch

        model = trainer.model.module if hasattr(trainer.model, "module") else trainer.model
        model.criterion = DistillLoss([t.to(trainer.device) for t in teachers], weight, temperature)
        print(f"[train] learning from {len(teachers)} teacher(s) (weight {weight}, temperature {temperature}) "
              f"with {torch.get_num_threads()} threads", flush=True)

    return on_train_start
