"""A stand-in nvcc and c++ for the tests that interrupt builds (test_build's resume and prune tests, the seeder's
test in test_bench_scripts): no CUDA, each step logged and its output written in two halves."""
import pathlib
import sys

FAKE_TOOL = """#!{python}
# nvcc and c++ for tests that interrupt builds: logs each step, writes its -o output; a kernel whose source names
# "{slow}" hangs (while the file $FAKE_SLOW names exists) after writing part of its output, as a compile does when it
# is killed
import os, sys, time
args = sys.argv[1:]
if "--version" in args:
    print("Cuda compilation tools, release 13.0, V13.0.88")
    sys.exit(0)
out = args[args.index("-o") + 1]
src = next((a for a in args if a.endswith(".cu")), "")
with open(os.environ["FAKE_LOG"], "a") as log:
    log.write(out + "\\n")
with open(out, "w") as f:
    f.write("part of it")
    f.flush()
    deadline = time.time() + 600
    while src and "{slow}" in open(src).read() and os.path.exists(os.environ.get("FAKE_SLOW", "")):
        assert time.time() < deadline
        time.sleep(0.05)
    f.write(" and the rest")
"""


def write_fake_tool(path: pathlib.Path, slow: str) -> pathlib.Path:
    """FAKE_TOOL at path, executable, hanging on the sources that name slow ("": every source)."""
    path.write_text(FAKE_TOOL.format(python=sys.executable, slow=slow))
    path.chmod(0o755)
    return path
