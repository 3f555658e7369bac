"""Reads what `bench/device_session.sh source` wrote (ncu's source page as CSV: the SASS of every profiled kernel with
per-instruction execution counts and warp-stall samples, and the details page) and prints, per kernel: elapsed cycles
and duration, warp instructions executed and per wgmma, the wgmma forms, where the warps' stall samples fall (the
instructions with the most), the mainloop's instructions (those executed at least --loop-min times), and with --runs
the kernel's SASS as runs of consecutive instructions executed equally often, each with its stall samples (a kernel's
regions: per k tile, per tile, once; sum line ranges of it to compare two kernels' regions).

Run: python bench/ncu_source_summary.py DIR [--top N] [--loop-min N] [--loop KERNEL_INDEX ...] [--runs KERNEL_INDEX ...]
(no GPU needed)
"""
import argparse
import collections
import csv
import pathlib
import re


def kernels_of(csv_path: pathlib.Path) -> list:
    """[{name, header, rows}] in report order; each row is one SASS instruction."""
    kernels, current = [], None
    for row in csv.reader(csv_path.open()):
        if row and row[0] == "Kernel Name":
            current = {"name": row[1], "rows": []}
            kernels.append(current)
        elif row and row[0] == "Address":
            current["header"] = row
        elif current is not None and row:
            current["rows"].append(row)
    return kernels


def details_of(path: pathlib.Path) -> list:
    """Per kernel, in report order: {metric: value} for elapsed cycles, duration, SM frequency, DRAM throughput."""
    out = []
    for line in path.read_text().splitlines():
        if re.match(r"\s\s\S.*\(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)", line):
            out.append({"launch": line.strip().split(", Context")[0]})
        m = re.match(r"\s+(Elapsed Cycles|Duration|SM Frequency|DRAM Throughput|Compute \(SM\) Throughput)\s+(\S+)\s+"
                     r"([\d,.]+)", line)
        if m and out:
            out[-1][m.group(1)] = f"{m.group(3)} {m.group(2)}"
    return out


def instructions(kernel) -> list:
    """(line, executed warp instructions, stall samples, SASS text) per instruction."""
    h = kernel["header"]
    src, ex, st = h.index("Source"), h.index("Instructions Executed"), h.index("Warp Stall Sampling (All Samples)")
    return [(i, int(float(r[ex] or 0)), int(float(r[st] or 0)), r[src].strip()) for i, r in enumerate(kernel["rows"])]


def opcode(text: str) -> str:
    words = text.split()
    return words[1] if words and words[0].startswith("@") else (words[0] if words else "")


def runs_of(ins) -> list:
    """[first line, last line, executed, samples, opcodes] for each run of consecutive instructions executed equally
    often."""
    out = []
    for line, n, s, text in ins:
        if out and out[-1][2] == n:
            out[-1][1] = line
            out[-1][3] += s
            out[-1][4].append(opcode(text))
        else:
            out.append([line, line, n, s, [opcode(text)]])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", type=pathlib.Path)
    ap.add_argument("--top", type=int, default=8)
    ap.add_argument("--loop-min", type=int, default=50000)
    ap.add_argument("--loop", type=int, nargs="*", default=[], help="print the mainloop SASS of these kernels")
    ap.add_argument("--runs", type=int, nargs="*", default=[],
                    help="print these kernels' SASS as runs of instructions executed equally often, with samples")
    args = ap.parse_args()
    kernels = kernels_of(args.dir / "source_sass.csv")
    details = details_of(args.dir / "source_details.txt")
    for k, (kernel, det) in enumerate(zip(kernels, details)):
        ins = instructions(kernel)
        executed, samples = sum(n for _, n, _, _ in ins), sum(s for _, _, s, _ in ins)
        gmma = collections.Counter(opcode(t) for _, n, _, t in ins for _ in range(1) if "GMMA" in opcode(t))
        gmma_executed = sum(n for _, n, _, t in ins if "GMMA" in opcode(t))
        print(f"[{k}] {det['launch']}")
        print("    " + ", ".join(f"{m} {v}" for m, v in det.items() if m != "launch"))
        print(f"    {executed:,} warp instructions executed, {executed / max(gmma_executed, 1):.1f} per wgmma; "
              f"wgmma forms {dict(gmma)}; {samples} stall samples")
        for line, n, s, text in sorted(ins, key=lambda x: -x[2])[:args.top]:
            print(f"    {100 * s / max(samples, 1):5.1f}% of samples  line {line:5d}  executed {n:8,}  {text}")
        if k in args.loop:
            print("    mainloop (executed >= --loop-min times):")
            for line, n, s, text in ins:
                if n >= args.loop_min:
                    print(f"      line {line:5d}  executed {n:8,}  samples {s:5d}  {text}")
        if k in args.runs:
            print("    runs of instructions executed equally often (lines, executed, samples, count, first opcodes):")
            for first, last, n, s, ops in runs_of(ins):
                if n or s:
                    print(f"      {first:5d}-{last:5d}  executed {n:8,}  samples {s:5d}  n={last - first + 1:3d}  "
                          + " ".join(ops[:5]) + (" ..." if len(ops) > 5 else ""))
        print()


if __name__ == "__main__":
    main()
