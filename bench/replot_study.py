"""Redraw a tile study's report (study.csv -> study.json, study.png) without a GPU, e.g. after the plot changed.

Run: python bench/replot_study.py STUDY_DIR SPEC.toml [--peak 790] [--peak-bandwidth 4.8]
"""
import argparse
import csv
import dataclasses

import cutlassgen as cg
from cutlassgen.tuning import Row, write_report


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("study_dir")
    ap.add_argument("spec")
    ap.add_argument("--peak", type=float, default=None)
    ap.add_argument("--peak-bandwidth", type=float, default=None)
    args = ap.parse_args()
    types = {f.name: f.type for f in dataclasses.fields(Row)}
    with open(f"{args.study_dir}/study.csv") as f:
        rows = []
        for d in csv.DictReader(f):
            conv = {"str": str, "float": float, "int": int}
            rows.append(Row(**{k: (None if v == "" else conv.get(types[k].split(" ")[0], int)(v))
                               for k, v in d.items()}))
    for p in write_report(rows, args.study_dir, args.peak, spec=cg.load_spec(args.spec),
                          peak_tbps=args.peak_bandwidth):
        print(p)


if __name__ == "__main__":
    main()
