"""The kernels a GPU session builds before its tests (bench/device_session.sh prebuild), and the sm90 ones whose
device parts bench/seed_device_parts.py compiles ahead on a machine without a GPU."""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
for _p in (str(ROOT / "tests"), str(ROOT)):
    if _p not in sys.path:
        sys.path.insert(0, _p)


def per_shape_case_error(per_shape: str) -> str:
    """What is wrong with per_shape (prebuild_specs' argument), or "": a misspelt case name would match nothing, and
    its kernels would go unbuilt without a word."""
    import per_shape_cases

    unknown = [] if per_shape in ("all", "") else sorted(set(per_shape.split(",")) - set(per_shape_cases.cases()))
    return (f"no per-shape case {', '.join(unknown)}: \"all\", \"\" or some of {', '.join(per_shape_cases.cases())}"
            if unknown else "")


def prebuild_specs(suite: bool = True, per_shape: str = "all") -> list:
    """The GPU suite's specs and twins, the examples and the demo's (suite), and what build(spec, shapes=...)
    compiles in the per-shape tests: per_shape "all", "" for none, or per_shape_cases.cases() names joined by commas
    (with the kernels a weights-first test compares its output with)."""
    import cutlassgen as cg
    import per_shape_cases
    from cutlassgen.demo import default_spec
    from gpu_specs import GPU_SPECS, past_row_twins

    problem = per_shape_case_error(per_shape)
    if problem:
        raise ValueError(problem)
    specs = []
    if suite:
        examples = [cg.load_spec(p) for p in sorted((ROOT / "examples/specs").glob("*.toml"))]
        specs += list(GPU_SPECS.values()) + list(past_row_twins().values()) + examples
        specs.append(default_spec(90))  # the bench stage builds its own kernels
    for name, (spec, shapes, _) in per_shape_cases.cases().items():
        if per_shape == "all" or name in per_shape.split(","):
            specs += per_shape_cases.planned_specs(spec, shapes)
            if name.endswith("weights_first"):
                specs += per_shape_cases.weights_first_twins(spec, shapes)
    return specs


def main() -> None:
    """How many kernels a prebuild builds, and how many of them are sm90-path (those with a device part)."""
    import argparse

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--per-shape", default="all", help='"all", "" or per_shape_cases names, comma-separated')
    p.add_argument("--only-per-shape", action="store_true")
    args = p.parse_args()
    specs = {s.key: s for s in prebuild_specs(not args.only_per_shape, args.per_shape)}
    print(f"{len(specs)} kernels, {sum(s.resolved_path == 'sm90' for s in specs.values())} of them sm90-path")


if __name__ == "__main__":
    main()
