#!/usr/bin/env python3
"""Shell scripts that stop at random, or stop without saying why.

1. Under `set -o pipefail`, a pipeline whose reader stops early fails at random.
   `X | grep -q P`, `X | head -1`, `X | awk '... exit'`, `X | sed 1q` and friends close the pipe
   as soon as they have what they need; if X writes again after that it dies of SIGPIPE (exit
   141), and with pipefail the whole pipeline fails - but only when X's output is larger than the
   pipe buffer (64 KiB on Linux) or the scheduler lets the reader finish first. That is how
   integration.install failed one CI run in a few (`dpkg-deb -c DEB | grep -q` under load) and
   how `scripts/demo.sh --net FILE` ended with exit 141 on every fabric file over 64 KiB
   (`sw_links FILE | awk '... {print; exit}'`).
   Early readers found after a `|` (not `||`): `head`; `grep` with -q/-m/-l/-L (alone or in a
   cluster such as -qx, -m1) or --quiet/--silent/--max-count/--files-with(out)-match; `sed` whose
   script has a q/Q command (`sed 1q`, `sed -n '1{p;q}'`); `awk` whose program calls `exit`
   outside its END block (the program may continue on the following lines); `read`.
   Readers that read all of their input are fine and not reported: `sed -n 1p`, `sed -n 2,5p`,
   `grep P > /dev/null`, `awk` without `exit` (or with `exit` only in END), `tail`, `wc`.
   Write instead:
     X | grep P > /dev/null            (grep without -q reads all of its input)
     X | sed -n 1p                     (instead of | head -1 / | sed 1q)
     X | awk '!done && COND {print; done=1}'   (instead of | awk 'COND {print; exit}')
     grep -q P FILE / grep -m1 P FILE  (no pipe at all)

2. A script with `set -e` ends at the first failing command, silently: bash prints nothing when a
   pipeline fails with 141 or a `grep` finds nothing. Every script that turns errexit on must
   also turn on errtrace (`set -E`, so functions and subshells report too) and install an ERR
   trap that prints the failing line and command, e.g.
     set -Eeuo pipefail
     trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "NAME: line $LINENO: \\`$BASH_COMMAND\\` failed (exit $rc)" >&2' ERR

Usage: check_pipefail.py REPO_ROOT | FILE   (exit 1 and one line per finding; a FILE is checked
whatever its name)
       check_pipefail.py --expect-marked FILE   (exit 0 only if the findings are exactly the lines
whose comment says "caught": tests/data/lint/early_reader.sh.in shows each form caught and the
safe forms left alone)
"""
import pathlib
import re
import sys

from lint_fixture import compare_marked

# After a `|` (not `||`, not `|&`).
PIPE = re.compile(r"(?<!\|)\|(?![|&])\s*")
# `grep` whose options (before the pattern) include -q/-m/-l/-L (alone or in a cluster such as
# -qx) or one of the long forms.
EARLY_GREP = re.compile(
    r"grep(?:\s+-(?!-)[A-Za-z0-9]+|\s+--[a-z-]+(?:=\S+)?)*?"
    r"\s+(?:-(?!-)[A-Za-z0-9]*[qmlL][A-Za-z0-9]*|--quiet|--silent|--max-count|--files-with-matches"
    r"|--files-without-match)\b")
HEAD_OR_READ = re.compile(r"(?:head|read)\b")
SED = re.compile(r"sed\b")
AWK = re.compile(r"(?:g|m)?awk\b")
ERREXIT = re.compile(r"^\s*set\s+(?:-[A-Za-z]*e[A-Za-z]*\b|.*-o\s+errexit\b)", re.M)
ERRTRACE = re.compile(r"^\s*set\s+(?:-[A-Za-z]*E[A-Za-z]*\b|.*-o\s+errtrace\b)", re.M)
ERR_TRAP = re.compile(r"^\s*trap\s+.*\sERR\s*$", re.M)
SKIP_DIRS = {".git", "build", "third_party"}


def scripts(root: pathlib.Path):
    if root.is_file():
        yield root, root.name
        return
    for p in sorted(root.rglob("*.sh")):
        rel = p.relative_to(root)
        if rel.parts and (rel.parts[0] in SKIP_DIRS or rel.parts[0].startswith("build")):
            continue
        yield p, rel


def shell_words(text: str, pos: int):
    """The words of the command starting at text[pos], quotes removed, up to the end of the
    command (newline, `;`, `|`, `&`, `)` outside quotes). Quoted words may span lines."""
    words, cur, i, quote, have = [], [], pos, None, False
    while i < len(text):
        c = text[i]
        if quote:
            if c == quote:
                quote = None
            elif c == "\\" and quote == '"' and i + 1 < len(text):
                i += 1
                cur.append(text[i])
            else:
                cur.append(c)
        elif c in "'\"":
            quote, have = c, True
        elif c == "\\" and i + 1 < len(text):
            if text[i + 1] != "\n":
                cur.append(text[i + 1])
            i += 1
        elif c in " \t":
            if cur or have:
                words.append("".join(cur))
            cur, have = [], False
        elif c in "\n;|&)<>#":
            break
        else:
            cur.append(c)
        i += 1
    if cur or have:
        words.append("".join(cur))
    return words


def strip_sed_text(script: str) -> str:
    """A sed script without its regexes, s/// and y/// arguments (which may contain q)."""
    out, i = [], 0
    while i < len(script):
        c = script[i]
        if c in "sy" and (i == 0 or not script[i - 1].isalnum()) and i + 1 < len(script) \
                and not script[i + 1].isalnum() and script[i + 1] not in " \n;{}\\":
            d, n, j = script[i + 1], 0, i + 2
            while j < len(script) and n < 2:
                if script[j] == "\\":
                    j += 1
                elif script[j] == d:
                    n += 1
                j += 1
            i = j
            continue
        if c == "/":
            j = i + 1
            while j < len(script) and script[j] != "/":
                j += 2 if script[j] == "\\" else 1
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def sed_quits(words) -> bool:
    scripts_, expect, positional = [], False, True
    for w in words[1:]:
        if expect:
            scripts_.append(w)
            expect = False
        elif w in ("-e", "--expression"):
            expect, positional = True, False
        elif w.startswith("--expression="):
            scripts_.append(w.split("=", 1)[1])
            positional = False
        elif w.startswith("-") and len(w) > 1:
            if w.startswith("-e") and not w.startswith("--"):
                scripts_.append(w[2:])
                positional = False
            elif w in ("-f", "--file"):
                return False  # script in a file: cannot tell
        elif positional:
            scripts_.append(w)
            break
    return any(re.search(r"(?:^|[\s;{}!0-9$])[qQ](?:\s*\d*)\s*(?:$|[;}\s])", strip_sed_text(s)) for s in scripts_)


def awk_exits(words) -> bool:
    skip = False
    for w in words[1:]:
        if skip:
            skip = False
            continue
        if w in ("-v", "-f", "-F"):
            if w == "-f":
                return False  # program in a file: cannot tell
            skip = True
            continue
        if w.startswith("-") and len(w) > 1:
            continue
        program = re.sub(r'"(?:[^"\\]|\\.)*"', '""', w)  # string literals
        program = re.sub(r"/(?:[^/\\\n]|\\.)+/", "//", program)  # regexes
        end = re.search(r"\bEND\b", program)
        head = program[:end.start()] if end else program
        return re.search(r"\bexit\b", head) is not None
    return False


def early_readers(text: str):
    """(line number, reason) of every early-exiting reader after a `|` in text."""
    found = []
    for m in PIPE.finditer(text):
        start = m.end()
        line_no = text.count("\n", 0, m.start()) + 1
        line_start = text.rfind("\n", 0, m.start()) + 1
        before = text[line_start:m.start()]
        # in a comment (outside quotes, roughly: a '#' starting a word)
        if re.search(r"(?:^|\s)#", before):
            continue
        rest = text[start:]
        if HEAD_OR_READ.match(rest) or EARLY_GREP.match(rest):
            found.append(line_no)
        elif SED.match(rest) and sed_quits(shell_words(text, start)):
            found.append(line_no)
        elif AWK.match(rest) and awk_exits(shell_words(text, start)):
            found.append(line_no)
    return sorted(set(found))


def main() -> int:
    args = sys.argv[1:]
    expect_marked = bool(args) and args[0] == "--expect-marked"
    if expect_marked:
        args = args[1:]
    root = pathlib.Path(args[0] if args else ".").resolve()
    findings = []
    checked = 0
    for path, rel in scripts(root):
        text = path.read_text(errors="replace")
        lines = text.splitlines()
        if ERREXIT.search(text) and not (ERRTRACE.search(text) and ERR_TRAP.search(text)):
            no = next(i for i, l in enumerate(lines, 1) if ERREXIT.match(l))
            findings.append(f"{rel}:{no}: set -e without set -E and an ERR trap: a failing command ends the "
                            f"script without saying why: {lines[no - 1].strip()}")
        if "pipefail" not in text:
            continue
        checked += 1
        for no in early_readers(text):
            findings.append(f"{rel}:{no}: early-exiting reader after '|' under pipefail: {lines[no - 1].strip()}")
    for f in findings:
        print(f)
    print(f"check_pipefail: {checked} pipefail scripts, {len(findings)} finding(s)")
    if expect_marked:
        lines = root.read_text(errors="replace").splitlines()
        want = {i for i, l in enumerate(lines, 1) if re.search(r"#\s*caught\b", l)}
        got = {int(f.split(":")[1]) for f in findings}
        return compare_marked("check_pipefail", root.name, lines, want, got, width=None)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
