#!/usr/bin/env python3
"""Apply one mutation to recovered AMDGPU assembly (hsaco-recover output) for the mutant tests.

  mutate.py IN.s OUT.s KERNEL EDIT

EDIT is one of (occurrence N counts matching lines of the kernel's body, from 1):
  replace:N:REGEX=>REPL   substitute REPL for REGEX in the N-th body line REGEX matches
  none                    no change (the round trip itself: recover, rebuild)
  replace-all:REGEX=>REPL substitute REPL for REGEX in every body line it matches
  delete:N:REGEX          replace the N-th matching body line with s_nop 0
  skip-wg:MIN             workgroups with id x >= MIN end at once (their stores never happen)
  seed-only:SREG:HEXBITS  the kernel runs only when the dword at the 64-bit address in
                          s[SREG:SREG+1] equals HEXBITS (true for one input draw only)
The body starts after the kernarg-preload prologue's branch target when there is one, else at
the kernel's label. Fails (exit 1) when the edit matches nothing, so a mutant never silently
equals K0.
"""
import re
import sys


def fail(msg):
    sys.stderr.write("mutate.py: error: " + msg + "\n")
    sys.exit(1)


def kernel_range(lines, kernel):
    """(label line, first body line, end line) of KERNEL in recovered assembly. The body starts
    after the kernarg-preload compatibility prologue's branch target when there is one, else
    after the label. Raises ValueError when there is no label 'KERNEL:'."""
    start = lines.index(kernel + ":")
    end = start + 1
    while end < len(lines) and not lines[end].startswith("\t.size\t" + kernel) \
            and not re.match(r"^\s*\.end_amdhsa_kernel|^\t\.rodata|^\t\.section", lines[end]):
        end += 1
    body = start + 1
    for i in range(start + 1, min(end, start + 80)):
        if "end of the kernarg-preload compatibility prologue" in lines[i]:
            for j in range(i, end):
                if re.match(r"^\.L\w+:$", lines[j]):
                    body = j + 1
                    break
            break
    return start, body, end


def main():
    if len(sys.argv) != 5:
        fail("usage: mutate.py IN.s OUT.s KERNEL EDIT")
    src, dst, kernel, edit = sys.argv[1:]
    lines = open(src).read().split("\n")
    try:
        start, body, end = kernel_range(lines, kernel)
    except ValueError:
        fail("no label '%s:' in %s" % (kernel, src))
    kind, _, rest = edit.partition(":")
    if kind == "none":
        pass
    elif kind in ("replace", "delete"):
        count, _, pattern = rest.partition(":")
        n = int(count)
        regex, _, repl = pattern.partition("=>")
        seen = 0
        for i in range(body, end):
            if re.search(regex, lines[i]) and not lines[i].lstrip().startswith(";"):
                seen += 1
                if seen == n:
                    if kind == "replace":
                        lines[i] = re.sub(regex, repl, lines[i], count=1)
                    else:
                        lines[i] = "\ts_nop 0 ; mutant: deleted: " + lines[i].strip()
                    break
        else:
            fail("edit '%s' matches %d lines of %s's body, not %d" % (edit, seen, kernel, n))
    elif kind == "replace-all":
        regex, _, repl = rest.partition("=>")
        hits = 0
        for i in range(body, end):
            if re.search(regex, lines[i]) and not lines[i].lstrip().startswith(";"):
                lines[i] = re.sub(regex, repl, lines[i], count=1)
                hits += 1
        if hits == 0:
            fail("edit '%s' matches no line of %s's body" % (edit, kernel))
    elif kind == "skip-wg":
        text = "\n".join(lines)
        m = re.search(r"\.amdhsa_kernel %s\n(?:.*\n)*?\s*\.amdhsa_user_sgpr_count (\d+)" %
                      re.escape(kernel), text)
        if not m:
            fail("no .amdhsa_user_sgpr_count for %s" % kernel)
        wgx = int(m.group(1))
        lines[body:body] = ["\ts_cmp_ge_u32 s%d, %d ; mutant: skip workgroups x >= %d" %
                            (wgx, int(rest), int(rest)),
                            "\ts_cbranch_scc0 .Lmutant_go", "\ts_endpgm", ".Lmutant_go:"]
    elif kind == "seed-only":
        reg, bits = rest.split(":")
        r = int(reg)
        lines[body:body] = ["\ts_load_dword s100, s[%d:%d], 0x0 ; mutant: run for one input only" %
                            (r, r + 1), "\ts_waitcnt lgkmcnt(0)",
                            "\ts_cmp_eq_u32 s100, 0x%s" % bits, "\ts_cbranch_scc1 .Lmutant_go",
                            "\ts_endpgm", ".Lmutant_go:"]
    else:
        fail("unknown edit kind '%s'" % kind)
    open(dst, "w").write("\n".join(lines))


if __name__ == "__main__":
    main()
