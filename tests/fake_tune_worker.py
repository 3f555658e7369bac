"""A stand-in for tune's per-GPU worker (imported by spawned processes in test_tune): no GPU, fixed rows."""
import os

from cutlassgen.tuning import Row


def worker(device, spec_dicts, indices, shapes, reps):
    return [(si, vi, Row(f"cfg{vi}@gpu{device}", "x".join(map(str, shape)), 1.0 + vi, float(os.getpid()), 0.0, 0.0,
                         0, d["name"]))
            for si, shape in enumerate(shapes) for vi, d in zip(indices, spec_dicts)]
