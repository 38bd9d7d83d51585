#!/usr/bin/env python3
"""Generates tests/data/bad/: malformed inputs for every ftroute reader, made from the shipped
fabrics and dumps, plus valid-but-odd inputs that must still pass (issue #19).

    python3 scripts/gen_bad_corpus.py [--out DIR]     (default: tests/data/bad, rewritten)

Deterministic (fixed seed): running it again gives the same files. Every malformed input is
malformed by construction (truncated inside a token, a control byte, a port beyond the node,
an asymmetric link, a duplicate node or LID, a number out of range, binary data, an empty file,
...), so each must be refused by every command that reads it. tests/cli/bad_corpus_test.py runs
them through route, check, export and sim; MANIFEST.tsv says what each file is:

    file  role  base  expect  what
    role   net (a fabric), lft (LFT dump of `base`), sl (path-SL file), sl2vl (SL2VL file),
           booksim (BookSim2 config for `ftroute sim --booksim-config`; only sim reads it)
    base   the fabric (and for sl/sl2vl the dump) it belongs to, repository-relative
    expect bad (must fail cleanly) | ok (must behave exactly like the pristine base)
"""
import argparse
import os
import random
import re
import shutil
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LFT = "tests/data/lft"
NETS = "ibsim_topologies/nets"

NET_BASES = [f"{LFT}/2sw4hca.net", f"{LFT}/ft4x2.net", f"{LFT}/ring4.net",
             f"{NETS}/mesh4x4.net", f"{NETS}/torus4x4.net", f"{NETS}/ring8.net"]
LFT_BASES = [(f"{LFT}/2sw4hca.opensm-lfts.dump", f"{LFT}/2sw4hca.net"),
             (f"{LFT}/2sw4hca.dump_fts", f"{LFT}/2sw4hca.net"),
             (f"{LFT}/ring4.opensm-lfts.dump", f"{LFT}/ring4.net"),
             (f"{LFT}/ring4.dump_fts", f"{LFT}/ring4.net")]
DUMP_BASE = "tests/data/net/ibnetdiscover_director.net"  # ibnetdiscover syntax, shared chassis GUIDs
SL_FABRIC = f"{LFT}/2sw4hca.net"
SL_DUMP = f"{LFT}/2sw4hca.opensm-lfts.dump"
CTRL = [b for b in range(0x20) if b not in (0x09, 0x0a, 0x0b, 0x0c, 0x0d)] + [0x7f]

PORT_RE = re.compile(r'^\[(\d+)\](\([0-9a-fA-Fx]+\))?(\s*)"([^"]+)"\[(\d+)\](.*)$')
HEAD_RE = re.compile(r'^(Switch|Hca|Ca|Rt)(\s+)(\d+)(\s+)"([^"]+)"(.*)$')
ENTRY_RE = re.compile(r'^0x([0-9a-fA-F]+) (\d+)(.*)$')


def read(rel):
    with open(os.path.join(REPO, rel), "rb") as f:
        return f.read().decode("latin-1")


class Lines:
    """A text as lines, and copies of it with one line replaced or lines inserted."""

    def __init__(self, text):
        self.lines = text.split("\n")

    def text(self, lines=None):
        return "\n".join(self.lines if lines is None else lines)

    def with_line(self, idx, new):
        ls = list(self.lines)
        ls[idx] = new
        return self.text(ls)

    def insert(self, idx, new):
        ls = list(self.lines)
        ls[idx:idx] = new if isinstance(new, list) else [new]
        return self.text(ls)


class Net(Lines):
    """Just enough of a .net file to mutate it: lines, node records, port lines."""

    def __init__(self, text):
        super().__init__(text)
        self.nodes = {}   # id -> dict(head=idx, nports, type, ports={p: (idx, remote, rport)})
        self.port_lines = []  # (idx, node, p, remote, rport)
        cur = None
        for i, l in enumerate(self.lines):
            m = HEAD_RE.match(l)
            if m:
                cur = m.group(5)
                self.nodes[cur] = dict(head=i, nports=int(m.group(3)), type=m.group(1), ports={})
                continue
            m = PORT_RE.match(l)
            if m and cur:
                p, remote, rp = int(m.group(1)), m.group(4), int(m.group(5))
                self.nodes[cur]["ports"][p] = (i, remote, rp)
                self.port_lines.append((i, cur, p, remote, rp))
                continue
            if l.strip() == "":
                cur = None


def set_port_line(line, port=None, remote=None, rport=None):
    m = PORT_RE.match(line)
    p = m.group(1) if port is None else str(port)
    r = m.group(4) if remote is None else remote
    rp = m.group(5) if rport is None else str(rport)
    return f"[{p}]{m.group(2) or ''}{m.group(3)}\"{r}\"[{rp}]{m.group(6)}"


def flip_ctrl(rng, text, lo=0):
    """A control byte replaces a byte of a non-empty line (never a newline)."""
    pos = [i for i, c in enumerate(text) if i >= lo and c != "\n"]
    i = rng.choice(pos)
    return text[:i] + chr(rng.choice(CTRL)) + text[i + 1:]


def net_cases(rel, rng):
    text = read(rel)
    n = Net(text)
    out = []
    add = lambda what, t: out.append((what, t))
    pls = n.port_lines
    # truncations inside a token
    for k in range(3):
        i, node, p, remote, rp = rng.choice(pls)
        off = sum(len(l) + 1 for l in n.lines[:i])
        line = n.lines[i]
        add("truncated inside a quoted node id", text[:off + line.index('"') + 1 + rng.randrange(len(remote))])
        add("truncated after '['", text[:off + line.index('"' + remote + '"') + len(remote) + 3])
    h = rng.choice(list(n.nodes.values()))
    hl = n.lines[h["head"]]
    off = sum(len(l) + 1 for l in n.lines[:h["head"]])
    add("truncated inside a node header's id", text[:off + hl.index('"') + 2])
    # control bytes / binary data
    for k in range(6):
        add("control byte", flip_ctrl(rng, text))
    add("NUL byte in a node id", text.replace('"' + pls[0][3] + '"', '"' + pls[0][3][:1] + "\0" + pls[0][3][1:] + '"', 1))
    add("escape sequence in a node name", text.replace('"' + pls[0][3] + '"', '"\x1b[31m' + pls[0][3] + '"'))
    blob = bytes(rng.randrange(256) for _ in range(64)).decode("latin-1")
    add("binary block inserted", n.insert(rng.randrange(len(n.lines)), "\0" + blob))
    add("binary data only", "\x7fELF\x02\x01\x01\0\0\0" + blob)
    # structural damage
    i, node, p, remote, rp = rng.choice(pls)
    add("']' replaced by '}'", n.with_line(i, n.lines[i].replace("]", "}", 1)))
    add("quote replaced by apostrophe", n.with_line(i, n.lines[i].replace('"', "'", 1)))
    add("unknown remote node", n.with_line(i, set_port_line(n.lines[i], remote="NOPE_" + remote)))
    add("unrecognised line", n.insert(h["head"], "Swtich 8 \"typo\""))
    add("port line outside a record", n.insert(0, '[1]\t"' + remote + '"[1]'))
    add("line longer than ibsim's 254 characters", n.insert(0, "# " + "x" * 300))
    add("'module=' prefix (unsupported)", n.insert(0, "module=abc"))
    add("'do link' changes the fabric", n.insert(len(n.lines), 'do link "' + node + '" 1 "' + remote + '" 1'))
    # wrong ports
    for k in range(3):
        i, node, p, remote, rp = rng.choice(pls)
        add("remote port beyond the remote node", n.with_line(i, set_port_line(n.lines[i], rport=n.nodes[remote]["nports"] + 1 + k * 7)))
        add("local port beyond the node", n.with_line(i, set_port_line(n.lines[i], port=n.nodes[node]["nports"] + 1 + k * 5)))
    i, node, p, remote, rp = rng.choice(pls)
    add("remote port 0 on a CA" if n.nodes[remote]["type"] != "Switch" else "port linked to port 0",
        n.with_line(i, set_port_line(n.lines[i], rport=0)))
    add("port linked to itself", n.with_line(i, set_port_line(n.lines[i], remote=node, rport=p)))
    # asymmetric links: A[p] -> B[q2] where B[q2] is declared towards someone else
    asym = 0
    for (i, node, p, remote, rp) in rng.sample(pls, len(pls)):
        others = [(q, v) for q, v in n.nodes[remote]["ports"].items() if q != rp and (v[1], v[2]) != (node, p)]
        if not others:
            continue
        q2 = rng.choice(others)[0]
        add("asymmetric link", n.with_line(i, set_port_line(n.lines[i], rport=q2)))
        asym += 1
        if asym == 4:
            break
    # duplicates
    ids = list(n.nodes)
    dup = rng.choice(ids)
    rec = [n.lines[n.nodes[dup]["head"]]] + [n.lines[v[0]] for v in n.nodes[dup]["ports"].values()]
    add("duplicate node record", n.insert(len(n.lines), [""] + rec + [""]))
    a, b = rng.sample(ids, 2)
    add("two nodes with one id", n.with_line(n.nodes[b]["head"], n.lines[n.nodes[b]["head"]].replace('"' + b + '"', '"' + a + '"')))
    i, node, p, remote, rp = rng.choice(pls)
    add("port line listed twice", n.insert(i, n.lines[i]))
    # huge numbers
    hm = HEAD_RE.match(hl)
    for v in ("0", "255", "99999", "18446744073709551616", "4294967297"):
        add(f"port count {v}", n.with_line(h["head"], f"{hm.group(1)}{hm.group(2)}{v}{hm.group(4)}\"{hm.group(5)}\"{hm.group(6)}"))
    i, node, p, remote, rp = rng.choice(pls)
    for v in ("4294967297", "18446744073709551617", "256"):
        add(f"remote port {v}", n.with_line(i, set_port_line(n.lines[i], rport=v)))
        add(f"local port {v}", n.with_line(i, set_port_line(n.lines[i], port=v)))
    add("width mask out of range", n.insert(0, "width=999"))
    add("speed mask out of range", n.insert(0, "speed=8"))
    add("GUID too large", n.insert(0, "switchguid=0x1ffffffffffffffffff"))
    add("port option out of range", n.with_line(i, n.lines[i] + "\tw=64"))
    # empty and not-a-fabric
    add("empty file", "")
    add("blank lines only", "\n\n   \n\t\n")
    add("comments only", "# a fabric\n# with nothing in it\n")
    add("an LFT dump given as fabric", read(f"{LFT}/2sw4hca.opensm-lfts.dump"))
    return out


def net_odd(rel, rng):
    text = read(rel)
    n = Net(text)
    out = [("CRLF line ends", text.replace("\n", "\r\n")),
           ("extra blank lines between records", re.sub(r"\n\n", "\n\n\n\n", text)),
           ("comments inside records", "\n".join(l + ("\n# a comment" if PORT_RE.match(l) else "") for l in n.lines))]
    # GUID-only names, ibnetdiscover style: S-<guid> / H-<guid>
    ren = {}
    for k, (nid, v) in enumerate(n.nodes.items()):
        ren[nid] = ("S-" if v["type"] == "Switch" else "H-") + "%016x" % (0x0002c90300000000 + 0x100 * k)
    t = text
    for a, b in ren.items():
        t = t.replace('"' + a + '"', '"' + b + '"')
    out.append(("GUID-only node names", t))
    return out


def dump_cases():
    """ibnetdiscover dumps of production fabrics (issue 27): the director dump whose chassis ASICs
    share the chassis GUID, damaged the ways admins' dumps are, and syntax variants that must pass."""
    text = read(DUMP_BASE)
    lines = text.split("\n")
    guid_lines = [k for k, l in enumerate(lines) if re.match(r"switchguid=0xc42a10300c0ffe[01]\(", l)]
    first_ca = next(k for k, l in enumerate(lines) if l.startswith("caguid="))
    other_ca = next(k for k, l in enumerate(lines) if l.startswith("caguid=") and k > first_ca)

    def with_line(k, new):
        return "\n".join(lines[:k] + [new] + lines[k + 1:])

    at = lambda k, pat: re.sub(r"\(([0-9a-f]+)\)", pat, lines[k])
    bad = [
        ("a shell prompt pasted above the dump", "[admin@mgmt01 ~]$ ibnetdiscover > fabric.txt\n" + text),
        ("a shell prompt pasted inside the dump", with_line(first_ca - 1, "admin@mgmt01:~$ ibnetdiscover")),
        ("chassis ASICs sharing a node GUID without a port GUID of their own",
         with_line(guid_lines[1], lines[guid_lines[1]].split("(")[0])),
        ("a chassis ASIC whose port GUID another switch has",
         with_line(guid_lines[1], at(guid_lines[1], "(" + lines[guid_lines[0]].split("(")[1].rstrip(")") + ")"))),
        ("bad port GUID after switchguid=", with_line(guid_lines[0], at(guid_lines[0], "(xyz)"))),
        ("two CAs with one node GUID", with_line(other_ca, lines[first_ca])),
    ]
    ok = [
        ("(N) after every switch port",
         "\n".join(re.sub(r"^\[(\d+)\]\t\"S-", lambda m: f"[{m.group(1)}]({m.group(1)})\t\"S-", l) for l in lines)),
        ("enhanced port 0 on every switch", text.replace(" base port 0 ", " enhanced port 0 ")),
    ]
    return bad, ok


class Dump(Lines):
    def __init__(self, text):
        super().__init__(text)
        self.heads = [i for i, l in enumerate(self.lines) if l.startswith("Unicast lids")]
        self.entries = [i for i, l in enumerate(self.lines) if ENTRY_RE.match(l)]


def entry(line, lid=None, port=None):
    m = ENTRY_RE.match(line)
    l = m.group(1) if lid is None else lid
    p = m.group(2) if port is None else port
    return f"0x{l} {p}{m.group(3)}"


def lft_cases(rel, rng):
    text = read(rel)
    d = Dump(text)
    out = []
    add = lambda what, t: out.append((what, t))
    for k in range(3):
        i = rng.choice(d.entries)
        off = sum(len(l) + 1 for l in d.lines[:i])
        add("truncated after '0x'", text[:off + 2])
        add("truncated before the port", text[:off + 7])
    i = rng.choice(d.heads)
    off = sum(len(l) + 1 for l in d.lines[:i])
    add("truncated inside a table header", text[:off + rng.randrange(14, 40)])
    for k in range(6):
        add("control byte", flip_ctrl(rng, text))
    blob = bytes(rng.randrange(256) for _ in range(64)).decode("latin-1")
    add("binary block inserted", d.insert(rng.choice(d.entries), "\0" + blob))
    add("binary data only", "\0\0\0\x01" + blob)
    for k in range(3):
        i = rng.choice(d.entries)
        add("port beyond the switch", d.with_line(i, entry(d.lines[i], port="%03d" % (9 + 40 * k))))
    i = rng.choice(d.entries)
    add("port 256", d.with_line(i, entry(d.lines[i], port="256")))
    add("port 99999999999999999999", d.with_line(i, entry(d.lines[i], port="99999999999999999999")))
    for k in range(3):
        i = rng.choice(d.entries)
        m = ENTRY_RE.match(d.lines[i])
        other = "%03d" % (1 if int(m.group(2)) != 1 else 2)
        add("conflicting duplicate LID line", d.insert(i + 1, entry(d.lines[i], port=other)))
    add("multicast LID", d.with_line(i, entry(d.lines[i], lid="c000")))
    add("LID beyond 16 bits", d.with_line(i, entry(d.lines[i], lid="1ffff")))
    add("LID overflowing 64 bits", d.with_line(i, entry(d.lines[i], lid="1" + "f" * 20)))
    h = rng.choice(d.heads)
    hl = d.lines[h]
    add("unknown switch (GUID and description)",
        d.with_line(h, re.sub(r"\(('?)[^()']*('?)\):$", r"(\1Nowhere\2):",
                              re.sub(r"guid 0x[0-9a-f]+", "guid 0x00000000deadbeef", hl))))
    add("LID range beyond 16 bits", d.with_line(h, re.sub(r"\[[^\]]*\]", "[0-99999999]", hl, count=1)))
    add("LID range reversed", d.with_line(h, re.sub(r"\[[^\]]*\]", "[6-2]", hl, count=1)))
    add("header without 'guid 0x'", d.with_line(h, hl.replace("guid 0x", "gid ")))
    add("second table for one switch", d.text() + "\n" + d.text(d.lines[d.heads[0]:d.heads[1] if len(d.heads) > 1 else len(d.lines)]))
    add("entry before any table", d.insert(0, d.lines[d.entries[0]]))
    add("multicast table", d.insert(0, "Multicast mlids [0xc000-0xc001] of switch Lid 2 guid 0x0000000000200000 (x):"))
    add("destination GUID not in the fabric", text.replace("portguid 0x0000000000100001", "portguid 0x00000000deadbee1", 1))
    add("malformed footer", text.replace(" lids dumped", "x lids dumped", 1).replace(" valid lids dumped", "x valid lids dumped", 1)
        if "lids dumped" in text else text + "\nx lids dumped")
    add("line longer than 4096 characters", d.insert(1, "# " + "y" * 5000))
    add("garbage line", d.insert(rng.choice(d.entries), "this is not an LFT line"))
    add("empty file", "")
    add("comments only", "# no tables\n")
    add("a .net file given as LFT dump", read(f"{LFT}/2sw4hca.net"))
    return out


def lft_odd(rel, rng):
    text = read(rel)
    d = Dump(text)
    return [("CRLF line ends", text.replace("\n", "\r\n")),
            ("blank lines and comments between tables", d.text(sum(([l] if not l.startswith("Unicast") else ["", "# table", l] for l in d.lines), []))),
            ("trailing blanks on entry lines", "\n".join(l + "  " if ENTRY_RE.match(l) else l for l in d.lines))]


def sl_base():
    cas = [0x100000, 0x100003, 0x100006, 0x100009]  # node GUIDs of Hca1..4 (port GUID - 1)
    ls = ["# path SLs of 2sw4hca: src_node_guid dlid sl"]
    for g in cas:
        for dlid in range(1, 7):
            ls.append("0x%016x %d %d" % (g, dlid, (dlid + g) % 2))
    return ls


def sl_cases(rng):
    base = sl_base()
    out = []

    def bad(what, line):
        ls = list(base[:8])
        ls.insert(rng.randrange(1, len(ls) + 1), line)
        out.append((what, "\n".join(ls) + "\n"))
    bad("two fields", "0x0000000000100000 3")
    bad("four fields", "0x0000000000100000 3 1 7")
    bad("GUID not in the fabric", "0x00000000deadbeef 3 1")
    bad("switch GUID unknown", "0x0000000000300000 3 1")
    for v in ("16", "255", "99999999999999999999999", "-1", "x"):
        bad(f"SL {v}", f"0x0000000000100000 3 {v}")
    for v in ("0xc000", "49152", "99999999999999999999999", "-3", "3.5"):
        bad(f"DLID {v}", f"0x0000000000100000 {v} 1")
    bad("malformed GUID", "0x00000000001000g0 3 1")
    bad("GUID overflowing 64 bits", "0x1" + "0" * 20 + " 3 1")
    for k in range(8):
        t = "\n".join(base[:8]) + "\n"
        out.append(("control byte", flip_ctrl(rng, t)))
    out.append(("binary data", "\0\x01\x02" + bytes(rng.randrange(256) for _ in range(40)).decode("latin-1")))
    out.append(("empty file", ""))
    out.append(("line longer than 4096 characters", "# " + "z" * 5000 + "\n"))
    for k in range(3):
        t = "\n".join(base[:8]) + "\n"
        i = t.index("\n", rng.randrange(40, len(t) - 20))
        out.append(("truncated inside a line", t[:i - rng.randrange(1, 6)] + " x\n"))
    return out


def sl2vl_base():
    ls = ["# SL2VL of 2sw4hca: swguid iport oport 0x(sl0)(sl1) ... 0x(sl14)(sl15)"]
    for sw in (0x200000, 0x200001):
        for i, o in ((0, 1), (1, 3), (3, 1), (2, 5)):
            ls.append("0x%016x %d %d" % (sw, i, o) + " 0x01" * 8)
    return ls


def sl2vl_cases(rng):
    base = sl2vl_base()
    out = []

    def bad(what, line):
        ls = list(base)
        ls.insert(rng.randrange(1, len(ls) + 1), line)
        out.append((what, "\n".join(ls) + "\n"))
    g = "0x0000000000200000"
    bad("too few bytes", f"{g} 1 3" + " 0x00" * 7)
    bad("too many bytes", f"{g} 1 3" + " 0x00" * 9)
    bad("switch GUID not in the fabric", "0x00000000deadbeef 1 3" + " 0x00" * 8)
    bad("CA GUID instead of a switch", "0x0000000000100000 1 3" + " 0x00" * 8)
    bad("in port beyond the switch", f"{g} 9 3" + " 0x00" * 8)
    bad("out port beyond the switch", f"{g} 1 99" + " 0x00" * 8)
    bad("out port 0", f"{g} 1 0" + " 0x00" * 8)
    bad("port 4294967297", f"{g} 4294967297 3" + " 0x00" * 8)
    bad("byte 0x1ff", f"{g} 1 3" + " 0x00" * 7 + " 0x1ff")
    bad("byte 99999999999999999999", f"{g} 1 3" + " 0x00" * 7 + " 99999999999999999999")
    bad("malformed byte", f"{g} 1 3" + " 0x00" * 7 + " 0xq1")
    bad("OpenSM format, VL 16", "Switch 0x0000000000200000, base LID 2, \"Switch1\"\n 1  3 : " + " ".join(["16"] + ["0"] * 15))
    bad("OpenSM format, 15 VLs", "Switch 0x0000000000200000, base LID 2, \"Switch1\"\n 1  3 : " + " ".join(["0"] * 15))
    bad("OpenSM format, port beyond the switch", "Switch 0x0000000000200000, base LID 2, \"Switch1\"\n 1  44 : " + " ".join(["0"] * 16))
    bad("OpenSM format, unknown GUID", "Switch 0x00000000deadbeef, base LID 2, \"Switch1\"\n 1  3 : " + " ".join(["0"] * 16))
    bad("OpenSM format, malformed GUID", "Switch 0xzz, base LID 2, \"Switch1\"")
    for k in range(8):
        out.append(("control byte", flip_ctrl(rng, "\n".join(base) + "\n")))
    out.append(("binary data", "\x7fELF" + bytes(rng.randrange(256) for _ in range(40)).decode("latin-1")))
    out.append(("empty file", ""))
    out.append(("line longer than 4096 characters", "0x0000000000200000 1 3" + " 0x00" * 1200 + "\n"))
    return out


BOOKSIM_BASE = "tests/data/booksim/mesh8_uniform_vc1_p16.cfg"


def booksim_cases(rng):
    """Malformed BookSim2 config files: each names file:line (the key's) or is empty."""
    base = read(BOOKSIM_BASE).split("\n")
    first = next(i for i, l in enumerate(base) if l.startswith("topology"))
    out = []

    def bad(what, line, at=None):
        ls = list(base)
        ls.insert(at if at is not None else rng.randrange(first, len(ls) - 1), line)
        out.append((what, "\n".join(ls)))
    bad("unknown key", "foo = 1;")
    bad("key BookSim2 knows, flitsim does not model", "batch_size = 100;")
    bad("speculative = 1 (not modelled)", "speculative = 1;")
    bad("hold_switch_for_packet = 1 (not modelled)", "hold_switch_for_packet = 1;")
    bad("topology dragonfly", "topology = dragonfly;", len(base) - 1)
    bad("traffic randperm", "traffic = randperm;", len(base) - 1)
    bad("routing_function min_adapt", "routing_function = min_adapt;", len(base) - 1)
    bad("num_vcs 0", "num_vcs = 0;", len(base) - 1)
    bad("num_vcs 99999999999999999999", "num_vcs = 99999999999999999999;", len(base) - 1)
    bad("k not a number", "k = eight;", len(base) - 1)
    bad("n 3 on a mesh", "n = 3;", len(base) - 1)
    bad("injection_rate 1.5", "injection_rate = 1.5;", len(base) - 1)
    bad("injection_rate nan", "injection_rate = nan;", len(base) - 1)
    bad("value list", "packet_size = {1,4};", len(base) - 1)
    bad("seed = time", "seed = time;")
    bad("missing ';'", "num_vcs = 2", len(base) - 1)
    bad("missing '='", "num_vcs 2;")
    bad("missing value", "num_vcs = ;")
    bad("not a key", "2 = 3;")
    bad("torus with 1 VC", "topology = torus;", len(base) - 1)
    for k in range(6):
        out.append(("control byte", flip_ctrl(rng, "\n".join(base), len("\n".join(base[:first])))))
    out.append(("binary data", "\0\x01\x02" + bytes(rng.randrange(256) for _ in range(40)).decode("latin-1")))
    out.append(("empty file", ""))
    out.append(("comments only", "// nothing here\n"))
    t = "\n".join(base)
    for k in range(3):
        i = t.index(";", rng.randrange(len("\n".join(base[:first])), len(t) - 40))
        out.append(("truncated inside a statement", t[:i - rng.randrange(0, 3)]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(REPO, "tests/data/bad"))
    args = ap.parse_args()
    rng = random.Random(19)
    if os.path.isdir(args.out):
        shutil.rmtree(args.out)
    for sub in ("net", "lft", "sl", "sl2vl", "booksim", "ok"):
        os.makedirs(os.path.join(args.out, sub))
    manifest = []
    seq = [0]

    def write(sub, stem, ext, text, role, base, expect, what):
        seq[0] += 1
        name = f"{sub}/{seq[0]:04d}-{stem}{ext}"
        with open(os.path.join(args.out, name), "wb") as f:
            f.write(text.encode("latin-1"))
        manifest.append("\t".join([name, role, base, expect, what]))

    def stem(rel):
        return os.path.basename(rel).split(".")[0]

    for rel in NET_BASES:
        for what, t in net_cases(rel, rng):
            write("net", stem(rel), ".net", t, "net", rel, "bad", what)
        for what, t in net_odd(rel, rng):
            write("ok", stem(rel), ".net", t, "net", rel, "ok", what)
    for rel, fab in LFT_BASES:
        ext = ".dump" if rel.endswith(".dump") else ".dump_fts"
        for what, t in lft_cases(rel, rng):
            write("lft", stem(rel), ext, t, "lft", fab + "," + rel, "bad", what)
        for what, t in lft_odd(rel, rng):
            write("ok", stem(rel), ext, t, "lft", fab + "," + rel, "ok", what)
    base = SL_FABRIC + "," + SL_DUMP
    for what, t in sl_cases(rng):
        write("sl", "2sw4hca", ".sl", t, "sl", base, "bad", what)
    sl = "\n".join(sl_base()) + "\n"
    for what, t in (("as written", sl), ("CRLF line ends", sl.replace("\n", "\r\n")),
                    ("blank lines, comments, extra blanks", sl.replace("\n", "  # c\n\n"))):
        write("ok", "2sw4hca", ".sl", t, "sl", base, "ok", what)
    for what, t in sl2vl_cases(rng):
        write("sl2vl", "2sw4hca", ".sl2vl", t, "sl2vl", base, "bad", what)
    v = "\n".join(sl2vl_base()) + "\n"
    for what, t in (("as written", v), ("CRLF line ends", v.replace("\n", "\r\n")),
                    ("blank lines and comments", v.replace("\n", "\n\n# c\n"))):
        write("ok", "2sw4hca", ".sl2vl", t, "sl2vl", base, "ok", what)
    for what, t in booksim_cases(rng):
        write("booksim", "mesh8", ".cfg", t, "booksim", BOOKSIM_BASE, "bad", what)
    b = read(BOOKSIM_BASE)
    for what, t in (("CRLF line ends", b.replace("\n", "\r\n")),
                    ("blank lines and trailing comments", b.replace(";\n", "; // c\n\n")),
                    ("statements split across lines", b.replace(" = ", "\n=\n"))):
        write("ok", "mesh8", ".cfg", t, "booksim", BOOKSIM_BASE, "ok", what)
    bad, ok = dump_cases()
    for what, t in bad:
        write("net", stem(DUMP_BASE), ".net", t, "net", DUMP_BASE, "bad", what)
    for what, t in ok:
        write("ok", stem(DUMP_BASE), ".net", t, "net", DUMP_BASE, "ok", what)
    with open(os.path.join(args.out, "MANIFEST.tsv"), "w") as f:
        f.write("# generated by scripts/gen_bad_corpus.py; do not edit\n")
        f.write("\n".join(manifest) + "\n")
    bad = sum(1 for m in manifest if "\tbad\t" in m)
    print(f"{args.out}: {bad} malformed, {len(manifest) - bad} valid-but-odd inputs")


if __name__ == "__main__":
    sys.exit(main())
