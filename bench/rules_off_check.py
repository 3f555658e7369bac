"""The sm80 rules whose refused tiles compile: is the result they foresee wrong on the GPU?

Sessions 80-81 added validate rules from CUTLASS's arithmetic alone: tiles that compile and, by that arithmetic,
leave part of D unwritten or written with other threads' values. Each case here builds its spec with its rules
switched off, runs it into a NaN-poisoned out on fresh inputs, and compares it with the float64 reference, element
by element: a rule is borne out where elements come out wrong or NaN; a case that comes out right means its rules
refuse a working tile. Exits 1 if any case comes out right.

Run: python bench/rules_off_check.py [--shape MxNxK]   (a GPU runs them; without one the kernels compile for sm_80
and the script stops there)
"""
import argparse
import contextlib
import sys

import cutlassgen as cg
from cutlassgen import validate


def _unplaced_lanes_spec():
    return cg.GemmSpec(arch=80, name="rule_off_unplaced_lanes", a=cg.Operand("bf16"), b=cg.Operand("bf16", "column"),
                       d=cg.Operand("bf16"), epilogue=[cg.Add("per_col", "bias", "bf16")],
                       tile=cg.Sm80Tile(threadblock=(64, 16, 32), warp=(32, 16, 32)))


def _unplaced_lanes_96_spec():
    return cg.GemmSpec(arch=80, name="rule_off_unplaced_lanes_96", a=cg.Operand("bf16"),
                       b=cg.Operand("bf16", "column"), d=cg.Operand("bf16"),
                       epilogue=[cg.Add("per_col", "bias", "bf16")],
                       tile=cg.Sm80Tile(threadblock=(64, 96, 32), warp=(64, 48, 32)))


def _epilogue_remainder_spec():
    return cg.GemmSpec(arch=80, name="rule_off_epilogue_remainder", a=cg.Operand("fp16"),
                       b=cg.Operand("fp16", "column"), d=cg.Operand("fp16"),
                       epilogue=[cg.Add("per_col", "bias", "fp16")],
                       tile=cg.Sm80Tile(threadblock=(16, 48, 32), warp=(16, 48, 32)))


def _operand_copy_spec():
    return cg.GemmSpec(arch=80, name="rule_off_operand_copy", a=cg.Operand("bf16"), b=cg.Operand("bf16", "column"),
                       d=cg.Operand("bf16"), epilogue=[cg.Add("per_col", "bias", "bf16")],
                       tile=cg.Sm80Tile(threadblock=(48, 128, 32), warp=(48, 32, 32)))


# (the rules' functions in validate, what they foresee, the spec they refuse). The second: the remainder rule's tiles
# that compile also leave lanes unplaced (with it alone off, N = 96 with fp32 D stopped nvcc in cute's "Stride
# Divisibility Condition"), so both rules are off.
CASES = [
    (("_sm80_unplaced_lanes_error",), "threadblock N 16, bf16 D: lanes 2 wide x 8 deep, 16 of 32 placed (session 81)",
     _unplaced_lanes_spec),
    (("_sm80_unplaced_lanes_error",), "threadblock N 96, bf16 D: lanes 12 wide x 2 deep, 24 of 32 placed (session 81)",
     _unplaced_lanes_96_spec),
    (("_sm80_epilogue_map_error", "_sm80_unplaced_lanes_error"),
     "16x48 fp16 D: lanes 6 wide x 5 deep, 5 of 8 rows stored, 30 of 32 placed (sessions 80-81)",
     _epilogue_remainder_spec),
    (("_sm80_operand_copy_error",), "48x128x32 over 4 warps: A's rows 32-47 never loaded (session 80)",
     _operand_copy_spec),
]


@contextlib.contextmanager
def rules_off(names):
    """validate.<name> of each name answering "no problem" while the block runs."""
    rules = {name: getattr(validate, name) for name in names}
    for name in names:
        setattr(validate, name, lambda *args, **kwargs: None)
    try:
        yield
    finally:
        for name, rule in rules.items():
            setattr(validate, name, rule)


def refused(make) -> bool:
    try:
        make()
    except cg.SpecError:
        return True
    return False


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", default="1000x480x512", help="MxNxK (default 1000x480x512: the last tiles partly empty)")
    args = ap.parse_args(argv)
    M, N, K = map(int, args.shape.lower().split("x"))
    import torch

    gpu = torch.cuda.is_available()
    specs = []
    for rules, _, make in CASES:
        assert refused(make), f"{make.__name__}'s spec validates: the case no longer tests {rules}"
        with rules_off(rules):
            specs.append(make())
    with rules_off({rule for rules, _, _ in CASES for rule in rules}):  # build() validates again
        kernels = cg.build_many(specs) if gpu else cg.build_many(specs, arch=80)
    if not gpu:
        print(f"compiled {len(kernels)} kernels for sm_80; no GPU here to run them")
        return 0
    torch.manual_seed(0)
    right = 0
    for (rules, foreseen, _), spec, kernel in zip(CASES, specs, kernels):
        dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
        a = torch.randn(M, K, device="cuda").to(dtype[spec.a.dtype])
        b = torch.randn(N, K, device="cuda").to(dtype[spec.b.dtype]).t()
        bias = torch.randn(N, device="cuda").to(dtype[spec.a.dtype])
        out = torch.full((M, N), float("nan"), device="cuda", dtype=dtype[spec.d.dtype])
        kernel(a, b, bias=bias, out=out)
        torch.cuda.synchronize()
        ref = cg.reference(spec, a, b, bias=bias).double()
        err = (out.double() - ref).abs()
        bad = ~(err <= 0.02 * ref.abs().max())  # NaN counts as wrong
        rows = bad.any(dim=1).nonzero().flatten().tolist()
        print(f"{' and '.join(rules)} off, {spec.tile.threadblock} w{spec.tile.warp}, {M}x{N}x{K}: "
              f"{int(bad.sum())} of {M * N} elements wrong ({int(out.isnan().sum())} NaN) in {len(rows)} rows"
              f"{f' (first {rows[:8]})' if rows else ''}"
              f" -- foreseen: {foreseen}")
        right += not rows
    print("every rule borne out" if not right else f"{right} case(s) came out right: those rules refuse working tiles")
    return 1 if right else 0


if __name__ == "__main__":
    sys.exit(main())
