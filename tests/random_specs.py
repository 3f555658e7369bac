"""Random spec dicts (and AOT manifests of them) for tests/test_spec_fuzz.py and scripts/compile_random_specs.py:
mostly near-valid, with a few fields a user might get wrong."""
import random

from cutlassgen import epilogue as epi
from cutlassgen.dtypes import storage


class RandomSpecs:
    """Spec dicts whose every choice is a usual value, or with probability `wrong` one a user might mistype."""

    def __init__(self, seed: int, wrong: float = 0.02):
        self.rng, self.wrong = random.Random(seed), wrong

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, usual, odd=(), wrong=None):
        return self.rng.choice(list(odd) if odd and self.chance(wrong or self.wrong) else list(usual))

    def some(self, fields: dict) -> dict:
        """About a third of fields, each drawn."""
        return {k: draw() for k, draw in fields.items() if self.chance(0.35)}

    def operand(self, dtype: str, layout: str) -> dict:
        other = "row" if layout == "column" else "column"
        return {"dtype": self.pick([dtype], ["half", "fp8", "bogus", 3, None, "int32"]),
                **self.some({"layout": lambda: self.pick([layout] * 9 + [other], ["col", "diag", 1]),
                             "alignment": lambda: self.pick(["auto", 1, 2, 4, 8, 16], [0, -1, 3, "8", True, 2.0])})}

    def node(self) -> dict:
        op = self.pick(["add", "multiply", "activation", "activation", "quantize", "store_aux", "amax",
                        "linear_combination"], ["nope", 3])
        number = [float("nan"), float("inf"), 1e39, "x", True]  # drawn more often: the constants' rules
        name = ["1x", "", "d", "self", "lambda", "_x", "a", "out"]
        fields = {
            "add": {"source": lambda: self.pick(["scalar", "per_row", "per_col", "tensor"], ["row"]),
                    "name": lambda: self.pick(["bias", "gate", "res"], name),
                    "dtype": lambda: self.pick(["fp32", "bf16", "fp16"], ["e4m3", "int8", "tf32"])},
            "activation": {"fn": lambda: self.pick(epi.ACTIVATIONS, ["swish"]),
                           "slope": lambda: self.pick([0.1, 0.2], number, 0.2),
                           "lo": lambda: self.pick([-6.0, 0.0], number, 0.2),
                           "hi": lambda: self.pick([6.0, 1.0, float("inf")], number, 0.2)},
            "quantize": {"dtype": lambda: self.pick(epi.QUANT_DTYPES, ["bf16"]),
                         "scale": lambda: self.pick(epi.QUANT_SCALES, ["tensor"]),
                         "name": lambda: self.pick(["scale_out", "qs"], name)},
            "store_aux": {"name": lambda: self.pick(["aux", "pre"], name),
                          "dtype": lambda: self.pick(["bf16", "fp16", "fp32", "e4m3"], ["int32", "int8"])},
            "amax": {"name": lambda: self.pick(["amax", "m"], name)},
            "linear_combination": {"alpha": lambda: self.pick([1.0, 2.0, 0.5, "runtime"], number, 0.2),
                                   "beta": lambda: self.pick([0.0, 1.0, 0.5, "runtime"], number, 0.2)},
        }
        fields["multiply"] = fields["add"]
        return {"op": op, **self.some(fields.get(op, {}))}

    def tile(self, sm90: bool) -> dict:
        if sm90:
            return self.some({
                "cta": lambda: [self.pick([64, 128, 256], [32]), self.pick([16, 32, 48, 64, 80, 96, 128, 160, 192, 256],
                                                                            [40, 512]), self.pick([32, 64, 128])],
                "cluster": lambda: [self.pick([1, 2], [4]), self.pick([1, 2], [3]), 1],
                "mainloop": lambda: self.pick(["auto", "cooperative", "pingpong"], ["warp"]),
                "scheduler": lambda: self.pick(["persistent", "stream_k", "stream_k_always"]),
                "stages": lambda: self.pick(["auto", 2, 3, 4, 5, 7], [1, 12]),
                "raster": lambda: self.pick(["auto", "along_m", "along_n"]),
                "swizzle": lambda: self.pick(["auto", 1, 2, 4, 8], [3]),
                "fp8_fast_accum": lambda: self.pick([True, False]), "split_k": lambda: self.pick([1, 2, 3], [0]),
                "swap_ab": lambda: self.pick([True, False]),
                "epilogue_tile": lambda: self.pick(["auto", [64, 32], [128, 64], [64, 64]], [[48, 16]]),
                "pdl": lambda: self.pick([True, False]), "opaque_pipeline": lambda: self.pick([True, False]),
                "weights_evict_first": lambda: self.pick([True, False]),
                "fitted_tail": lambda: self.pick([True, False])})
        return self.some({
            "threadblock": lambda: [self.pick([32, 64, 128, 256]), self.pick([32, 64, 128, 256]),
                                    self.pick([16, 32, 64, 128])],
            "warp": lambda: [self.pick([16, 32, 64, 128]), self.pick([16, 32, 64, 128]), self.pick([16, 32, 64])],
            "stages": lambda: self.pick(["auto", 2, 3, 4, 6], [1]), "swizzle": lambda: self.pick([1, 2, 4, 8], [3]),
            "split_k": lambda: self.pick([1, 2])})

    def spec(self) -> dict:
        arch = self.pick([80, 86, 89, 90, 90, 90], [75, "90"])
        ab = self.pick(["bf16", "bf16", "fp16", "e4m3", "e4m3", "e5m2", "int8", "tf32"])
        d = self.pick(["bf16", "bf16", "fp16", "fp32", "e4m3", "int8"] + ["int32"] * 4 * (ab == "int8"))
        out = {"arch": arch, "a": self.operand(ab, "row"), "b": self.operand(ab, "column"),
               "d": self.operand(d, "row"),
               "epilogue": [self.node() for _ in range(self.rng.randint(0, 4))]}
        if self.chance(0.25):
            out["c"] = self.operand(self.pick([d, "bf16", "fp32"]), "row")
        if self.chance(0.15):
            out["path"] = self.pick(["auto", "sm80", "sm90"])
        if self.chance(0.2):
            out["name"] = self.pick(["up_proj", "qkv fused", "a$b c:d", 'q"uote', "ünï", "x" * 200],
                                    ["two\nlines", "tab\there", "nul\x00", 7, None], 0.1)
        if self.chance(0.6):
            out["tile"] = self.tile(arch == 90 and out.get("path") != "sm80")
        if self.chance(self.wrong / 2):  # a required field left out
            del out["a"]["dtype"]
        if self.chance(self.wrong / 2):
            del out[self.pick(["arch", "a", "b", "d"])]
        return out


class RandomManifests(RandomSpecs):
    """Manifests as tomllib parses them: [[spec]] and [[matrix]] tables naming FILES (which the test writes) or
    holding random spec dicts, with archs, shapes and vary drawn as for specs."""

    FILES = ("sm80.toml", "sm90_auto.toml")
    BAD_FILES = ("missing.toml", "not_toml.toml", "invalid_spec.toml", "", ".", 3)

    def archs(self):
        return self.pick([[80, 90], [90], [80], [80, 86, 89, 90], [86], [90, 90]],
                         [[91], "90", [], [True], [0, 90], 90, [75], ["sm90"]], 0.1)

    def shapes(self):
        return self.pick([[[32, 8192, 8192]], [[256, 4096, 4096], [4096, 4096, 4096]], [[7, 4096, 1024]]],
                         [[[1, 2]], "x", [], [[0, 8, 8]], [[32, 8191, 8192]], [32, 64, 64]], 0.1)

    def vary(self) -> dict:
        usual = {"d.dtype": [["bf16", "fp16"], ["e4m3"]], "name": [["x", "y"]], "tile.stages": [["auto", 3, 4]],
                 "tile.cta": [[[128, 128, 64], [128, 256, 64]]], "a.alignment": [[8, 16], ["auto"]],
                 "tile.threadblock": [[[128, 128, 32]]]}
        odd = {"": [["x"]], "a.dtype.x": [["bf16"]], "tile.foo": [[1]], "d..dtype": [["bf16"]],
               "epilogue.op": [["amax"]], "d.dtype": [[], "bf16", [3]]}
        keys = self.rng.sample(sorted(usual), self.rng.randint(1, 2))
        if self.chance(0.1):
            keys.append(self.rng.choice(sorted(odd)))
        return {k: self.rng.choice(odd[k] if k in odd else usual[k]) for k in keys}

    def entry(self, matrix: bool) -> dict:
        if self.chance(0.6):
            entry = {"file": self.pick(self.FILES, self.BAD_FILES, 0.1)}
            if self.chance(self.wrong * 2):  # a spec field or a typo beside file = ...
                entry[self.pick(["shape", "arch", "name", "tile"])] = self.shapes()
        else:
            entry = self.spec()
        entry.update(self.some({"archs": self.archs, "shapes": self.shapes}))
        if matrix and self.chance(0.97):
            entry["vary"] = self.vary()
        return entry

    def manifest(self) -> dict:
        out = self.some({"archs": self.archs})
        for name, p in (("spec", 0.85), ("matrix", 0.4)):
            if self.chance(p):
                out[name] = [self.entry(name == "matrix") for _ in range(self.rng.randint(1, 3))]
                if self.chance(self.wrong):
                    out[name] = self.pick([out[name][0], "sm80.toml", [1]])  # not tables
        if self.chance(self.wrong):
            out[self.pick(["arch", "specs", "shapes"])] = [90]
        return out


def reference_inputs(spec, gen, M=24, N=40, K=32):
    """CPU tensors (a, b, c, inputs) for cutlassgen.reference of spec at M x N x K; gen a torch.Generator."""
    import torch

    def matrix(rows, cols, op):
        t = torch.randn(rows, cols, generator=gen)
        return t.round().clamp(-8, 7).to(torch.int8) if op.dtype == "int8" else t.to(
            getattr(torch, storage(op.dtype).torch))

    a, b = matrix(M, K, spec.a), matrix(K, N, spec.b)
    c = matrix(M, N, spec.c) if spec.c is not None else None
    inputs = {name: 0.75 if kind == "scalar" else
              (torch.rand(M if kind == "per_row" else N, generator=gen) + 0.5).to(getattr(torch, storage(dt).torch))
              for name, kind, dt in epi.inputs_of(spec.epilogue)}
    return a, b, c, inputs
