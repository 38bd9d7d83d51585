"""The fixture check the lint scripts share (check_pipefail.py, check_docs.py --expect-marked):
every line of a fixture marked as a violation must be reported, and no other line."""


def compare_marked(tool, name, lines, want, got, width=160):
    """want/got: sets of 1-based line numbers (marked / reported). Prints each miss and each false
    finding, then one summary line; returns the exit status (0 when they match and want is not
    empty)."""
    for no in sorted(want - got):
        print(f"{name}:{no}: NOT CAUGHT: {lines[no - 1].strip()[:width]}")
    for no in sorted(got - want):
        print(f"{name}:{no}: reported but marked safe: {lines[no - 1].strip()[:width]}")
    ok = want == got and len(want) > 0
    print(f"{tool}: {len(want & got)} of {len(want)} marked lines caught, "
          f"{len(got - want)} false finding(s): {'OK' if ok else 'FAIL'}")
    return 0 if ok else 1
