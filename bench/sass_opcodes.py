"""Which SASS opcodes PDL adds: each pair of tile_probe's PDL_* tiles (with and without Sm90Tile.pdl) is built (a
cache hit after `tile_probe.py pdl`), its cubin cut out of the module (split build: embedded by cubin_embed.S) and
disassembled with cuobjdump; prints the opcodes only one of the pair has. Expect griddepcontrol.wait and
.launch_dependents in the pdl kernel, and nothing else.

Run: python bench/sass_opcodes.py   (needs cuobjdump; no GPU)
"""
import collections
import re
import struct
import subprocess
import tempfile

import cutlassgen as cg
from tile_probe import PDL_BF16_TILES, PDL_DECODE_TILES, bias_gelu


def embedded_cubin(module_bytes: bytes) -> bytes:
    """The ELF embedded in the module: the second ELF header in the file, cut where its last section, segment or
    header table ends (nvcc puts the program headers after the section headers)."""
    start = module_bytes.index(b"\x7fELF", 1)
    elf = module_bytes[start:]
    phoff, shoff = struct.unpack_from("<QQ", elf, 0x20)
    phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", elf, 0x36)
    ends = [shoff + shentsize * shnum, phoff + phentsize * phnum]
    for i in range(shnum):
        kind, = struct.unpack_from("<I", elf, shoff + i * shentsize + 4)
        offset, size = struct.unpack_from("<QQ", elf, shoff + i * shentsize + 0x18)
        ends.append(offset + (0 if kind == 8 else size))  # SHT_NOBITS takes no file space
    for i in range(phnum):
        offset, = struct.unpack_from("<Q", elf, phoff + i * phentsize + 8)
        filesz, = struct.unpack_from("<Q", elf, phoff + i * phentsize + 0x20)
        ends.append(offset + filesz)
    return elf[:max(ends)]


def sass(kernel, cuobjdump: str = "cuobjdump") -> str:
    """cuobjdump -sass of the kernel's embedded cubin."""
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(embedded_cubin(kernel.binary_path.read_bytes()))
        f.flush()
        return subprocess.run([cuobjdump, "-sass", f.name], capture_output=True, text=True, check=True).stdout


def opcodes(kernel) -> collections.Counter:
    return collections.Counter(re.findall(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)", sass(kernel)))


def main():
    tiles = {**PDL_DECODE_TILES, **PDL_BF16_TILES}
    pairs = [(n, n + " pdl") for n in tiles if n + " pdl" in tiles]
    names = [x for pair in pairs for x in pair]
    built = dict(zip(names, cg.build_many([bias_gelu(tiles[n]) for n in names])))
    for plain, pdl in pairs:
        a, b = opcodes(built[plain]), opcodes(built[pdl])
        only_pdl = {op: b[op] - a[op] for op in b if b[op] > a[op] and op not in a}
        only_plain = {op: a[op] - b[op] for op in a if a[op] > b[op] and op not in b}
        print(f"{pdl}: opcodes only with pdl {only_pdl or '{}'}; only without {only_plain or '{}'}")


if __name__ == "__main__":
    main()
