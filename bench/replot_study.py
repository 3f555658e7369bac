"""Redraw a tile study's report (study.csv -> study.json, study.png) without a GPU, e.g. after the plot changed.

Run: python bench/replot_study.py STUDY_DIR SPEC.toml [--peak 989] [--peak-bandwidth 4.8]
"""
import argparse

import cutlassgen as cg
from cutlassgen.tuning import check_peaks, read_report, write_report


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("study_dir")
    ap.add_argument("spec")
    ap.add_argument("--peak", type=float, default=None)
    ap.add_argument("--peak-bandwidth", type=float, default=None)
    args = ap.parse_args()
    try:
        check_peaks(args.peak, args.peak_bandwidth, names=("--peak", "--peak-bandwidth"))
    except ValueError as e:  # a usage error (exit 2), before the report is rewritten
        ap.error(str(e))
    for p in write_report(read_report(args.study_dir), args.study_dir, args.peak, spec=cg.load_spec(args.spec),
                          peak_tbps=args.peak_bandwidth):
        print(p)


if __name__ == "__main__":
    main()
