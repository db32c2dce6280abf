"""scripts/gpu_carry.sh: a repository made small enough to travel to a GPU machine, and put back exactly."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "gpu_carry.sh"
MiB = 1024 * 1024


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def carry(repo: Path, what: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "scripts/gpu_carry.sh", what], cwd=repo, capture_output=True, text=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository laid out as this one: what the run reads, what it does not, an exclude file of its own."""
    repo = tmp_path / "repo"
    (repo / "scripts").mkdir(parents=True)
    shutil.copy(SCRIPT, repo / "scripts" / "gpu_carry.sh")
    shutil.copy(SCRIPT.parent.parent / ".gitignore", repo / ".gitignore")  # which ignores .gpu/
    files = {"kiosk/__init__.py": 10, "models/reader.json": 10, "models/index-classifier.pt": MiB,
             "models/phase14/index-classifier.pt": MiB, "kiosk/data/demo/table.mp4": 6 * MiB,
             "models/index-detector_openvino_model/index-detector.bin": 4 * MiB}
    for name, size in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_bytes(b"x" * size)
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "files")
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "exclude").write_text("/mine/\n")
    (repo / ".gpu" / "crops").mkdir(parents=True)
    (repo / ".gpu" / "crops" / "sheet.jpg").write_bytes(b"y" * (2 * MiB))
    return repo


def test_out_leaves_only_what_the_run_reads_and_back_restores_it(repo: Path):
    out = carry(repo, "out")
    assert out.returncode == 0, out.stderr
    assert "3 MiB would travel" in out.stdout  # 1 MiB of weights + 2 MiB of crops; not the 11 MiB left behind
    tracked = git(repo, "ls-files").split()
    assert "models/index-classifier.pt" in tracked and "models/reader.json" in tracked
    assert not [f for f in tracked if f.startswith(("models/phase14", "kiosk/data/demo", "models/index-detector_openvino"))]
    assert (repo / "kiosk/data/demo/table.mp4").stat().st_size == 6 * MiB  # still on disk
    untracked = git(repo, "status", "--porcelain", "--untracked-files=all")
    assert "??" not in untracked  # ignored, so they do not travel either
    exclude = (repo / ".git/info/exclude").read_text().split()
    assert exclude[0] == "/mine/" and "/models/phase14" in exclude

    again = carry(repo, "out")
    assert again.returncode == 2 and "already out" in again.stderr

    back = carry(repo, "back")
    assert back.returncode == 0, back.stderr
    assert git(repo, "status", "--porcelain") == ""
    assert (repo / ".git/info/exclude").read_text() == "/mine/\n"
    twice = carry(repo, "back")
    assert twice.returncode == 2 and "nothing to put back" in twice.stderr


def test_too_much_to_travel_is_refused_and_can_be_put_back(repo: Path):
    with open(repo / ".gpu" / "crops" / "more.jpg", "wb") as f:
        f.truncate(64 * MiB)
    out = carry(repo, "out")
    assert out.returncode == 1
    assert "over the limit" in out.stderr and "--train-max" in out.stderr
    assert carry(repo, "back").returncode == 0
    assert git(repo, "status", "--porcelain") == ""


def test_a_wrong_word_is_named():
    bad = subprocess.run(["bash", str(SCRIPT), "away"], capture_output=True, text=True)
    assert bad.returncode == 2 and "usage: bash scripts/gpu_carry.sh out|back" in bad.stderr
