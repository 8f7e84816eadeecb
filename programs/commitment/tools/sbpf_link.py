#!/usr/bin/env python3
"""Link one clang `-target bpf -mcpu=v1` object file into a Solana SBPF v0 program ELF.

Debian's ld.lld 14 cannot produce a Solana program (it refuses R_BPF_64_64 against local
symbols and has no notion of syscall relocations), so this post-linker writes the shared
object the SBPF loader expects. The format is the one read by the lenient (v0) parser of the
loader, anza-xyz/sbpf `src/elf.rs` (`load_with_lenient_parser`, `validate`, `relocate`,
`parse_ro_sections`) and `src/elf_parser/mod.rs` (`Elf64::parse`, `parse_dynamic`):

* ELF64 little-endian, ET_DYN, EM_BPF (247), e_flags 0 (selects SBPF v0), e_entry = the
  address of the global `entrypoint` function.
* Exactly one `.text`; every input `.rodata*` section is merged into one `.rodata` placed
  directly after it. Every section has sh_addr == sh_offset, so a virtual address in the
  program region is 0x1_0000_0000 + file offset.
* `lddw` of a rodata address (R_BPF_64_64) is resolved here: the instruction pair gets
  0x1_0000_0000 + file offset + addend, and no dynamic relocation is needed.
* Calls to undefined symbols are syscalls: the call keeps imm = -1 and gets a dynamic
  R_BPF_64_32 relocation against a `.dynsym` entry; the loader writes murmur3(name) into the
  immediate and checks it against its syscall registry. Local calls are already encoded
  pc-relative by clang (src = 1, no relocation) and the loader registers them itself.
* Output sections, in file order: .text, .rodata, .dynamic, .dynsym, .dynstr, .rel.dyn,
  .shstrtab, then the section header table. Program headers: PT_LOAD (text + rodata),
  PT_LOAD (dynamic data), PT_DYNAMIC.

The output depends only on the input object bytes (no timestamps, paths or symbol tables are
written), so a rebuild with the same compiler is byte-identical.

Refused, with an error naming the cause: writable sections (.data, .bss), relocations inside
data sections, relocation types other than R_BPF_64_64 / R_BPF_64_32 in .text, calls through
relocations to defined symbols, and undefined symbols that are not known SBPF syscalls.

Usage: sbpf_link.py INPUT.o OUTPUT.so
"""

import struct
import sys

EM_BPF = 247
ET_REL = 1
ET_DYN = 3
SHT_NULL, SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB = 0, 1, 2, 3
SHT_DYNAMIC, SHT_NOBITS, SHT_REL, SHT_DYNSYM = 6, 8, 9, 11
SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR = 0x1, 0x2, 0x4
PT_LOAD, PT_DYNAMIC = 1, 2
PF_X, PF_R = 1, 4
DT_NULL, DT_STRTAB, DT_SYMTAB, DT_STRSZ, DT_SYMENT = 0, 5, 6, 10, 11
DT_REL, DT_RELSZ, DT_RELENT, DT_TEXTREL = 17, 18, 19, 22
R_BPF_64_64 = 1
R_BPF_64_32 = 10
STB_GLOBAL = 1
STT_NOTYPE, STT_FUNC = 0, 2
SHN_UNDEF = 0
MM_PROGRAM_START = 0x1_0000_0000
INSN_SIZE = 8
OPC_LDDW = 0x18
OPC_CALL = 0x85

# Syscall names accepted as undefined symbols (the agave syscall registry, v0 names).
KNOWN_SYSCALLS = frozenset(
    [
        "abort",
        "sol_panic_",
        "sol_log_",
        "sol_log_64_",
        "sol_log_pubkey",
        "sol_log_compute_units_",
        "sol_log_data",
        "sol_create_program_address",
        "sol_try_find_program_address",
        "sol_sha256",
        "sol_keccak256",
        "sol_blake3",
        "sol_secp256k1_recover",
        "sol_get_clock_sysvar",
        "sol_get_epoch_schedule_sysvar",
        "sol_get_rent_sysvar",
        "sol_get_epoch_rewards_sysvar",
        "sol_get_last_restart_slot",
        "sol_get_sysvar",
        "sol_memcpy_",
        "sol_memmove_",
        "sol_memcmp_",
        "sol_memset_",
        "sol_invoke_signed_c",
        "sol_invoke_signed_rust",
        "sol_set_return_data",
        "sol_get_return_data",
        "sol_get_stack_height",
        "sol_get_processed_sibling_instruction",
        "sol_remaining_compute_units",
    ]
)


class LinkError(Exception):
    """The input object uses something this linker does not support."""


def align(value, alignment):
    return (value + alignment - 1) // alignment * alignment


def c_string(table, offset):
    end = table.index(b"\0", offset)
    return table[offset:end].decode("ascii")


def parse_object(data):
    """Return (sections, symbols) of an ELF64 LE relocatable BPF object."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise LinkError("input is not an ELF64 little-endian file")
    (e_type, e_machine, _ver, _entry, _phoff, e_shoff, _flags, _ehsize, _phentsize, _phnum,
     e_shentsize, e_shnum, e_shstrndx) = struct.unpack_from("<HHIQQQIHHHHHH", data, 16)
    if e_type != ET_REL or e_machine != EM_BPF:
        raise LinkError("input is not a BPF relocatable object")
    sections = []
    for i in range(e_shnum):
        fields = struct.unpack_from("<IIQQQQIIQQ", data, e_shoff + i * e_shentsize)
        keys = ("name", "type", "flags", "addr", "offset", "size", "link", "info", "addralign",
                "entsize")
        section = dict(zip(keys, fields))
        section["index"] = i
        if section["type"] == SHT_NOBITS:
            section["data"] = b""
        else:
            section["data"] = data[section["offset"]:section["offset"] + section["size"]]
        sections.append(section)
    shstrtab = sections[e_shstrndx]["data"]
    for section in sections:
        section["name"] = c_string(shstrtab, section["name"])
    symtabs = [s for s in sections if s["type"] == SHT_SYMTAB]
    if len(symtabs) != 1:
        raise LinkError("expected exactly one .symtab")
    symtab = symtabs[0]
    strtab = sections[symtab["link"]]["data"]
    symbols = []
    for off in range(0, len(symtab["data"]), 24):
        st_name, st_info, _other, st_shndx, st_value, st_size = struct.unpack_from(
            "<IBBHQQ", symtab["data"], off)
        symbols.append({
            "name": c_string(strtab, st_name),
            "bind": st_info >> 4,
            "type": st_info & 0xF,
            "shndx": st_shndx,
            "value": st_value,
            "size": st_size,
        })
    return sections, symbols


def link(obj):
    sections, symbols = parse_object(obj)

    texts = [s for s in sections if s["name"] == ".text"]
    if len(texts) != 1:
        raise LinkError("expected exactly one .text section (do not use -ffunction-sections)")
    text = texts[0]
    rodatas = []
    for s in sections:
        if not s["flags"] & SHF_ALLOC:
            continue
        if s["flags"] & SHF_WRITE or s["type"] == SHT_NOBITS:
            raise LinkError(f"writable section {s['name']} is not supported by SBPF")
        if s is text:
            continue
        if not s["name"].startswith(".rodata"):
            raise LinkError(f"unsupported allocated section {s['name']}")
        rodatas.append(s)

    # Layout: ELF header, 3 program headers, .text, merged .rodata.
    phnum = 3
    text_off = align(64 + 56 * phnum, INSN_SIZE)
    out_offset = {text["index"]: text_off}
    cursor = text_off + len(text["data"])
    rodata_off = align(cursor, 8)
    cursor = rodata_off
    rodata = bytearray()
    for s in rodatas:
        start = align(cursor, max(1, s["addralign"]))
        rodata += b"\0" * (start - cursor)
        out_offset[s["index"]] = start
        rodata += s["data"]
        cursor = start + len(s["data"])

    code = bytearray(text["data"])
    syscall_names = []
    dyn_relocs = []
    for rel in sections:
        if rel["type"] != SHT_REL:
            continue
        target = sections[rel["info"]]
        if target is not text:
            if target["flags"] & SHF_ALLOC:
                raise LinkError(f"relocations in {target['name']} are not supported")
            continue
        for off in range(0, len(rel["data"]), 16):
            r_offset, r_info = struct.unpack_from("<QQ", rel["data"], off)
            r_type = r_info & 0xFFFFFFFF
            sym = symbols[r_info >> 32]
            opcode = code[r_offset]
            if r_type == R_BPF_64_64:
                if opcode != OPC_LDDW:
                    raise LinkError(f"R_BPF_64_64 at {r_offset:#x} is not on an lddw")
                if sym["shndx"] not in out_offset or sym["shndx"] == text["index"]:
                    raise LinkError(f"lddw at {r_offset:#x} must address .rodata ({sym['name']})")
                addend = struct.unpack_from("<i", code, r_offset + 4)[0]
                address = MM_PROGRAM_START + out_offset[sym["shndx"]] + sym["value"] + addend
                struct.pack_into("<I", code, r_offset + 4, address & 0xFFFFFFFF)
                struct.pack_into("<I", code, r_offset + 12, address >> 32)
            elif r_type == R_BPF_64_32:
                if opcode != OPC_CALL:
                    raise LinkError(f"R_BPF_64_32 at {r_offset:#x} is not on a call")
                if sym["shndx"] != SHN_UNDEF:
                    raise LinkError(f"call to defined symbol {sym['name']} through a relocation")
                if sym["name"] not in KNOWN_SYSCALLS:
                    raise LinkError(f"undefined symbol {sym['name']} is not an SBPF syscall")
                if sym["name"] not in syscall_names:
                    syscall_names.append(sym["name"])
                struct.pack_into("<i", code, r_offset + 4, -1)
                dyn_relocs.append((text_off + r_offset, 1 + syscall_names.index(sym["name"])))
            else:
                raise LinkError(f"unsupported relocation type {r_type} at {r_offset:#x}")
    dyn_relocs.sort()
    if not dyn_relocs:
        raise LinkError("no syscalls: the loader requires a non-empty DT_RELSZ")

    entries = [s for s in symbols if s["name"] == "entrypoint" and s["bind"] == STB_GLOBAL
               and s["type"] == STT_FUNC and s["shndx"] == text["index"]]
    if len(entries) != 1:
        raise LinkError("no global function `entrypoint` in .text")
    entry = text_off + entries[0]["value"]

    ro_end = rodata_off + len(rodata)

    # Dynamic data: .dynamic, .dynsym, .dynstr, .rel.dyn.
    dynstr = bytearray(b"\0")
    dynsym = bytearray(24)
    for name in syscall_names:
        dynsym += struct.pack("<IBBHQQ", len(dynstr), (STB_GLOBAL << 4) | STT_NOTYPE, 0,
                              SHN_UNDEF, 0, 0)
        dynstr += name.encode("ascii") + b"\0"
    rel_dyn = b"".join(struct.pack("<QQ", off, (idx << 32) | R_BPF_64_32)
                       for off, idx in dyn_relocs)
    dynamic_count = 9
    dynamic_off = align(ro_end, 8)
    dynsym_off = dynamic_off + 16 * dynamic_count
    dynstr_off = dynsym_off + len(dynsym)
    rel_dyn_off = align(dynstr_off + len(dynstr), 8)
    dyn_end = rel_dyn_off + len(rel_dyn)
    dynamic = b"".join(struct.pack("<qQ", tag, value) for tag, value in [
        (DT_REL, rel_dyn_off),
        (DT_RELSZ, len(rel_dyn)),
        (DT_RELENT, 16),
        (DT_SYMTAB, dynsym_off),
        (DT_SYMENT, 24),
        (DT_STRTAB, dynstr_off),
        (DT_STRSZ, len(dynstr)),
        (DT_TEXTREL, 0),
        (DT_NULL, 0),
    ])

    names = ["", ".text", ".rodata", ".dynamic", ".dynsym", ".dynstr", ".rel.dyn", ".shstrtab"]
    shstrtab = bytearray(b"\0")
    name_off = {"": 0}
    for name in names[1:]:
        name_off[name] = len(shstrtab)
        shstrtab += name.encode("ascii") + b"\0"
    shstrtab_off = dyn_end
    shoff = align(shstrtab_off + len(shstrtab), 8)

    i_dynsym, i_dynstr = names.index(".dynsym"), names.index(".dynstr")
    shdrs = [
        (0, SHT_NULL, 0, 0, 0, 0, 0, 0, 0, 0),
        (name_off[".text"], SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, text_off, text_off,
         len(code), 0, 0, INSN_SIZE, 0),
        (name_off[".rodata"], SHT_PROGBITS, SHF_ALLOC, rodata_off, rodata_off, len(rodata), 0,
         0, 8, 0),
        (name_off[".dynamic"], SHT_DYNAMIC, SHF_ALLOC, dynamic_off, dynamic_off, len(dynamic),
         i_dynstr, 0, 8, 16),
        (name_off[".dynsym"], SHT_DYNSYM, SHF_ALLOC, dynsym_off, dynsym_off, len(dynsym),
         i_dynstr, 1, 8, 24),
        (name_off[".dynstr"], SHT_STRTAB, SHF_ALLOC, dynstr_off, dynstr_off, len(dynstr), 0, 0,
         1, 0),
        (name_off[".rel.dyn"], SHT_REL, SHF_ALLOC, rel_dyn_off, rel_dyn_off, len(rel_dyn),
         i_dynsym, 0, 8, 16),
        (name_off[".shstrtab"], SHT_STRTAB, 0, 0, shstrtab_off, len(shstrtab), 0, 0, 1, 0),
    ]

    phdrs = [
        (PT_LOAD, PF_R | PF_X, text_off, text_off, text_off, ro_end - text_off,
         ro_end - text_off, 0x1000),
        (PT_LOAD, PF_R, dynamic_off, dynamic_off, dynamic_off, dyn_end - dynamic_off,
         dyn_end - dynamic_off, 0x1000),
        (PT_DYNAMIC, PF_R, dynamic_off, dynamic_off, dynamic_off, len(dynamic), len(dynamic),
         8),
    ]

    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    header = ident + struct.pack("<HHIQQQIHHHHHH", ET_DYN, EM_BPF, 1, entry, 64, shoff, 0, 64,
                                 56, len(phdrs), 64, len(shdrs), names.index(".shstrtab"))

    out = bytearray(shoff + 64 * len(shdrs))
    out[0:64] = header
    for i, ph in enumerate(phdrs):
        struct.pack_into("<IIQQQQQQ", out, 64 + 56 * i, *ph)
    out[text_off:text_off + len(code)] = code
    out[rodata_off:ro_end] = rodata
    out[dynamic_off:dynamic_off + len(dynamic)] = dynamic
    out[dynsym_off:dynsym_off + len(dynsym)] = dynsym
    out[dynstr_off:dynstr_off + len(dynstr)] = dynstr
    out[rel_dyn_off:dyn_end] = rel_dyn
    out[shstrtab_off:shstrtab_off + len(shstrtab)] = shstrtab
    for i, sh in enumerate(shdrs):
        struct.pack_into("<IIQQQQIIQQ", out, shoff + 64 * i, *sh)
    return bytes(out)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: sbpf_link.py INPUT.o OUTPUT.so\n")
        return 2
    with open(argv[1], "rb") as f:
        obj = f.read()
    try:
        elf = link(obj)
    except LinkError as error:
        sys.stderr.write(f"sbpf_link.py: {error}\n")
        return 1
    with open(argv[2], "wb") as f:
        f.write(elf)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
