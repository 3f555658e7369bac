"""Whether a change to csrc/ left the kernels' device code as it was, so that GPU results at an earlier commit hold.

    python bench/sass_same.py --base COMMIT --old DIR --new DIR [--what per_shape] [--per-shape all]

Every key includes csrc/'s digest, so any change there rebuilds every kernel. For each sm90 kernel that
seed_device_parts.py selects with --what and --per-shape, this compares the cubin kept in OLD under the device key the
kernel had with --base's csrc/ (an earlier session's seed) with the one kept in NEW under this tree's key (a seed made
now), section by section: the SASS (.text.*), the kernel's attributes (.nv.info*), its constants and symbols must be
byte for byte the same; only the string table may differ, where nvcc names internal symbols by a hash of the
source's path (a temporary folder per compile; the toolkit here has no cuobjdump). Both keys come from this tree's
rendering: a kernel whose source renders otherwise at --base has no cubin in OLD and is listed as missing. Prints
each kernel that differs or is missing and a summary; exit 1 if any differs.
"""
import argparse
import io
import pathlib
import struct
import subprocess
import sys
import tarfile
import tempfile
from unittest import mock

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]


def csrc_digest_at(commit: str) -> str:
    """csrc/'s digest (toolchain.csrc_digest) as it was at commit."""
    from cutlassgen.jit import toolchain

    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "csrc"], capture_output=True, check=True)
    with tempfile.TemporaryDirectory() as tmp:
        tarfile.open(fileobj=io.BytesIO(archive.stdout)).extractall(tmp, filter="data")
        return toolchain.csrc_digest(pathlib.Path(tmp) / "csrc")


def code_sections(cubin: pathlib.Path) -> dict:
    """name -> bytes of each ELF section of a cubin but the string table (.strtab), which holds symbol names only."""
    elf = cubin.read_bytes()
    (table,) = struct.unpack_from("<Q", elf, 0x28)
    entry_size, count, names_index = struct.unpack_from("<HHH", elf, 0x3A)
    # ELF64 section headers: name offset, type, flags, address, offset, size, ... (type 8: no bits in the file)
    headers = [struct.unpack_from("<IIQQQQ", elf, table + i * entry_size) for i in range(count)]
    names_at = headers[names_index][4]

    def name(offset: int) -> str:
        start = names_at + offset
        return elf[start:elf.index(b"\0", start)].decode()
    named = ((name(h[0]), h) for h in headers)
    return {n: b"" if h[1] == 8 else elf[h[4]:h[4] + h[5]] for n, h in named if n != ".strtab"}


def label_of(job) -> str:
    return f"{job.label} ({job.spec.key[:12]})"


def including_changed_headers(commit: str, jobs) -> dict:
    """Each csrc/cutlassgen header changed since commit (in the work tree) -> the labels of the jobs including it."""
    changed = subprocess.run(["git", "-C", str(ROOT), "diff", "--name-only", commit, "--", "csrc/cutlassgen"],
                             capture_output=True, text=True, check=True).stdout.split()
    return {path: [label_of(j) for j in jobs if f'#include "{path.removeprefix("csrc/")}"' in j.source]
            for path in changed}


def compare(jobs, base_digest: str, old: pathlib.Path, new: pathlib.Path) -> dict:
    """label -> "same", "differs" or "missing in OLD/NEW" for each job."""
    from cutlassgen.jit import cache, device_key, toolchain

    verdicts = {}
    for job in jobs:
        with mock.patch.object(toolchain, "csrc_digest", lambda: base_digest):
            old_key = device_key(job)
        cubins = {name: cache.lookup(cache.device_part_dir(key, 90, root), "kernel.cubin")
                  for name, key, root in (("OLD", old_key, old), ("NEW", device_key(job), new))}
        missing = [name for name, path in cubins.items() if path is None]
        label = label_of(job)
        if missing:
            verdicts[label] = "missing in " + "/".join(missing)
        else:
            verdicts[label] = "same" if code_sections(cubins["OLD"]) == code_sections(cubins["NEW"]) else "differs"
    return verdicts


def main() -> int:
    from seed_device_parts import unknown_names, wanted_jobs

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--base", required=True, help="the commit whose csrc/ OLD's cubins were compiled with")
    p.add_argument("--old", required=True, type=pathlib.Path)
    p.add_argument("--new", required=True, type=pathlib.Path)
    p.add_argument("--what", default="per_shape", help="as seed_device_parts.py's --what")
    p.add_argument("--per-shape", default="all", help="as seed_device_parts.py's --per-shape")
    args = p.parse_args()
    what = set(args.what.split(","))
    for problem in unknown_names(what, args.per_shape):
        p.error(problem)
    jobs = wanted_jobs(what, args.per_shape)
    verdicts = compare(jobs, csrc_digest_at(args.base), args.old, args.new)
    for label, verdict in verdicts.items():
        if verdict != "same":
            print(f"{verdict:>15}  {label}")
    counts = {v: sum(x == v for x in verdicts.values()) for v in sorted(set(verdicts.values()))}
    print(f"{len(verdicts)} kernels: " + ", ".join(f"{n} {v}" for v, n in counts.items()))
    for header, labels in including_changed_headers(args.base, jobs).items():
        print(f"{header}, changed since {args.base}, included (directly) by {len(labels)}: " +
              ", ".join(f"{sum(verdicts[x] == v for x in labels)} {v}" for v in counts))
    return 1 if counts.get("differs") else 0


if __name__ == "__main__":
    sys.exit(main())
