#!/usr/bin/env python3
"""Make the bad-input corpus (test/bad-inputs/README.md) into WORK_DIR/inputs.

    gen.py SOURCE_DIR WORK_DIR

Every input is derived deterministically from the bundled kernels
(test/corpus/triton/gfx942/*.hsaco, test/specs/*.json): corrupted code objects (truncations,
header, section, note, metadata, descriptor and symbol-table field corruptions), odd files,
bad launch specs, bad assembly and patch snippets. Nothing here is random and nothing
generated is committed; cases.tsv says what each tool must do with each input. Offsets are
found by parsing the ELF here, never hard-coded, so a rebuilt corpus kernel still works.
Standard library only.
"""
import importlib.util
import json
import os
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SHT_NULL, SHT_PROGBITS, SHT_RELA, SHT_NOBITS = 0, 1, 4, 8
SHF_ALLOC = 2

# base name -> the stem of its Triton object (test/corpus/triton/gfx942) and spec (test/specs)
BASES = {
    "vadd": "vector_add_fp32",
    "softmax": "softmax_fp32",
    "matmul": "matmul_fp16",
    "layernorm": "layernorm_fwd_fp16",
}


class Elf:
    """Just enough of an ELF64 little-endian reader to find the fields to corrupt."""

    def __init__(self, data):
        self.d = bytes(data)
        d = self.d
        (self.shoff,) = struct.unpack_from("<Q", d, 0x28)
        self.shentsize, self.shnum, self.shstrndx = struct.unpack_from("<HHH", d, 0x3A)
        self.sh = []
        for i in range(self.shnum):
            o = self.shoff + i * 64
            name, typ, flags, addr, off, size, link, info, align, entsize = struct.unpack_from(
                "<IIQQQQIIQQ", d, o)
            self.sh.append(dict(index=i, hdr=o, name_off=name, type=typ, flags=flags, addr=addr,
                                off=off, size=size, link=link, info=info, entsize=entsize))
        strtab = self.sh[self.shstrndx]
        for s in self.sh:
            n = d[strtab["off"] + s["name_off"]:]
            s["name"] = n[:n.index(b"\0")].decode()

    def section(self, name):
        return next(s for s in self.sh if s["name"] == name)

    def symbols(self, table):
        """[(file offset of the entry, name, value, size, info, shndx)] of .symtab or .dynsym."""
        s = self.section(table)
        strs = self.sh[s["link"]]
        out = []
        for o in range(s["off"] + 24, s["off"] + s["size"], 24):
            name, info, other, shndx, value, size = struct.unpack_from("<IBBHQQ", self.d, o)
            n = self.d[strs["off"] + name:]
            out.append((o, n[:n.index(b"\0")].decode(), value, size, info, shndx))
        return out

    def symbol(self, table, name):
        return next(x for x in self.symbols(table) if x[1] == name)

    def note(self):
        """(file offset of the note header, namesz, descsz, file offset of the descriptor)."""
        s = self.section(".note")
        namesz, descsz, _ = struct.unpack_from("<III", self.d, s["off"])
        desc = s["off"] + 12 + ((namesz + 3) & ~3)
        return s["off"], namesz, descsz, desc

    def kernel(self):
        """(kernel name, file offset of its .kd descriptor)."""
        kd = next(x for x in self.symbols(".symtab") if x[1].endswith(".kd"))
        ro = self.section(".rodata")
        return kd[1][:-3], ro["off"] + kd[2] - ro["addr"]


def put(d, off, fmt, *vals):
    d = bytearray(d)
    struct.pack_into(fmt, d, off, *vals)
    return bytes(d)


def replace_once(d, old, new, start=0):
    i = d.index(old, start)
    return d[:i] + new + d[i + len(old):]


class Gen:
    def __init__(self, src, work):
        self.src = src
        self.out = os.path.join(work, "inputs")
        if os.path.isdir(self.out):
            shutil.rmtree(self.out)
        os.makedirs(self.out)
        self.names = []

    def write(self, name, data):
        """One input file; a name with '/' is a file inside an input directory (made here),
        and the directory is then the input a case names."""
        assert name not in self.names, name
        self.names.append(name)
        path = os.path.join(self.out, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        mode = "w" if isinstance(data, str) else "wb"
        with open(path, mode) as f:
            f.write(data)

    def obj(self, base):
        with open(os.path.join(self.src, "test/corpus/triton/gfx942", BASES[base] + ".hsaco"),
                  "rb") as f:
            return f.read()

    def spec(self, base):
        with open(os.path.join(self.src, "test/specs", BASES[base] + ".json")) as f:
            return json.load(f)

    # ---------------------------------------------------------------- pristine inputs
    def pristine(self):
        for base in BASES:
            self.write(base + ".hsaco", self.obj(base))
            self.write(base + ".json", json.dumps(self.spec(base), indent=1))
        # A snippet that fits any 8-byte window, for the patch modes.
        self.write("nop8.s", "\ts_nop 0\n\ts_nop 0\n")
        # The file the code-object URIs point into (a copy, so that a message about it is not
        # confused with one about K0), and a buffer for kernel-run.
        self.write("uri-target.hsaco", self.obj("vadd"))
        self.write("x.bin", bytes(12000))

    # ---------------------------------------------------------------- truncations
    def truncations(self):
        for base in BASES:
            d = self.obj(base)
            e = Elf(d)
            note_off, _, descsz, desc = e.note()
            text = e.section(".text")
            symtab = e.section(".symtab")
            _, kd = e.kernel()
            cuts = {
                "ehdr-1": 1, "ehdr-4": 4, "ehdr-16": 16, "ehdr-40": 40, "ehdr-63": 63,
                "ehdr-end": 64,
                "note-hdr": note_off + 6, "note-desc": desc + 1, "note-mid": desc + descsz // 2,
                "note-end": desc + descsz - 1,
                "kd": kd + 32,
                "text-start": text["off"], "text-mid": text["off"] + text["size"] // 2,
                "text-end": text["off"] + text["size"] - 4,
                "symtab-mid": symtab["off"] + symtab["size"] // 2,
                "shdr-start": e.shoff, "shdr-mid": e.shoff + 64 * (e.shnum // 2) + 20,
                "last-byte": len(d) - 1,
            }
            plain = list(cuts)
            with_headers = ["note-mid", "kd", "text-start", "text-mid", "text-end"]
            if base != "vadd":  # a few cuts are enough for the larger kernels
                plain = ["ehdr-40", "note-mid", "text-mid", "last-byte"]
                with_headers = ["kd", "text-mid"]
            for what in plain:
                self.write("%s-trunc-%s.hsaco" % (base, what), d[:cuts[what]])
            # Cut inside a section, with the section header table moved to the new end (e_shoff
            # rewritten): the headers are whole, the contents of a section run past the end of
            # the file. Only cuts where some section still ends past the new end are bad.
            shdrs = d[e.shoff:e.shoff + 64 * e.shnum]
            for what in with_headers:
                n = cuts[what]
                ends = [s["off"] + s["size"] for s in e.sh if s["type"] not in (SHT_NULL,
                                                                              SHT_NOBITS)]
                if max(ends) <= n + len(shdrs):
                    continue
                self.write("%s-cut-%s.hsaco" % (base, what), put(d[:n] + shdrs, 0x28, "<Q", n))

    # ---------------------------------------------------------------- ELF header, sections
    def headers(self):
        d = self.obj("vadd")
        e = Elf(d)
        size = len(d)
        text, note, symtab = e.section(".text"), e.section(".note"), e.section(".symtab")
        shstr = e.sh[e.shstrndx]
        W = self.write
        W("vadd-magic.hsaco", put(d, 1, "<B", ord("X")))
        W("vadd-class32.hsaco", put(d, 4, "<B", 1))
        W("vadd-bigendian.hsaco", put(d, 5, "<B", 2))
        W("vadd-machine-x86.hsaco", put(d, 0x12, "<H", 62))  # an ELF for another machine
        W("vadd-osabi.hsaco", put(d, 7, "<B", 0))
        W("vadd-abiversion.hsaco", put(d, 8, "<B", 9))
        W("vadd-mach-ff.hsaco", put(d, 0x30, "<B", 0xFF))
        W("vadd-shoff-past.hsaco", put(d, 0x28, "<Q", size + 0x1000))
        W("vadd-shoff-wrap.hsaco", put(d, 0x28, "<Q", 0xFFFFFFFFFFFFFFC0))
        W("vadd-shoff-tail.hsaco", put(d, 0x28, "<Q", size - 32))
        W("vadd-shnum-0.hsaco", put(d, 0x3C, "<H", 0))
        W("vadd-shnum-ffff.hsaco", put(d, 0x3C, "<H", 0xFFFF))
        W("vadd-shnum-plus1.hsaco", put(d, 0x3C, "<H", e.shnum + 1))
        W("vadd-shentsize.hsaco", put(d, 0x3A, "<H", 32))
        W("vadd-shstrndx-past.hsaco", put(d, 0x3E, "<H", e.shnum))
        # section header fields
        W("vadd-text-offset-past.hsaco", put(d, text["hdr"] + 24, "<Q", size + 0x100))
        W("vadd-text-size-past.hsaco", put(d, text["hdr"] + 32, "<Q", size))
        W("vadd-text-offset-wrap.hsaco", put(d, text["hdr"] + 24, "<Q", 0xFFFFFFFFFFFFFF00))
        W("vadd-text-nobits.hsaco", put(d, text["hdr"] + 4, "<I", SHT_NOBITS))
        W("vadd-note-size-past.hsaco", put(d, note["hdr"] + 32, "<Q", 0x7FFFFFFF))
        W("vadd-symtab-offset-past.hsaco", put(d, symtab["hdr"] + 24, "<Q", size))
        W("vadd-symtab-entsize.hsaco", put(d, symtab["hdr"] + 56, "<Q", 16))
        W("vadd-symtab-size-odd.hsaco", put(d, symtab["hdr"] + 32, "<Q", symtab["size"] - 5))
        W("vadd-symtab-link.hsaco", put(d, symtab["hdr"] + 40, "<I", 99))
        W("vadd-shname-past.hsaco", put(d, text["hdr"], "<I", 0xFFFF))
        W("vadd-shstrtab-empty.hsaco", put(d, shstr["hdr"] + 32, "<Q", 0))
        W("vadd-shdr0.hsaco", put(d, e.sh[0]["hdr"] + 4, "<I", SHT_PROGBITS))

    # ---------------------------------------------------------------- the metadata note
    def notes(self):
        d = self.obj("vadd")
        e = Elf(d)
        off, _, descsz, desc = e.note()
        W = self.write
        W("vadd-note-namesz.hsaco", put(d, off, "<I", 0xFFFFFFF0))
        W("vadd-note-descsz.hsaco", put(d, off + 4, "<I", 0xFFFFFFF0))
        W("vadd-note-descsz-plus8.hsaco", put(d, off + 4, "<I", descsz + 8))
        W("vadd-note-type.hsaco", put(d, off + 8, "<I", 33))
        W("vadd-note-name.hsaco", put(d, off + 12, "<6s", b"AMDGPX"))
        # MessagePack: the top-level map header, a reserved byte, strings and values.
        W("vadd-msgpack-c1.hsaco", put(d, desc, "<B", 0xC1))
        W("vadd-msgpack-map-count.hsaco", put(d, desc, "<B", 0x8F))
        W("vadd-msgpack-zero-tail.hsaco",
          d[:desc + descsz // 2] + bytes(descsz - descsz // 2) + d[desc + descsz:])
        # a string's length inflated past the document: the value of ".symbol" (a fixstr)
        # becomes a str32 of 0x7FFFFFF0 bytes (5 bytes replaced by 5)
        i = d.index(b"\xa7.symbol", desc) + 8
        assert d[i] & 0xE0 == 0xA0, d[i]
        W("vadd-msgpack-strlen.hsaco", d[:i] + b"\xdb" + struct.pack(">I", 0x7FFFFFF0) + d[i + 5:])
        # the key "amdhsa.kernels" misspelt: no kernel has metadata
        W("vadd-msgpack-no-kernels.hsaco",
          replace_once(d, b"amdhsa.kernels", b"amdhsa.kernelz", desc))
        # .symbol names a descriptor that does not exist
        W("vadd-msgpack-symbol.hsaco", replace_once(d, b"add_kernel.kd", b"add_kernel.kx", desc))
        # .kernarg_segment_size made nil (fixint 48 -> 0xc0)
        i = d.index(b"\xb5.kernarg_segment_size", desc) + 22
        assert d[i] == 48, d[i]
        W("vadd-msgpack-kernarg-nil.hsaco", put(d, i, "<B", 0xC0))

    # ---------------------------------------------------------------- descriptors, symbols
    def symbols(self):
        d = self.obj("vadd")
        e = Elf(d)
        name, kd = e.kernel()
        text, ro = e.section(".text"), e.section(".rodata")
        W = self.write
        # kernel descriptor fields
        W("vadd-kd-entry-outside.hsaco", put(d, kd + 0x10, "<q", 0x40000000))
        W("vadd-kd-entry-misaligned.hsaco",
          put(d, kd + 0x10, "<q", struct.unpack_from("<q", d, kd + 0x10)[0] + 4))
        W("vadd-kd-entry-negative.hsaco", put(d, kd + 0x10, "<q", -0x100000))

        def sym(data, tables, sname, value=None, size=None, info=None, shndx=None, nameoff=None):
            for t in tables:
                o = e.symbol(t, sname)[0]
                if nameoff is not None:
                    data = put(data, o, "<I", nameoff)
                if info is not None:
                    data = put(data, o + 4, "<B", info)
                if shndx is not None:
                    data = put(data, o + 6, "<H", shndx)
                if value is not None:
                    data = put(data, o + 8, "<Q", value)
                if size is not None:
                    data = put(data, o + 16, "<Q", size)
            return data

        both = (".symtab", ".dynsym")
        kd_sym = name + ".kd"
        # the kernel symbol runs past .text (st_value + st_size > end of .text)
        W("vadd-sym-past-text.hsaco", sym(d, both, name, size=text["size"] + 4))
        W("vadd-sym-past-text-far.hsaco", sym(d, both, name, size=0x100000))
        W("vadd-sym-past-text-wrap.hsaco", sym(d, both, name, size=0xFFFFFFFFFFFFFFF0))
        W("vadd-sym-past-text-symtab.hsaco", sym(d, (".symtab",), name, size=text["size"] + 4))
        W("vadd-sym-past-text-dynsym.hsaco", sym(d, (".dynsym",), name, size=text["size"] + 4))
        # without .symtab (its type made SHT_PROGBITS: what a stripped object reads like), the
        # .dynsym symbol runs past .text
        st = e.section(".symtab")
        W("vadd-sym-past-text-stripped.hsaco",
          put(sym(d, (".dynsym",), name, size=text["size"] + 4), st["hdr"] + 4, "<I",
              SHT_PROGBITS))
        # the kernel (and its descriptor's entry) moved to the last 8 bytes of .text
        end = text["addr"] + text["size"] - 8
        kdv = e.symbol(".symtab", kd_sym)[2]
        W("vadd-sym-past-text-moved.hsaco",
          put(sym(d, both, name, value=end), kd + 0x10, "<q", end - kdv))
        # the descriptor symbol runs past .rodata, or sits across its end, or outside it
        W("vadd-kdsym-size-past.hsaco", sym(d, both, kd_sym, size=0x10000))
        W("vadd-kdsym-straddle.hsaco",
          sym(d, both, kd_sym, value=ro["addr"] + ro["size"] - 8))
        W("vadd-kdsym-outside.hsaco", sym(d, both, kd_sym, value=0xFFFF0000))
        # symbol name and section index out of range
        W("vadd-sym-name-past.hsaco", sym(d, (".symtab",), name, nameoff=0xFFFFFF))
        W("vadd-sym-shndx-past.hsaco", sym(d, (".symtab",), name, shndx=e.shnum + 40))
        # the kernel's code symbol renamed away (the descriptor has no code symbol)
        strtab = e.sh[e.section(".symtab")["link"]]
        o = d.index(b"\0" + name.encode() + b"\0", strtab["off"]) + 1
        dd = put(d, o, "<B", ord("X"))
        dstr = e.sh[e.section(".dynsym")["link"]]
        o = d.index(b"\0" + name.encode() + b"\0", dstr["off"]) + 1
        W("vadd-sym-code-missing.hsaco", put(dd, o, "<B", ord("X")))
        # a dynamic relocation whose symbol index is past .dynsym: .comment made an allocated
        # SHT_RELA section of two entries, the second naming symbol 99
        c = e.section(".comment")
        rela = struct.pack("<QQq", text["addr"], 0, 0) + struct.pack("<QQq", text["addr"] + 8,
                                                                   (99 << 32) | 1, 0)
        dd = d[:c["off"]] + rela + d[c["off"] + len(rela):]
        dd = put(dd, c["hdr"] + 4, "<IQ", SHT_RELA, SHF_ALLOC)
        dd = put(dd, c["hdr"] + 32, "<Q", len(rela))
        dd = put(dd, c["hdr"] + 56, "<Q", 24)
        W("vadd-rela-sym-past.hsaco", dd)

    # ---------------------------------------------------------------- odd files
    def odd_files(self):
        W = self.write
        W("empty.hsaco", b"")
        W("text.hsaco", "this is not a code object\n" * 8)
        W("zeros.hsaco", bytes(4096))
        W("elf-magic-only.hsaco", b"\x7fELF")
        # a host (x86-64) ELF header: a real machine, not AMDGPU
        hdr = bytearray(64)
        hdr[0:4] = b"\x7fELF"
        hdr[4:7] = b"\x02\x01\x01"
        struct.pack_into("<HHIQQQIHHHHHH", hdr, 16, 3, 62, 1, 0, 0, 0, 0, 64, 56, 0, 64, 0, 0)
        W("host-elf.so", bytes(hdr))
        # two code objects back to back (a container): needs --arch or a URI
        W("two-objects.bin", self.obj("vadd") + b"padding" + self.obj("softmax"))

    # ---------------------------------------------------------------- launch specs
    def specs(self):
        W = self.write
        s = self.spec("vadd")

        def m(name, f):
            t = json.loads(json.dumps(s))
            f(t)
            W("spec-" + name + ".json", json.dumps(t, indent=1))

        W("spec-invalid-json.json", '{"kernel": "add_kernel", "grid": [3, 1, 1], ')
        W("spec-empty.json", "")
        W("spec-array.json", "[1, 2, 3]\n")
        W("spec-trailing.json", json.dumps(s) + " }\n")
        m("grid-string", lambda t: t.__setitem__("grid", "3"))
        m("grid-float", lambda t: t.__setitem__("grid", [1.5, 1, 1]))
        m("grid-zero", lambda t: t.__setitem__("grid", [0, 1, 1]))
        m("grid-negative", lambda t: t.__setitem__("grid", [-1, 1, 1]))
        m("grid-four", lambda t: t.__setitem__("grid", [1, 1, 1, 1]))
        m("block-zero", lambda t: t.__setitem__("block", [0, 1, 1]))
        m("block-2048", lambda t: t.__setitem__("block", [2048, 1, 1]))
        m("kernel-number", lambda t: t.__setitem__("kernel", 7))
        m("kernel-unknown", lambda t: t.__setitem__("kernel", "nope_kernel"))
        m("args-object", lambda t: t.__setitem__("args", {"#0": "f32"}))
        m("arg-not-object", lambda t: t["args"].__setitem__(0, "f32"))
        m("arg-unknown", lambda t: t["args"][1].__setitem__("arg", "nope"))
        m("arg-index-past", lambda t: t["args"][1].__setitem__("arg", "#17"))
        m("arg-missing", lambda t: t["args"].pop(3))
        m("arg-duplicate", lambda t: t["args"].append(dict(t["args"][3])))
        m("arg-type-unknown", lambda t: t["args"][0].__setitem__("type", "f8"))
        m("arg-type-number", lambda t: t["args"][0].__setitem__("type", 32))
        m("elements-negative", lambda t: t["args"][2].update({"elements": -5, "role": "out"}))
        m("elements-string", lambda t: t["args"][2].update({"elements": "many", "role": "out"}))
        m("elements-huge", lambda t: t["args"][1].update({"elements": 10 ** 15}))
        m("role-unknown", lambda t: t["args"][2].update({"role": "sideways"}))
        m("range-reversed", lambda t: t["args"][1].update({"range": [2, -2]}))
        m("value-on-buffer", lambda t: t["args"][0].update({"value": 5}))
        m("value-string", lambda t: t["args"][3].update({"value": "lots"}))
        m("value-bool", lambda t: t["args"][3].update({"value": True}))
        m("value-i32-overflow", lambda t: t["args"][3].update({"value": 2 ** 40}))
        m("value-1e40", lambda t: t["args"][3].update({"value": 1e40}))
        m("value-1e40-i32", lambda t: t["args"][3].update({"value": 1e40, "type": "i32"}))
        m("value-1e40-f32", lambda t: t["args"][3].update({"value": 1e40, "type": "f32"}))
        m("value-minus-1e40-f32", lambda t: t["args"][3].update({"value": -1e40, "type": "f32"}))
        m("value-null-on-int", lambda t: t["args"][3].update({"value": "null"}))
        m("file-missing", lambda t: t["args"][0].update({"file": "no-such-input.bin"}))
        m("dynamic-lds-negative", lambda t: t.__setitem__("dynamic_lds", -16))
        # too few elements for what K0 reads: #0 is read by 3000 work-items
        m("elements-too-few-in", lambda t: t["args"][0].update({"elements": 10, "role": "in"}))
        m("elements-too-few-out", lambda t: t["args"][2].update({"elements": 2000, "role": "out"}))
        m("format-other-k0", lambda t: t.update({"format": "asmevo-launch-spec",
                                                 "format_version": 1, "k0_sha256": "0" * 64}))
        # a spec for softmax used with the vector add
        W("spec-other-kernel.json", json.dumps(self.spec("softmax")))

    # ---------------------------------------------------------------- assembly for rebuild
    def assembly(self):
        W = self.write
        with open(os.path.join(self.src, "test/cli/fixtures/handwritten_gfx942.s")) as f:
            hw = f.read()
        W("hw.s", hw)

        def first(text, old, new):
            assert old in text, old
            return text.replace(old, new, 1)

        W("asm-syntax.s", first(hw, "v_add_f32_e32 v2, s9, v2", "v_add_f32_e32 v2, s9,, v2 +"))
        W("asm-unknown-inst.s", first(hw, "v_add_f32_e32 v2, s9, v2", "v_bogus_op v1, v2"))
        W("asm-bad-register.s", first(hw, "v_add_f32_e32 v2, s9, v2", "v_add_f32_e32 v2, s9, v999"))
        W("asm-no-target.s", "\n".join(l for l in hw.splitlines()
                                        if ".amdgcn_target" not in l) + "\n")
        W("asm-unknown-target.s", first(hw, '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"',
                                        '.amdgcn_target "amdgcn-amd-amdhsa--gfx9999"'))
        W("asm-yaml-bad.s", first(hw, ".amdgpu_metadata\n", ".amdgpu_metadata\n  - [ : {\n"))
        W("asm-yaml-tab.s", first(hw, "amdhsa.version:", "amdhsa.version:\t[1, 2]\n\tx: {"))
        W("asm-no-metadata-end.s", first(hw, ".end_amdgpu_metadata", ""))
        lines = hw.splitlines(keepends=True)
        # drop the first .amdhsa_kernel ... .end_amdhsa_kernel block
        i = next(n for n, l in enumerate(lines) if l.strip().startswith(".amdhsa_kernel "))
        j = next(n for n in range(i, len(lines)) if lines[n].strip() == ".end_amdhsa_kernel")
        W("asm-no-kernel-block.s", "".join(lines[:i] + lines[j + 1:]))
        W("asm-kd-bad-value.s", first(hw, ".amdhsa_next_free_vgpr 64", ".amdhsa_next_free_vgpr x"))
        W("asm-kd-out-of-range.s",
          first(hw, ".amdhsa_next_free_vgpr 64", ".amdhsa_next_free_vgpr 100000"))
        W("asm-kd-unknown-directive.s",
          first(hw, ".amdhsa_next_free_vgpr 64", ".amdhsa_next_free_vgpr 64\n\t.amdhsa_bogus 1"))
        W("asm-undefined-label.s", first(hw, "v_add_f32_e32 v2, s9, v2", "s_branch .Lnowhere"))
        W("asm-binary.s", bytes(range(256)) * 4)
        W("asm-empty.s", "")

    # ---------------------------------------------------------------- patch snippets
    def snippets(self):
        W = self.write
        W("snip-syntax.s", "\ts_nop 0,,\n")
        W("snip-unknown.s", "\tv_bogus_op v1, v2\n")
        W("snip-bad-register.s", "\tv_mov_b32 v1, v999\n")
        W("snip-big.s", "\ts_nop 0\n" * 64)
        W("snip-binary.s", bytes(range(256)) * 2)


def main():
    src, work = sys.argv[1], sys.argv[2]
    g = Gen(src, work)
    g.pristine()
    g.truncations()
    g.headers()
    g.notes()
    g.symbols()
    g.odd_files()
    g.specs()
    g.assembly()
    g.snippets()
    os.makedirs(os.path.join(g.out, "a-directory.hsaco"))
    # The other tools' inputs: each gen_*.py beside this file has generate(g), called in name
    # order with this generator (its write, obj and spec).
    for name in sorted(os.listdir(HERE)):
        if name.startswith("gen_") and name.endswith(".py"):
            spec = importlib.util.spec_from_file_location(name[:-3], os.path.join(HERE, name))
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            mod.generate(g)
    print("gen.py: %d inputs in %s" % (len(g.names) + 1, g.out))


if __name__ == "__main__":
    main()
